"""Background shells through the real ``nehanda`` command: read twice, listed by
``/bashes``, and killed when the session ends, normally, by Ctrl-C or by SIGTERM.

The scripted model starts a command with ``run_in_background`` that writes its own
host pid and that of a child it leaves running (from ``/proc/self/stat``) and then
talks in steps, each released by a file a later foreground Bash call creates, so each
BashOutput is taken when what it should see was written. No process may be left once
nehanda has exited.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pexpect
import pytest

from cli_process import nehanda
from processes import gone
from repl_process import spawn_repl
from scripted_calls import calls_stream, rescue_calls_stream
from scripted_server import Reply, ScriptedServer, fixture_body
from waiting import GUARD, until

COMPLETIONS = "/v1/chat/completions"
PROMPT = "\x1b[?2004h"
STEPPED = """read -r pid rest < /proc/self/stat; echo $pid > shell.pid
sh -c 'read -r p r < /proc/self/stat; echo $p > child.pid; exec sleep 1000' > /dev/null 2>&1 &
echo started
while [ ! -e go ]; do sleep 0.01; done
echo second step; touch said
sleep 1000"""
START = ("Bash", {"command": STEPPED, "run_in_background": True})
READ = ("BashOutput", {"bash_id": "bash_1"})
STEP = ("Bash", {"command": "touch go; while [ ! -e said ]; do sleep 0.01; done"})


def args(server: ScriptedServer, *extra: str) -> list[str]:
    return [
        "run", "Start the dev server and watch it.", "--provider", "vllm",
        "--base-url", server.base_url, "--model", "q", "--yes", "--output", "json", *extra,
    ]  # fmt: skip


def pids(workspace: Path) -> list[int]:
    for path in (workspace / "shell.pid", workspace / "child.pid"):
        until(partial(_written, path), f"{path.name} written")
    return [int((workspace / name).read_text()) for name in ("shell.pid", "child.pid")]


def _written(path: Path) -> bool:
    return path.exists() and path.read_text().strip() != ""


def tool_texts(server: ScriptedServer) -> list[str]:
    """What each request's last message sent back: the results of the calls before it."""
    return [str(r.body["messages"][-1]["content"]) for r in server.received(COMPLETIONS)[1:]]


@pytest.mark.parametrize("mode", ["native", "rescue"])
def test_a_shell_read_twice_then_killed_when_the_run_ends(
    server: ScriptedServer, tmp_path: Path, mode: str
) -> None:
    stream = calls_stream if mode == "native" else rescue_calls_stream
    server.stream(stream([START])).stream(stream([READ]))
    server.stream(stream([STEP, READ])).stream(fixture_body("e2e_vllm_answer.sse"))
    done = nehanda(*args(server, "--mode", mode), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shell, child = pids(tmp_path)
    started, first, second = tool_texts(server)
    assert "Started background shell bash_1 (running)" in started and "started" in started
    assert "shell bash_1: running\n(no new output)" in first
    assert "shell bash_1: running\nsecond step" in second and "started" not in second
    assert json.loads(done.stdout)["mode"] == mode
    until(lambda: gone(shell) and gone(child), "the shell and its child gone after the run")


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_that_ends_the_run_kills_its_shells(
    server: ScriptedServer, tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    server.stream(calls_stream([START]))
    server.reply(Reply(200, fixture_body("e2e_vllm_answer.sse"), held=server.released))
    child = subprocess.Popen(
        [sys.executable, "-m", "nehanda", *args(server)],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        server.wait_for(COMPLETIONS, 2)  # the shell runs; the model's next answer is held
        shell, grandchild = pids(tmp_path)
        child.send_signal(signum)
        _, stderr = child.communicate(timeout=GUARD)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == code, stderr
    until(lambda: gone(shell) and gone(grandchild), "the shell and its child gone")


@pytest.fixture
def repl(server: ScriptedServer, tmp_path: Path) -> Iterator[pexpect.spawn]:
    child = spawn_repl(server.base_url, tmp_path, "--yes")
    yield child
    child.close(force=True)


def test_bashes_lists_the_shells_and_leaving_the_repl_kills_them(
    server: ScriptedServer, repl: pexpect.spawn, tmp_path: Path
) -> None:
    server.stream(calls_stream([START])).stream(fixture_body("e2e_vllm_answer.sse"))
    repl.expect_exact(PROMPT)
    repl.send("/bashes\r")
    repl.expect("no background shells in this session")
    repl.expect_exact(PROMPT)
    repl.send("Start the dev server.\r")
    repl.expect_exact(PROMPT)
    shell, child = pids(tmp_path)
    repl.send("/bashes\r")
    repl.expect("Background shells:")
    # The command on one line, cut short: the row says which shell it is.
    repl.expect(
        r"bash_1(\x1b\[[0-9;]*m|\s)+running · pid \d+ · read -r pid rest < /proc/self/stat;"
    )
    repl.expect("output: ")
    repl.expect_exact(PROMPT)
    repl.sendeof()
    repl.expect(pexpect.EOF)
    until(lambda: gone(shell) and gone(child), "the shell and its child gone after the REPL")
