"""Every user-visible sentence, one catalogue per language, and the one function that renders them.

A catalogue maps a key to a template, or to a tuple of templates: the first whose placeholders are all
given wins, so a sentence can say more when more is known. `{n|pod|pods}` is the word for the number `n` (which
must be given): the singular for 1 in English, for 0 and 1 in French. Parameters whose name ends in `_seconds` are
durations, written the way the language writes them ("1 h 12 min"); `{x_ago}` in a template says the parameter
`x_seconds` as a time ago ("1 h 12 min ago", "just now"). Unknown keys fall back to English, then to the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bot.copy import en, fr
from bot.copy.text import Text

__all__ = ["CATALOGUES", "DEFAULT_LANGUAGE", "Text", "ago", "duration", "language_of", "render", "render_value"]

Template = str | tuple[str, ...]
CATALOGUES: Mapping[str, Mapping[str, Template]] = {"en": en.CATALOGUE, "fr": fr.CATALOGUE}
DEFAULT_LANGUAGE = "en"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
_PLURAL = re.compile(r"\{([a-z_]+)\|([^{}|]*)\|([^{}|]*)\}")
JUST_NOW = 60  # seconds: under this, a moment ago is "just now"


def language_of(locale: str | None, default: str = DEFAULT_LANGUAGE) -> str:
    """ "fr-FR" -> "fr"; a language without a catalogue -> the default."""
    if locale:
        code = locale.replace("_", "-").split("-", 1)[0].lower()
        if code in CATALOGUES:
            return code
    return default if default in CATALOGUES else DEFAULT_LANGUAGE


def duration(seconds: int, language: str = DEFAULT_LANGUAGE) -> str:
    """42 -> "42 s", 2520 -> "42 min", 7500 -> "2 h 5 min", 200000 -> "2 d 7 h" ("j" in French)."""
    day = "j" if language == "fr" else "d"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} {day} {hours} h" if hours else f"{days} {day}"


def ago(seconds: int, language: str = DEFAULT_LANGUAGE) -> str:
    """How long ago, as people say it: "just now" under a minute, else "1 h 12 min ago" ("il y a ...")."""
    if int(seconds) < JUST_NOW:
        return render("time.just-now", language=language)
    return render("time.ago", {"duration": duration(seconds, language)}, language)


def render_value(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """One parameter as the reader reads it: a nested `Text` in the same language, a tuple part by part."""
    if isinstance(value, Text):
        return render(value.key, value.params, language)
    if isinstance(value, tuple):
        return "; ".join(render_value(part, language) for part in value)
    return str(value)


def _value(name: str, value: object, language: str) -> str:
    if name.endswith("_seconds") and isinstance(value, int):
        return duration(value, language)
    if name.endswith("_ago") and isinstance(value, int):
        return ago(value, language)
    return render_value(value, language)


_PARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # `_parts`, by template


def _parts(template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A template's words between its placeholders (one more than them) and its placeholders' names, split once
    (the catalogues' templates are few; an answer fills some hundred)."""
    found = _PARTS.get(template)
    if found is None:
        pieces = _PLACEHOLDER.split(template)
        found = _PARTS[template] = (tuple(pieces[0::2]), tuple(pieces[1::2]))
    return found


def _filled(
    words: tuple[str, ...], names: tuple[str, ...], params: Mapping[str, object], language: str, missing: str
) -> str:
    """A template's words with its placeholders filled from `params` (`missing` for one not given)."""
    out = [words[0]]
    for name, after in zip(names, words[1:], strict=True):
        out.append(_value(name, params[name], language) if name in params else missing)
        out.append(after)
    return "".join(out)


def _singular(count: object, language: str) -> bool:
    if isinstance(count, str) and count.strip().isdigit():
        count = int(count)  # a count the caller wrote out
    if not isinstance(count, int) or isinstance(count, bool):
        return False
    return count in (0, 1) if language == "fr" else count == 1


def _plurals(template: str, params: Mapping[str, object], language: str) -> str | None:
    """The template with each `{n|one|many}` said for its number; None when a number is not given."""
    if "|" not in template:
        return template
    missing = False

    def word(match: re.Match[str]) -> str:
        nonlocal missing
        if match[1] not in params:
            missing = True
            return ""
        return match[2] if _singular(params[match[1]], language) else match[3]

    said = _PLURAL.sub(word, template)
    return None if missing else said


def _fill(template: str, params: Mapping[str, object], language: str) -> str | None:
    """The template filled, or None when one of its placeholders is not given."""
    said = _plurals(template, params, language)
    if said is None:
        return None
    template = said
    words, names = _parts(template)
    if not names:
        return template
    for name in names:
        if name not in params:
            return None
    return _filled(words, names, params, language, "")


def render(key: str, params: Mapping[str, object] | None = None, language: str = DEFAULT_LANGUAGE) -> str:
    """The sentence for `key` in `language`, with its parameters filled in. A template's `{age_ago}` is the
    parameter `age_seconds` said as a time ago ("5 min ago", "just now")."""
    values = dict(params or {})
    for name, value in list(values.items()):
        if name.endswith("_seconds"):
            values.setdefault(name.removesuffix("_seconds") + "_ago", value)
    for catalogue in (CATALOGUES.get(language, {}), CATALOGUES[DEFAULT_LANGUAGE]):
        entry = catalogue.get(key)
        if entry is None:
            continue
        for template in (entry,) if isinstance(entry, str) else entry:
            text = _fill(template, values, language)
            if text is not None:
                return text
        last = entry if isinstance(entry, str) else entry[-1]
        return _filled(*_parts(_PLURAL.sub(r"\3", last)), values, language, "?")
    return key
