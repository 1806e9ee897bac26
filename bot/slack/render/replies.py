"""Help, choices, "did you mean", not found, and the short replies (refused, apology, confirmations). Pure."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from bot.copy import render
from bot.slack.mrkdwn import code, plain
from bot.slack.render.blocks import (
    ACTION_PICK,
    ACTION_SHOW_QUEUE,
    MAX_CODE,
    MAX_LISTED_CHOICES,
    Block,
    SlackMessage,
    button_block,
    button_value,
    cap,
    code_name,
    context,
    free_text,
    header,
    job_name,
    message,
    say,
    section,
    words,
)


def help_message(*, language: str, command: str = "/kueue") -> SlackMessage:
    """The commands, each with an example."""
    ns = render("slack.help.placeholder.namespace", language=language)
    job = render("slack.help.placeholder.job", language=language)
    queue = render("slack.help.placeholder.queue", language=language)
    command = cap(command, 40)
    usage = [
        ("slack.help.why", f"{command} why <{ns}>/<{job}>"),
        ("slack.help.queue", f"{command} queue <{ns}>/<{queue}>"),
        ("slack.help.who", f"{command} who gpu"),
        ("fit.help.fit", f"{command} fit <{ns}>/<{queue}> 4 x (cpu 8, memory 32Gi)"),
        ("fit.help.quota", f"{command} quota <{ns}>/<{queue}>"),
        ("slack.help.watch", f"{command} watch <{ns}>/<{job}>"),
        ("slack.help.unwatch", f"{command} unwatch <{ns}>/<{job}>"),
        ("slack.help.mute", f"{command} mute"),
        ("slack.help.help", f"{command} help"),
    ]
    unmute = code(f"{command} unmute")
    lines = [f"• {say(key, language, example=code(example), unmute=unmute)}" for key, example in usage]
    free = say(
        "slack.help.free-text",
        language,
        first=code(render("slack.help.example.question", language=language)),
        second=code("equipe-data/train-octobre"),
        third=code("kubectl get job train-octobre -n equipe-data"),
    )
    kinds = say("slack.help.kinds", language, example=code(f"{command} why equipe-data/rayjob/ray-sweep"))
    blocks = [
        header(words("slack.help.title", language)),
        section(say("slack.help.intro", language, command=code(command))),
        section("\n".join(lines)),
        context(free, kinds),
    ]
    fallback = say("slack.help.fallback", language, example=code(f"{command} why <{ns}>/<{job}>"))
    return message(fallback, blocks)


def _pick_sections(
    choices: Sequence[tuple[str | None, str, str | None]], language: str, *, buttons: bool = True
) -> list[Block]:
    """One section a choice, its button beside it (`kueue_pick`, value {"ns","name","kind"})."""
    sections = []
    for namespace, name, kind in choices[:MAX_LISTED_CHOICES]:
        text = say(
            "slack.choose.item",
            language,
            kind=free_text(kind or render("slack.kind.any", language=language)),
            job=job_name(namespace, name),
        )
        if kind == "LocalQueue":  # a queue is shown, not explained
            value = button_value(ns=namespace, lq=name) if buttons else None
            button = button_block(words("slack.button.show-queue", language), ACTION_SHOW_QUEUE, value)
        else:
            value = button_value(ns=namespace, name=name, kind=kind) if buttons else None
            button = button_block(plain(f"{namespace}/{name}" if namespace else name), ACTION_PICK, value)
        sections.append(section(text, button if value is not None else None))
    return sections


def choose_job(candidates: list[tuple[str, str, str]], *, language: str) -> SlackMessage:
    """Several jobs answer to the question: one button each (at most 10)."""
    names = {name for _, name, _ in candidates}
    if len(names) == 1:
        title = say("slack.choose.title", language, name=code_name(next(iter(names))))
    else:
        title = say("slack.choose.title-any", language)
    blocks = [section(title), *_pick_sections(candidates, language)]
    more = len(candidates) - MAX_LISTED_CHOICES
    if more > 0:
        blocks.append(context(say("slack.choose.more", language, count=more)))
    listed = ", ".join(job_name(ns, name) for ns, name, _ in candidates[:MAX_LISTED_CHOICES])
    return message(f"{title} {listed}", blocks)


def choose_queue(name: str, namespaces: Sequence[str], *, language: str) -> SlackMessage:
    """A LocalQueue asked for without a namespace, found in several: one "Show the queue" button each."""
    title = say("slack.choose.queue", language, name=code_name(name))
    choices = [(namespace, name, "LocalQueue") for namespace in namespaces]
    blocks = [section(title), *_pick_sections(choices, language)]
    more = len(choices) - MAX_LISTED_CHOICES
    if more > 0:
        blocks.append(context(say("slack.choose.more", language, count=more)))
    listed = ", ".join(job_name(ns, n) for ns, n, _ in choices[:MAX_LISTED_CHOICES])
    return message(f"{title} {listed}", blocks)


def _split(suggestion: str, namespace: str | None) -> tuple[str | None, str]:
    if "/" in suggestion:
        ns, name = suggestion.rsplit("/", 1)  # "cluster/ns/name" keeps its cluster with the ns
        return ns or namespace, name
    return namespace, suggestion


def did_you_mean(
    query_name: str,
    suggestions: Sequence[str],
    *,
    language: str,
    namespace: str | None = None,
    kind: str | None = None,
) -> SlackMessage:
    """No job has that name; these are close ("name" or "ns/name"), one button each."""
    title = say("slack.did-you-mean.title", language, name=code_name(query_name))
    choices = [(*_split(suggestion, namespace), kind) for suggestion in suggestions]
    blocks = [section(title), *_pick_sections(choices, language)]
    listed = ", ".join(job_name(ns, name) for ns, name, _ in choices[:MAX_LISTED_CHOICES])
    return message(f"{title} {listed}".strip(), blocks)


def not_found(
    namespace: str | None, name: str, kind: str | None, suggestions: Sequence[str], *, language: str
) -> SlackMessage:
    """Nothing of that name (in that namespace); close names as buttons (a queue's button shows the queue)."""
    kind_word = free_text(kind or render("slack.kind.any", language=language))
    if namespace:
        title = say("slack.not-found.title", language, kind=kind_word, job=job_name(namespace, name))
    else:
        title = say("slack.not-found.title", language, kind=kind_word, name=code_name(name))
    blocks = [section(title)]
    if suggestions:
        blocks.append(section(say("slack.not-found.suggest", language)))
        choices = [(*_split(suggestion, namespace), kind) for suggestion in suggestions]
        blocks.extend(_pick_sections(choices, language))
    placeholder = render("slack.help.placeholder.namespace", language=language)
    example = code(f"<{placeholder}>/{cap(name, MAX_CODE)}")
    blocks.append(context(say("slack.not-found.hint", language, example=example)))
    return message(title, blocks)


def _short(text: str) -> SlackMessage:
    return message(text, [section(text)])


def refused(namespace: str | None, *, language: str, cluster: str = "") -> SlackMessage:
    """The asker may not see that namespace (of that cluster, when the bot serves several): polite, and nothing
    about what is in it."""
    if namespace and cluster:
        words = say("slack.refused.cluster", language, namespace=code_name(namespace), cluster=code_name(cluster))
        return _short(words)
    if namespace:
        return _short(say("slack.refused", language, namespace=code_name(namespace)))
    return _short(say("slack.refused", language))


def apology(incident_id: str, *, language: str) -> SlackMessage:
    """Something broke on the bot's side: sorry, and the incident id to quote."""
    return _short(":warning: " + say("slack.apology", language, incident=code_name(incident_id)))


def cluster_unavailable(age_seconds: int | float | None, *, language: str) -> SlackMessage:
    """The cluster is out of reach (and what the bot last saw of it is too old, when it saw anything)."""
    if age_seconds is None:
        return _short(":satellite_antenna: " + say("slack.unavailable", language))
    age = max(0, int(age_seconds))
    return _short(":satellite_antenna: " + say("slack.unavailable", language, age_seconds=age))


def muted(*, language: str, command: str = "/kueue") -> SlackMessage:
    return _short(say("slack.muted", language, unmute=code(f"{command} unmute")))


def unmuted(*, language: str) -> SlackMessage:
    return _short(say("slack.unmuted", language))


def watch_confirmed(namespace: str | None, name: str, *, language: str) -> SlackMessage:
    return _short(":eyes: " + say("slack.watch.confirmed", language, job=job_name(namespace, name)))


def unwatch_confirmed(namespace: str | None, name: str, *, language: str) -> SlackMessage:
    return _short(say("slack.unwatch.confirmed", language, job=job_name(namespace, name)))


def which_job(*, language: str, command: str = "/kueue") -> SlackMessage:
    """`why` without a job: how to ask."""
    examples = {"full": code(f"{command} why team-a/train-bert"), "short": code(f"{command} why train-bert")}
    return _short(say("slack.why.which-job", language, **examples))


def unknown_command(text: str, *, language: str, command: str = "/kueue") -> SlackMessage:
    help_command = code(f"{cap(command, 40)} help")
    if text.strip():
        return _short(say("slack.unknown", language, text=code(cap(text.strip(), 100)), help=help_command))
    return _short(say("slack.unknown", language, help=help_command))


def unknown_cluster(named: str, known: Sequence[str], *, language: str) -> SlackMessage:
    """A question names a cluster the bot does not serve (`--cluster X`): refused, never answered
    from another cluster; the clusters it serves, and the closest name when one is close."""
    close = difflib.get_close_matches(named, list(known), n=1, cutoff=0.6)
    words = {"cluster": code(cap(named, 63)), "known": ", ".join(code(name) for name in known)}
    if close:
        return _short(say("slack.cluster.unknown", language, suggestion=code(close[0]), **words))
    return _short(say("slack.cluster.unknown", language, **words))


def focused_which_job(focus: str, *, language: str) -> SlackMessage:
    """ "who is using the GPUs?" or "when will it run?" without a job: which one."""
    return _short(say(f"slack.focus.{'who' if focus == 'who' else 'when'}", language))
