"""Steering the REPL for real (pexpect in a pseudo-terminal, a scripted server on 127.0.0.1):
Shift-Tab and ``/permissions mode`` change what the next call may do and what the
next request offers; ``/model``, ``/provider`` and ``/resume`` with no argument offer a
list to pick from. What the terminal shows is read off an emulated screen (pyte), since
prompt_toolkit redraws only the characters that changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest

from cli_process import nehanda
from nehanda.engine.transcript import SessionLog, sessions_dir
from nehanda.types import Message, ToolUse
from repl_process import spawn_repl
from scripted_server import Reply, ScriptedServer, fixture_body
from waiting import GUARD

PROMPT = "\x1b[?2004h"
SHIFT_TAB = "\x1b[Z"
DOWN = "\x1b[B"
README = "# widget\n\nInstall it with `pip install widget`.\n"
COMPLETIONS = "/v1/chat/completions"
# What plan mode offers in a window past 8k: the read-only tools (WebFetch still asks for
# a new host), the plan (TodoWrite) and subagents (Task).
READ_ONLY = ["Read", "LS", "Glob", "Grep", "BashOutput", "WebFetch", "TodoWrite", "Task"]
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(README)
    return tmp_path


@pytest.fixture
def spawn(server: ScriptedServer, workspace: Path) -> Iterator[Any]:
    children: list[pexpect.spawn] = []

    def start(*extra: str, **env: str) -> pexpect.spawn:
        child = spawn_repl(server.base_url, workspace, *extra, rows=30, env=env)
        children.append(child)
        child.expect_exact(PROMPT)
        return child

    yield start
    for child in children:
        child.close(force=True)


_SCREENS: weakref.WeakKeyDictionary[pexpect.spawn, tuple[pyte.Screen, pyte.Stream, list[int]]]
_SCREENS = weakref.WeakKeyDictionary()


def screen(child: pexpect.spawn) -> str:
    """The terminal as the user sees it now: everything the REPL wrote, emulated (fed
    what is new since the last look)."""
    if child not in _SCREENS:
        shown = pyte.Screen(100, 30)
        _SCREENS[child] = (shown, pyte.Stream(shown), [0])
    shown, stream, fed = _SCREENS[child]
    written = child.logfile_read.getvalue()
    stream.feed(written[fed[0] :])
    fed[0] = len(written)
    return "\n".join(line.rstrip() for line in shown.display)


def wait_screen(child: pexpect.spawn, *texts: str) -> str:
    """The screen once it shows each of ``texts`` and its last line is drawn: the one under
    the prompt, or a picker's keys."""
    deadline = time.monotonic() + GUARD
    while True:
        with_output = screen(child).rstrip()
        last = with_output.splitlines()[-1] if with_output else ""  # nothing drawn yet
        drawn = last.endswith(("Shift-Tab to change", "Esc to interrupt", "Esc cancels"))
        if drawn and all(text in with_output for text in texts):
            return with_output
        assert time.monotonic() < deadline, f"never shown: {texts}\n{with_output}"
        with contextlib.suppress(pexpect.TIMEOUT):  # all there is: a live turn writes a lot
            child.read_nonblocking(1 << 20, timeout=0.1)


def wait_prompt(child: pexpect.spawn, since: int) -> None:
    """Once the prompt is back after the first ``since`` characters the REPL wrote, read
    maybe by ``wait_screen``, out of pexpect's sight (a loaded machine reads more at once)."""
    deadline = time.monotonic() + GUARD
    while PROMPT not in child.logfile_read.getvalue()[since:]:
        assert time.monotonic() < deadline, "the prompt never came back"
        with contextlib.suppress(pexpect.TIMEOUT):
            child.read_nonblocking(1 << 20, timeout=0.1)
    child.buffer = ""  # what pexpect holds came before: the next expect looks after it


def exchange(child: pexpect.spawn, line: str, *shown: str) -> None:
    child.send(line + "\r")
    for pattern in shown:
        child.expect(pattern)
    child.expect_exact(PROMPT)


def bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    return [request.body for request in server.received(COMPLETIONS)]


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def system_text(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def session_records() -> list[dict[str, Any]]:
    (path,) = sessions_dir().glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def leave(child: pexpect.spawn) -> None:
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_shift_tab_cycles_the_mode_and_the_next_call_obeys(
    spawn: Any, server: ScriptedServer, workspace: Path
) -> None:
    server.report_window(32768, "q", "q2")
    server.stream("e2e_vllm_edit_readme.sse").stream("e2e_vllm_answer.sse")
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    wait_screen(child, "default permissions · Shift-Tab to change")

    child.send(SHIFT_TAB)
    wait_screen(child, "⏵⏵ accept edits on")
    exchange(child, "Switch the install line to uv", "Edit README.md", "pip install widget")
    assert (workspace / "README.md").read_text() == README.replace("pip install", "uv add")
    assert "Run it?" not in child.logfile_read.getvalue()

    child.send(SHIFT_TAB)
    wait_screen(child, "⏸ plan mode on: read-only tools only")
    exchange(child, "Plan the next change", "pip install widget")
    child.send(SHIFT_TAB)
    wait_screen(child, "default permissions")
    child.send(SHIFT_TAB + SHIFT_TAB + SHIFT_TAB)
    # The header still says the session started in yolo; the mode under the prompt does not.
    assert "yolo" not in wait_screen(child, "default permissions").splitlines()[-1]
    leave(child)

    editing, _, planning = bodies(server)
    assert {"Write", "Edit", "Bash"} <= set(tool_names(editing))
    assert "Plan mode" not in system_text(editing)
    assert tool_names(planning) == READ_ONLY
    assert "Plan mode" in system_text(planning) and "change nothing" in system_text(planning)
    records = [r for r in session_records() if r["type"] == "permission_mode"]
    assert [(r["was"], r["mode"], r["by"]) for r in records][:3] == [
        ("default", "accept-edits", "shift-tab"),
        ("accept-edits", "plan", "shift-tab"),
        ("plan", "default", "shift-tab"),
    ]


def type_keys(child: pexpect.spawn, text: str) -> None:
    """Keys as a person types them: one at a time (keys arriving together with a newline
    read as a paste), and all of them shown before the next key comes."""
    delay, child.delaybeforesend = child.delaybeforesend, None
    for char in text:
        child.send(char)
        time.sleep(0.01)
    child.delaybeforesend = delay
    wait_screen(child, text)


def test_while_a_turn_runs_shift_tab_changes_the_mode_and_a_typed_line_is_sent_next(
    spawn: Any, server: ScriptedServer
) -> None:
    server.stream("e2e_vllm_answer.sse", held=server.released).stream("e2e_vllm_answer.sse")
    child = spawn()
    child.send("First question\r")
    wait_screen(child, "waiting for q", "default permissions")
    child.send(SHIFT_TAB)
    wait_screen(child, "waiting for q", "⏵⏵ accept edits on")
    type_keys(child, "Second question")
    child.send("\r")
    wait_screen(child, "waiting for q", "⏎ Second question")
    server.released.set()
    child.expect_exact("> Second question")  # sent once the first turn has ended
    child.expect("pip install widget")
    child.expect_exact(PROMPT)
    assert "⏵⏵ accept edits on" in wait_screen(child).splitlines()[-1]
    leave(child)

    asked = [body["messages"][-1]["content"] for body in bodies(server)]
    assert asked == ["First question", "Second question"]
    changes = [(r["mode"], r["by"]) for r in session_records() if r["type"] == "permission_mode"]
    assert changes == [("accept-edits", "shift-tab")]


def test_esc_stops_a_turn_and_what_was_typed_or_pasted_waits_in_the_next_prompt(
    spawn: Any, server: ScriptedServer
) -> None:
    server.stream("e2e_vllm_answer.sse", held=server.released)  # it never ends by itself
    child = spawn()
    child.send("A slow question\r")
    wait_screen(child, "waiting for q")
    type_keys(child, "a draft")
    child.send(" and a paste\rof two lines")  # one chunk with a newline: a paste
    wait_screen(child, "> (1 line above) of two lines")
    child.send("\x1b")
    child.expect("interrupted")
    shown = wait_screen(child, "> a draft and a paste", ". of two lines")
    assert "⏎" not in shown
    child.send("\x03")  # Ctrl-C clears the prompt's input
    leave(child)

    assert len(bodies(server)) == 1
    assert "interrupted" in [r["type"] for r in session_records()]


def test_permissions_mode_sets_it_it_outlives_a_model_switch_and_plan_refuses_writes(
    spawn: Any, server: ScriptedServer, workspace: Path
) -> None:
    server.report_window(32768, "q", "q2")
    server.stream("e2e_vllm_edit_readme.sse").stream("e2e_vllm_answer.sse")
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    child = spawn()
    exchange(child, "/permissions mode plan", r"permission mode: plan \(read-only tools only")
    exchange(child, "/permissions mode bogus", r"usage: /permissions \[mode plan\|default")
    exchange(child, "/model q2", "vllm · q2 · native tool calls")
    # A model that calls Edit anyway, from memory, is refused; the file stays as it was.
    sent = len(child.logfile_read.getvalue())
    child.send("Fix the install line\r")
    wait_screen(
        child, "not allowed: plan mode: read-only tools only", "Install it with pip install"
    )
    wait_prompt(child, sent)
    assert (workspace / "README.md").read_text() == README
    exchange(child, "/permissions", r"Permission mode: plan")
    exchange(child, "/mode rescue", "rescue tool calls")
    exchange(child, "Plan it in text", "pip install widget")
    exchange(child, "/permissions mode default", "permission mode: default")
    exchange(child, "Now go ahead", "pip install widget")
    leave(child)

    planned, refused, rescue_plan, rescue_default = bodies(server)
    # In rescue mode the tools are taught in the system prompt: the list changes there too.
    assert "## Read" in system_text(rescue_plan) and "## Write" not in system_text(rescue_plan)
    assert "Plan mode" in system_text(rescue_plan)
    assert "## Write" in system_text(rescue_default)
    assert "Plan mode" not in system_text(rescue_default)
    assert planned["model"] == "q2" and tool_names(planned) == READ_ONLY
    assert "Plan mode" in system_text(planned)
    result = next(m for m in refused["messages"] if m["role"] == "tool")
    assert "Permission denied: Edit was not run" in result["content"]
    assert tool_names(refused) == READ_ONLY
    changes = [(r["mode"], r["by"]) for r in session_records() if r["type"] == "permission_mode"]
    assert changes == [("plan", "/permissions"), ("default", "/permissions")]


def test_a_session_started_with_yes_leaves_yolo_by_shift_tab_and_returns_only_when_typed(
    spawn: Any,
) -> None:
    child = spawn("--yes")
    wait_screen(child, "yolo: every call runs without asking")
    child.send(SHIFT_TAB)
    wait_screen(child, "default permissions")
    child.send(SHIFT_TAB + SHIFT_TAB + SHIFT_TAB)
    # The header still says the session started in yolo; the mode under the prompt does not.
    assert "yolo" not in wait_screen(child, "default permissions").splitlines()[-1]
    exchange(child, "/permissions mode yolo", "permission mode: yolo")
    wait_screen(child, "yolo: every call runs without asking")
    child.send(SHIFT_TAB + SHIFT_TAB + SHIFT_TAB)
    wait_screen(child, "plan mode on")
    exchange(child, "/clear", r"session \d")  # a new conversation keeps the mode
    assert "plan mode on" in wait_screen(child, "/help lists").splitlines()[-1]
    leave(child)


def test_model_with_no_argument_lists_the_servers_models_to_pick_from(
    spawn: Any, server: ScriptedServer
) -> None:
    server.route("GET", "/v1/models", Reply(200, fixture_body("vllm_models.json"), JSON))
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.send("/model\r")
    shown = wait_screen(child, "Models at vllm:", "q3", "Esc cancels")
    assert "❯ 1. q ✔" in shown and "  2. q2" in shown
    child.send(DOWN)
    wait_screen(child, "❯ 2. q2")
    child.send("\r")
    child.expect("vllm · q2 · native tool calls")
    child.expect_exact(PROMPT)
    child.send("/model\r")
    wait_screen(child, "❯ 2. q2 ✔")
    child.send("\x1b")  # Esc: nothing changes
    child.expect("vllm · q2 · native tool calls")
    child.expect_exact(PROMPT)
    child.send("/model\r")
    wait_screen(child, "❯ 2. q2 ✔")
    child.send("3")
    child.expect("vllm · q3 · native tool calls")
    child.expect_exact(PROMPT)
    exchange(child, "Which model is this?", "pip install widget")
    leave(child)
    (body,) = bodies(server)
    assert body["model"] == "q3"


def test_provider_with_no_argument_lists_the_configured_providers(
    spawn: Any, server: ScriptedServer
) -> None:
    other = ScriptedServer()
    try:
        settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(
            f'[providers.lab]\ntype = "vllm"\nbase_url = "{server.base_url}"\nmodel = "m1"\n\n'
            f'[providers.spare]\ntype = "vllm"\nbase_url = "{other.base_url}"\nmodel = "m2"\n'
        )
        other.stream("e2e_vllm_answer.sse")
        child = spawn()
        child.send("/provider\r")
        shown = wait_screen(child, "Providers:", "spare", "Esc cancels")
        assert "❯ 1. vllm ✔" in shown and "2. lab  vllm · m1 · http://127.0.0.1" in shown
        child.send("3")
        child.expect("spare · m2 · native tool calls")
        child.expect_exact(PROMPT)
        exchange(child, "Hello there", "pip install widget")
        leave(child)
        (body,) = [request.body for request in other.received(COMPLETIONS)]
        assert body["model"] == "m2"
        assert not server.received(COMPLETIONS)
    finally:
        other.close()


def write_session(session_id: str, workspace: Path, prompt: str, answer: str, age: float) -> None:
    log = SessionLog(sessions_dir() / f"{session_id}.jsonl")
    log.append({"type": "session", "id": session_id, "workspace": str(workspace)})
    read = ToolUse("call_1", "Read", {"file_path": "README.md"})
    log.message(Message.text_message("user", prompt))
    log.message(Message("assistant", (read,)))
    log.message(Message.text_message("assistant", answer))
    log.close()
    stamp = time.time() - age
    os.utime(sessions_dir() / f"{session_id}.jsonl", (stamp, stamp))


def test_resume_with_no_argument_lists_this_folders_sessions_and_continues_the_one_picked(
    spawn: Any, server: ScriptedServer, workspace: Path
) -> None:
    sessions_dir().mkdir(parents=True, exist_ok=True)
    write_session("20261130-090000-aaaaaa", workspace, "Newest question", "Newest answer", 300)
    write_session("20261129-090000-bbbbbb", workspace, "How is it built?", "With make.", 7200)
    write_session("20261128-090000-cccccc", workspace / "elsewhere", "Not here", "No.", 60)
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.send("/resume\r")
    shown = wait_screen(child, "Sessions in this folder:", "Esc cancels")
    assert "1. Newest question  5 min ago · 2 replies" in shown
    assert "2. How is it built?  2 h ago · 2 replies" in shown
    assert "Not here" not in shown
    child.send("2")
    child.expect("resumed session 20261129-090000-bbbbbb: 2 earlier replies")
    shown = wait_screen(
        child, "It ended with:", "> How is it built?", "(called Read)", "With make."
    )
    exchange(child, "And how is it tested?", "pip install widget")
    leave(child)
    (body,) = bodies(server)
    users = [m["content"] for m in body["messages"] if m["role"] == "user"]
    assert users == ["How is it built?", "And how is it tested?"]
    answers = [m.get("content") for m in body["messages"] if m["role"] == "assistant"]
    assert "With make." in answers


def test_resume_flag_with_no_id_opens_the_picker_and_sends_the_prompt_to_the_one_picked(
    server: ScriptedServer, workspace: Path
) -> None:
    """``nehanda --resume "…"``: the prompt is not taken for an id (it has a space), the
    picker opens, and the prompt goes on the picked session."""
    sessions_dir().mkdir(parents=True, exist_ok=True)
    write_session("20261130-090000-aaaaaa", workspace, "Newest question", "Newest answer", 300)
    write_session("20261129-090000-bbbbbb", workspace, "How is it built?", "With make.", 7200)
    server.stream("e2e_vllm_answer.sse")
    child = spawn_repl(server.base_url, workspace, "--resume", "And how is it tested?", rows=30)
    try:
        child.expect_exact("Sessions in this folder:")
        shown = wait_screen(child, "Sessions in this folder:", "Esc cancels")
        assert "1. Newest question  5 min ago · 2 replies" in shown
        child.send("2")
        child.expect("resumed session 20261129-090000-bbbbbb: 2 earlier replies")
        child.expect("Install it with")
        child.expect_exact(PROMPT)
        leave(child)
    finally:
        child.close(force=True)
    (body,) = bodies(server)
    users = [m["content"] for m in body["messages"] if m["role"] == "user"]
    assert users == ["How is it built?", "And how is it tested?"]
    assert "With make." in [m.get("content") for m in body["messages"]]


def test_resume_flag_with_a_unique_start_of_an_id_resumes_it_without_a_picker(
    server: ScriptedServer, workspace: Path
) -> None:
    sessions_dir().mkdir(parents=True, exist_ok=True)
    write_session("20261129-090000-bbbbbb", workspace, "How is it built?", "With make.", 7200)
    child = spawn_repl(server.base_url, workspace, "--resume", "20261129", rows=30)
    try:
        child.expect("resumed session 20261129-090000-bbbbbb")
        child.expect_exact(PROMPT)
        assert "Sessions in this folder:" not in child.logfile_read.getvalue()
        leave(child)
    finally:
        child.close(force=True)


def test_without_a_terminal_a_picker_is_a_numbered_list_answered_by_number(
    server: ScriptedServer, workspace: Path
) -> None:
    server.route("GET", "/v1/models", Reply(200, fixture_body("vllm_models.json"), JSON))
    server.stream("e2e_vllm_answer.sse")
    args = ["--provider", "vllm", "--base-url", server.base_url, "--model", "q"]
    done = nehanda(*args, cwd=workspace, stdin="/model\n9\n/model\n2\nHello\n")
    assert done.returncode == 0, done.stderr
    assert "Models at vllm:\n1. q ✔\n2. q2\n3. q3\n" in done.stdout
    assert "'9' is not on the list: type a number from 1 to 3" in done.stdout + done.stderr
    assert "vllm · q2 · native tool calls" in done.stdout
    (body,) = bodies(server)
    assert body["model"] == "q2"
