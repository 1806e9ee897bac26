"""A person's watches (with a state store only): watch or unwatch a job, mute every DM, snooze or stop the
DMs about a job (a DM's buttons, the App Home's Stop), and the App Home's list."""

from __future__ import annotations

from bot.errors import BadQuery, BotError
from bot.service.ask import Asking
from bot.service.results import (
    SILENCE_FOR,
    Answered,
    Asker,
    Muted,
    Outcome,
    Refused,
    Silence,
    Silenced,
    Unsupported,
    Watching,
)
from bot.trace.explanation import Explanation

HOME_TOLD = 20  # the jobs the App Home lists beside the watched ones (each is explained when the Home opens)


class PersonalWatches(Asking):
    """A person's watches, mute and snoozes (`watch` finds a job named alone as `ask` does)."""

    async def watch(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        on: bool = True,
        cluster: str | None = None,
    ) -> Watching | Outcome | Unsupported:
        """`watch` (on) or `unwatch` a job, in a namespace the asker may see. A job named without its namespace is
        looked for as a question is (an audited `ask`, the default namespace not preferred); several matches
        give Choose."""
        if namespace is None:
            outcome = await self.ask(asker, name, namespace=None, kind=kind)
            if not isinstance(outcome, Answered):
                return outcome
            namespace = outcome.explanation.job.namespace
        if not await self.may_see_all(asker, [namespace]):
            return Refused(namespace)
        if self.watches is None:
            return Unsupported()
        if on:
            await self.watches.watch(asker.user, namespace, name, kind, self.clock())
        else:
            await self.watches.unwatch(asker.user, namespace, name)
        return Watching(namespace, name, on)

    async def mute(self, asker: Asker, on: bool) -> Muted | Unsupported:
        """A person's mute: no proactive DM at all until unmuted (questions are still answered)."""
        if self.watches is None:
            return Unsupported()
        await (self.watches.mute(asker.user, self.clock()) if on else self.watches.unmute(asker.user))
        return Muted(on)

    async def silence(
        self, asker: Asker, how: Silence, namespace: str | None, name: str | None, *, cluster: str | None = None
    ) -> Silenced | Unsupported:
        """Snooze or stop the DMs about namespace/name for the asker (a DM's buttons, the Home's Stop). The
        asker must be allowed to see the namespace, as for a question (no cluster read is needed, so none is
        made). BadQuery for a button that names no job (a crafted payload)."""
        if self.watches is None:
            return Unsupported()
        if not namespace or not name or "/" in namespace or "/" in name:
            raise BadQuery("the button names no job")
        if not await self.policy.may_see(asker.user, asker.channel, namespace):
            return Silenced(namespace, name, None, refused=True)
        until = self.clock() + SILENCE_FOR[how]
        await self.watches.snooze(asker.user, namespace, name, until)
        if how == Silence.STOP:
            await self.watches.unwatch(asker.user, namespace, name)
            return Silenced(namespace, name, None)
        return Silenced(namespace, name, until)

    async def home(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        """The App Home: each job the user watches with its explanation now (None when it cannot be had)."""
        if self.watches is None:
            return []
        watched: list[tuple[str, str, Explanation | None]] = []
        for namespace, name, kind in await self.watches.watched(user):
            try:
                explanation: Explanation | None = (await self.explain_job(namespace, name, kind))[0]
            except BotError:
                explanation = None
            watched.append((namespace, name, explanation))
        return watched

    async def home_told(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        """The App Home's other jobs: those the bot tells the user about (their notify annotations name them)
        or a namespace's channel about (NAMESPACE_NOTIFY), in namespaces the user may see, not watched; at most
        HOME_TOLD, each with its explanation now."""
        if self.watches is None:
            return []
        watched = {(namespace, name) for namespace, name, _ in await self.watches.watched(user)}
        asker = Asker(user, "")
        listed: list[tuple[str, str, Explanation | None]] = []
        for namespace, name in await self.watches.told(user):
            if len(listed) >= HOME_TOLD:
                break
            if (namespace, name) in watched or not await self.may_see_all(asker, [namespace]):
                continue
            try:
                explanation: Explanation | None = (await self.explain_job(namespace, name, None))[0]
            except BotError:
                explanation = None
            listed.append((namespace, name, explanation))
        return listed
