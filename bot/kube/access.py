"""SubjectAccessReviews: "may this Kubernetes identity get Kueue Workloads in that namespace?", asked of the
API server (POST /apis/authorization.k8s.io/v1/subjectaccessreviews). A question, never a change; the bot's
ClusterRole grants `create subjectaccessreviews` for it (deploy/README.md).

The answer is the API server's own authorizers' (RBAC, webhooks...): the bot never shows a Slack user more than
`kubectl get workloads -n <namespace>` would show them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.kube.client import KubeClient
from bot.kube.kinds import KUEUE_GROUP
from bot.kube.ondemand import CacheSource

log = logging.getLogger(__name__)

SUBJECT_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"


def review_body(user: str, groups: Sequence[str], namespace: str) -> dict[str, Any]:
    """The SubjectAccessReview for `get workloads.kueue.x-k8s.io` in `namespace` ("": in every namespace)."""
    spec: dict[str, Any] = {
        "user": user,
        "resourceAttributes": {"namespace": namespace, "verb": "get", "group": KUEUE_GROUP, "resource": "workloads"},
    }
    if groups:
        spec["groups"] = list(groups)
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}


class AccessReviewer:
    """`await reviewer(user, groups, namespace) -> allowed`, the review port of bot.access.SubjectAccessPolicy.

    Raises what KubeClient raises (ClusterUnavailable; Forbidden when the bot may not create reviews)."""

    def __init__(self, client: KubeClient) -> None:
        self.client = client

    def review(self, user: str, groups: Sequence[str], namespace: str) -> bool:
        """Blocking: call it from a worker thread."""
        answer = self.client.create(
            SUBJECT_ACCESS_REVIEWS, review_body(user, groups, namespace), what="an access review"
        )
        status = answer.get("status")
        if not isinstance(status, dict):
            return False
        return status.get("allowed") is True and status.get("denied") is not True

    async def __call__(self, user: str, groups: tuple[str, ...], namespace: str) -> bool:
        return await asyncio.to_thread(self.review, user, groups, namespace)


def source_reviewers(sources: Mapping[str, object]) -> dict[str, AccessReviewer]:
    """A reviewer over each cluster source's own client (a source without one, such as a dump, has
    none), so that each cluster's SubjectAccessReviews go to its own API server."""
    found: dict[str, AccessReviewer] = {}
    for name, source in sources.items():
        if isinstance(source, CacheSource):
            found[name] = AccessReviewer(source.ondemand.client)
    return found


def cluster_reviewer(kubeconfig: str | None, context: str | None) -> tuple[AccessReviewer, Callable[[], None]]:
    """SubjectAccessReviews over the bot's own Kubernetes credentials, and how to close them (raises
    ClusterUnavailable without any)."""
    from bot.kube.client import load_api_client

    api_client = load_api_client(kubeconfig, context)
    return AccessReviewer(KubeClient(api_client)), api_client.close
