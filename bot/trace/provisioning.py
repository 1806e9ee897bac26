"""Kueue's ProvisioningRequest admission check, read down to the cluster autoscaler's answer.

For a Workload that holds quota, the check (controller kueue.x-k8s.io/provisioning-request) makes a
ProvisioningRequest named <workload>-<check>-<attempt> (pkg/controller/admissionchecks/provisioning/
provisioning.go:55-58) and mirrors its conditions into the check's state (controller.go:609-679):

* no condition yet: the check stays Pending with no message, the autoscaler has not answered;
* Accepted and Provisioned=False: Pending, the Provisioned message (the autoscaler's ETA) copied;
* Provisioned: Ready, with podSetUpdates (a nodeSelector for the new nodes) for the pods;
* Failed, or BookingExpired before admission: Retry ("Retrying after failure: ...", "Retrying after booking
  expired: ...") while the attempt is <= retryStrategy.backoffLimitCount, with requeueAfterSeconds from
  the backoff base*2^(n-1) capped at the maximum (pkg/workload/admissionchecks.go:230-242); past the limit
  Rejected with the autoscaler's message;
* CapacityRevoked while active: Rejected (the nodes are gone), which deactivates the Workload;
* the check inactive (no config): Pending "the check is not active"; no request needed: Ready "the
  provisioning request is not needed" (constants.go).

Pure: reads the snapshot only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.trace.codes import Outcome
from bot.trace.explanation import Params
from bot.trace.model import (
    PROVISIONING_CONTROLLER,
    CheckState,
    ProvisioningConfig,
    ProvisioningRequest,
    Workload,
)
from bot.trace.walk import Walk

CHECK_INACTIVE = "the check is not active"
_CONDITIONS = ("Accepted", "Provisioned", "Failed", "BookingExpired", "CapacityRevoked")
DEFAULT_RETRY_LIMIT = 3  # retryStrategy.backoffLimitCount's default (provisioningrequestconfig_types.go:77)


@dataclass(frozen=True)
class Attempt:
    request: ProvisioningRequest
    number: int | None  # the <attempt> suffix of its name (None: a hashed long name)

    def is_true(self, kind: str) -> bool:
        condition = self.request.condition(kind)
        return condition is not None and condition.is_true

    @property
    def state(self) -> str:
        """The autoscaler's answer, as Kueue's controller reads it (the order of its switch)."""
        for kind in ("Failed", "CapacityRevoked", "BookingExpired", "Provisioned", "Accepted"):
            if self.is_true(kind):
                return kind
        return "NoAnswer"


def is_provisioning(walk: Walk, check: CheckState) -> bool:
    known = walk.snapshot.admission_check(check.name)
    return known is not None and known.controller == PROVISIONING_CONTROLLER


def config_of(walk: Walk, check: CheckState) -> ProvisioningConfig | None:
    known = walk.snapshot.admission_check(check.name)
    if known is None or known.parameters[0] not in ("", "ProvisioningRequestConfig") or not known.parameters[1]:
        return None
    return walk.snapshot.provisioning_config(known.parameters[1])


def attempts(walk: Walk, workload: Workload, check: str) -> list[Attempt]:
    """The check's ProvisioningRequests for the Workload, oldest attempt first."""
    prefix = f"{workload.name}-{check}-"
    found: list[Attempt] = []
    for request in walk.snapshot.provisioning_requests_in(workload.namespace):
        suffix = request.meta.name[len(prefix) :] if request.meta.name.startswith(prefix) else ""
        if suffix.isascii() and suffix.isdigit() and len(suffix) < 6:
            found.append(Attempt(request, int(suffix)))
        elif any(o.kind == "Workload" and o.name == workload.name for o in request.meta.owners) and check in (
            request.meta.name
        ):
            found.append(Attempt(request, None))
    return sorted(found, key=lambda a: (a.number or 0, a.request.meta.created or walk.now))


def _conditions_text(request: ProvisioningRequest) -> str:
    parts = []
    for kind in _CONDITIONS:
        condition = request.condition(kind)
        if condition is None:
            continue
        reason = f" ({condition.reason})" if condition.reason and condition.reason != kind else ""
        parts.append(f"{kind}={condition.status}{reason}")
    return ", ".join(parts)


def _unsaid(request: ProvisioningRequest, kind: str, said: str) -> str:
    """A condition's message, unless Kueue already copied it into the check's message."""
    condition = request.condition(kind)
    message = condition.message.strip() if condition is not None else ""
    return "" if not message or message in said else message


def check_steps(walk: Walk, workload: Workload, check: CheckState) -> None:
    """The provisioning check's request, the autoscaler's conditions, the retries and what to do."""
    if check.message.strip() == CHECK_INACTIVE:
        walk.step("admission-checks", Outcome.FAIL, "admission-checks.provisioning-inactive", {"check": check.name})
        walk.act("ask-admin-check", {"check": check.name})
        return
    config = config_of(walk, check)
    tries = attempts(walk, workload, check.name)
    latest = tries[-1] if tries else None
    limit = config.retry_limit if config is not None else DEFAULT_RETRY_LIMIT
    if latest is None:
        if check.state == "Pending":
            walk.step("admission-checks", Outcome.INFO, "admission-checks.provisioning-none", {"check": check.name})
        _retry_step(walk, check, limit, config)
        return
    request = latest.request
    params: Params = {
        "request": request.meta.name,
        "attempt": latest.number,
        "attempts": limit + 1,
        "conditions": _conditions_text(request) or "-",
        "class": request.class_name,
    }
    state = latest.state
    outcome = Outcome.PASS if state == "Provisioned" else Outcome.FAIL if state != "Accepted" else Outcome.INFO
    walk.step("admission-checks", outcome, "admission-checks.provisioning-request", params, state=state)
    extra = _unsaid(request, state if state != "Accepted" else "Provisioned", check.message)
    if extra:
        walk.step("admission-checks", Outcome.INFO, "admission-checks.provisioning-said", {"message": extra})
    _retry_step(walk, check, limit, config)
    _advice(walk, check, latest, limit)


def _retry_step(walk: Walk, check: CheckState, limit: int, config: ProvisioningConfig | None) -> None:
    retries = check.retry_count or 0
    if not retries and check.state != "Retry":
        return
    params: dict[str, str | int | None] = {
        "retries": retries,
        "limit": limit,
        "config": config.meta.name if config else None,
    }
    if check.state == "Retry" and check.requeue_after_seconds is not None:
        params["after_seconds"] = check.requeue_after_seconds
    walk.step("admission-checks", Outcome.INFO, "admission-checks.provisioning-retries", params, retries=retries)


def _advice(walk: Walk, check: CheckState, latest: Attempt, limit: int) -> None:
    state = latest.state
    if check.state == "Rejected" and state == "CapacityRevoked":
        walk.act("provisioning-revoked", {"check": check.name})
    elif check.state == "Rejected":
        walk.act("provisioning-gave-up", {"attempts": limit + 1, "class": latest.request.class_name})
    elif state == "NoAnswer":
        walk.act("ask-admin-autoscaler", {"request": latest.request.meta.name, "class": latest.request.class_name})


def pod_set_update_steps(walk: Walk, checks: Sequence[CheckState]) -> None:
    """What Ready checks add to the pods (the nodeSelector of the provisioned nodes)."""
    for check in checks:
        if check.state != "Ready":
            continue
        for update in check.pod_set_updates:
            selector = ", ".join(f"{k}={v}" for k, v in sorted(update.node_selector.items()))
            if not selector:
                continue
            params = {"check": check.name, "pod_set": update.name, "selector": selector}
            walk.step("admission-checks", Outcome.INFO, "admission-checks.pod-set-updates", params)
