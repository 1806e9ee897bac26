"""How an informer reads a watch stream: lines across chunks (several events in one chunk, one event over
several), blank lines skipped; JSON parsed by orjson when installed, else by the standard library, with
the same results and the same errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest
from bot.kube.informer import _lines, json_parser


class _Response:
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def stream(self, amount: int) -> Iterator[bytes]:
        yield from self.chunks


CHUNKS = [
    pytest.param([b'{"a":1}\n{"b":2}\n'], [b'{"a":1}', b'{"b":2}'], id="two-events-in-a-chunk"),
    pytest.param([b'{"a"', b':1}\n{"b"', b":2}"], [b'{"a":1}', b'{"b":2}'], id="events-across-chunks"),
    pytest.param([b"\n", b'{"a":1}\n \r\n\t\n', b"", b" "], [b'{"a":1}'], id="blank-lines-and-chunks"),
    pytest.param([], [], id="nothing"),
]


@pytest.mark.parametrize(("chunks", "lines"), CHUNKS)
def test_lines(chunks: list[bytes], lines: list[bytes]) -> None:
    assert list(_lines(_Response(chunks))) == lines  # type: ignore[arg-type]


@pytest.fixture(params=["orjson", "standard"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> object:
    if request.param == "standard":
        monkeypatch.setitem(sys.modules, "orjson", None)  # `import orjson` now raises ImportError
        found = json_parser()
        assert found is json.loads
        return found
    pytest.importorskip("orjson")
    return json_parser()


def test_both_parsers_read_an_event_alike(parser: object) -> None:
    assert callable(parser)
    event = {"type": "MODIFIED", "object": {"n": 1, "f": 1.5, "t": True, "z": None, "s": "été", "l": []}}
    for line in (json.dumps(event, ensure_ascii=False).encode(), json.dumps(event).encode()):
        assert parser(line) == event
    with pytest.raises(ValueError):
        parser(b'{"type": ')
