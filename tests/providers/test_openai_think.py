"""``<think>`` reasoning inside ``delta.content`` (llama.cpp, LM Studio, vLLM without a
reasoning parser): shown and stored as reasoning, never as the answer, never sent back;
rescue mode still tells drafted calls in the reasoning from the real ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_json
from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers.openai_compat import OpenAIStreamState
from nehanda.providers.rescue import RescueStreamState
from nehanda.tools.registry import builtin_specs
from scripted_server import ScriptedServer

README = "# widget\n\nInstall it with `pip install widget`.\n"
CALL = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "%s"}}[/TOOL_CALL]'


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "NOTES.md").write_text("private notes\n")
    return tmp_path


def content(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def run(*pieces: str | dict[str, Any]) -> list[StreamEvent]:
    state = OpenAIStreamState(provider="p", model="m")
    events: list[StreamEvent] = []
    for piece in pieces:
        events += state.handle_chunk(content(piece) if isinstance(piece, str) else piece)
    events += state.handle_chunk({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return events + state.finish()


def texts(events: list[StreamEvent]) -> tuple[str, str]:
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    return reasoning, "".join(e.text for e in events if isinstance(e, TextDelta))


def test_reasoning_in_content_comes_out_as_reasoning() -> None:
    events = run("<th", "ink>\nLet me see.", "</think", ">\n\n", "Hello.")
    assert texts(events) == ("Let me see.", "Hello.")
    assert isinstance(events[-1], MessageEnd) and events[-1].stop_reason == "end_turn"


def test_a_held_tag_prefix_is_released_when_the_body_ends() -> None:
    assert texts(run("  <thi")) == ("", "  <thi")
    assert texts(run("<think>cut </thi")) == ("cut </thi", "")


def test_reasoning_fields_and_content_reasoning_do_not_mix_up() -> None:
    events = run({"choices": [{"index": 0, "delta": {"reasoning_content": "field"}}]}, "plain")
    assert texts(events) == ("field", "plain")


def test_a_closer_without_an_opener_stays_text() -> None:
    """The template opened the section: what streamed before cannot be taken back, and
    the closer is left for rescue mode and the leaked-call recovery to read."""
    assert texts(run("Thinking.\n", "</think>\n\nHello.")) == ("", "Thinking.\n</think>\n\nHello.")


def rescued(*pieces: str) -> list[StreamEvent]:
    state = RescueStreamState(builtin_specs())
    return [out for event in run(*pieces) for out in state.handle(event)]


def read_calls(events: list[StreamEvent]) -> list[Any]:
    return [e.tool_use.input["file_path"] for e in events if isinstance(e, ToolUseEnd)]


@pytest.mark.parametrize("size", [1, 7, 1000])
def test_rescue_mode_drops_a_call_drafted_in_the_reasoning(size: int) -> None:
    body = f"<think>\nMaybe {CALL % 'NOTES.md'}? No.\n</think>\n\n{CALL % 'README.md'}"
    events = rescued(*(body[i : i + size] for i in range(0, len(body), size)))
    assert read_calls(events) == ["README.md"]
    assert sum(isinstance(e, ToolUseStart) for e in events) == 1
    assert texts(events)[1] == ""
    assert isinstance(events[-1], MessageEnd) and events[-1].stop_reason == "tool_use"


def test_rescue_mode_runs_the_call_of_a_reply_that_is_all_reasoning() -> None:
    events = rescued(f"<think>\nI will read it: {CALL % 'README.md'}\n</think>\n\n")
    assert read_calls(events) == ["README.md"]
    assert isinstance(events[-1], MessageEnd) and events[-1].stop_reason == "tool_use"


def test_rescue_mode_ignores_reasoning_calls_when_the_reply_answers() -> None:
    events = rescued(f"<think>{CALL % 'README.md'}</think>", "It says to use pip.")
    assert read_calls(events) == []
    assert texts(events)[1] == "It says to use pip."


def test_think_in_content_through_the_cli(server: ScriptedServer, workspace: Path) -> None:
    server.stream("e2e_llamacpp_think_read_readme.sse", piece=11)
    server.stream("e2e_llamacpp_think_answer.sse", piece=11)
    done = run_json(server.base_url, "How do I install it?", cwd=workspace, provider="openai")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "Install it with `pip install widget`."
    assert [(c["name"], c["input"]) for c in result["tool_calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    usage = result["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (1210 + 1290, 41 + 33)

    second = server.requests[1].body
    assistant, tool_result = second["messages"][-2:]
    assert assistant["content"] is None and assistant["tool_calls"][0]["function"]["name"] == "Read"
    assert "pip install widget" in tool_result["content"]
    sent = json.dumps(second)
    assert "think>" not in sent and "I will read" not in sent


def test_rescue_mode_through_the_cli_runs_only_the_real_call(
    server: ScriptedServer, workspace: Path
) -> None:
    server.stream("e2e_llamacpp_think_rescue_call.sse", piece=9)
    server.stream("e2e_llamacpp_think_answer.sse")
    done = run_json(server.base_url, "How do I install it?", "--force-manual-tools", cwd=workspace)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["mode"] == "rescue"
    assert result["result"] == "Install it with `pip install widget`."
    assert [(c["name"], c["input"]) for c in result["tool_calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    sent = json.dumps(server.requests[-1].body)
    assert "NOTES.md" not in sent and "think>" not in sent
