"""The turn loop, driven by a scripted provider: calls run once, results go back, it stops."""

from __future__ import annotations

import asyncio

import pytest

from fakes import FakeProvider, FakeToolset, call_reply, text_reply
from nehanda.engine.loop import Agent
from nehanda.errors import StreamProtocolError
from nehanda.events import EngineEvent, RunFinished, TextDelta, ToolExecuted
from nehanda.types import ToolResult, ToolSpec, ToolUse

SPEC = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})


class RecordingRunner:
    def __init__(self) -> None:
        self.ran: list[ToolUse] = []

    async def __call__(self, tool_use: ToolUse) -> ToolResult:
        self.ran.append(tool_use)
        return ToolResult(tool_use.id, f"contents of {tool_use.input.get('file_path')}")


def drive(agent: Agent, prompt: str = "go") -> list[EngineEvent]:
    async def collect() -> list[EngineEvent]:
        return [event async for event in agent.run(prompt)]

    return asyncio.run(collect())


def read_call(call_id: str, path: str) -> ToolUse:
    return ToolUse(call_id, "Read", {"file_path": path})


def test_calls_run_once_each_and_results_go_back_in_order() -> None:
    provider = FakeProvider(
        [
            call_reply(read_call("a", "x.py"), read_call("b", "y.py")),
            text_reply("done"),
        ]
    )
    runner = RecordingRunner()
    events = drive(Agent(provider, "m", FakeToolset((SPEC,), runner)))
    assert [use.id for use in runner.ran] == ["a", "b"]
    second = provider.requests[1].messages
    assert [m.role for m in second] == ["user", "assistant", "tool"]
    assert [r.tool_use_id for r in second[-1].tool_results] == ["a", "b"]
    assert second[-1].tool_results[0].content == "contents of x.py"
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert (finished.text, finished.turns, finished.stop_reason) == ("done", 2, "end_turn")
    assert finished.usage.input_tokens == 30


def test_tools_offered_on_every_request() -> None:
    provider = FakeProvider([call_reply(read_call("a", "x")), text_reply("ok")])
    drive(Agent(provider, "m", FakeToolset((SPEC,), RecordingRunner())))
    assert all(request.tools == (SPEC,) for request in provider.requests)
    assert all(request.tool_choice == "auto" for request in provider.requests)


def test_max_turns_stops_a_model_that_never_stops_calling() -> None:
    provider = FakeProvider([call_reply(read_call(f"c{i}", f"x{i}")) for i in range(3)])
    runner = RecordingRunner()
    events = drive(Agent(provider, "m", FakeToolset((SPEC,), runner), max_turns=3))
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert (finished.stop_reason, finished.turns) == ("max_turns", 3)
    assert len(provider.requests) == 3
    assert sum(isinstance(e, ToolExecuted) for e in events) == 3


def test_stream_without_final_event_runs_no_call() -> None:
    truncated = call_reply(read_call("a", "x"))[:-1]
    runner = RecordingRunner()
    with pytest.raises(StreamProtocolError, match="no tool call"):
        drive(Agent(FakeProvider([truncated]), "m", FakeToolset((SPEC,), runner)))
    assert runner.ran == []


def test_text_streams_before_the_run_finishes() -> None:
    events = drive(
        Agent(FakeProvider([text_reply("hello")]), "m", FakeToolset((), RecordingRunner()))
    )
    assert isinstance(events[1], TextDelta)
    assert events[1].text == "hello"


def test_no_tools_means_no_tool_choice() -> None:
    provider = FakeProvider([text_reply("hi")])
    drive(Agent(provider, "m", FakeToolset((), RecordingRunner())))
    assert provider.requests[0].tool_choice is None


def test_a_reply_cut_short_keeps_its_text_and_the_turns_alternating() -> None:
    provider = FakeProvider([[TextDelta("Half an ans"), StreamProtocolError("stream cut")]])
    agent = Agent(provider, "m", FakeToolset((SPEC,), RecordingRunner()))
    with pytest.raises(StreamProtocolError):
        drive(agent)
    assert [m.role for m in agent.messages] == ["user", "assistant"]
    assert agent.messages[-1].text == "Half an ans\n[this reply was cut short]"


def test_a_stream_without_its_end_still_leaves_an_assistant_turn() -> None:
    agent = Agent(
        FakeProvider([[TextDelta("partial")]]), "m", FakeToolset((SPEC,), RecordingRunner())
    )
    with pytest.raises(StreamProtocolError):
        drive(agent)
    assert [m.role for m in agent.messages] == ["user", "assistant"]
