"""Ctrl-C at the approval prompt: the call never started, so the model hears it was not
run (never that it "was interrupted", which would leave it unsure what happened)."""

from __future__ import annotations

from pathlib import Path

import pexpect

from cli.test_approval_e2e import COMPLETIONS, PROMPT, bash_call
from repl_process import spawn_repl
from scripted_server import ScriptedServer


def test_ctrl_c_at_the_approval_prompt_tells_the_model_the_call_was_not_run(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(bash_call("touch marker.txt")).stream("e2e_vllm_answer.sse")
    child = spawn_repl(server.base_url, tmp_path, columns=200)
    try:
        child.expect_exact(PROMPT)
        child.send("make a marker\r")
        child.expect_exact("t = no, and tell the model what to do instead")
        child.sendintr()
        child.expect_exact(PROMPT)
        child.send("go on\r")
        child.expect_exact("pip install widget")
        child.expect_exact(PROMPT)
        messages = server.received(COMPLETIONS)[-1].body["messages"]
        (result,) = [m["content"] for m in messages if m["role"] == "tool"]
        assert result == "Not run: the user interrupted before it started."
        assert not (tmp_path / "marker.txt").exists()
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_ctrl_d_at_the_approval_prompt_is_a_no_said_as_one_and_the_session_goes_on(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(bash_call("touch marker.txt")).stream("e2e_vllm_answer.sse")
    server.stream("e2e_vllm_answer.sse")
    child = spawn_repl(server.base_url, tmp_path, columns=200)
    try:
        child.expect_exact(PROMPT)
        child.send("make a marker\r")
        child.expect_exact("t = no, and tell the model what to do instead")
        child.send("\x04")
        child.expect_exact("no (Ctrl-D answers no here; at the prompt it leaves)")
        child.expect_exact("you said no")
        child.expect_exact(PROMPT)
        assert not (tmp_path / "marker.txt").exists()
        child.send("still here?\r")  # the session went on
        child.expect_exact("pip install widget")
        child.expect_exact(PROMPT)
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_a_running_turn_says_esc_interrupts_it(server: ScriptedServer, tmp_path: Path) -> None:
    server.stream("e2e_vllm_answer.sse", held=server.released)
    child = spawn_repl(server.base_url, tmp_path, columns=200)
    try:
        child.expect_exact(PROMPT)
        child.send("hello\r")
        child.expect_exact("Shift-Tab to change · Esc to interrupt")
        server.released.set()
        child.expect_exact("pip install widget")
        child.expect_exact(PROMPT)
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
