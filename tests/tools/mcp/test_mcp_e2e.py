"""MCP tools end to end: a scripted model, real MCP servers (stdio and streamable HTTP).

The notes server (tests/fixtures/mcp/notes_server.py) logs every call it receives, so a
test sees what reached it; the model's requests show what came back. A session that
cannot open leaves no server running.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cli_process import nehanda
from mcp_session import (
    ask,
    calls_received,
    is_running,
    notes_of,
    sent,
    tool_messages,
    write_settings,
)
from nehanda.cli.session import open_session
from nehanda.cli.session_start import SessionOptions
from nehanda.config.settings import Flags, user_settings_path
from nehanda.engine.transcript import sessions_dir
from nehanda.errors import NehandaError
from scripted_server import ScriptedServer, fixture_body
from stripping_proxy import StrippingProxy
from waiting import GUARD, until

FIXTURES = Path(__file__).parents[2] / "fixtures" / "mcp"
NOTES = FIXTURES / "notes_server.py"


@pytest.fixture(scope="module")
def http_notes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One notes server over streamable HTTP for the module (it takes a while to start)."""
    import socket

    log = tmp_path_factory.mktemp("notes") / "calls.jsonl"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    child = subprocess.Popen(
        [sys.executable, str(NOTES), "http", str(port)],
        env={"NOTES_LOG": str(log), "PATH": "/usr/bin:/bin"},
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    until(lambda: answers(url), "the notes server answering over HTTP")
    yield url, log
    child.terminate()
    child.wait(10)


def answers(url: str) -> bool:
    try:
        httpx.get(url, timeout=1)
    except httpx.TransportError:
        return False
    return True


def server_pids(log: Path) -> list[int]:
    found = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [call["pid"] for call in found if call["event"] == "started"]


def test_native_call_over_stdio_through_the_cli(server: ScriptedServer, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    write_settings(
        f'[mcp_servers.notes]\ncommand = "{sys.executable}"\nargs = ["{NOTES}", "stdio"]\n'
        f'env = {{ NOTES_LOG = "{log}" }}\n'
    )
    server.stream("e2e_vllm_mcp_add_note.sse").stream("e2e_mcp_answer.sse")
    done = nehanda(
        "run", "note: buy milk", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--yes", "--output", "json", cwd=tmp_path,
        env={"OPENAI_API_KEY": "sk-not-for-servers"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Saved your note."
    # "2" was read as the integer the schema wants, as for built-in tools
    assert calls_received(log) == [{"event": "add_note", "text": "buy milk", "priority": 2}]
    first, second = sent(server)
    offered = {tool["function"]["name"]: tool["function"] for tool in first["tools"]}
    assert offered["mcp__notes__add_note"]["description"] == "Save a note."
    assert "text" in offered["mcp__notes__add_note"]["parameters"]["properties"]
    # the server got the env configured for it, and not nehanda's environment
    assert tool_messages(second) == ["saved 'buy milk' with priority 2", "<unset>"]
    # the server's stderr went to its log under the state folder, not to the terminal
    assert "notes server starting" not in done.stderr
    logs = list(user_settings_path().parents[2].rglob("notes.log"))
    assert logs and "notes server starting" in logs[0].read_text()


def test_rescue_mode_behind_the_stripping_proxy(
    server: ScriptedServer, http_notes: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = http_notes
    before = len(calls_received(log))
    write_settings(f'[mcp_servers.notes]\nurl = "{url}"\n')
    proxy = StrippingProxy(server.base_url)
    try:
        server.stream("e2e_rescue_mcp_add_note.sse").stream("e2e_mcp_answer.sse")
        _, chat = ask(
            tmp_path, proxy.base_url, "note: buy milk", approve_all=True, provider="nehanda"
        )
    finally:
        proxy.close()
    assert chat.mode == "rescue"
    assert calls_received(log)[before:] == [
        {"event": "add_note", "text": "buy milk", "priority": 1}
    ]
    first, second = sent(server)
    assert "tools" not in first and "## mcp__notes__add_note" in first["messages"][0]["content"]
    last_user = [m["content"] for m in second["messages"] if m["role"] == "user"][-1]
    assert "[TOOL_RESULT name=mcp__notes__add_note" in last_user
    assert "saved 'buy milk' with priority 1" in last_user


def test_a_call_without_approval_never_reaches_the_server(
    server: ScriptedServer, http_notes: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = http_notes
    before = len(calls_received(log))
    write_settings(f'[mcp_servers.notes]\nurl = "{url}"\n')
    server.stream("e2e_vllm_mcp_add_note.sse").stream("e2e_mcp_answer.sse")
    ask(tmp_path, server.base_url, "note: buy milk")
    assert calls_received(log)[before:] == []
    refused = tool_messages(sent(server)[1])[0]
    assert refused.startswith("Permission denied: mcp__notes__add_note was not run")


def test_a_deny_rule_holds_under_yes(
    server: ScriptedServer, http_notes: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = http_notes
    before = len(calls_received(log))
    write_settings(f'[permissions]\ndeny = ["mcp__notes__*"]\n[mcp_servers.notes]\nurl = "{url}"\n')
    server.stream("e2e_vllm_mcp_add_note.sse").stream("e2e_mcp_answer.sse")
    ask(tmp_path, server.base_url, "note: buy milk", approve_all=True)
    assert calls_received(log)[before:] == []
    assert "deny rule mcp__notes__* matches" in tool_messages(sent(server)[1])[0]


def test_a_crashing_server_gives_an_error_result_and_the_session_goes_on(
    server: ScriptedServer, tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    write_settings(
        f'[mcp_servers.notes]\ncommand = "{sys.executable}"\nargs = ["{NOTES}", "stdio"]\n'
        f'env = {{ NOTES_LOG = "{log}" }}\n'
    )
    for name in ("crash", "list_notes", "crash", "list_notes"):
        server.stream(f"e2e_vllm_mcp_{name}.sse")
    server.stream("e2e_mcp_answer.sse")
    events, _ = ask(tmp_path, server.base_url, "crash it", approve_all=True)
    assert events[-1].text == "Saved your note." and events[-1].problem is None
    crashed, restarted, crashed_again, dead = tool_messages(sent(server)[-1])
    assert crashed.startswith("MCP server 'notes' exited before it answered; it was started")
    assert restarted == "note one\nnote two"
    assert crashed_again.startswith("MCP server 'notes' exited before it answered")
    assert dead.startswith("MCP server 'notes' is not running: it exited, twice; it was not")
    events_seen = [call["event"] for call in calls_received(log)]
    assert events_seen == ["crash", "list_notes", "crash"]


def test_a_server_that_never_answers_is_left_behind_with_a_note(
    server: ScriptedServer, tmp_path: Path
) -> None:
    silent = FIXTURES / "silent_server.py"
    write_settings(
        f'[mcp]\nstart_timeout = 0.5\n[mcp_servers.silent]\ncommand = "{sys.executable}"\n'
        f'args = ["{silent}"]\n'
    )
    server.stream("e2e_mcp_answer.sse")
    events, chat = ask(tmp_path, server.base_url, "hello")  # waiting for it, it would hang
    assert events[-1].text == "Saved your note."
    told = notes_of(events, chat)
    assert any("'silent' was not started: it did not answer within 0.5 s" in n for n in told)
    assert all(not t["function"]["name"].startswith("mcp__") for t in sent(server)[0]["tools"])


def test_a_server_whose_command_is_missing_is_named_in_a_note(
    server: ScriptedServer, tmp_path: Path
) -> None:
    write_settings('[mcp_servers.gone]\ncommand = "/nonexistent/mcp-server"\n')
    server.stream("e2e_mcp_answer.sse")
    events, chat = ask(tmp_path, server.base_url, "hello")
    assert events[-1].text == "Saved your note."
    (note,) = [n for n in notes_of(events, chat) if "'gone'" in n]
    assert "was not started: its command was not found" in note and "going on without it" in note


def test_tool_search_with_200_tools(server: ScriptedServer, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    write_settings(
        '[providers.big]\ntype = "vllm"\ncontext_window = 128000\n'
        f'[mcp_servers.notes]\ncommand = "{sys.executable}"\nargs = ["{NOTES}", "stdio"]\n'
        f'env = {{ NOTES_LOG = "{log}", NOTES_MANY = "200" }}\n'
    )
    server.stream("e2e_vllm_mcp_tool_search.sse").stream("e2e_vllm_mcp_tool_7.sse")
    server.stream("e2e_mcp_answer.sse")
    ask(tmp_path, server.base_url, "do task 7", approve_all=True, provider="big")
    first, second, third = sent(server)
    names = [tool["function"]["name"] for tool in first["tools"]]
    assert not any(name.startswith("mcp__") for name in names)
    search = next(t["function"] for t in first["tools"] if t["function"]["name"] == "ToolSearch")
    assert "mcp__notes__tool_199" in search["description"]
    assert len(json.dumps(search)) // 4 <= 128000 // 10
    loaded = tool_messages(second)[0]
    assert '"name": "mcp__notes__tool_7"' in loaded and '"value"' in loaded
    assert "mcp__notes__tool_7" in [tool["function"]["name"] for tool in second["tools"]]
    assert tool_messages(third)[-1] == "tool 7 got seven"
    assert calls_received(log) == [{"event": "many", "index": 7, "value": "seven"}]


def test_headers_reach_an_http_server_with_variables_expanded(
    server: ScriptedServer, http_notes: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = http_notes
    write_settings(f'[mcp_servers.notes]\nurl = "{url}"\nheaders = {{ X-Team = "t-${{HOME}}" }}\n')
    server.stream("e2e_vllm_mcp_header_value.sse").stream("e2e_mcp_answer.sse")
    ask(tmp_path, server.base_url, "which team?", approve_all=True)
    assert tool_messages(sent(server)[1]) == [f"t-{os.environ['HOME']}"]


def test_a_call_that_times_out_is_an_error_and_the_server_hears_it_was_cancelled(
    server: ScriptedServer, http_notes: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = http_notes
    before = len(calls_received(log))
    write_settings(f'[mcp_servers.notes]\nurl = "{url}"\ntimeout = 0.5\n')
    server.stream("e2e_vllm_mcp_wait.sse").stream("e2e_mcp_answer.sse")
    ask(tmp_path, server.base_url, "wait", approve_all=True)
    answer = tool_messages(sent(server)[1])[0]
    assert answer == ("wait on 'notes': it did not answer within 0.5 s, so the call was cancelled")
    until(lambda: len(calls_received(log)) >= before + 2, "the server logging the cancel")
    assert [c["event"] for c in calls_received(log)[before:]] == ["wait", "cancelled"]


def test_plan_mode_offers_read_only_tools_and_still_asks(
    server: ScriptedServer, http_notes: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = http_notes
    before = len(calls_received(log))
    write_settings(f'[mcp_servers.notes]\nurl = "{url}"\n')
    server.stream("e2e_vllm_mcp_add_note.sse").stream("e2e_vllm_mcp_list_notes.sse")
    server.stream("e2e_mcp_answer.sse")
    ask(tmp_path, server.base_url, "note", permission_mode="plan")
    offered = [t["function"]["name"] for t in sent(server)[0]["tools"]]
    assert [name for name in offered if name.startswith("mcp__")] == ["mcp__notes__list_notes"]
    unknown = tool_messages(sent(server)[1])[0]
    assert "it is not offered in plan mode" in unknown
    asked = tool_messages(sent(server)[2])[-1]
    assert asked.startswith("Permission denied: mcp__notes__list_notes was not run")
    assert "plan mode: its server says this tool only reads" in asked
    assert calls_received(log)[before:] == []


def test_nehanda_mcp_lists_servers_tools_and_their_cost(
    http_notes: tuple[str, Path], tmp_path: Path
) -> None:
    from nehanda.cli.mcp_command import list_servers

    url, _ = http_notes
    write_settings(
        f'[mcp_servers.notes]\nurl = "{url}"\n[mcp_servers.off]\ncommand = "x"\nenabled = false\n'
    )
    shown = asyncio.run(list_servers(tmp_path)).splitlines()
    assert shown[0].startswith(f"notes (user, {user_settings_path()}): {url}")
    assert shown[1].startswith("off (user,") and "disabled" in shown[1]
    assert re.fullmatch(r"notes: running, 8 tools, ~\d+ tokens of schemas", shown[3])
    assert re.fullmatch(r"  mcp__notes__list_notes  ~\d+ tokens  read-only", shown[5])


def test_ctrl_c_stops_the_servers(server: ScriptedServer, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    write_settings(
        f'[mcp_servers.notes]\ncommand = "{sys.executable}"\nargs = ["{NOTES}", "stdio"]\n'
        f'env = {{ NOTES_LOG = "{log}" }}\n'
    )
    server.stream(fixture_body("e2e_mcp_answer.sse"), piece=16, stall_after=0, held=server.released)
    child = subprocess.Popen(
        [sys.executable, "-m", "nehanda", "run", "hi", "--provider", "vllm", "--base-url",
         server.base_url, "--model", "q"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    server.wait_for("/v1/chat/completions")
    (pid,) = server_pids(log)
    assert is_running(pid)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=GUARD)
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr
    until(lambda: not is_running(pid), "the notes server stopping")


def notes_settings(log: Path) -> None:
    write_settings(
        f'[mcp_servers.notes]\ncommand = "{sys.executable}"\nargs = ["{NOTES}", "stdio"]\n'
        f'env = {{ NOTES_LOG = "{log}" }}\n'
    )


def open_fails(flags: Flags, workspace: Path, log: Path) -> tuple[NehandaError, list[int]]:
    """The error opening a session fails with, and the notes servers still running a
    moment later while the event loop goes on (as the REPL goes on after a /clear)."""

    async def go() -> tuple[NehandaError, list[int]]:
        with pytest.raises(NehandaError) as failed:
            await open_session(SessionOptions(flags, workspace))
        deadline = time.monotonic() + GUARD
        while time.monotonic() < deadline and any(map(is_running, server_pids(log))):
            await asyncio.sleep(0.05)
        return failed.value, [pid for pid in server_pids(log) if is_running(pid)]

    return asyncio.run(go())


def test_a_provider_that_fails_at_once_starts_no_server(tmp_path: Path, unused_port: int) -> None:
    log = tmp_path / "calls.jsonl"
    notes_settings(log)
    flags = Flags(provider="ollama", base_url=f"http://127.0.0.1:{unused_port}", model="q")
    failed, _ = open_fails(flags, tmp_path, log)
    assert "no server is running" in str(failed)
    assert server_pids(log) == []


def test_a_session_that_fails_once_its_servers_run_stops_them(
    server: ScriptedServer, tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    notes_settings(log)
    sessions_dir().parent.mkdir(parents=True)
    sessions_dir().write_text("")  # the session log cannot be written
    flags = Flags(provider="vllm", base_url=server.base_url, model="q")
    failed, running = open_fails(flags, tmp_path, log)
    assert "cannot write the session log" in str(failed)
    assert len(server_pids(log)) == 1 and running == []
