"""TodoWrite end to end: the plan in ``stream-json`` and on ``nehanda run``'s stderr, in
the REPL's live area while the turn runs (a pty), and kept in plan mode."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pexpect

from cli_process import nehanda
from conversations import (
    PARENT,
    Conversations,
    calls_stream,
    requests_from,
    text_stream,
    tool_names,
)
from repl_process import spawn_repl
from scripted_server import Received, ScriptedServer
from waiting import GUARD

TODOS = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
    {"content": "Write the report", "status": "pending", "activeForm": "Writing the report"},
]
PLAN = calls_stream([("TodoWrite", {"todos": TODOS})])


def run(server: ScriptedServer, cwd: Path, *extra: str) -> tuple[str, str]:
    done = nehanda(
        "run", "plan it", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        *extra, cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def test_the_plan_is_a_stream_json_line(server: ScriptedServer, tmp_path: Path) -> None:
    Conversations(server, {PARENT: [PLAN, text_stream("Planned.")]})
    stdout, _ = run(server, tmp_path, "--output", "stream-json")
    lines = [json.loads(line) for line in stdout.splitlines()]
    [todos] = [line for line in lines if line["type"] == "todos"]
    assert todos == {"type": "todos", "tool_use_id": "call-0", "todos": TODOS}
    assert lines[-1]["tool_calls"][0]["is_error"] is False


def test_the_plan_is_shown_on_stderr_when_it_changes(
    server: ScriptedServer, tmp_path: Path
) -> None:
    Conversations(server, {PARENT: [PLAN, PLAN, text_stream("Planned.")]})
    stdout, stderr = run(server, tmp_path)
    assert stdout == "Planned.\n"
    assert "✓ TodoWrite Running the tests · 1/3 done" in stderr
    # Sent twice, the same list is shown once.
    assert stderr.count("☒ Read the code") == 1
    assert "◐ Running the tests" in stderr and "☐ Write the report" in stderr


def test_todowrite_stays_in_plan_mode(server: ScriptedServer, tmp_path: Path) -> None:
    Conversations(server, {PARENT: [PLAN, text_stream("Planned.")]})
    run(server, tmp_path, "--permission-mode", "plan")
    first, second = requests_from(server, PARENT)
    assert "TodoWrite" in tool_names(first) and "Write" not in tool_names(first)
    assert "Task" in tool_names(first)
    assert second["messages"][-1]["content"].startswith("The todo list now has 3")


def test_the_repl_shows_the_plan_while_the_turn_runs(
    server: ScriptedServer, tmp_path: Path
) -> None:
    seen = threading.Event()

    def after_seen(received: Received) -> bytes:
        assert seen.wait(GUARD), "the test never saw the plan"
        return text_stream("Planned.")

    Conversations(server, {PARENT: [PLAN, after_seen]})
    child = spawn_repl(server.base_url, tmp_path)
    try:
        child.expect_exact("\x1b[?2004h")
        child.send("plan it\r")
        # The live area, above the spinner: each item's mark, then its styled text.
        child.expect(r"◐ (\x1b\[[0-9;]*m)*Running the tests")
        child.expect(r"☐ (\x1b\[[0-9;]*m)*Write the report")
        seen.set()
        child.expect("Planned.")
        child.expect_exact("\x1b[?2004h")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        seen.set()
        child.close(force=True)
