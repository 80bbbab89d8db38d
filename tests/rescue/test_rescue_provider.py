"""RescueProvider over a scripted inner provider: calls out of text, prose kept, echoes refused."""

from __future__ import annotations

import asyncio

from fakes import FakeProvider, FakeToolset, text_reply
from nehanda.engine.loop import Agent
from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseEnd,
)
from nehanda.providers.base import ChatRequest
from nehanda.providers.calling import ToolCalling
from nehanda.providers.rescue import RescueProvider
from nehanda.types import Message, ToolResult, ToolSpec, ToolUse, Usage

READ = ToolSpec(
    "Read",
    "Reads a file.",
    {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]},
)
CALL = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a.py"}}[/TOOL_CALL]'


def stream(*inner_events: StreamEvent) -> list[StreamEvent]:
    inner = FakeProvider([list(inner_events)])
    request = ChatRequest("m", (Message.text_message("user", "go"),), (READ,), "auto")

    async def collect() -> list[StreamEvent]:
        return [event async for event in RescueProvider(inner).stream(request)]

    events = asyncio.run(collect())
    sent = inner.requests[0]
    assert sent.tools == () and sent.tool_choice is None
    return events


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def calls_of(events: list[StreamEvent]) -> list[tuple[str, dict[str, object]]]:
    return [(e.tool_use.name, e.tool_use.input) for e in events if isinstance(e, ToolUseEnd)]


def test_call_split_across_deltas_becomes_a_rescue_tool_use() -> None:
    text = f"Reading.\n{CALL}"
    pieces = [TextDelta(text[i : i + 5]) for i in range(0, len(text), 5)]
    events = stream(*pieces, MessageEnd("end_turn", Usage(3, 4)))
    assert calls_of(events) == [("Read", {"file_path": "a.py"})]
    assert text_of(events).strip() == "Reading."
    uses = [e.tool_use for e in events if isinstance(e, ToolUseEnd)]
    assert uses[0].origin == "rescue" and uses[0].id.startswith("call_")
    assert events[-1] == MessageEnd("tool_use", Usage(3, 4))


def test_plain_answer_passes_through() -> None:
    events = stream(TextDelta("All done."), MessageEnd("end_turn"))
    assert text_of(events) == "All done."
    assert calls_of(events) == []
    assert isinstance(events[-1], MessageEnd) and events[-1].stop_reason == "end_turn"


def test_echoed_example_is_reported_not_run() -> None:
    echo = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "<file_path>"}}[/TOOL_CALL]'
    events = stream(TextDelta(echo), MessageEnd("end_turn"))
    assert calls_of(events) == []
    problems = [e for e in events if isinstance(e, ToolCallProblem)]
    assert [p.kind for p in problems] == ["echo"]
    assert "placeholder" in problems[0].message


def test_calls_in_reasoning_count_when_nothing_else_came() -> None:
    events = stream(ReasoningDelta(f"I should read it. {CALL}"), MessageEnd("end_turn"))
    assert calls_of(events) == [("Read", {"file_path": "a.py"})]


def test_calls_in_reasoning_are_drafts_when_an_answer_follows() -> None:
    events = stream(
        ReasoningDelta(f"maybe {CALL}"), TextDelta("No need, it is empty."), MessageEnd("end_turn")
    )
    assert calls_of(events) == []
    assert text_of(events) == "No need, it is empty."


def test_unknown_tool_is_a_problem_for_the_model() -> None:
    bogus = '[TOOL_CALL]{"name": "Delete", "arguments": {"path": "/"}}[/TOOL_CALL]'
    events = stream(TextDelta(bogus), MessageEnd("end_turn"))
    assert calls_of(events) == []
    problems = [e for e in events if isinstance(e, ToolCallProblem)]
    assert problems and problems[0].kind == "unknown_tool"
    assert "Read" in problems[0].message


def test_feedback_on_a_failed_call_reaches_the_model_beside_the_results() -> None:
    bogus = '[TOOL_CALL]{"name": "Delete", "arguments": {"path": "/"}}[/TOOL_CALL]'
    inner = FakeProvider(
        [[TextDelta(f"{CALL}\n{bogus}"), MessageEnd("end_turn")], text_reply("ok")]
    )

    async def run_tool(use: ToolUse) -> ToolResult:
        return ToolResult(use.id, "print('a')")

    async def run() -> None:
        agent = Agent(ToolCalling(inner, "rescue"), "m", FakeToolset((READ,), run_tool))
        async for _ in agent.run("go"):
            pass

    asyncio.run(run())
    sent = inner.requests[1].messages[-1]
    assert sent.role == "user"
    assert "[TOOL_RESULT name=Read id=" in sent.text and "print('a')" in sent.text
    assert "Delete" in sent.text.split("[/TOOL_RESULT]")[-1]
