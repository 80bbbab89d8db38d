"""OpenAICompatProvider against a real HTTP server replaying recorded stream bytes.

Each test serves one fixture from ``tests/fixtures/streams`` (its first line says which
server behaviour it captures) and checks the events and the request the server got.
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolUseArgsDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers.base import ChatRequest
from nehanda.types import Message, ReasoningPart, TextPart, ToolResult, ToolSpec, ToolUse, Usage

READ = ToolSpec(
    "Read",
    "Reads a file.",
    {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]},
)
ASK = ChatRequest("qwen", (Message.text_message("user", "read it"),), tools=(READ,))
VLLM_TOOL_ID = "chatcmpl-tool-8d3c2b1a9f0e4d7c8b6a5e4f3d2c1b0a"


def ends(events: list[StreamEvent]) -> list[ToolUse]:
    return [e.tool_use for e in events if isinstance(e, ToolUseEnd)]


def text(events: list[StreamEvent], kind: type[TextDelta | ReasoningDelta] = TextDelta) -> str:
    return "".join(e.text for e in events if isinstance(e, kind))


@pytest.mark.parametrize("piece", [1, 7, 4096])
def test_vllm_arguments_split_across_chunks(harness: Any, piece: int) -> None:
    harness.server.stream("openai_vllm_hermes_split_args.sse", piece=piece)
    outcome = harness.run(ASK)
    assert outcome.error is None
    fragments = ['{"file_path": "', "docs/caf", "é", '.md", "lim', 'it": 40', ', "offset": 1}']
    assert outcome.events == [
        ToolUseStart(0, VLLM_TOOL_ID, "Read"),
        *(ToolUseArgsDelta(0, fragment) for fragment in fragments),
        ToolUseEnd(
            0,
            ToolUse(VLLM_TOOL_ID, "Read", {"file_path": "docs/café.md", "limit": 40, "offset": 1}),
        ),
        MessageEnd("tool_use", Usage(412, 35)),
    ]


def test_openai_parallel_calls(harness: Any) -> None:
    harness.server.stream("openai_parallel_calls.sse", piece=50)
    outcome = harness.run(ASK)
    assert outcome.error is None
    starts = [e for e in outcome.events if isinstance(e, ToolUseStart)]
    assert starts == [
        ToolUseStart(0, "call_q9ZbHn3UMcw1VqH5Kc8yLxZr", "Glob"),
        ToolUseStart(1, "call_Tn6wFq2pXk0sJd4Lm7Rb9VeA", "LS"),
    ]
    assert ends(outcome.events) == [
        ToolUse("call_q9ZbHn3UMcw1VqH5Kc8yLxZr", "Glob", {"pattern": "*.py"}),
        ToolUse("call_Tn6wFq2pXk0sJd4Lm7Rb9VeA", "LS", {"path": "src/nehanda"}),
    ]
    assert outcome.events[-1] == MessageEnd("tool_use", Usage(182, 45))
    # Every argument delta comes after its call's start and before its end.
    kinds = [(type(e).__name__, getattr(e, "index", None)) for e in outcome.events]
    assert kinds.index(("ToolUseStart", 1)) < kinds.index(("ToolUseArgsDelta", 1))
    assert kinds.index(("ToolUseEnd", 0)) > max(
        i for i, k in enumerate(kinds) if k == ("ToolUseArgsDelta", 1)
    )


def test_vllm_reasoning_content_then_answer(harness: Any) -> None:
    harness.server.stream("openai_vllm_reasoning_content.sse", piece=33)
    outcome = harness.run(ChatRequest("r1", (Message.text_message("user", "2+2?"),)))
    assert outcome.error is None
    reasoning = "Okay, the user asks for 2+2. That is 4."
    assert text(outcome.events, ReasoningDelta) == reasoning
    assert text(outcome.events) == "\n\n2 + 2 = **4**"
    assert outcome.events[-1] == MessageEnd("end_turn", Usage(14, 44))
    first_text = next(i for i, e in enumerate(outcome.events) if isinstance(e, TextDelta))
    assert all(isinstance(e, ReasoningDelta) for e in outcome.events[:first_text])


def test_ollama_reasoning_field_and_parallel_calls_at_index_zero(harness: Any) -> None:
    harness.server.stream("openai_ollama_parallel_index0.sse")
    outcome = harness.run(ASK)
    assert outcome.error is None
    assert text(outcome.events, ReasoningDelta) == "The user wants both files."
    assert ends(outcome.events) == [
        ToolUse("call_hk81qg8b", "Read", {"file_path": "a.txt"}),
        ToolUse("call_x2m4c7v1", "Read", {"file_path": "b.txt"}),
    ]
    assert [e.index for e in outcome.events if isinstance(e, ToolUseEnd)] == [0, 1]
    assert outcome.events[-1] == MessageEnd("tool_use", Usage(233, 61))


def test_llamacpp_whole_call_in_one_chunk_and_usage_on_finish_chunk(harness: Any) -> None:
    harness.server.stream("openai_llamacpp_whole_call.sse", piece=5)
    outcome = harness.run(ASK)
    assert outcome.error is None
    call_id = "Kq1nT0bV7mZ3xR9cW2yH5sLd8fJ4gP6a"
    assert outcome.events == [
        TextDelta("Let me look."),
        ToolUseStart(0, call_id, "Grep"),
        ToolUseArgsDelta(0, '{"pattern":"def main","path":"src"}'),
        ToolUseEnd(0, ToolUse(call_id, "Grep", {"pattern": "def main", "path": "src"})),
        MessageEnd("tool_use", Usage(505, 31)),
    ]


def test_lmstudio_fresh_id_on_every_fragment_is_one_call(harness: Any) -> None:
    harness.server.stream("openai_lmstudio_fresh_id_per_fragment.sse")
    outcome = harness.run(ASK)
    assert outcome.error is None
    assert ends(outcome.events) == [ToolUse("604958137", "Bash", {"command": "ls -la"})]


def test_invalid_arguments_become_an_input_error_and_empty_arguments_an_empty_object(
    harness: Any,
) -> None:
    harness.server.stream("openai_vllm_invalid_arguments.sse")
    outcome = harness.run(ASK)
    assert outcome.error is None
    bad, empty = ends(outcome.events)
    assert (bad.name, bad.input) == ("Read", {})
    assert bad.input_error is not None
    assert "not valid JSON" in bad.input_error
    assert "{'file_path': 'README.md'}" in bad.input_error
    assert empty == ToolUse("chatcmpl-tool-1f2e3d4c5b6a79880716253443526170", "Now", {})
    assert outcome.events[-1].stop_reason == "tool_use"


def test_finish_reason_without_done_is_complete(harness: Any) -> None:
    raw = harness.body("openai_llamacpp_whole_call.sse")
    harness.server.stream(raw.replace(b"data: [DONE]\n\n", b""))
    outcome = harness.run(ASK)
    assert outcome.error is None
    assert len(ends(outcome.events)) == 1
    assert isinstance(outcome.events[-1], MessageEnd)


def test_done_without_finish_reason_is_complete(harness: Any) -> None:
    harness.server.stream(
        b": a server that sends [DONE] but never a finish_reason\n\n"
        b'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
        b"data: [DONE]\n\n"
    )
    outcome = harness.run(ASK)
    assert outcome.error is None
    assert outcome.events == [TextDelta("Hi"), MessageEnd("end_turn", Usage())]


def conversation() -> tuple[Message, ...]:
    call = ToolUse("call_1", "Read", {"file_path": "README.md"})
    return (
        Message.text_message("system", "You are terse."),
        Message.text_message("user", "What does the README say?"),
        Message("assistant", (ReasoningPart("I should read it."), TextPart("Reading."), call)),
        Message("user", (ToolResult("call_1", "# widget"),)),
    )


def test_request_body_and_headers(harness: Any) -> None:
    harness.server.stream("openai_vllm_reasoning_content.sse")
    request = ChatRequest(
        "qwen", conversation(), tools=(READ,), tool_choice="auto", max_tokens=256, temperature=0.2
    )
    provider = harness.provider(api_key="sk-local-0123456789")
    assert harness.run(request, provider).error is None
    (received,) = harness.server.requests
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == "Bearer sk-local-0123456789"
    assert received.headers["accept"] == "text/event-stream"
    assert received.body == {
        "model": "qwen",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 256,
        "temperature": 0.2,
        "tool_choice": "auto",
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "Read",
                    "description": "Reads a file.",
                    "parameters": READ.input_schema,
                },
            }
        ],
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "What does the README say?"},
            {
                "role": "assistant",
                "content": "Reading.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "Read", "arguments": '{"file_path": "README.md"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "# widget"},
        ],
    }


@pytest.mark.parametrize(
    ("tools", "tool_choice", "sent"),
    [((READ,), None, None), ((), "auto", None), ((READ,), "required", "required")],
)
def test_tool_choice_only_with_tools_and_when_set(
    harness: Any, tools: tuple[ToolSpec, ...], tool_choice: Any, sent: str | None
) -> None:
    harness.server.stream("openai_vllm_reasoning_content.sse")
    request = ChatRequest("qwen", conversation(), tools=tools, tool_choice=tool_choice)
    assert harness.run(request, harness.provider()).error is None
    body = harness.server.requests[0].body
    assert body.get("tool_choice") == sent
    assert ("tools" in body) == bool(tools)
    assert "authorization" not in harness.server.requests[0].headers


def test_tool_calls_without_text_send_null_content(harness: Any) -> None:
    harness.server.stream("openai_vllm_reasoning_content.sse")
    call = ToolUse("c9", "Read", {"file_path": "a"})
    messages = (Message.text_message("user", "go"), Message("assistant", (call,)))
    assert harness.run(ChatRequest("qwen", messages)).error is None
    assistant = harness.server.requests[0].body["messages"][1]
    assert assistant["content"] is None
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"file_path": "a"}'
