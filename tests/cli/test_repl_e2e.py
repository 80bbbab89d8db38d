"""The REPL driven for real: ``python -m nehanda`` in a pseudo-terminal (pexpect) against a
scripted server on 127.0.0.1, as a user at a keyboard would drive it.

prompt_toolkit turns bracketed paste on each time it starts reading a prompt; that
sequence is how these tests know the prompt is ready.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from cli_process import nehanda
from repl_process import spawn_repl
from scripted_server import ScriptedServer, fixture_body
from waiting import until

PROMPT = "\x1b[?2004h"
README = "# widget\n\nInstall it with `pip install widget`.\n"
COMPLETIONS = "/v1/chat/completions"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(README)
    return tmp_path


@pytest.fixture
def spawn(server: ScriptedServer, workspace: Path) -> Iterator[Any]:
    children: list[pexpect.spawn] = []

    def start(*extra: str, **env: str) -> pexpect.spawn:
        child = spawn_repl(server.base_url, workspace, *extra, env=env)
        children.append(child)
        return child

    yield start
    for child in children:
        child.close(force=True)


def bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    return [request.body for request in server.received(COMPLETIONS)]


def exchange(child: pexpect.spawn, line: str, *shown: str) -> None:
    """Types ``line`` and Enter, waits for each of ``shown`` in turn, then for the prompt."""
    child.send(line + "\r")
    for pattern in shown:
        child.expect(pattern)
    child.expect_exact(PROMPT)


def stalled_answer() -> bytes:
    return fixture_body("e2e_vllm_answer.sse")


def session_records() -> list[dict[str, Any]]:
    """The records of the one session this test's private state dir holds."""
    (path,) = (Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_tool_line_mode_and_model_switches_errors_and_exit(
    spawn: Any, server: ScriptedServer
) -> None:
    server.stream("e2e_vllm_read_readme.sse").stream("e2e_vllm_answer.sse")
    server.error(401, "openai_error_invalid_key.json").stream("e2e_vllm_answer.sse")
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect(r"vllm · q · native tool calls \(the vllm profile says so; a refusal would")
    child.expect("permission mode default")
    child.expect_exact(PROMPT)
    user_settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    start = "".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.logfile_read.getvalue()).split())
    assert f"settings:{user_settings}(nehandaconfig)" in start
    exchange(
        child,
        "How do I install it?",
        r"✓ \x1b\[0m\x1b\[1mRead README.md\x1b\[0m\x1b\[2m · 3 lines · \d+ ms",
        "pip install widget",
        "1,682 tokens in · 37 out · 2 requests",
    )
    exchange(child, "this one fails", "error: .*Incorrect API key provided")
    exchange(child, "/mode rescue", r"rescue tool calls \(chosen with /mode\)")
    exchange(child, "And now?", "pip install widget")
    exchange(child, "/model q2", r"vllm · q2 · rescue tool calls \(chosen with /mode\)")
    exchange(child, "Last one", "pip install widget")
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    native, _, _, rescue, switched = bodies(server)
    assert native["tools"] and [m["role"] for m in native["messages"]].count("system") == 1
    assert "tools" not in rescue and "tool_choice" not in rescue
    assert [m["role"] for m in rescue["messages"]].count("system") == 1
    assert rescue["messages"][0]["role"] == "system"
    assert switched["model"] == "q2" and "tools" not in switched
    users = [m["content"] for m in switched["messages"] if m["role"] == "user"]
    assert users[0] == "How do I install it?" and users[-1].startswith("Last one")
    history = Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "history"
    assert "How do I install it?" in history.read_text()


def test_tool_output_is_previewed_and_ctrl_o_or_output_shows_it_whole(
    spawn: Any, server: ScriptedServer, workspace: Path
) -> None:
    steps = [f"step {n}: do thing {n}" for n in range(1, 8)]
    (workspace / "README.md").write_text("\n".join(["# widget", "", *steps, "done"]) + "\n")
    server.stream("e2e_vllm_read_readme.sse").stream("e2e_vllm_answer.sse")
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect_exact(PROMPT)
    child.send("How do I install it?\r")
    child.expect(r"Read README.md\x1b\[0m\x1b\[2m · 10 lines · ")
    for shown in ("# widget", "step 1: do thing 1", r"… \+5 lines \(/output 1 or ctrl\+o"):
        child.expect(shown)
    child.expect("step 7: do thing 7")
    child.expect("done")
    child.expect("pip install widget")
    child.expect_exact(PROMPT)
    preview = child.logfile_read.getvalue()
    assert "step 4" not in preview and "thing 2" not in preview

    child.send("keep this")
    child.sendcontrol("o")  # shown above the prompt, and what was typed stays
    child.expect(r"\[1\] .*Read README.md")
    for n in range(1, 8):
        child.expect(f"step {n}: do thing {n}")
    child.expect_exact("keep this")
    exchange(child, "", "pip install widget")
    assert bodies(server)[-1]["messages"][-1]["content"] == "keep this"
    # The calls are still those of the last prompt that made any.
    exchange(child, "/output 2", "no call 2: the last prompt that ran tools made call 1")
    exchange(child, "/output 1", "step 4: do thing 4")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def test_ctrl_c_cancels_a_stalled_stream_and_the_next_prompt_works(
    spawn: Any, server: ScriptedServer
) -> None:
    body = stalled_answer()
    # Held until the test ends: only Ctrl-C can end this turn.
    server.stream(body, piece=64, stall_after=body.index(b"pip install") - 10, held=server.released)
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect_exact(PROMPT)
    child.send("first question\r")
    child.expect("Install it with")
    child.sendintr()
    child.expect("interrupted")
    child.expect_exact(PROMPT)
    # Esc Enter starts a new line; a bracketed paste keeps its newlines and does not send.
    exchange(child, "second\x1b\r\x1b[200~question\nin lines\x1b[201~", "pip install widget")
    child.sendcontrol("c")
    child.expect("Ctrl-C again or Ctrl-D to leave")
    child.expect_exact(PROMPT)
    child.sendcontrol("c")
    child.expect("saved; nehanda --resume")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    users = [m["content"] for m in bodies(server)[-1]["messages"] if m["role"] == "user"]
    assert users == ["first question", "second\nquestion\nin lines"]
    records = session_records()
    assert [r["type"] for r in records].count("interrupted") == 1


def running(command: bytes) -> bool:
    """Whether a process with this command line (words joined by NULs) is alive."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().rstrip(b"\0") == command:
                return True
        except OSError:
            continue
    return False


def test_ctrl_c_stops_a_running_command_and_answers_its_call(
    spawn: Any, server: ScriptedServer
) -> None:
    touch = fixture_body("e2e_vllm_bash_touch_marker.sse")
    server.stream(touch.replace(b"touch", b"sleep").replace(b" marker.txt", b" 31.7"))
    server.stream("e2e_vllm_answer.sse")
    child = spawn("--yes")
    child.expect_exact(PROMPT)
    child.send("wait a while\r")
    child.expect("running Bash sleep 31.7")
    until(lambda: running(b"sleep\x0031.7"), "the command starting")
    child.sendintr()
    child.expect("interrupted")
    child.expect_exact(PROMPT)
    assert not running(b"sleep\x0031.7")
    exchange(child, "go on", "pip install widget")
    messages = bodies(server)[-1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert "interrupted" in messages[3]["content"]


def test_killed_mid_turn_then_resumed_with_the_transcript_intact(
    spawn: Any, server: ScriptedServer, workspace: Path
) -> None:
    body = stalled_answer()
    server.stream("e2e_vllm_read_readme.sse")
    server.stream(body, piece=64, stall_after=0, held=server.released)
    child = spawn()
    child.expect_exact(PROMPT)
    child.send("How do I install it?\r")
    child.expect("Read README.md")
    server.wait_for(COMPLETIONS, 2)
    child.kill(signal.SIGKILL)
    child.close(force=True)

    server.stream("e2e_vllm_answer.sse")
    args = ["--provider", "vllm", "--base-url", server.base_url, "--model", "q"]
    done = nehanda("run", "--continue", "And then?", *args, "--output", "json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Install it with `pip install widget`."
    messages = bodies(server)[-1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert messages[1]["content"] == "How do I install it?"
    assert messages[2]["tool_calls"][0]["function"]["name"] == "Read"
    assert "pip install widget" in messages[3]["content"]
    assert messages[4]["content"] == "And then?"


def test_a_dumb_terminal_reads_plain_lines_and_writes_no_escapes(
    spawn: Any, server: ScriptedServer
) -> None:
    server.stream("e2e_vllm_read_readme.sse").stream("e2e_vllm_answer.sse")
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    child = spawn(TERM="dumb", NO_COLOR="1")
    child.expect(r"session (\S+)")
    first_id = child.match.group(1)
    child.expect_exact("> ")
    child.send("How do I install it?\r")
    child.expect("pip install widget")
    child.expect_exact("> ")
    child.send("/cost\r")
    child.expect("this conversation: 1,682 tokens in, 37 out over 2 requests")
    child.send("/bogus\r")
    child.expect("unknown command /bogus")
    child.send("/clear\r")
    child.expect(r"session (\S+)")
    assert child.match.group(1) != first_id
    child.send("Fresh start\r")
    child.expect("pip install widget")
    child.send(f"/resume {first_id}\r")
    child.expect(f"resumed session {first_id}: 2 earlier replies")
    child.send("Back again\r")
    child.expect("pip install widget")
    child.expect_exact("> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    output = child.logfile_read.getvalue()
    assert "\x1b" not in output
    assert "Read README.md · 3 lines" in output
    cleared, resumed = bodies(server)[2:]
    assert [m["role"] for m in cleared["messages"]] == ["system", "user"]
    users = [m["content"] for m in resumed["messages"] if m["role"] == "user"]
    assert users == ["How do I install it?", "Back again"]


def test_piped_prompts_run_one_per_line(server: ScriptedServer, workspace: Path) -> None:
    server.stream("e2e_vllm_answer.sse")
    args = ["--provider", "vllm", "--base-url", server.base_url, "--model", "q"]
    done = nehanda(*args, cwd=workspace, stdin="How do I install it?\n/tools\n")
    assert done.returncode == 0, done.stderr
    assert "Install it with pip install widget." in done.stdout
    assert "Read   in the workspace: runs; outside it: asks first" in done.stdout
    assert "\x1b" not in done.stdout


@pytest.mark.parametrize("key", ["y", "n"])
def test_a_folder_whose_settings_ask_for_trust_is_offered_it_at_start(
    spawn: Any, workspace: Path, key: str
) -> None:
    settings = workspace / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('[permissions]\nallow = ["Bash(make test)"]\n')
    store = Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "trusted_folders.json"
    child = spawn()
    child.expect("permissions.allow")
    child.expect_exact("trust this folder? [y/N/v to view AGENTS.md and settings] ")
    child.send(key)
    if key == "y":
        child.expect("its files apply from now on")
        child.expect_exact(PROMPT)
        assert "were ignored" not in child.logfile_read.getvalue()
        assert json.loads(store.read_text())["folders"] == [str(workspace.resolve())]
    else:
        child.expect("not trusted; to trust it later, run `nehanda trust`")
        child.expect("were ignored")
        child.expect_exact(PROMPT)
        assert not store.exists()
    child.sendcontrol("d")
    child.expect(pexpect.EOF)

    again = spawn()
    if key == "n":  # asked again at every start until trusted
        again.expect_exact("trust this folder?")
        again.send("n")
    again.expect_exact(PROMPT)
    assert again.logfile_read.getvalue().count("trust this folder?") == (key == "n")
    again.sendcontrol("d")
    again.expect(pexpect.EOF)


def test_context_shows_the_window_and_compact_summarises_by_hand(
    server: ScriptedServer, workspace: Path
) -> None:
    from scripted_server import Reply

    models = {"data": [{"id": "q", "object": "model", "max_model_len": 32768}]}
    server.route("GET", "/v1/models", Reply(200, json.dumps(models).encode(), {}))
    answer = fixture_body("e2e_vllm_answer.sse")
    summary = answer.replace(b"Install it with ", b"## Goal\\nInstall widget. ")
    server.reply(
        *(
            Reply(200, body, {"Content-Type": "text/event-stream"})
            for body in (answer, summary, answer)
        )
    )
    args = ["--provider", "vllm", "--base-url", server.base_url, "--model", "q"]
    lines = "How do I install it?\n/context\n/compact the install steps\n/context\nAnd then?\n"
    done = nehanda(*args, cwd=workspace, stdin=lines)
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert "Context:" in out and "of 32,768 tokens" in out
    for part in ("system prompt", "tools", "messages", "kept for the reply", "free"):
        assert part in out
    assert "% of 32,768" in out  # the footer after an answer: the share of the window in use
    assert "context compacted: 1 older message replaced by a summary" in out
    _, summarise, after = bodies(server)
    assert "tools" not in summarise
    assert "Give most room to: the install steps" in summarise["messages"][-1]["content"]
    sent = [m["content"] for m in after["messages"]]
    assert "How do I install it?" not in sent
    assert any("## Goal" in (text or "") for text in sent) and sent[-1] == "And then?"
