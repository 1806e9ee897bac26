"""What to say to a question, a slash command or a button: the service's use case, its outcome rendered.

No Slack call here (bot.slack.posting sends what this returns): the answer, a choice, a refusal (private), help,
the queue view, a watch or a mute confirmed. Other teams' job names only when the service says the readers may
see them (Answered.show_names, audience_sees)."""

from __future__ import annotations

from bot.forecast.usage import Unknown
from bot.metrics import Metrics
from bot.service.ports import Service
from bot.service.results import (
    Answered,
    Asker,
    Choose,
    Muted,
    NotFound,
    Outcome,
    Refused,
    Unavailable,
    Unsupported,
    Using,
    Watching,
)
from bot.slack import render, render_who
from bot.slack.admin import AdminAnswers, admin_reply, cluster_label
from bot.slack.parse import Command, Question
from bot.slack.posting import Answer, joined, private, privately
from bot.slack.render import Links, SlackMessage
from bot.slack.render_multikueue import placement_message
from bot.trace.queueview import QueueView


class Replies:
    def __init__(
        self, service: Service, metrics: Metrics, links: Links | None = None, admin: AdminAnswers | None = None
    ) -> None:
        self.service = service
        self.metrics = metrics
        self.links = links or Links()
        self.admin = admin  # `/kueue admin`, when ADMINS is set

    async def to_question(self, question: Question, asker: Asker, language: str) -> list[SlackMessage]:
        """What to say to a question: the answer, a choice, a refusal, help... (in the cluster it names)."""
        if question.command == Command.HELP:
            return [render.help_message(language=language)]
        if question.command in (Command.MUTE, Command.UNMUTE):
            muted = await self.service.mute(asker, question.command == Command.MUTE)
            if isinstance(muted, Muted):
                return [render.muted(language=language) if muted.on else render.unmuted(language=language)]
        if question.command == Command.ADMIN:  # privately (it names every team's jobs)
            return [private(await admin_reply(self.admin, asker.user, language))]
        if question.command == Command.WHO or (question.focus == "who" and question.name):
            who = await self.who(question, asker, language)
            if who is not None:
                return [who]
        if question.focus and not question.name and question.command == Command.WHY:
            return [render.focused_which_job(question.focus, language=language)]
        if question.command == Command.WHY and not question.name:
            return [render.which_job(language=language)]
        if question.command in (Command.UNKNOWN, Command.MUTE, Command.UNMUTE) or not question.name:
            return [render.unknown_command(question.raw, language=language)]
        if question.command == Command.QUEUE:
            return [await self.queue(asker, question.namespace, question.name, language, cluster=question.cluster)]
        if question.command in (Command.WATCH, Command.UNWATCH):
            return [await self.watch(question, asker, language)]
        outcome = await self.service.ask(
            asker,
            question.name,
            namespace=question.namespace,
            kind=question.kind,
            prefer_default=True,
            cluster=question.cluster,
        )
        return self.to_outcome(outcome, language)

    async def who(self, question: Question, asker: Asker, language: str) -> SlackMessage | None:
        """Who holds a resource, cluster-wide; for "who is using X?" with X a word that could be a job's
        name, None unless X names a resource, flavor or ClusterQueue (then it is that job's holders)."""
        phrase = question.command != Command.WHO
        words = (question.name or "",) if phrase else question.subject
        found = await self.service.who(asker, words, only_if_known=phrase, cluster=question.cluster)
        if found is None:
            return None
        if isinstance(found, Using):
            return render_who.who_view(found.usage, language=language, shown=found.shown)
        if isinstance(found, Unknown):
            return render_who.unknown_subject(found, language=language)
        return self.to_outcome(found, language)[0]

    def to_outcome(self, outcome: Outcome, language: str) -> list[SlackMessage]:
        """An outcome of the service as messages: an answer is its first message alone (the steps are one
        click away: `steps`); the cluster it comes from under it when the bot serves several."""
        messages = self._outcome(outcome, language)
        cluster = outcome.cluster if isinstance(outcome, Answered | Refused | Unavailable) else ""
        if cluster and messages:
            first = messages[-1]  # the answer (after the note of a private one)
            label = {"type": "context", "elements": [{"type": "mrkdwn", "text": cluster_label(cluster, language)}]}
            messages[-1] = type(first)(first.text, [*first.blocks, label])
        return messages

    def steps(self, outcome: Answered, language: str) -> SlackMessage:
        """The steps of an answer ("Show the steps"); a MultiKueue manager's with its placement."""
        details = render.answer_details(
            outcome.explanation, language=language, show_names=outcome.show_names, outlook=outcome.outlook
        )
        if outcome.multikueue is None:
            return details
        where = placement_message(outcome.multikueue, outcome.workers, language=language)
        if len(details.blocks) + len(where.blocks) <= render.MAX_BLOCKS:
            return type(details)(details.text, [*details.blocks, *where.blocks])
        return details

    def first(self, outcome: Answered, language: str) -> SlackMessage:
        """The first message of an answer (enough to act)."""
        first = render.answer_summary(
            outcome.explanation,
            language=language,
            outlook=outcome.outlook,
            snapshot_age_seconds=self.service.age_seconds(cluster=outcome.cluster or None),
            cluster=outcome.cluster or "",
            links=self.links,
        )
        return Answer(first.text, first.blocks)

    def _outcome(self, outcome: Outcome, language: str) -> list[SlackMessage]:
        if isinstance(outcome, Answered):
            explanation = outcome.explanation
            self.metrics.questions.labels(explanation.verdict.value, "slack").inc()
            answer = self.first(outcome, language)
            if outcome.public:
                return [answer]
            return [private(m) for m in (privately(explanation.job.namespace, language), answer)]
        if isinstance(outcome, Choose):
            return [render.choose_job(list(outcome.candidates), language=language)]
        if isinstance(outcome, NotFound):
            return [
                render.not_found(
                    outcome.namespace, outcome.name, outcome.kind, list(outcome.suggestions), language=language
                )
            ]
        if isinstance(outcome, Refused):
            return [private(render.refused(outcome.namespace, language=language, cluster=outcome.cluster))]
        if isinstance(outcome, Unavailable):
            return [
                render.cluster_unavailable(self.service.age_seconds(cluster=outcome.cluster or None), language=language)
            ]
        raise TypeError(f"unexpected outcome {outcome!r}")

    async def queue(
        self, asker: Asker, namespace: str | None, name: str, language: str, *, cluster: str | None = None
    ) -> SlackMessage:
        """The queue view (a LocalQueue named without its namespace: the one the asker may see, or a choice),
        in `cluster` (or the one a `cluster/namespace` names)."""
        if namespace is None:
            namespaces = await self.service.local_queue_namespaces(asker, name, cluster=cluster)
            if len(namespaces) > 1:
                return render.choose_queue(name, namespaces, language=language)
            if not namespaces:
                return render.not_found(None, name, "LocalQueue", [], language=language)
            namespace = namespaces[0]
        cluster, found = self.service.place(cluster, namespace)
        namespace = found or namespace
        view = await self.service.queue(asker, namespace, name, cluster=cluster)
        if not isinstance(view, QueueView):
            return self.to_outcome(view, language)[0]
        waiting = [w.namespace for w in view.waiting]
        if not await self.service.audience_sees(asker, [namespace], cluster=cluster):  # to the asker only, then
            names = await self.service.may_see_all(asker, waiting, cluster=cluster)
            shown = render.queue_view(view, language=language, show_names=names)
            return private(joined(privately(namespace, language), shown))
        names = await self.service.audience_sees(asker, waiting, cluster=cluster)
        return render.queue_view(view, language=language, show_names=names)

    async def watch(self, question: Question, asker: Asker, language: str) -> SlackMessage:
        """`watch` or `unwatch` confirmed (or why not: a choice, a refusal, no store to keep it)."""
        assert question.name is not None
        on = question.command == Command.WATCH
        done = await self.service.watch(
            asker, question.name, namespace=question.namespace, kind=question.kind, on=on, cluster=question.cluster
        )
        if isinstance(done, Unsupported):
            return render.unknown_command(question.raw, language=language)
        if isinstance(done, Watching):
            confirmed = render.watch_confirmed if done.on else render.unwatch_confirmed
            return confirmed(done.namespace, done.name, language=language)
        return self.to_outcome(done, language)[0]
