"""A server that never ends an event, or nests JSON without end, meets a clear error:
the decoders hold at most one bound's bytes, and JSON deeper than the bound is refused."""

from __future__ import annotations

import json

import pytest

from nehanda.errors import StreamProtocolError
from nehanda.providers.arguments import native_tool_use
from nehanda.providers.bounded_json import MAX_DEPTH, TooDeep, loads
from nehanda.providers.openai_compat import OpenAIStreamState
from nehanda.providers.sse import MAX_EVENT_BYTES, NDJSONDecoder, SSEDecoder, SSEEvent

PIECE = 64 << 10  # what a network read delivers at most


def feed_until_refused(decoder: SSEDecoder | NDJSONDecoder, head: bytes, filler: bytes) -> int:
    """Feeds ``head`` then ``filler`` pieces for 17 MiB; the bytes fed when it refused."""
    fed, held = 0, 0
    pieces = [head, *[filler] * ((17 << 20) // len(filler))]
    with pytest.raises(StreamProtocolError) as refused:
        for piece in pieces:
            held = max(held, decoder.buffered)
            decoder.feed(piece)
            fed += len(piece)
    assert held <= MAX_EVENT_BYTES  # never more than the bound before it gave up
    assert "vllm (model qwen)" in str(refused.value) and "16 MiB" in str(refused.value)
    return fed


def test_an_event_that_never_ends_is_refused_at_the_bound() -> None:
    decoder = SSEDecoder(provider="vllm", model="qwen")
    fed = feed_until_refused(decoder, b'data: {"choices": "', b"x" * PIECE)
    assert MAX_EVENT_BYTES < fed + PIECE <= MAX_EVENT_BYTES + 2 * PIECE


def test_an_event_of_endless_data_lines_is_refused_at_the_bound() -> None:
    decoder = SSEDecoder(provider="vllm", model="qwen")
    fed = feed_until_refused(decoder, b"", b"data: " + b"y" * (PIECE - 7) + b"\n")
    assert fed <= MAX_EVENT_BYTES + PIECE


def test_an_endless_ndjson_line_is_refused_at_the_bound() -> None:
    decoder = NDJSONDecoder(provider="vllm", model="qwen")
    assert feed_until_refused(decoder, b'{"a": "', b"z" * PIECE) <= MAX_EVENT_BYTES + PIECE


def test_events_below_the_bound_and_after_one_pass() -> None:
    decoder = SSEDecoder(limit=100)
    assert decoder.feed(b"data: " + b"a" * 90 + b"\n\n" + b"data: b\n\n") == [
        SSEEvent("a" * 90),
        SSEEvent("b"),
    ]
    assert decoder.buffered == 0


def test_json_nested_deeper_than_the_bound_is_refused() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert loads(json.dumps({"text": "[" * 10_000})) == {"text": "[" * 10_000}
    for depth in (MAX_DEPTH + 1, 100_000):
        with pytest.raises(TooDeep, match=f"deeper than {MAX_DEPTH} levels"):
            loads("[" * depth + "]" * depth)


def test_a_chunk_nested_100000_deep_is_a_stream_error_not_a_crash() -> None:
    deep = '{"choices": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(StreamProtocolError, match="a chunk is not JSON"):
        OpenAIStreamState(provider="vllm", model="qwen").handle(SSEEvent(deep))


def test_tool_arguments_nested_100000_deep_go_back_to_the_model() -> None:
    use = native_tool_use("call_1", "Read", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert use.input == {} and use.input_error is not None
    assert f"deeper than {MAX_DEPTH} levels" in use.input_error
