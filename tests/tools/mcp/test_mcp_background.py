"""MCP servers start in the background: a slow server does not hold up the first
request, it joins from the request after it is ready, with a note, and its tools go
through the same permissions; a server that never answers does not hold up
``nehanda run``, and ends with it.

Nothing here is timed: the held server (tests/fixtures/mcp/held_server.py) answers only
once the test lets it, and the test lets it only when the model has the first request,
so a first request that waited for it would never come.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from mcp_session import calls_received, is_running, sent, write_settings
from nehanda.cli.session import open_session
from nehanda.cli.session_start import SessionOptions
from nehanda.config.settings import Flags
from nehanda.events import Notice, TurnStarted
from scripted_calls import calls_stream, rescue_calls_stream
from scripted_server import Received, ScriptedServer
from stripping_proxy import StrippingProxy
from waiting import until

FIXTURES = Path(__file__).parents[2] / "fixtures" / "mcp"
HELD = FIXTURES / "held_server.py"
SILENT = FIXTURES / "silent_server.py"
LIST: list[tuple[str, dict[str, Any]]] = [("mcp__notes__list_notes", {})]


def when(happened: Any, what: str) -> threading.Event:
    """An event set, from a thread, once ``happened()``: a scripted reply held on it
    goes out only then."""
    done = threading.Event()

    def watch() -> None:
        until(happened, what)
        done.set()

    threading.Thread(target=watch, daemon=True).start()
    return done


@pytest.mark.parametrize("mode", ["native", "rescue"])
def test_a_slow_server_joins_from_the_request_after_it_is_ready(
    server: ScriptedServer, tmp_path: Path, mode: str
) -> None:
    log, go_on = tmp_path / "calls.jsonl", tmp_path / "go-on"
    write_settings(
        f'[mcp_servers.notes]\ncommand = "{sys.executable}"\nargs = ["{HELD}"]\n'
        f'env = {{ NOTES_LOG = "{log}", HELD_UNTIL = "{go_on}" }}\n',
        grace=None,  # the default
    )

    def first_request_lets_it_start(received: Received) -> None:
        if received.path == "/v1/chat/completions":
            go_on.touch()

    server.responder = first_request_lets_it_start
    stream = rescue_calls_stream if mode == "rescue" else calls_stream
    proxy = StrippingProxy(server.base_url) if mode == "rescue" else None
    chat: Any = None
    # The first answer, a call of the server's tool, goes out once the server is ready,
    # in the middle of that request: the call was made without the tool being offered.
    ready = when(lambda: chat is not None and chat.mcp.servers.tools_of("notes"), "ready")
    server.stream(stream(LIST), held=ready)
    server.stream(stream(LIST)).stream("e2e_mcp_answer.sse")

    async def go() -> list[Any]:
        nonlocal chat
        base_url = proxy.base_url if proxy else server.base_url
        flags = Flags(provider="nehanda" if proxy else "vllm", base_url=base_url, model="q")
        chat = await open_session(SessionOptions(flags, tmp_path))
        try:
            return [event async for event in chat.ask("list my notes")]
        finally:
            await chat.close()

    try:
        events = asyncio.run(go())
    finally:
        if proxy:
            proxy.close()
    assert chat.mode == mode
    assert events[-1].text == "Saved your note."
    first, second, third = (json.dumps(body) for body in sent(server))
    assert "mcp__notes__" not in first.replace("mcp__notes__list_notes", "")
    assert "mcp__notes__add_note" in second and "mcp__notes__add_note" in third
    # The call made before the tool was offered is answered with an error saying why
    # (rescue mode reads only the calls of the tools its prompt offers).
    why = {
        "native": "mcp__notes__list_notes is not offered: MCP server 'notes' has just "
        "started; its tools are offered from the next request on",
        "rescue": "There is no tool named 'mcp__notes__list_notes'; nothing was run",
    }
    assert why[mode] in second
    # Offered now, the tool still asks before it runs, and nobody can answer here.
    assert "Permission denied: mcp__notes__list_notes was not run" in third
    assert calls_received(log) == []
    kinds = [
        event.message if isinstance(event, Notice) else f"turn {event.turn}"
        for event in events
        if isinstance(event, Notice | TurnStarted)
    ]
    still = "MCP server 'notes' is still starting; its tools are offered once it is ready"
    assert kinds[0].startswith(still)
    assert kinds[1:] == ["turn 1", "MCP server 'notes' is ready: 8 tools", "turn 2", "turn 3"]


def test_a_server_that_never_answers_does_not_hold_up_nehanda_run(
    server: ScriptedServer, tmp_path: Path
) -> None:
    pid_file = tmp_path / "silent.pid"
    write_settings(
        f'[mcp_servers.silent]\ncommand = "{sys.executable}"\nargs = ["{SILENT}"]\n'
        f'env = {{ SILENT_PID = "{pid_file}" }}\n',
        grace=None,
    )
    # The answer waits until the server runs, so that the run must end it.
    server.stream("e2e_mcp_answer.sse", held=when(pid_file.exists, "the silent server"))
    done = nehanda(
        "run", "hello", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Saved your note."
    assert "MCP server 'silent' is still starting" in done.stderr
    assert "Traceback" not in done.stderr
    (first,) = sent(server)
    assert all(not t["function"]["name"].startswith("mcp__") for t in first["tools"])
    pid = int(pid_file.read_text())
    until(lambda: not is_running(pid), "the silent server ending with the run")
