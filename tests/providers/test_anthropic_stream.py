"""Claude's Messages API, sans I/O: recorded SSE through the decoder and the stream
state, and the request body built from a transcript.

The rule throughout: no ``ToolUseEnd`` before ``message_stop``, so nothing from an
incomplete stream can run.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.engine.reply import Reply
from nehanda.errors import RateLimitError, StreamProtocolError
from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolUseArgsDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers.anthropic import AnthropicStreamState, build_payload, messages_to_anthropic
from nehanda.providers.base import ChatRequest
from nehanda.providers.sse import SSEDecoder
from nehanda.types import (
    Message,
    ReasoningPart,
    TextPart,
    ToolResult,
    ToolSpec,
    ToolUse,
    Usage,
)
from scripted_server import fixture_body

READ = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})
SIGNATURE_START = "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"


def decode(
    body: bytes, pieces: list[int] | None = None, *, finish: bool = True
) -> list[StreamEvent]:
    decoder, state = SSEDecoder(), AnthropicStreamState(provider="claude", model="sonnet")
    events: list[StreamEvent] = []
    start = 0
    for size in [*(pieces or []), len(body)]:
        for event in decoder.feed(body[start : start + size]):
            events += state.handle(event)
        start += size
    for event in decoder.flush():
        events += state.handle(event)
    return events + (state.finish() if finish else [])


def test_text_then_a_tool_use_built_from_json_fragments() -> None:
    events = decode(fixture_body("anthropic_tool_use.sse"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == (
        "I'll read the README to find the install steps."
    )
    call_id = "toolu_01T1x1fJ34qAmk2tNTrN7Up6"
    assert ToolUseStart(0, call_id, "Read") in events
    fragments = [e.fragment for e in events if isinstance(e, ToolUseArgsDelta)]
    assert fragments == ['{"file_path": "READ', 'ME.md"}']
    assert events[-2:] == [
        ToolUseEnd(0, ToolUse(call_id, "Read", {"file_path": "README.md"})),
        MessageEnd("tool_use", Usage(1532, 89)),
    ]


def test_cached_input_counts_as_input() -> None:
    events = decode(fixture_body("anthropic_answer.sse"))
    assert events[-1] == MessageEnd("end_turn", Usage(210 + 1410, 14))


def test_thinking_keeps_its_signature_for_the_next_request() -> None:
    events = decode(fixture_body("anthropic_thinking_tool_use.sse"))
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    assert "".join(e.text for e in reasoning) == (
        "The user wants install steps. README.md should have them."
    )
    assert (reasoning[-1].signature or "").startswith(SIGNATURE_START)
    reply = Reply()
    for event in events:
        reply.add(event)
    (thinking, call) = reply.message(reply.tool_uses).parts
    assert isinstance(thinking, ReasoningPart) and thinking.signature == reasoning[-1].signature
    assert isinstance(call, ToolUse) and call.input == {"file_path": "README.md"}


def test_a_stream_without_message_stop_runs_nothing() -> None:
    events = decode(fixture_body("anthropic_cut_before_message_stop.sse"), finish=False)
    assert any(isinstance(e, ToolUseStart) for e in events)
    assert not any(isinstance(e, ToolUseEnd | MessageEnd) for e in events)
    with pytest.raises(StreamProtocolError, match="message_stop"):
        decode(fixture_body("anthropic_cut_before_message_stop.sse"))


def test_an_overloaded_error_event_after_the_200_is_a_rate_limit_error() -> None:
    with pytest.raises(RateLimitError, match="Overloaded") as caught:
        decode(fixture_body("anthropic_error_overloaded_mid_stream.sse"))
    assert caught.value.status == 529


def test_any_other_error_event_is_a_protocol_error() -> None:
    with pytest.raises(StreamProtocolError, match="Internal server error"):
        decode(fixture_body("anthropic_error_api_mid_stream.sse"))


def test_redacted_thinking_and_unknown_events_are_skipped() -> None:
    events = decode(fixture_body("anthropic_unknown_block.sse"))
    assert events == [TextDelta("Done."), MessageEnd("end_turn", Usage(300, 3))]


def test_a_delta_for_a_block_that_never_started_is_an_error() -> None:
    delta = {
        "type": "content_block_delta",
        "index": 4,
        "delta": {"type": "text_delta", "text": "x"},
    }
    body = f"event: content_block_delta\ndata: {json.dumps(delta)}\n\n".encode()
    with pytest.raises(StreamProtocolError, match="content block 4"):
        decode(body)


@given(st.lists(st.integers(min_value=1, max_value=60), max_size=40))
def test_every_split_of_the_body_gives_the_same_events(pieces: list[int]) -> None:
    body = fixture_body("anthropic_thinking_tool_use.sse")
    assert decode(body, pieces) == decode(body)


def test_transcript_becomes_a_system_field_and_alternating_turns() -> None:
    call = ToolUse("toolu_1", "Read", {"file_path": "README.md"})
    system, turns = messages_to_anthropic(
        [
            Message.text_message("system", "Be brief."),
            Message.text_message("user", "install?"),
            Message(
                "assistant",
                (ReasoningPart("hmm", "sig"), ReasoningPart("unsigned"), TextPart(" "), call),
            ),
            Message("tool", (ToolResult("toolu_1", "no such file", is_error=True),)),
            Message.text_message("user", "Note: try again."),
        ]
    )
    assert system == "Be brief."
    assert turns == [
        {"role": "user", "content": [{"type": "text", "text": "install?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": call.input},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "no such file",
                    "is_error": True,
                },
                {"type": "text", "text": "Note: try again."},
            ],
        },
    ]


def test_payload_shape() -> None:
    request = ChatRequest(
        "claude-sonnet-4-5",
        (Message.text_message("system", "S"), Message.text_message("user", "hi")),
        tools=(READ,),
        tool_choice="required",
    )
    payload = build_payload(request, "claude-sonnet-4-5", max_tokens=16384)
    assert payload["system"] == "S" and payload["stream"] is True
    assert payload["max_tokens"] == 16384
    assert payload["tools"] == [
        {"name": "Read", "description": "Reads a file.", "input_schema": READ.input_schema}
    ]
    assert payload["tool_choice"] == {"type": "any"}
    plain = build_payload(ChatRequest("m", (), max_tokens=5), "m", max_tokens=8192)
    assert (plain["max_tokens"], "tools" in plain, "system" in plain) == (5, False, False)
