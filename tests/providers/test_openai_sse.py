"""The sans-I/O SSE and NDJSON decoders, driven directly: rules, and split invariance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nehanda.errors import StreamProtocolError
from nehanda.providers.sse import NDJSONDecoder, SSEDecoder, SSEEvent

STREAMS = Path(__file__).parent.parent / "fixtures" / "streams"


def decode(body: bytes, cuts: list[int] | None = None) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    start = 0
    for cut in sorted(cuts or []):
        events += decoder.feed(body[start:cut])
        start = cut
    events += decoder.feed(body[start:])
    return events + decoder.flush()


def test_fields_comments_and_multiline_data() -> None:
    body = (
        b": a comment naming the server\n\n"
        b'event: message_start\nid: 7\nretry: 1500\ndata: {"a":\n'
        b"data:1}\n\n"
        b"data\n\n"
        b"data:  two spaces keep one\n\n"
        b"unknown: ignored\ndata: x\n\n"
    )
    assert decode(body) == [
        SSEEvent('{"a":\n1}', "message_start", "7", 1500),
        SSEEvent("", "message", "7", 1500),
        SSEEvent(" two spaces keep one", "message", "7", 1500),
        SSEEvent("x", "message", "7", 1500),
    ]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending(newline: bytes) -> None:
    body = newline.join([b"data: one", b"data: two", b"", b"event: e", b"data: 3", b"", b""])
    assert decode(body) == [SSEEvent("one\ntwo"), SSEEvent("3", "e")]


def test_event_without_data_is_not_dispatched_and_event_name_resets() -> None:
    assert decode(b"event: ping\n\ndata: x\n\n") == [SSEEvent("x")]


def test_bom_and_unterminated_last_event_at_flush() -> None:
    body = "\ufeffdata: first\n\ndata: [DONE]".encode()
    assert decode(body) == [SSEEvent("first"), SSEEvent("[DONE]")]


def test_crlf_split_between_pieces_counts_once() -> None:
    assert decode(b"data: a\r\n\r\ndata: b\r\n\r\n", cuts=[8, 9, 10]) == [
        SSEEvent("a"),
        SSEEvent("b"),
    ]


def test_utf8_character_split_across_pieces() -> None:
    body = "data: café ☕\n\n".encode()
    cut = body.index("☕".encode()) + 1
    assert decode(body, cuts=[cut, cut + 1]) == [SSEEvent("café ☕")]


SURROGATES: list[Literal["Cs"]] = ["Cs"]
line_text = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=SURROGATES))
newline = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def sse_bodies(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    datas = draw(st.lists(st.lists(line_text, min_size=1, max_size=3), max_size=5))
    end = draw(newline)  # one style per body: "\r" then "\n" would read as one "\r\n"
    parts = []
    for lines in datas:
        if draw(st.booleans()):
            parts.append(":" + draw(line_text) + end)
        parts += ["data: " + line + end for line in lines]
        parts.append(end)
    return "".join(parts).encode(), ["\n".join(lines) for lines in datas]


@settings(max_examples=200, deadline=None)
@given(sse_bodies(), st.data())
def test_any_split_gives_the_same_events(
    generated: tuple[bytes, list[str]], data: st.DataObject
) -> None:
    body, expected = generated
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=12))
    assert [event.data for event in decode(body)] == expected
    assert decode(body, cuts) == decode(body)


@pytest.mark.parametrize("name", sorted(p.name for p in STREAMS.glob("openai_*.sse")))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_recorded_streams_decode_the_same_however_split(name: str, data: st.DataObject) -> None:
    body = (STREAMS / name).read_bytes()
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=40))
    assert decode(body, cuts) == decode(body)


def ndjson(body: bytes, cuts: list[int]) -> list[dict[str, object]]:
    decoder = NDJSONDecoder()
    items: list[dict[str, object]] = []
    start = 0
    for cut in sorted(cuts):
        items += decoder.feed(body[start:cut])
        start = cut
    return items + decoder.feed(body[start:]) + decoder.flush()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.dictionaries(st.text(max_size=5), st.text(max_size=8), max_size=3), max_size=5),
    newline,
    st.data(),
)
def test_ndjson_any_split_gives_the_same_objects(
    objects: list[dict[str, str]], end: str, data: st.DataObject
) -> None:
    body = "".join(json.dumps(o, ensure_ascii=False) + end for o in objects).encode()
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=10))
    assert ndjson(body, cuts) == objects


def test_ndjson_skips_blank_lines_and_reads_an_unterminated_last_line() -> None:
    assert ndjson(b'{"a":1}\n\n{"b":2}', []) == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize("line", [b"not json\n", b"[1, 2]\n"])
def test_ndjson_rejects_lines_that_are_not_objects(line: bytes) -> None:
    decoder = NDJSONDecoder(provider="ollama", model="qwen3")
    with pytest.raises(StreamProtocolError) as caught:
        decoder.feed(b'{"ok":true}\n' + line)
    assert (caught.value.provider, caught.value.model) == ("ollama", "qwen3")
