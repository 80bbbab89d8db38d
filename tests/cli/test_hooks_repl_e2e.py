"""Hooks and notifications in the REPL: ``python -m nehanda`` in a pseudo-terminal
(pexpect) against a scripted server, with real hook processes the test writes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from hook_scripts import hook, hooks_toml, seen, user_settings
from nehanda.config.trust import trust_folder
from repl_process import spawn_repl
from scripted_calls import calls_stream
from scripted_server import ScriptedServer
from waiting import until

PROMPT = "\x1b[?2004h"
# A terminal that shows OSC 9, and one that knows only the bell.
ITERM = {"TERM_PROGRAM": "iTerm.app", "VTE_VERSION": "", "WT_SESSION": ""}
PLAIN = {"TERM_PROGRAM": "", "VTE_VERSION": "", "WT_SESSION": "", "ConEmuPID": ""}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def spawn(server: ScriptedServer, workspace: Path) -> Iterator[Any]:
    children: list[pexpect.spawn] = []

    def start(**env: str) -> pexpect.spawn:
        child = spawn_repl(server.base_url, workspace, env={"HOME": str(workspace.parent), **env})
        children.append(child)
        child.expect_exact(PROMPT)
        return child

    yield start
    for child in children:
        child.close(force=True)


def test_hooks_block_a_call_and_see_the_session_start_clear_and_end(
    spawn: Any, server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    scripts = tmp_path / "hooks"
    block = hook(scripts, "block", 'sys.stderr.write("no markers"); sys.exit(2)')
    start = hook(scripts, "start", "")
    end = hook(scripts, "end", "")
    user_settings(
        hooks_toml(
            ("PreToolUse", "Bash", block), ("SessionStart", "", start), ("SessionEnd", "", end)
        )
    )
    server.stream(calls_stream([("Bash", {"command": "touch marker.txt"})]))
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.send("make a marker\r")
    child.expect_exact("a PreToolUse hook blocked it: no markers")
    child.expect_exact(PROMPT)
    assert not (workspace / "marker.txt").exists()
    child.send("/clear\r")
    child.expect_exact(PROMPT)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    assert [r["input"]["source"] for r in seen(scripts, "start")] == ["startup", "clear"]
    reasons = [r["input"]["reason"] for r in seen(scripts, "end")]
    assert reasons == ["clear", "prompt_input_exit"]


def test_a_reply_longer_than_notify_after_rings_the_bell(
    spawn: Any, server: ScriptedServer
) -> None:
    user_settings("[notify]\nafter = 0\n")
    server.stream("e2e_vllm_answer.sse")
    child = spawn(**PLAIN)
    rung = child.logfile_read.getvalue().count("\a")
    child.send("hello\r")
    child.expect_exact("pip install widget")
    child.expect_exact(PROMPT)
    until(lambda: child.logfile_read.getvalue().count("\a") > rung, "the bell")


def test_no_bell_for_a_quick_reply(spawn: Any, server: ScriptedServer) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    child = spawn(**ITERM)  # the default: only replies longer than 30 s
    child.send("hello\r")
    child.expect_exact(PROMPT)
    assert "\x1b]9;" not in child.logfile_read.getvalue()


def test_an_approval_waiting_notifies_and_the_command_and_hook_get_the_json(
    spawn: Any, server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    scripts = tmp_path / "hooks"
    command = hook(scripts, "notify", "")
    on_hook = hook(scripts, "notified", "")
    user_settings(
        f"[notify]\ncommand = {json.dumps(command)}\n\n"
        + hooks_toml(("Notification", "permission_prompt", on_hook))
    )
    server.stream(calls_stream([("Bash", {"command": "touch marker.txt"})]))
    server.stream("e2e_vllm_answer.sse")
    child = spawn(**ITERM)
    child.send("make a marker\r")
    child.expect_exact("\x1b]9;nehanda asks to run Bash\a")
    child.expect_exact("Run it? (")
    child.send("n")
    child.expect_exact(PROMPT)
    until(
        lambda: len(seen(scripts, "notify")) == 1 and len(seen(scripts, "notified")) == 1,
        "the command and the hook",
    )
    for name in ("notify", "notified"):
        given = seen(scripts, name)[0]["input"]
        assert given["hook_event_name"] == "Notification"
        assert given["notification_type"] == "permission_prompt"
        assert given["message"] == "nehanda asks to run Bash"


def test_a_new_project_hook_is_offered_at_start_and_runs_once_approved(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    scripts = tmp_path / "hooks"
    settings = workspace / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    command = hook(scripts, "proj", 'sys.stderr.write("the project says no"); sys.exit(2)')
    settings.write_text(hooks_toml(("PreToolUse", "Bash", command)))
    trust_folder(workspace)
    server.stream(calls_stream([("Bash", {"command": "touch marker.txt"})]))
    server.stream("e2e_vllm_answer.sse")
    child = spawn_repl(server.base_url, workspace, env={"HOME": str(workspace.parent)})
    try:
        child.expect_exact("Let it run? (")
        shown = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", child.logfile_read.getvalue()).split())
        assert "defines a new hook, which runs with your rights:" in shown
        assert "runs for: Bash" in shown
        child.send("y")
        child.expect_exact(PROMPT)
        child.send("make a marker\r")
        child.expect_exact("the project says no")
        child.expect_exact(PROMPT)
        assert not (workspace / "marker.txt").exists()
    finally:
        child.close(force=True)
