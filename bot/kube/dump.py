"""A `kubectl get -o yaml` (or `-o json`) dump as a snapshot: several documents, or `kind: List` items."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from bot.errors import DumpUnreadable
from bot.kube.decode import read_or_unreadable
from bot.trace.snapshot import MemorySnapshot
from bot.trace.unreadable import Unreadable

# Parsing YAML costs far more than the file (bench/README.md: the peak memory and time at this size); a larger
# cluster is asked live, or dumped for one namespace.
MAX_DUMP_BYTES = 16 * 1024 * 1024

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _NoAliasLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe loader that refuses YAML aliases: kubectl never writes them, and they make YAML bombs.

    An alias is a node met a second time while constructing; the constructor is Python code even
    with the libyaml parser, so the check holds for both loaders.
    """

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if node in self.constructed_objects:
            raise yaml.constructor.ConstructorError(
                None, None, "aliases (&anchor / *alias) are not allowed in a dump", node.start_mark
            )
        return super().construct_object(node, deep=deep)


# A line at column 0 that is a document marker or a top-level key (every other line of a dump is indented or
# a `- ` item of a top-level sequence).
_TOP_LINE = re.compile(r"^(?:(---|\.\.\.)|([A-Za-z_][\w.-]*|\"[^\"\n]*\"|'[^'\n]*')[ \t]*:(?:[ \t]|$))", re.M)


def _split_concatenated(text: str) -> str:
    """Two dumps appended to one file (`kubectl get ... -o yaml > f` then `>> f`) are two mappings with no `---`
    between them, which YAML reads as ONE mapping whose repeated keys (apiVersion, items, kind) keep the last
    value: the first dump's objects would be lost without a word. A top-level key met again in the same document
    starts the next document (kubectl writes keys in order, apiVersion first), so every object is read."""
    seen: set[str] = set()
    cuts = []
    for match in _TOP_LINE.finditer(text):
        if match.group(1):
            seen = set()
            continue
        key = match.group(2).strip("\"'")
        if key in seen:
            cuts.append(match.start())
            seen = set()
        seen.add(key)
    if not cuts:
        return text
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return "---\n".join(piece if piece.endswith("\n") else piece + "\n" for piece in pieces)


def _json_documents(text: str) -> list[object] | None:
    """`kubectl get -o json` appended twice (`}{` or `}\n{`): the JSON values one after the other; None when the
    text is not a run of JSON values (then it is read as YAML, which also reads a single JSON document)."""
    decoder, documents, at = json.JSONDecoder(), [], 0
    while (at := len(text) - len(text[at:].lstrip())) < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return None
        documents.append(value)
    return documents if len(documents) > 1 else None


@dataclass(frozen=True)
class Dump:
    snapshot: MemorySnapshot
    objects: int
    skipped: tuple[str, ...]


def _items(document: object) -> Iterator[Mapping[str, Any]]:
    if not isinstance(document, Mapping):
        return
    items = document.get("items")
    kind = str(document.get("kind", ""))
    if isinstance(items, list) and (kind == "List" or kind.endswith("List")):
        for item in items:
            if isinstance(item, Mapping):
                item_kind = item.get("kind") or kind.removesuffix("List")
                api_version = item.get("apiVersion") or document.get("apiVersion")
                yield {**item, "kind": item_kind, "apiVersion": api_version}
    else:
        yield document


def _yaml_documents(text: str, source: str) -> Iterator[object]:
    loader = _NoAliasLoader(_split_concatenated(text))
    try:
        while loader.check_data():
            yield loader.get_data()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise DumpUnreadable(f"{source} is not valid YAML{where}: {problem}") from error
    except RecursionError as error:
        raise DumpUnreadable(f"{source} is nested too deeply to be a kubectl dump") from error
    finally:
        loader.dispose()


def parse_text(text: str, *, source: str = "dump", taken_at: datetime | None = None) -> Dump:
    """Decode a dump's text (YAML documents, `*List`s, several dumps appended to one file, appended JSON).
    Raises DumpUnreadable with a one-line reason."""
    appended_json = _json_documents(text) if text.lstrip().startswith("{") else None
    objects: list[object] = []
    skipped: list[str] = []
    documents = 0
    for document in appended_json if appended_json is not None else _yaml_documents(text, source):
        if isinstance(document, Mapping) and ("kind" in document or "items" in document):
            documents += 1
        for raw in _items(document):
            decoded = read_or_unreadable(raw)
            skipped.extend(f"{u.kind} {u.namespace}/{u.name}: {u.reason}" for u in decoded if isinstance(u, Unreadable))
            objects.extend(decoded)
    if documents == 0:
        if not any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines()):
            raise DumpUnreadable(f"{source} is empty: it holds no Kubernetes objects")
        raise DumpUnreadable(
            f"{source} is not a Kubernetes dump: it holds no objects (expected the output of kubectl get ... -o yaml)"
        )
    read = len(objects) - len(skipped)  # the unreadable are in the snapshot, by name, but not counted as read
    return Dump(MemorySnapshot(objects, taken_at=taken_at), read, tuple(skipped))


def read_dump(path: str | Path, *, taken_at: datetime | None = None) -> Dump:
    """Read a dump file. Raises DumpUnreadable (missing, unreadable, too large, not YAML)."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_DUMP_BYTES:
            raise DumpUnreadable(
                f"{path} is {size / 2**20:.0f} MiB; the largest dump read is {MAX_DUMP_BYTES // 2**20} MiB: "
                "ask the cluster live, or dump one namespace (kubectl get ... -n NAMESPACE -o yaml)"
            )
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise DumpUnreadable(f"{path}: no such file") from error
    except IsADirectoryError as error:
        raise DumpUnreadable(f"{path} is a directory, not a dump file") from error
    except PermissionError as error:
        raise DumpUnreadable(f"{path}: permission denied") from error
    except UnicodeDecodeError as error:
        raise DumpUnreadable(f"{path} is not UTF-8 text") from error
    except OSError as error:
        raise DumpUnreadable(f"{path}: {error.strerror or error}") from error
    return parse_text(text, source=str(path), taken_at=taken_at)
