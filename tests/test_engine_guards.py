"""What the loop does when a model slips: feedback, truncation, and stopping a spiral."""

from __future__ import annotations

import asyncio

from fakes import FakeProvider, text_reply
from nehanda.engine.loop import Agent, EngineEvent, RunFinished, ToolExecuted
from nehanda.events import MessageEnd, StreamEvent, TextDelta, ToolCallProblem, ToolUseEnd
from nehanda.types import ToolResult, ToolSpec, ToolUse

SPEC = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})


async def runner(tool_use: ToolUse) -> ToolResult:
    return ToolResult(tool_use.id, "ok")


def drive(replies: list[list[StreamEvent]]) -> tuple[list[EngineEvent], FakeProvider]:
    provider = FakeProvider(replies)
    agent = Agent(provider, "m", (SPEC,), runner, mode="rescue")

    async def collect() -> list[EngineEvent]:
        return [event async for event in agent.run("go")]

    return asyncio.run(collect()), provider


def bad_format() -> list[StreamEvent]:
    problem = ToolCallProblem("invalid_json", "Your Read call was not valid JSON.", "[TOOL_CALL]{")
    return [problem, MessageEnd("end_turn")]


def cut_call() -> list[StreamEvent]:
    use = ToolUse("c", "Read", {"file_path": "big.txt"}, origin="rescue", unclosed=True)
    return [TextDelta("Reading"), ToolUseEnd(0, use), MessageEnd("max_tokens")]


def test_problems_go_back_to_the_model_and_the_loop_goes_on() -> None:
    events, provider = drive([bad_format(), text_reply("fine")])
    feedback = provider.requests[1].messages[-1]
    assert feedback.role == "user"
    assert "Your Read call was not valid JSON." in feedback.text
    assert isinstance(events[-1], RunFinished) and events[-1].problem is None


def test_three_format_failures_in_a_row_stop_the_run() -> None:
    events, provider = drive([bad_format(), bad_format(), bad_format(), text_reply("never")])
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.problem and "3 times in a row" in finished.problem
    assert len(provider.requests) == 3


def test_truncated_call_is_not_run_and_the_model_is_asked_once() -> None:
    events, provider = drive([cut_call(), text_reply("ok")])
    assert not any(isinstance(e, ToolExecuted) for e in events)
    asked = provider.requests[1].messages[-1]
    assert "cut off" in asked.text
    assert provider.requests[1].messages[-2].tool_uses == []


def test_second_truncation_stops_with_a_clear_error() -> None:
    events, _ = drive([cut_call(), cut_call(), text_reply("never")])
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.problem and "cut off inside a tool call twice" in finished.problem
    assert not any(isinstance(e, ToolExecuted) for e in events)


def test_same_call_three_times_stops_before_the_third_runs() -> None:
    def same() -> list[StreamEvent]:
        use = ToolUse(f"c{len(calls)}", "Read", {"file_path": "x"})
        calls.append(use)
        return [ToolUseEnd(0, use), MessageEnd("tool_use")]

    calls: list[ToolUse] = []
    events, _ = drive([same(), same(), same(), text_reply("never")])
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.problem and "same tool call 3 times" in finished.problem
    assert sum(isinstance(e, ToolExecuted) for e in events) == 2


def test_problem_beside_a_good_call_rides_with_its_result() -> None:
    use = ToolUse("c", "Read", {"file_path": "x"})
    problem = ToolCallProblem("unknown_tool", "There is no tool called Delete.", "")
    _, provider = drive([[ToolUseEnd(0, use), problem, MessageEnd("tool_use")], text_reply("ok")])
    results = provider.requests[1].messages[-1]
    assert results.role == "tool"
    assert [r.tool_use_id for r in results.tool_results] == ["c"]
    assert "There is no tool called Delete." in results.text


def test_calls_of_a_stopped_run_are_answered_as_not_run() -> None:
    def same(call_id: str) -> list[StreamEvent]:
        return [ToolUseEnd(0, ToolUse(call_id, "Read", {"file_path": "x"})), MessageEnd("tool_use")]

    provider = FakeProvider([same("a"), same("b"), same("c")])
    agent = Agent(provider, "m", (SPEC,), runner)

    async def collect() -> list[EngineEvent]:
        return [event async for event in agent.run("go")]

    asyncio.run(collect())
    last = agent.messages[-1]
    assert last.role == "tool" and [r.tool_use_id for r in last.tool_results] == ["c"]
    assert last.tool_results[0].is_error and "Not run" in last.tool_results[0].content
