"""bot.slack.parse: what people type to the bot, and properties that hold for any text."""

from __future__ import annotations

import dataclasses

import pytest
from bot.slack.parse import MAX_INPUT, Command, Question, is_name, is_namespace, parse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

WHY, QUEUE, WATCH, UNWATCH, HELP, UNKNOWN = (
    Command.WHY,
    Command.QUEUE,
    Command.WATCH,
    Command.UNWATCH,
    Command.HELP,
    Command.UNKNOWN,
)
BOT = "U0BOT42"

# (id, text, command, namespace, name, kind)
PHRASINGS = [
    ("english-question", "why is train-octobre pending?", WHY, None, "train-octobre", None),
    ("french-question", "pourquoi train-octobre est en attente ?", WHY, None, "train-octobre", None),
    (
        "french-nbsp-before-question-mark",
        "pourquoi train-octobre est en attente\u00a0?",
        WHY,
        None,
        "train-octobre",
        None,
    ),
    ("ns-slash-name", "equipe-data/train-octobre", WHY, "equipe-data", "train-octobre", None),
    ("why-subcommand", "why equipe-data/train-octobre", WHY, "equipe-data", "train-octobre", None),
    ("job-word-and-flag", "job train-octobre -n equipe-data", WHY, "equipe-data", "train-octobre", None),
    ("in-namespace", "train-octobre in equipe-data", WHY, "equipe-data", "train-octobre", None),
    (
        "in-namespace-word",
        "why is train-octobre in namespace equipe-data stuck",
        WHY,
        "equipe-data",
        "train-octobre",
        None,
    ),
    (
        "french-dans-le-namespace",
        "pourquoi mon job train-octobre dans le namespace equipe-data ne démarre pas ?",
        WHY,
        "equipe-data",
        "train-octobre",
        None,
    ),
    (
        "kubectl-get-yaml",
        "kubectl get job train-octobre -n equipe-data -o yaml",
        WHY,
        "equipe-data",
        "train-octobre",
        "Job",
    ),
    ("kubectl-describe-kind-slash", "kubectl describe rayjob/x --namespace=foo", WHY, "foo", "x", "RayJob"),
    ("k-alias-flags-first", "k -n ns describe jobs.batch x", WHY, "ns", "x", "Job"),
    ("kubectl-glued-n", "kubectl get job train-octobre -nequipe-data", WHY, "equipe-data", "train-octobre", "Job"),
    ("kubectl-prompt", "$ kubectl -n equipe-data get jobs train-octobre", WHY, "equipe-data", "train-octobre", "Job"),
    (
        "kubectl-pipe",
        "kubectl describe job/train-octobre -n equipe-data | less",
        WHY,
        "equipe-data",
        "train-octobre",
        "Job",
    ),
    ("kubectl-in-code", "`kubectl get job train-octobre -n equipe-data`", WHY, "equipe-data", "train-octobre", "Job"),
    ("kubectl-workload", "kubectl get workload job-x-1a2b3 -n ns", WHY, "ns", "job-x-1a2b3", "Workload"),
    ("kubectl-pod-short", "k get po my-pod -n ns", WHY, "ns", "my-pod", "Pod"),
    ("kubectl-group-version", "kubectl get rayjobs.ray.io sweep-3 -n ml", WHY, "ml", "sweep-3", "RayJob"),
    (
        "mention-and-link",
        "<@U0BOT42> why is <http://train.octobre|train.octobre> pending?",
        WHY,
        None,
        "train.octobre",
        None,
    ),
    ("mention-label-form", "<@U0BOT42|kueue> equipe-data/train-octobre", WHY, "equipe-data", "train-octobre", None),
    ("bare-link", "why is <http://train.octobre> pending", WHY, None, "train.octobre", None),
    ("mailto-ignored", "ask <mailto:bob@example.com|bob@example.com> about eval-7", WHY, None, "eval-7", None),
    ("entities", "&lt;@U1&gt; why equipe-data/train-octobre &amp; thanks", WHY, "equipe-data", "train-octobre", None),
    ("code-and-bold", "why is `train-octobre` pending in *equipe-data*?", WHY, "equipe-data", "train-octobre", None),
    ("italics", "why is _train-octobre_ pending?", WHY, None, "train-octobre", None),
    ("strike-and-punctuation", "~why~ is train-octobre pending?!…", WHY, None, "train-octobre", None),
    ("capitalised-by-phone", "Why is Train-Octobre pending??", WHY, None, "train-octobre", None),
    ("other-people-mentioned", "<@U0BOT42> <@U777> why x-1", WHY, None, "x-1", None),
    ("channel-link", "<#C123|general> why x-1", WHY, None, "x-1", None),
    ("here-broadcast", "<!here> why x-1", WHY, None, "x-1", None),
    ("rayjob-path", "rayjob/x", WHY, None, "x", "RayJob"),
    ("pytorchjob-word", "pytorchjob x -n ns", WHY, "ns", "x", "PyTorchJob"),
    ("ns-kind-name", "ns/rayjob/x", WHY, "ns", "x", "RayJob"),
    ("kind-word-and-in", "why is rayjob my-ray pending in ml", WHY, "ml", "my-ray", "RayJob"),
    ("dotted-name", "why is job.v2 pending", WHY, None, "job.v2", None),
    ("explain-verb", "explain equipe-data/train-octobre please", WHY, "equipe-data", "train-octobre", None),
    (
        "status-of",
        "status of fraud-features-backfill -n payments-ml",
        WHY,
        "payments-ml",
        "fraud-features-backfill",
        None,
    ),
    ("question-with-in", "is llama-sft-run7 in alpha-llm stuck?", WHY, "alpha-llm", "llama-sft-run7", None),
    ("slash-command-typed", "/kueue why equipe-data/train-octobre", WHY, "equipe-data", "train-octobre", None),
    ("resource-is-not-a-job", "why nvidia.com/gpu", WHY, None, None, None),
    ("pending-is-not-the-job", "why is my job pending?", WHY, None, None, None),
    ("queue-with-namespace", "queue ml-vision/vision-queue", QUEUE, "ml-vision", "vision-queue", None),
    ("queue-without-namespace", "queue vision-queue", QUEUE, None, "vision-queue", None),
    ("queue-with-flag", "queue vision-queue -n ml-vision", QUEUE, "ml-vision", "vision-queue", None),
    ("watch", "watch equipe-data/train-octobre", WATCH, "equipe-data", "train-octobre", None),
    ("suivre", "suivre equipe-data/train-octobre", WATCH, "equipe-data", "train-octobre", None),
    ("unwatch", "unwatch equipe-data/train-octobre", UNWATCH, "equipe-data", "train-octobre", None),
    ("stop-watching", "stop watching equipe-data/x", UNWATCH, "equipe-data", "x", None),
    ("watch-without-target", "watch", WATCH, None, None, None),
    ("help", "help", HELP, None, None, None),
    ("aide", "aide", HELP, None, None, None),
    ("question-mark", "?", HELP, None, None, None),
    ("empty", "", HELP, None, None, None),
    ("only-the-mention", "<@U0BOT42>", HELP, None, None, None),
    ("greeting", "bonjour", HELP, None, None, None),
    ("help-then-a-job", "help, why is train-octobre pending", WHY, None, "train-octobre", None),
    ("thanks", "thanks!", UNKNOWN, None, None, None),
    ("small-talk", "what's up", UNKNOWN, None, None, None),
    ("emoji-only", "🙂🙂", UNKNOWN, None, None, None),
    ("path-too-deep", "why is a/b/c pending", WHY, None, None, None),
    ("french-inversion", "pourquoi mon job est-il bloqué ?", WHY, None, None, None),
    ("english-contraction", "why isn't it running", WHY, None, None, None),
    ("hyphenated-verb", "can you re-check train-octobre", WHY, None, "train-octobre", None),
    ("a-number-is-not-a-name", "why is 1234 pending", WHY, None, None, None),
]


@pytest.mark.parametrize(
    ("text", "command", "namespace", "name", "kind"),
    [pytest.param(*case[1:], id=case[0]) for case in PHRASINGS],
)
def test_phrasings(text: str, command: Command, namespace: str | None, name: str | None, kind: str | None) -> None:
    question = parse(text, bot_user_id=BOT)
    assert (question.command, question.namespace, question.name, question.kind) == (command, namespace, name, kind)


def test_the_table_is_large_enough() -> None:
    assert len(PHRASINGS) >= 40
    assert len({case[0] for case in PHRASINGS}) == len(PHRASINGS)


def test_other_names_are_kept_as_candidates() -> None:
    question = parse("why is train-octobre, not eval-7, pending?")
    assert question.name == "train-octobre"
    assert question.candidates == ("eval-7",)


def test_raw_is_the_text_received_and_target_joins_namespace_and_name() -> None:
    question = parse("<@U0BOT42> why equipe-data/train-octobre", bot_user_id=BOT)
    assert question.raw == "<@U0BOT42> why equipe-data/train-octobre"
    assert question.target == "equipe-data/train-octobre"
    assert parse("why train-octobre").target == "train-octobre"
    assert parse("").target is None


def test_invalid_parts_are_noted_not_returned() -> None:
    assert "invalid-namespace" in parse("why nvidia.com/gpu").notes
    long_name = "a" * 300
    question = parse(f"why equipe-data/{long_name}")
    assert question.name is None and "invalid-name" in question.notes


def test_a_huge_text_is_cut_and_noted() -> None:
    question = parse("why train-octobre " + "blah " * 10_000)
    assert question.name == "train-octobre"
    assert "truncated" in question.notes
    assert len(question.raw) == MAX_INPUT


def test_a_mention_of_someone_else_is_not_the_bot() -> None:
    # with the bot's id known, another person's mention separates words instead of vanishing
    assert parse("why x-1<@U777>y-2", bot_user_id=BOT).name == "x-1"
    assert parse("why x-1<@U0BOT42>y-2", bot_user_id=BOT).name == "x-1y-2"


# --- properties ---------------------------------------------------------------------------------------

_LABEL = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
namespaces = st.from_regex(rf"\A{_LABEL}\Z")
names = st.from_regex(rf"\A{_LABEL}(\.{_LABEL}){{0,3}}\Z").filter(lambda n: len(n) <= 253)
# Pieces of what Slack delivers, to reach the parser's corners more often than random text does.
pieces = st.sampled_from(
    [
        "why ",
        "pourquoi ",
        "queue ",
        "watch ",
        "unwatch ",
        "help",
        "?",
        " ",
        "\n",
        "\u00a0",
        "/",
        "//",
        "-n ",
        "-n=",
        "--namespace=",
        "-o yaml ",
        "kubectl ",
        "k ",
        "get ",
        "describe ",
        "job ",
        "rayjob",
        "jobs.batch",
        "in ",
        "dans ",
        "namespace ",
        "<@U0BOT42>",
        "<@U777|bob>",
        "<!channel>",
        "<#C1|x>",
        "<http://a.b|a.b>",
        "<mailto:a@b.c>",
        "&lt;",
        "&gt;",
        "&amp;",
        "<",
        ">",
        "|",
        "`",
        "*",
        "_",
        "~",
        "train-octobre",
        "equipe-data",
        "x",
        ".",
        "-",
        "é",
        "İ",
        "ﬁ",
        "🙂",
        "A" * 70,
        "a" * 254,
    ]
)
slackish = st.lists(pieces, max_size=30).map("".join)
any_text = st.one_of(st.text(max_size=300), slackish)


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_parse_never_raises_and_returns_only_valid_names(text: str) -> None:
    question = parse(text, bot_user_id=BOT)
    assert isinstance(question, Question)
    assert question.namespace is None or is_namespace(question.namespace)
    assert question.name is None or is_name(question.name)
    assert all(is_name(candidate) for candidate in question.candidates)


@settings(max_examples=200, deadline=None)
@given(namespaces, names)
def test_namespace_slash_name_round_trips(namespace: str, name: str) -> None:
    # "job/x", "rayjob/x" name a kind: a namespace spelled like a kind is read as the kind, by design
    assume(parse(f"{namespace}/x").kind is None)
    question = parse(f"{namespace}/{name}")
    assert (question.command, question.namespace, question.name, question.kind) == (WHY, namespace, name, None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_text, st.data(), st.sampled_from(["<@U0BOT42>", "<@U0BOT42|kueue-bot>"]))
def test_a_bot_mention_anywhere_changes_nothing(text: str, data: st.DataObject, mention: str) -> None:
    at = data.draw(st.integers(min_value=0, max_value=len(text)))
    with_mention = text[:at] + mention + text[at:]
    expected = dataclasses.replace(parse(text, bot_user_id=BOT), raw="")
    assert dataclasses.replace(parse(with_mention, bot_user_id=BOT), raw="") == expected


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=50))
def test_without_a_known_bot_id_any_mention_counts_as_the_bot(text: str) -> None:
    with_mention = dataclasses.replace(parse(f"<@U0BOT42> {text}"), raw="")
    assert with_mention == dataclasses.replace(parse(f" {text}"), raw="")


@pytest.mark.parametrize(
    ("text", "command"),
    [("mute", Command.MUTE), ("<@U0BOT> mute", Command.MUTE), ("sourdine", Command.MUTE), ("unmute", Command.UNMUTE)],
)
def test_mute_and_unmute(text: str, command: Command) -> None:
    assert parse(text, bot_user_id="U0BOT").command == command


def test_mute_is_only_the_word_alone() -> None:
    assert parse("why is mute pending?").command == Command.WHY
