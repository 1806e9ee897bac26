"""The copy catalogue: every key the engine uses exists in every language, the languages agree on their
placeholders, render() falls back sensibly, durations read naturally."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from bot.copy import CATALOGUES, DEFAULT_LANGUAGE, _value, duration, en, fr, language_of, render
from bot.terminal import render_text
from bot.trace import messages
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation, Text

from tests.builders import explain_objects
from tests.unit.test_explain import CASES, POSITIONS, QUEUE
from tests.unit.test_goldens import FOLDERS, explain_scenario

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
ENGINE = Path(__file__).resolve().parents[2] / "bot"


def explanations() -> Iterator[Explanation]:
    for folder in FOLDERS:
        yield explain_scenario(folder)
    for case in CASES:
        yield case.run()
    for name, ns, _, _ in POSITIONS:
        yield explain_objects(QUEUE, name, namespace=ns)


def texts(explanation: Explanation) -> Iterator[Text]:
    yield explanation.headline
    for step in explanation.steps:
        yield step.text
    for action in explanation.actions:
        yield action.text


USED = sorted({t.key for e in explanations() for t in texts(e)})


def alternatives(key: str, language: str) -> tuple[str, ...]:
    entry = CATALOGUES[language][key]
    return (entry,) if isinstance(entry, str) else entry


def placeholders(template: str) -> set[str]:
    return set(PLACEHOLDER.findall(template))


def test_the_engine_was_exercised_widely() -> None:
    assert len(USED) > 80


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_every_key_the_engine_used_exists(language: str) -> None:
    missing = [key for key in USED if key not in CATALOGUES[language]]
    assert not missing


STEP_NAMES = (
    "job",
    "workload",
    "demand",
    "conditions",
    "local-queue",
    "cluster-queue",
    "flavors",
    "quota",
    "position",
    "admission-checks",
    "scheduling",
)


def _static_keys() -> set[str]:
    """Keys written out in the engine's source: step codes (any "<step>.<what>" literal), actions, and the
    terminal's labels; so a path no test reaches is checked too."""
    paths = sorted([*(ENGINE / "trace").glob("*.py"), *(ENGINE / "forecast").glob("*.py")])
    source = "\n".join(path.read_text(encoding="utf-8") for path in paths)
    steps = "|".join(re.escape(step) for step in STEP_NAMES)
    literals = re.findall(rf'"((?:{steps})\.[a-z-]+)"', source)
    actions = re.findall(r'(?:walk\.act\(|_simply\()\s*"([^"]+)"', source)
    fragments = re.findall(r'Text\(\s*"((?:fragment|note)\.[a-z-]+)"', source)
    labels = re.findall(r"render\(\s*['\"](label\.[a-z-]+)['\"]", (ENGINE / "terminal.py").read_text(encoding="utf-8"))
    return {*literals, *(f"action.{a}" for a in actions), *fragments, *labels}


def test_the_static_scan_finds_the_keys() -> None:
    keys = _static_keys()
    assert {"workload.found", "quota.never-fits", "action.wait", "label.verdict"} <= keys
    assert {"fragment.taint", "fragment.missing-flavors", "note.cut-by-kueue", "note.total-nodes"} <= keys


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_every_key_named_in_the_engine_exists(language: str) -> None:
    assert not sorted(_static_keys() - set(CATALOGUES[language]))


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_every_verdict_has_a_headline(language: str) -> None:
    assert not [v.value for v in Verdict if f"headline.{v.value}" not in CATALOGUES[language]]


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_every_cause_kueue_can_state_has_a_sentence(language: str) -> None:
    assert not [c.value for c in messages.Cause if f"record.{c.value}" not in CATALOGUES[language]]


def test_french_has_exactly_the_english_keys() -> None:
    assert set(fr.CATALOGUE) == set(en.CATALOGUE)


@pytest.mark.parametrize("key", sorted(en.CATALOGUE))
def test_languages_agree_on_placeholders(key: str) -> None:
    english = [placeholders(t) for t in alternatives(key, "en")]
    french = [placeholders(t) for t in alternatives(key, "fr")]
    assert french == english


@pytest.mark.parametrize("key", sorted(en.CATALOGUE))
def test_alternatives_go_from_most_to_least_detailed(key: str) -> None:
    """The first alternative whose placeholders are all given wins: a later one asking for more than an
    earlier one could never be reached when both can be filled."""
    sets = [placeholders(t) for t in alternatives(key, "en")]
    for earlier, later in itertools.pairwise(sets):
        assert not later > earlier, (earlier, later)


def _all_params(key: str) -> dict[str, object]:
    names = set().union(*(placeholders(t) for lang in CATALOGUES for t in alternatives(key, lang)))
    return {name: 90 if name.endswith("_seconds") else f"<{name}>" for name in names}


@pytest.mark.parametrize("language", sorted(CATALOGUES))
@pytest.mark.parametrize("key", sorted(en.CATALOGUE))
def test_every_sentence_renders_cleanly(key: str, language: str) -> None:
    sentence = render(key, _all_params(key), language)
    assert sentence.strip()
    assert not PLACEHOLDER.search(sentence), sentence
    assert "{{" not in sentence, sentence  # a str.format escape left in a sentence (JSON may end in "}}")


def test_render_takes_the_first_alternative_it_can_fill() -> None:
    key = "headline.waiting-for-quota"
    base = {"job": "ns/j", "cluster_queue": "cq"}
    full = render(key, {**base, "needed": "2", "resource": "cpu", "flavor": "f", "position": 3, "ahead": 2})
    assert "2 more cpu" in full and "Position 3" in full
    assert "Position" not in render(key, {**base, "needed": "2", "resource": "cpu", "flavor": "f"})
    assert render(key, base) == "ns/j waits for capacity that others use now in ClusterQueue cq."


def test_render_falls_back() -> None:
    assert render("no.such.key", {"a": 1}) == "no.such.key"
    assert render("label.verdict", language="de") == render("label.verdict", language="en")
    assert render("label.steps", language="fr") == fr.CATALOGUE["label.steps"]
    # nothing can be filled: the last alternative, with "?" for what is missing
    # Nothing to fill any alternative: the shortest one, with "?" for what is missing.
    assert render("headline.deactivated", {}) == alternatives("headline.deactivated", "en")[-1].replace("{job}", "?")
    assert render("label.none", None) == "none"


def test_durations_are_written_in_the_language() -> None:
    assert render("workload.found", {"workload": "w", "how": "name", "age_seconds": 7500}) == (
        "Workload w represents the job (found by name), created 2 h 5 min ago."
    )
    assert render("workload.found", {"workload": "w", "how": "name", "age_seconds": 4320}, "fr").endswith(
        "créé il y a 1 h 12 min."
    )
    assert render("slack.summary.age", {"age_seconds": 0}) == "as of just now"
    assert render("slack.summary.age", {"age_seconds": 59}, "fr") == "état vu à l'instant"
    assert render("slack.summary.age", {"age_seconds": 4320}) == "as of 1 h 12 min ago"
    assert render("slack.closed.admitted", {"job": "j", "waited_seconds": 3900}) == "j was admitted after 1 h 5 min."
    assert "2 j 7 h" in render("workload.found", {"workload": "w", "how": "name", "age_seconds": 198000}, "fr")
    # a parameter ending in _seconds that is not a number is shown as it is
    assert "soon" in render("workload.found", {"workload": "w", "how": "name", "age_seconds": "soon"})


DURATIONS = [
    (0, "en", "0 s"),
    (-5, "en", "0 s"),
    (42, "en", "42 s"),
    (59, "en", "59 s"),
    (60, "en", "1 min"),
    (2520, "en", "42 min"),
    (3599, "en", "59 min"),
    (3600, "en", "1 h"),
    (7500, "en", "2 h 5 min"),
    (4320, "fr", "1 h 12 min"),
    (86399, "en", "23 h 59 min"),
    (86400, "en", "1 d"),
    (200000, "en", "2 d 7 h"),
    (200000, "fr", "2 j 7 h"),
    (172800, "fr", "2 j"),
]


@pytest.mark.parametrize(
    ("seconds", "language", "expected"), DURATIONS, ids=[f"{s}-{lang}" for s, lang, _ in DURATIONS]
)
def test_duration(seconds: int, language: str, expected: str) -> None:
    assert duration(seconds, language) == expected


LOCALES = [
    ("fr", "fr"),
    ("fr-FR", "fr"),
    ("fr_CA", "fr"),
    ("FR", "fr"),
    ("en-GB", "en"),
    ("de-DE", DEFAULT_LANGUAGE),
    ("", DEFAULT_LANGUAGE),
    (None, DEFAULT_LANGUAGE),
]


@pytest.mark.parametrize(("locale", "expected"), LOCALES, ids=[repr(loc) for loc, _ in LOCALES])
def test_language_of(locale: str | None, expected: str) -> None:
    assert language_of(locale) == expected


def test_language_of_with_a_default() -> None:
    assert language_of("de", default="fr") == "fr"
    assert language_of("de", default="xx") == DEFAULT_LANGUAGE


def test_the_reactivate_advice_is_a_command_that_works() -> None:
    """The advice is pasted into a shell: its JSON patch must be JSON, not str.format escapes."""
    for language in CATALOGUES:
        advice = render("action.reactivate", {"namespace": "ns", "workload": "wl"}, language)
        assert '-p \'{"spec":{"active":true}}\'' in advice, advice


def test_the_terminal_speaks_the_reader_language() -> None:
    """Every user-visible word lives in the catalogue (STYLE.md habit 7), the terminal's included."""
    explanation = explain_objects(QUEUE, "train")
    assert explanation.position is not None
    output = render_text(explanation, language="fr")
    position_line = next(
        line for line in output.splitlines() if line.startswith(render("label.position", language="fr"))
    )
    assert " in ClusterQueue " not in position_line, position_line
    assert " in LocalQueue " not in position_line, position_line


_PLURAL = re.compile(r"\{([a-z_]+)\|([^{}|]*)\|([^{}|]*)\}")


def _plural(template: str, values: Mapping[str, object], language: str) -> str:
    """`{n|one|many}` said for its number (1 in English, 0 and 1 in French: the singular); `many` without it."""

    def word(match: re.Match[str]) -> str:
        count = values.get(match.group(1))
        one = isinstance(count, int) and not isinstance(count, bool) and count in ((0, 1) if language == "fr" else (1,))
        return match.group(2) if one else match.group(3)

    return _PLURAL.sub(word, template)


def _render_by_regex(key: str, params: Mapping[str, object], language: str) -> str:
    """render() as it was written first: every placeholder found and substituted by the regular expression."""
    values = dict(params)
    for name, value in list(values.items()):
        if name.endswith("_seconds"):
            values.setdefault(name.removesuffix("_seconds") + "_ago", value)
    for catalogue in (CATALOGUES.get(language, {}), CATALOGUES[DEFAULT_LANGUAGE]):
        entry = catalogue.get(key)
        if entry is None:
            continue
        for template in (entry,) if isinstance(entry, str) else entry:
            numbers = [m.group(1) for m in _PLURAL.finditer(template)]
            template = _plural(template, values, language)
            if all(name in values for name in [*PLACEHOLDER.findall(template), *numbers]):
                return PLACEHOLDER.sub(lambda m: _value(m.group(1), values[m.group(1)], language), template)
        last = _PLURAL.sub(lambda m: m.group(3), entry if isinstance(entry, str) else entry[-1])
        return PLACEHOLDER.sub(lambda m: _value(m.group(1), values.get(m.group(1), "?"), language), last)
    return key


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_templates_split_once_render_as_the_regular_expression_did(language: str) -> None:
    """copy._parts splits each template once; what render() says is what substituting by the expression says,
    for every key with every placeholder given (a number, a duration, None), some missing, or none."""
    for key, entry in sorted(CATALOGUES[language].items()):
        names = sorted(
            {name for t in ((entry,) if isinstance(entry, str) else entry) for name in PLACEHOLDER.findall(t)}
        )
        given: dict[str, object] = {name: (3725 if name.endswith("_seconds") else f"<{name}>") for name in names}
        nones: dict[str, object] = dict.fromkeys(names)
        for params in (given, dict(list(given.items())[::2]), {}, nones):
            assert render(key, params, language) == _render_by_regex(key, params, language), (key, params)
