"""The Task tool end to end: ``nehanda run`` in a child process against a scripted model
that the session and its subagents talk to, each in a conversation of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_process import nehanda
from conversations import (
    GENERAL,
    PARENT,
    Conversations,
    answer_stream,
    calls_stream,
    requests_from,
    tool_names,
)
from scripted_server import ScriptedServer

TASK = {"description": "read the notes", "prompt": "What do the notes say?"}


def run_stream(server: ScriptedServer, cwd: Path, *extra: str) -> list[dict[str, Any]]:
    """``nehanda run --output stream-json``, its lines read; it must have succeeded."""
    done = nehanda(
        "run", "what do the notes say?", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--output", "stream-json", *extra, cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_task_runs_its_subagent_in_a_conversation_of_its_own(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    Conversations(
        server,
        {
            PARENT: [calls_stream([("Task", TASK)]), answer_stream("The notes say 42.")],
            GENERAL: [
                calls_stream([("Read", {"file_path": "notes.txt"})]),
                answer_stream("notes.txt says the answer is 42"),
            ],
        },
    )
    lines = run_stream(server, tmp_path)
    parent, sub = requests_from(server, PARENT), requests_from(server, GENERAL)
    assert len(parent) == 2 and len(sub) == 2
    # Its own system prompt and its own conversation: the parent's prompt is not in it.
    assert sub[0]["messages"][1] == {"role": "user", "content": "What do the notes say?"}
    assert PARENT not in json.dumps(sub[0]["messages"])
    # The built-in gets the read-only tools, and no Task (one level only).
    assert tool_names(sub[0]) == ["Read", "LS", "Glob", "Grep"]
    assert "Task" in tool_names(parent[0]) and "TodoWrite" in tool_names(parent[0])
    assert "the answer is 42" in sub[1]["messages"][-1]["content"]
    # The subagent's answer is the Task call's result in the parent's conversation.
    result = parent[1]["messages"][-1]
    assert result["role"] == "tool" and result["content"] == "notes.txt says the answer is 42"
    # stream-json: the subagent's calls between the Task's start and its result.
    shown = [
        (line["type"], line.get("name"), "parent_tool_use_id" in line)
        for line in lines
        if line["type"] in ("tool_use", "tool_result", "subagent_result")
    ]
    assert shown == [
        ("tool_use", "Task", False),
        ("tool_use", "Read", True),
        ("tool_result", None, True),
        ("subagent_result", None, True),
        ("tool_result", None, False),
    ]
    ended = next(line for line in lines if line["type"] == "subagent_result")
    assert ended["agent"] == "general-purpose" and ended["is_error"] is False
    assert lines[-1]["result"] == "The notes say 42."
