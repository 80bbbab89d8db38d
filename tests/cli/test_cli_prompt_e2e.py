"""The prompt as a user types it: ``-p`` a flag in any order, a pipe on stdin added to
the prompt, and ``nehanda "fix the bug"`` without a command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cli_process import nehanda
from scripted_server import ScriptedServer

COMPLETIONS = "/v1/chat/completions"
LOG = 'Traceback (most recent call last):\n  File "app.py", line 3\nZeroDivisionError\n'


def _flags(server: ScriptedServer) -> tuple[str, ...]:
    return ("--provider", "vllm", "--base-url", server.base_url, "--model", "q")


def _sent_prompt(server: ScriptedServer) -> str:
    (request,) = server.received(COMPLETIONS)
    content = request.body["messages"][-1]["content"]
    assert isinstance(content, str)
    return content


def test_a_pipe_is_added_to_the_prompt_and_p_is_a_flag_before_the_others(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    done = nehanda("-p", *_flags(server), "explain", cwd=tmp_path, stdin=LOG)
    assert done.returncode == 0, done.stderr
    size = len(LOG.encode())
    assert _sent_prompt(server) == f"explain\n\nstdin ({size} bytes):\n```\n{LOG.rstrip()}\n```"


def test_the_same_after_the_prompt_and_for_nehanda_run(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    by_p = nehanda("-p", "explain", *_flags(server), cwd=tmp_path, stdin="x\n")
    by_run = nehanda("run", "explain", *_flags(server), cwd=tmp_path, stdin="x\n")
    assert (by_p.returncode, by_run.returncode) == (0, 0), by_p.stderr + by_run.stderr
    first, second = (r.body["messages"][-1]["content"] for r in server.received(COMPLETIONS))
    assert first == second == "explain\n\nstdin (2 bytes):\n```\nx\n```"


def test_stdin_alone_is_the_prompt_and_an_empty_one_adds_nothing(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    alone = nehanda("-p", *_flags(server), cwd=tmp_path, stdin="what is this?\n")
    empty = nehanda("-p", "hi", *_flags(server), cwd=tmp_path, stdin="")
    assert (alone.returncode, empty.returncode) == (0, 0), alone.stderr + empty.stderr
    first, second = (r.body["messages"][-1]["content"] for r in server.received(COMPLETIONS))
    assert (first, second) == ("what is this?\n", "hi")


def test_a_fence_in_stdin_cannot_end_the_block(server: ScriptedServer, tmp_path: Path) -> None:
    server.stream("e2e_vllm_answer.sse")
    done = nehanda("-p", "look", *_flags(server), cwd=tmp_path, stdin="```\nnot the end\n")
    assert done.returncode == 0, done.stderr
    assert _sent_prompt(server) == "look\n\nstdin (16 bytes):\n````\n```\nnot the end\n````"


def test_a_stdin_held_open_with_nothing_in_it_is_not_waited_for(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as stdout, err.open("w") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "nehanda", "-p", "hi", *_flags(server)],
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=stderr,
            env=os.environ,
        )
        try:
            assert child.wait(timeout=60) == 0, err.read_text()
        finally:
            assert child.stdin is not None
            child.stdin.close()
    assert _sent_prompt(server) == "hi"
    assert "note: nothing came on stdin within 2 s" in err.read_text()


def test_a_prompt_without_a_command_and_without_a_terminal_is_answered_once(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    done = nehanda(*_flags(server), "How", "do I install it?", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "Install it with `pip install widget`.\n")
    assert _sent_prompt(server) == "How do I install it?"


def test_a_commands_name_runs_the_command_and_p_with_it_says_how_to_send_it(
    tmp_path: Path,
) -> None:
    listed = nehanda("sessions", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    refused = nehanda("-p", "sessions", cwd=tmp_path)
    assert refused.returncode == 2
    assert "to send 'sessions' as a prompt: nehanda run sessions" in refused.stderr
