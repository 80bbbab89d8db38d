"""What the loop does when a model slips: feedback, truncation, and stopping a spiral."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from fakes import FakeProvider, FakeToolset, ToolRunner, call_reply, text_reply
from nehanda.engine.guards import TRUNCATION_NOTICE
from nehanda.engine.loop import Agent
from nehanda.events import (
    EngineEvent,
    MessageEnd,
    RunFinished,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolExecuted,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers.arguments import native_tool_use
from nehanda.providers.calling import ToolCalling
from nehanda.providers.mode import Mode
from nehanda.types import ToolResult, ToolSpec, ToolUse

SPEC = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})


async def runner(tool_use: ToolUse) -> ToolResult:
    return ToolResult(tool_use.id, "ok")


async def refusing(tool_use: ToolUse) -> ToolResult:
    return ToolResult(tool_use.id, "Permission denied: Read was not run.", is_error=True)


def drive(
    replies: list[list[StreamEvent]], mode: Mode = "rescue", run_tool: ToolRunner = runner
) -> tuple[list[EngineEvent], FakeProvider]:
    provider = FakeProvider(replies)
    # Leak recovery and the refusal fallback act in native mode only; the calls here
    # are scripted as events, so in rescue mode they reach the engine as they are.
    outer = ToolCalling(provider, "native") if mode == "native" else provider
    agent = Agent(outer, "m", FakeToolset((SPEC,), run_tool))

    async def collect() -> list[EngineEvent]:
        return [event async for event in agent.run("go")]

    return asyncio.run(collect()), provider


def bad_format() -> list[StreamEvent]:
    problem = ToolCallProblem("invalid_json", "Your Read call was not valid JSON.", "[TOOL_CALL]{")
    return [problem, MessageEnd("end_turn")]


def cut_call() -> list[StreamEvent]:
    use = ToolUse("c", "Read", {"file_path": "big.txt"}, origin="rescue", unclosed=True)
    return [TextDelta("Reading"), ToolUseEnd(0, use), MessageEnd("max_tokens")]


def cut_native_call() -> list[StreamEvent]:
    use = native_tool_use("n", "Read", '{"file_path": "big.t')
    return [ToolUseStart(0, "n", "Read"), ToolUseEnd(0, use), MessageEnd("max_tokens")]


def unknown_tool(turn: int) -> list[StreamEvent]:
    return call_reply(ToolUse(f"u{turn}", f"Tool{turn}", {"x": turn}))


def bad_arguments(turn: int) -> list[StreamEvent]:
    return call_reply(ToolUse(f"b{turn}", "Read", {"path": f"x{turn}"}))


def good_read(turn: int) -> list[StreamEvent]:
    return call_reply(ToolUse(f"g{turn}", "Read", {"file_path": f"x{turn}"}))


def finished_of(events: list[EngineEvent]) -> RunFinished:
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    return finished


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
    agent = Agent(provider, "m", FakeToolset((SPEC,), runner))

    async def collect() -> list[EngineEvent]:
        return [event async for event in agent.run("go")]

    asyncio.run(collect())
    last = agent.messages[-1]
    assert last.role == "tool" and [r.tool_use_id for r in last.tool_results] == ["c"]
    assert last.tool_results[0].is_error and "Not run" in last.tool_results[0].content


@pytest.mark.parametrize("mode", ["native", "rescue"])
@pytest.mark.parametrize("broken", [unknown_tool, bad_arguments])
def test_three_turns_of_calls_that_fail_validation_stop_the_run(mode: Mode, broken: Any) -> None:
    events, provider = drive([broken(turn) for turn in range(8)], mode)
    problem = finished_of(events).problem
    assert problem and "3 times in a row" in problem
    assert len(provider.requests) == 3


def test_a_call_refused_by_permissions_is_not_a_format_failure() -> None:
    script = [bad_arguments(1), unknown_tool(2), good_read(3), bad_arguments(4), unknown_tool(5)]
    events, provider = drive([*script, text_reply("done")], "native", refusing)
    assert finished_of(events).problem is None
    assert len(provider.requests) == 6


def test_one_valid_call_beside_broken_ones_resets_the_count() -> None:
    mixed = call_reply(ToolUse("u", "Tool", {}), ToolUse("g", "Read", {"file_path": "x"}))
    script = [unknown_tool(1), bad_arguments(2), mixed, unknown_tool(4), bad_arguments(5)]
    events, provider = drive([*script, text_reply("done")], "native")
    assert finished_of(events).problem is None
    assert len(provider.requests) == 6


def test_native_call_cut_by_the_length_limit_is_not_run_and_the_model_is_asked() -> None:
    events, provider = drive([cut_native_call(), text_reply("ok")], "native")
    assert not any(isinstance(e, ToolExecuted) for e in events)
    asked = provider.requests[1].messages
    assert TRUNCATION_NOTICE in asked[-1].text
    assert asked[-1].role == "user" and asked[-2].tool_uses == []
    assert finished_of(events).problem is None


def test_second_native_cut_stops_with_a_clear_error() -> None:
    events, _ = drive([cut_native_call(), cut_native_call(), text_reply("never")], "native")
    problem = finished_of(events).problem
    assert problem and "cut off inside a tool call twice" in problem
    assert not any(isinstance(e, ToolExecuted) for e in events)


def test_complete_native_call_in_a_reply_that_hit_the_limit_still_runs() -> None:
    use = ToolUse("c", "Read", {"file_path": "x"})
    events, provider = drive([[ToolUseEnd(0, use), MessageEnd("max_tokens")], text_reply("ok")])
    assert [e.tool_use.id for e in events if isinstance(e, ToolExecuted)] == ["c"]
    assert "cut off" not in provider.requests[1].messages[-1].text
