"""Subagents in the REPL (a pty): their calls indented under the Task line, Ctrl-C
stopping them with their parent, and ``--resume`` showing what a subagent did."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from cli_process import nehanda
from conversations import GENERAL, PARENT, Conversations, calls_stream, requests_from, text_stream
from repl_process import spawn_repl
from scripted_server import Received, ScriptedServer
from waiting import GUARD

PROMPT = "\x1b[?2004h"
STYLE = r"(\x1b\[[0-9;]*m)*"  # colour codes between the parts of a line
READ = calls_stream([("Read", {"file_path": "notes.txt"})])
TASK = {"description": "read the notes", "prompt": "What do the notes say?"}


def test_ctrl_c_stops_the_subagents_and_answers_their_calls(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")

    def held_read(received: Received) -> bytes:
        server.released.wait(GUARD)  # the test lets it go after Ctrl-C
        return READ

    two = calls_stream([("Task", TASK), ("Task", {**TASK, "description": "again"})])
    Conversations(
        server,
        {
            PARENT: [two, text_stream("Stopped.")],
            GENERAL: [READ, held_read, text_stream("42")],
        },
    )
    child = spawn_repl(server.base_url, tmp_path)
    try:
        child.expect_exact(PROMPT)
        child.send("read the notes twice\r")
        child.expect("Task read the notes")
        # Each subagent's Read, indented under the Task lines.
        child.expect(rf"[\nm]    {STYLE}✓ {STYLE}Read notes.txt")
        server.wait_for("/v1/chat/completions", 5)  # the parent's, and two of each subagent
        child.sendintr()
        child.expect("interrupted")
        child.expect_exact(PROMPT)
        server.released.set()  # a subagent still running would now read, and ask again
        child.send("go on\r")
        child.expect("Stopped.")
        child.expect_exact(PROMPT)
    finally:
        child.close(force=True)
    assert len(requests_from(server, GENERAL)) == 4
    results = requests_from(server, PARENT)[-1]["messages"]
    answered = [m for m in results if m["role"] == "tool"]
    assert len(answered) == 2 and all("interrupted" in m["content"] for m in answered)


def test_resume_shows_what_a_subagent_did(server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    Conversations(
        server,
        {
            PARENT: [calls_stream([("Task", TASK)]), text_stream("The notes say 42.")],
            GENERAL: [READ, text_stream("notes.txt says the answer is 42")],
        },
    )
    done = nehanda(
        "run", "what do the notes say?", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--output", "json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    session_id = json.loads(done.stdout)["session_id"]
    child = spawn_repl(server.base_url, tmp_path, "--resume", session_id)
    try:
        child.expect("It ended with:")
        child.expect_exact("(called Task)")
        child.expect_exact("↳ general-purpose (called Read): notes.txt says the answer is 42")
        child.expect_exact("The notes say 42.")
        child.expect_exact(PROMPT)
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
