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
    calls_stream,
    requests_from,
    system_prompt,
    text_stream,
    tool_names,
)
from scripted_calls import rescue_calls_stream
from scripted_server import Received, Reply, ScriptedServer

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
            PARENT: [calls_stream([("Task", TASK)]), text_stream("The notes say 42.")],
            GENERAL: [
                calls_stream([("Read", {"file_path": "notes.txt"})]),
                text_stream("notes.txt says the answer is 42"),
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
    assert tool_names(sub[0]) == ["Read", "LS", "Glob", "Grep", "BashOutput", "WebFetch"]
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


def two_tasks() -> bytes:
    return calls_stream(
        [
            ("Task", {"description": "left half", "prompt": "Look at the left half."}),
            ("Task", {"description": "right half", "prompt": "Look at the right half."}),
        ]
    )


def answer_by_half(received: Received) -> bytes:
    return text_stream(f"seen: {received.body['messages'][1]['content']}")


def test_two_tasks_in_one_reply_run_at_once(server: ScriptedServer, tmp_path: Path) -> None:
    # Each subagent's first request is held until both are open: run one after the
    # other, the second would never come while the first waits.
    talk = Conversations(
        server,
        {PARENT: [two_tasks(), text_stream("Both done.")], GENERAL: [answer_by_half]},
        together=2,
    )
    lines = run_stream(server, tmp_path)
    assert talk.most_open == 2
    results = requests_from(server, PARENT)[1]["messages"][-2:]
    # The results go back in the order of the calls, whichever finished first.
    assert [r["tool_call_id"] for r in results] == ["call-0", "call-1"]
    assert [r["content"] for r in results] == [
        "seen: Look at the left half.",
        "seen: Look at the right half.",
    ]
    assert lines[-1]["result"] == "Both done."


def test_max_parallel_bounds_the_subagents_running_at_once(
    server: ScriptedServer, tmp_path: Path, isolated_home: Path
) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("[agents]\nmax_parallel = 1\n")
    talk = Conversations(
        server, {PARENT: [two_tasks(), text_stream("Both done.")], GENERAL: [answer_by_half]}
    )
    lines = run_stream(server, tmp_path)
    assert talk.most_open == 1 and len(requests_from(server, GENERAL)) == 2
    assert lines[-1]["result"] == "Both done."


REVIEWER = """\
---
name: reviewer
description: Reviews code for bugs
tools: Read, Grep, Bash
model: qwen-coder
---
You are the reviewer. Look for bugs.
"""


def trust(folder: Path) -> None:
    assert nehanda("trust", cwd=folder).returncode == 0


def test_a_trusted_projects_definition_gives_its_prompt_tools_and_model(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "reviewer.md").write_text(REVIEWER)
    trust(tmp_path)
    task = {**TASK, "subagent_type": "reviewer"}
    Conversations(
        server,
        {
            PARENT: [calls_stream([("Task", task)]), text_stream("Reviewed.")],
            "You are the reviewer": [text_stream("no bugs")],
        },
    )
    lines = run_stream(server, tmp_path)
    [sub] = requests_from(server, "You are the reviewer")
    assert sub["model"] == "qwen-coder"
    assert tool_names(sub) == ["Read", "Bash", "Grep"]  # in the order the session offers them
    task_spec = next(
        t for t in requests_from(server, PARENT)[0]["tools"] if t["function"]["name"] == "Task"
    )
    assert (
        "- reviewer: Reviews code for bugs (Tools: Read, Grep, Bash)"
        in task_spec["function"]["description"]
    )
    assert lines[-1]["result"] == "Reviewed."


def test_an_untrusted_projects_definition_is_ignored(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "reviewer.md").write_text(REVIEWER)
    task = {**TASK, "subagent_type": "reviewer"}
    Conversations(server, {PARENT: [calls_stream([("Task", task)]), text_stream("No reviewer.")]})
    lines = run_stream(server, tmp_path)
    first, second = requests_from(server, PARENT)
    assert "reviewer" not in json.dumps(first["tools"])
    assert second["messages"][-1]["content"] == (
        "Unknown subagent_type 'reviewer'; the subagents are: general-purpose."
    )
    assert not requests_from(server, "You are the reviewer")
    assert lines[-1]["result"] == "No reviewer."


def test_a_user_definition_in_claudes_folder_with_a_claude_alias_runs_on_the_sessions_model(
    server: ScriptedServer, tmp_path: Path, isolated_home: Path
) -> None:
    folder = isolated_home / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text(REVIEWER.replace("qwen-coder", "sonnet"))
    Conversations(
        server,
        {
            PARENT: [
                calls_stream([("Task", {**TASK, "subagent_type": "reviewer"})]),
                text_stream("ok"),
            ],
            "You are the reviewer": [text_stream("no bugs")],
        },
    )
    done = nehanda(
        "run", "review", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        cwd=tmp_path, env={"HOME": str(isolated_home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [sub] = requests_from(server, "You are the reviewer")
    assert sub["model"] == "q"
    assert (
        "asks for Claude's sonnet, which this provider does not have; it runs on q" in done.stderr
    )


def test_a_subagent_that_fails_answers_its_parent_with_the_error(
    server: ScriptedServer, tmp_path: Path
) -> None:
    failing = Conversations(
        server,
        {PARENT: [calls_stream([("Task", TASK)]), text_stream("It failed; carrying on.")]},
    )
    parent_answer = failing.answer

    def answer(received: Received) -> Reply:
        if GENERAL in system_prompt(received.body):
            return Reply(
                400,
                b'{"error": {"message": "model q cannot do that"}}',
                {"Content-Type": "application/json"},
            )
        return parent_answer(received)

    server.responder = answer
    lines = run_stream(server, tmp_path)
    result = requests_from(server, PARENT)[1]["messages"][-1]["content"]
    assert result.startswith("The general-purpose subagent failed:")
    assert "cannot do that" in result
    ended = next(line for line in lines if line["type"] == "subagent_result")
    assert ended["is_error"] is True
    assert lines[-1]["result"] == "It failed; carrying on."


def test_a_subagents_write_goes_through_the_gate(server: ScriptedServer, tmp_path: Path) -> None:
    writer = "---\nname: writer\ndescription: Writes files\n---\nYou are the writer.\n"
    (tmp_path / ".nehanda" / "agents").mkdir(parents=True)
    (tmp_path / ".nehanda" / "agents" / "writer.md").write_text(writer)
    trust(tmp_path)
    write = ("Write", {"file_path": "planted.txt", "content": "x"})
    Conversations(
        server,
        {
            PARENT: [
                calls_stream([("Task", {**TASK, "subagent_type": "writer"})]),
                text_stream("ok"),
            ],
            "You are the writer": [calls_stream([write]), text_stream("could not write")],
        },
    )
    lines = run_stream(server, tmp_path)
    assert not (tmp_path / "planted.txt").exists()
    sub = requests_from(server, "You are the writer")
    # No tools listed: every tool but Task, as in Claude Code.
    assert "Write" in tool_names(sub[0]) and "Bash" in tool_names(sub[0])
    assert "Task" not in tool_names(sub[0])
    refused = sub[1]["messages"][-1]["content"]
    assert refused.startswith("Permission denied: Write was not run")
    nested = next(
        line for line in lines if line["type"] == "tool_result" and "parent_tool_use_id" in line
    )
    assert nested["refused"]["by"] == "nobody"


def test_run_shows_a_subagents_calls_indented_under_its_task(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    Conversations(
        server,
        {
            PARENT: [calls_stream([("Task", TASK)]), text_stream("The notes say 42.")],
            GENERAL: [
                calls_stream([("Read", {"file_path": "notes.txt"})]),
                text_stream("notes.txt says the answer is 42"),
            ],
        },
    )
    done = nehanda(
        "run", "what do the notes say?", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    read = next(i for i, line in enumerate(lines) if "Read notes.txt" in line)
    task = next(i for i, line in enumerate(lines) if line.startswith("✓ Task read the notes"))
    assert lines[read].startswith("    ✓ Read notes.txt · ") and read < task
    assert "general-purpose answered" in lines[task]
    assert done.stdout == "The notes say 42.\n"


def test_in_rescue_mode_a_task_written_as_text_runs_its_subagent_whose_calls_are_text_too(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    Conversations(
        server,
        {
            PARENT: [rescue_calls_stream([("Task", TASK)]), text_stream("The notes say 42.")],
            GENERAL: [
                rescue_calls_stream([("Read", {"file_path": "notes.txt"})]),
                text_stream("notes.txt says the answer is 42"),
            ],
        },
    )
    lines = run_stream(server, tmp_path, "--mode", "rescue")
    parent, sub = requests_from(server, PARENT), requests_from(server, GENERAL)
    assert len(parent) == 2 and len(sub) == 2
    # Rescue mode: no native tools anywhere; the subagent's prompt lists its own tools.
    assert all("tools" not in body for body in parent + sub)
    assert "[TOOL_CALL]" in system_prompt(sub[0]) and "TodoWrite" not in system_prompt(sub[0])
    assert "the answer is 42" in sub[1]["messages"][-1]["content"]
    assert "notes.txt says the answer is 42" in parent[1]["messages"][-1]["content"]
    assert lines[-1]["result"] == "The notes say 42."
