"""Ollama's ``/api/chat`` NDJSON, sans I/O: recorded lines through the decoder and the
stream state, and the request body built from a transcript.

The rule throughout: no ``ToolUseEnd`` before the ``done: true`` line, so nothing from
a stream cut short can run.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.errors import StreamProtocolError
from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolUseArgsDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers.base import Capabilities, ChatRequest
from nehanda.providers.ollama import (
    OllamaStreamState,
    build_payload,
    context_window,
    estimated_tokens,
    messages_to_ollama,
)
from nehanda.providers.sse import NDJSONDecoder
from nehanda.types import Message, TextPart, ToolResult, ToolSpec, ToolUse, Usage
from scripted_server import fixture_body

READ = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})


def decode(body: bytes, pieces: list[int] | None = None) -> list[StreamEvent]:
    """Feeds ``body`` in pieces of the given sizes (whole when none), as a response would."""
    decoder, state = NDJSONDecoder(provider="ollama", model="qwen3:8b"), OllamaStreamState()
    events: list[StreamEvent] = []
    start = 0
    for size in [*(pieces or []), len(body)]:
        for line in decoder.feed(body[start : start + size]):
            events += state.handle(line)
        start += size
    for line in decoder.flush():
        events += state.handle(line)
    return events + state.finish()


def test_thinking_then_a_whole_call_then_done() -> None:
    events = decode(fixture_body("ollama_chat_tool_call.ndjson"))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert reasoning == "The user asks how to install. I should read README.md first."
    start, args, end, message_end = events[-4:]
    assert isinstance(start, ToolUseStart) and start.name == "Read"
    assert start.id.startswith("call_")  # Ollama sends no id; one is made up
    assert args == ToolUseArgsDelta(0, '{"file_path": "README.md"}')
    assert end == ToolUseEnd(0, ToolUse(start.id, "Read", {"file_path": "README.md"}))
    assert message_end == MessageEnd("tool_use", Usage(1043, 87))


def test_no_call_ends_before_the_done_line() -> None:
    lines = fixture_body("ollama_chat_tool_call.ndjson").splitlines()
    state = OllamaStreamState()
    early = [event for line in lines[:-1] for event in state.handle(json.loads(line))]
    assert not any(isinstance(e, ToolUseEnd | MessageEnd) for e in early)
    assert any(isinstance(e, ToolUseEnd) for e in state.handle(json.loads(lines[-1])))


def test_parallel_calls_keep_their_ids_and_order() -> None:
    events = decode(fixture_body("ollama_chat_parallel_calls.ndjson"))
    assert events[0] == TextDelta("Let me look.")
    ends = [e for e in events if isinstance(e, ToolUseEnd)]
    assert [(e.index, e.tool_use.id, e.tool_use.name, e.tool_use.input) for e in ends] == [
        (0, "call_k1x9fqv2", "LS", {"path": "."}),
        (1, "call_p7d3m0ta", "Glob", {"pattern": "**/*.md"}),
    ]


def test_plain_answer_and_length_stop() -> None:
    answer = decode(fixture_body("ollama_chat_answer.ndjson"))
    assert "".join(e.text for e in answer if isinstance(e, TextDelta)) == (
        "Install it with `pip install widget`."
    )
    assert answer[-1] == MessageEnd("end_turn", Usage(1187, 12))
    assert decode(fixture_body("ollama_chat_length.ndjson"))[-1] == MessageEnd(
        "max_tokens", Usage(900, 4)
    )


def test_a_stream_cut_before_done_is_an_error_and_runs_nothing() -> None:
    decoder, state = NDJSONDecoder(), OllamaStreamState(provider="ollama", model="qwen3:8b")
    events = [
        e
        for line in decoder.feed(fixture_body("ollama_chat_cut_before_done.ndjson"))
        for e in state.handle(line)
    ]
    assert any(isinstance(e, ToolUseStart) for e in events)
    assert not any(isinstance(e, ToolUseEnd) for e in events)
    with pytest.raises(StreamProtocolError, match=r"done: true"):
        state.finish()


def test_an_error_line_mid_stream_is_an_error() -> None:
    with pytest.raises(StreamProtocolError, match=r"mid-stream: .*unexpected EOF"):
        decode(fixture_body("ollama_chat_error_mid_stream.ndjson"))


@given(st.lists(st.integers(min_value=1, max_value=40), max_size=30))
def test_every_split_of_the_body_gives_the_same_events(pieces: list[int]) -> None:
    body = fixture_body("ollama_chat_parallel_calls.ndjson")
    assert decode(body, pieces) == decode(body)


@pytest.mark.parametrize(
    ("arguments", "expected", "problem"),
    [
        ('{"file_path": "a.py"}', {"file_path": "a.py"}, None),
        ("", {}, None),
        ('{"file_path": ', {}, "are not valid JSON"),
        (["a.py"], {}, "must be a JSON object, not list"),
    ],
)
def test_arguments_that_are_not_an_object(
    arguments: object, expected: dict[str, str], problem: str | None
) -> None:
    state = OllamaStreamState()
    state.handle(
        {"message": {"tool_calls": [{"function": {"name": "Read", "arguments": arguments}}]}}
    )
    end = state.handle({"done": True, "done_reason": "stop"})[0]
    assert isinstance(end, ToolUseEnd)
    assert end.tool_use.input == expected
    if problem is None:
        assert end.tool_use.input_error is None
    else:
        assert problem in (end.tool_use.input_error or "")


def test_transcript_becomes_ollama_messages() -> None:
    call = ToolUse("call_1", "Read", {"file_path": "README.md"})
    messages = messages_to_ollama(
        [
            Message.text_message("system", "Be brief."),
            Message.text_message("user", "install?"),
            Message("assistant", (TextPart("Reading."), call)),
            Message(
                "tool", (ToolResult("call_1", "# widget"), TextPart("Note: one call was bad."))
            ),
        ]
    )
    assert messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "install?"},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [{"function": {"name": "Read", "arguments": {"file_path": "README.md"}}}],
        },
        {"role": "tool", "content": "# widget", "tool_name": "Read"},
        {"role": "user", "content": "Note: one call was bad."},
    ]


def test_payload_carries_num_ctx_and_openai_style_tools_but_no_tool_choice() -> None:
    request = ChatRequest("qwen3:8b", (Message.text_message("user", "hi"),), tools=(READ,))
    payload = build_payload(request, "qwen3:8b", 32768)
    assert payload["options"] == {"num_ctx": 32768}
    assert payload["stream"] is True
    assert payload["tools"][0]["function"]["name"] == "Read"
    assert "tool_choice" not in payload
    limited = ChatRequest("m", (), max_tokens=64, temperature=0.2)
    assert build_payload(limited, "m", None)["options"] == {"num_predict": 64, "temperature": 0.2}


@pytest.mark.parametrize(
    ("length", "cap", "expected"),
    [(40960, 32768, 32768), (8192, 32768, 8192), (None, 32768, 32768), (None, None, None)],
)
def test_context_window_is_the_models_length_capped(
    length: int | None, cap: int | None, expected: int | None
) -> None:
    assert context_window(Capabilities(True, length), cap) == expected


def test_prompt_size_is_estimated_from_messages_and_tools() -> None:
    request = ChatRequest("m", (Message.text_message("user", "x" * 4000),), tools=(READ,))
    assert 1000 < estimated_tokens(build_payload(request, "m", None)) < 1100
