"""OpenAIStreamState driven directly with chunk objects: the quirks no fixture shows."""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.errors import StreamProtocolError
from nehanda.events import MessageEnd, StreamEvent, ToolUseArgsDelta, ToolUseEnd, ToolUseStart
from nehanda.providers.openai_compat import OpenAIStreamState
from nehanda.providers.sse import SSEEvent
from nehanda.types import ToolUse, Usage


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> Any:
    return {"choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}], **extra}


def call(index: int | None = None, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"function": {k: v for k, v in fields.items() if k != "id"}}
    if index is not None:
        entry["index"] = index
    if "id" in fields:
        entry["id"] = fields["id"]
    return {"tool_calls": [entry]}


def run(*chunks: Any) -> list[StreamEvent]:
    state = OpenAIStreamState(provider="p", model="m")
    events: list[StreamEvent] = []
    for item in chunks:
        events += state.handle_chunk(item)
    return events + state.finish()


def ended(events: list[StreamEvent]) -> list[ToolUse]:
    return [e.tool_use for e in events if isinstance(e, ToolUseEnd)]


def test_deltas_without_index_continue_the_current_call() -> None:
    events = run(
        chunk(call(id="a", name="Read", arguments='{"file_path":')),
        chunk(call(arguments=' "x"}')),
        chunk(call(id="b", name="LS", arguments="{}")),
        chunk(finish="tool_calls"),
    )
    assert ended(events) == [ToolUse("a", "Read", {"file_path": "x"}), ToolUse("b", "LS", {})]


def test_id_and_name_sent_again_with_every_fragment_is_one_call() -> None:
    events = run(
        chunk(call(0, id="a", name="Read", arguments='{"file_path"')),
        chunk(call(0, id="a", name="Read", arguments=': "x"}')),
        chunk(finish="tool_calls"),
    )
    assert ended(events) == [ToolUse("a", "Read", {"file_path": "x"})]
    assert sum(isinstance(e, ToolUseStart) for e in events) == 1


def test_numeric_ids_arguments_as_object_and_missing_id() -> None:
    events = run(
        chunk(call(0, id=17, name="Read", arguments={"file_path": "x"})),
        chunk(call(1, name="LS", arguments="")),
        chunk(finish="tool_calls"),
    )
    first, second = ended(events)
    assert first == ToolUse("17", "Read", {"file_path": "x"})
    assert second.name == "LS" and second.id.startswith("call_") and second.input == {}


def test_legacy_function_call_delta() -> None:
    events = run(
        chunk({"function_call": {"name": "Read", "arguments": '{"file_path": "x"}'}}),
        chunk(finish="function_call"),
    )
    assert ended(events)[0].input == {"file_path": "x"}
    assert events[-1] == MessageEnd("tool_use", Usage())


def test_arguments_that_are_not_an_object_or_have_no_name() -> None:
    events = run(
        chunk(call(0, id="a", name="Read", arguments="[1, 2]")),
        chunk(call(1, id="b", arguments="{}")),
        chunk(finish="tool_calls"),
    )
    bad, nameless = ended(events)
    assert bad.input == {} and "must be a JSON object, not list" in (bad.input_error or "")
    assert nameless.input_error == "The tool call had no tool name."


def test_long_bad_arguments_are_quoted_from_the_start_only() -> None:
    raw = '{"content": "' + "x" * 5000
    events = run(chunk(call(0, id="a", name="Write", arguments=raw)), chunk(finish="tool_calls"))
    message = ended(events)[0].input_error or ""
    assert '{"content": "xxx' in message and len(message) < 400


def test_args_arriving_before_the_name_are_replayed_after_the_start() -> None:
    events = run(
        chunk(call(0, arguments='{"a": 1}')),
        chunk(call(0, id="late", name="Read")),
        chunk(finish="tool_calls"),
    )
    assert events[:2] == [ToolUseStart(0, "late", "Read"), ToolUseArgsDelta(0, '{"a": 1}')]


def test_calls_end_at_finish_reason_before_the_usage_chunk() -> None:
    state = OpenAIStreamState()
    state.handle_chunk(chunk(call(0, id="a", name="Read", arguments="{}")))
    assert isinstance(state.handle_chunk(chunk(finish="tool_calls"))[-1], ToolUseEnd)
    state.handle_chunk({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}})
    assert state.finish() == [MessageEnd("tool_use", Usage(3, 4))]


def test_data_for_a_call_after_it_ended_is_a_protocol_error() -> None:
    state = OpenAIStreamState()
    state.handle_chunk(chunk(call(0, id="a", name="Read", arguments="{}"), "tool_calls"))
    with pytest.raises(StreamProtocolError):
        state.handle_chunk(chunk(call(0, arguments="more")))


@pytest.mark.parametrize(
    ("reason", "has_call", "stop"),
    [
        ("stop", False, "end_turn"),
        ("stop", True, "tool_use"),  # some servers say "stop" after a call; the call must run
        ("length", False, "max_tokens"),
        ("content_filter", False, "refusal"),
        ("eos_token", False, "other"),
    ],
)
def test_stop_reasons(reason: str, has_call: bool, stop: str) -> None:
    first = chunk(call(0, id="a", name="LS", arguments="{}") if has_call else {"content": "x"})
    assert run(first, chunk(finish=reason))[-1] == MessageEnd(stop, Usage())  # type: ignore[arg-type]


def test_other_choices_and_empty_finish_reason_are_ignored() -> None:
    state = OpenAIStreamState()
    state.handle_chunk(
        {"choices": [{"index": 1, "delta": {"content": "no"}, "finish_reason": "x"}]}
    )
    state.handle_chunk(chunk({"content": "yes"}, finish=""))
    with pytest.raises(StreamProtocolError, match="ended before its finish_reason"):
        state.finish()


@pytest.mark.parametrize(
    "event",
    [
        SSEEvent('{"error": {"message": "overloaded"}}'),
        SSEEvent('{"object": "error", "message": "overloaded"}'),
        SSEEvent('{"message": "overloaded"}', event="error"),
        SSEEvent("overloaded", event="error"),
    ],
)
def test_errors_reported_in_the_stream(event: SSEEvent) -> None:
    with pytest.raises(StreamProtocolError, match="overloaded") as caught:
        OpenAIStreamState(provider="p", model="m").handle(event)
    assert (caught.value.provider, caught.value.model) == ("p", "m")


def test_chunk_that_is_json_but_not_an_object() -> None:
    with pytest.raises(StreamProtocolError, match="not a JSON object"):
        OpenAIStreamState().handle(SSEEvent("[1, 2]"))


def test_both_reasoning_fields_in_one_delta_are_not_doubled() -> None:
    events = run(chunk({"reasoning_content": "hm", "reasoning": "hm"}), chunk(finish="stop"))
    assert [type(e).__name__ for e in events] == ["ReasoningDelta", "MessageEnd"]
