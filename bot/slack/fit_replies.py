"""What to say to "will this fit?", `/kueue fit`, the "Will it fit?" message shortcut and `/kueue quota`: the
service's dry run (bot.service.fitting) rendered (bot.slack.render.fit). An answer about a namespace that some
reader of the channel may not see goes to the asker only, as for questions."""

from __future__ import annotations

from bot.fit.quota import QueueQuota
from bot.service.fitting import BadJob, Fitted
from bot.service.ports import Service
from bot.service.results import Asker, Refused
from bot.slack import render
from bot.slack.fitparse import FitAsk
from bot.slack.posting import joined, private, privately
from bot.slack.render import SlackMessage
from bot.slack.render.blocks import free_text
from bot.slack.render.fit import fit_message, quota_message, short

_SHORT = {"no-yaml": "fit.slack.no-yaml", "bad-spec": "fit.slack.bad-spec", "quota-usage": "queue-quota.usage"}


async def _shown(
    service: Service, asker: Asker, namespace: str, answer: SlackMessage, language: str, cluster: str | None
) -> SlackMessage:
    if await service.audience_sees(asker, [namespace], cluster=cluster):
        return answer
    return private(joined(privately(namespace, language), answer))


async def fit_reply(
    service: Service, ask: FitAsk, asker: Asker, language: str, *, cluster: str | None = None
) -> list[SlackMessage]:
    """The messages that answer `ask` (one, usually), in `cluster` (the one the question names, if any)."""
    if ask.what in _SHORT:
        return [private(short(_SHORT[ask.what], language))]
    if ask.what == "quota":
        return [await _quota(service, ask, asker, language, cluster)]
    if ask.what == "spec" and ask.spec is not None:
        result: object = await service.fit_spec(asker, ask.spec, cluster=cluster)
    else:
        result = await service.fit_text(asker, ask.text, cluster=cluster)
    if isinstance(result, BadJob):
        return [private(short("fit.slack.bad-job", language, reason=free_text(result.reason)))]
    if isinstance(result, Fitted):
        fitting = result.fitting
        namespace = fitting.job.meta.namespace or ""
        now = service.clock()
        as_of = now.strftime("%Y-%m-%d %H:%M UTC")
        show = await service.audience_sees(asker, [namespace], cluster=cluster)
        answer = fit_message(fitting, language=language, show_names=show, as_of=as_of, at=now)
        return [await _shown(service, asker, namespace, answer, language, cluster)]
    return [_other(service, result, language, cluster)]


async def _quota(service: Service, ask: FitAsk, asker: Asker, language: str, cluster: str | None) -> SlackMessage:
    namespace = ask.namespace or await service.default_namespace(asker, cluster=cluster) or "default"
    result = await service.quota(asker, namespace, ask.local_queue, cluster=cluster)
    if isinstance(result, QueueQuota):
        return await _shown(service, asker, namespace, quota_message(result, language=language), language, cluster)
    return _other(service, result, language, cluster)


def _other(service: Service, result: object, language: str, cluster: str | None) -> SlackMessage:
    if isinstance(result, Refused):
        return private(render.refused(result.namespace, language=language))
    return render.cluster_unavailable(service.age_seconds(cluster=cluster), language=language)
