"""``sandbox = true`` on a stdio MCP server, against the real kernel: the server runs in
the session's Bash sandbox (writable roots, denied reads, closed network) and its tools
still answer; with ``sandbox = false`` the same server reaches all of it (the control).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp_session import call_once
from nehanda.cli.mcp_setup import confined, runnable
from nehanda.config.mcp import DefinedServer, McpServerEntry
from nehanda.config.mcp_approvals import approval, approve
from nehanda.config.settings import load_settings, user_settings_path
from nehanda.config.trust import trust_folder
from nehanda.sandbox.confine import Policy, Sandbox, Support, probe_support
from nehanda.sandbox.launch import launch_argv
from nehanda.tools.mcp.server_log import LOG_CAP
from nehanda.tools.mcp.servers import McpServers, log_path

PROBE = Path(__file__).parents[2] / "fixtures" / "mcp" / "probe_server.py"
SUPPORT = probe_support()
needs_landlock = pytest.mark.skipif(SUPPORT.landlock_abi == 0, reason="this kernel has no Landlock")


@dataclass
class Place:
    workspace: Path
    outside: Path
    secret: Path


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    """The system temp folder is writable in the sandbox, and tmp_path lies inside it."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    found = Place(tmp_path / "work", tmp_path / "outside", tmp_path / "secret.txt")
    found.workspace.mkdir()
    found.outside.mkdir()
    found.secret.write_text("the secret")
    return found


def configure(place: Place, server: str, *, network: bool = False) -> None:
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    sandbox = f"[sandbox]\ndeny_read = [{str(place.secret)!r}]\nnetwork = {str(network).lower()}\n"
    path.write_text(sandbox + server)


def probe_entry(sandbox: bool, **more: str) -> str:
    extra = "".join(f"{key} = {value}\n" for key, value in more.items())
    args = f"[{str(PROBE)!r}]"
    return f"[mcp_servers.probe]\ncommand = {sys.executable!r}\nargs = {args}\n{extra}" + (
        f"sandbox = {str(sandbox).lower()}\n"
    )


def probe_all(place: Place, port: int) -> dict[str, str]:
    """What each probe answered, from one start of the configured server."""
    ready, notes = runnable(load_settings(place.workspace), place.workspace)
    assert [name for name, _ in ready] == ["probe"], notes
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "write_inside": ("write", {"path": str(place.workspace / "in.txt"), "text": "x"}),
        "write_outside": ("write", {"path": str(place.outside / "planted"), "text": "x"}),
        "read_secret": ("read", {"path": str(place.secret)}),
        "read_settings": ("read", {"path": str(user_settings_path())}),
        "connect": ("connect", {"port": port}),
    }

    async def go() -> dict[str, str]:
        servers = McpServers.launch(ready, 30)
        await servers.settled()
        try:
            assert (untold := servers.admit()) == [], untold
            connection = servers.connection("probe")
            answers = {}
            for label, (tool, arguments) in calls.items():
                answer = await connection.call(tool, arguments)
                answers[label] = answer.failure or answer.content[0].text
            return answers
        finally:
            await servers.stop()

    return asyncio.run(go())


@needs_landlock
def test_a_sandboxed_server_is_held_to_the_bash_sandbox_and_its_tools_still_work(
    place: Place,
) -> None:
    configure(place, probe_entry(True))
    with socket.create_server(("127.0.0.1", 0)) as listener:
        answers = probe_all(place, listener.getsockname()[1])
    assert answers["write_inside"] == "done: 1"
    assert (place.workspace / "in.txt").read_text() == "x"
    assert "Permission denied" in answers["write_outside"]
    assert not (place.outside / "planted").exists()
    assert "Permission denied" in answers["read_secret"]
    assert "the secret" not in answers["read_secret"]
    assert "Permission denied" in answers["read_settings"]  # nehanda's own folders
    if Sandbox(Policy(place.workspace, Path.home()), SUPPORT).network_method is not None:
        assert answers["connect"].startswith("refused"), answers["connect"]


@needs_landlock
def test_network_true_opens_the_network_to_a_sandboxed_server_too(place: Place) -> None:
    configure(place, probe_entry(True), network=True)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        answers = probe_all(place, listener.getsockname()[1])
    assert answers["connect"].startswith("done"), answers["connect"]
    assert "Permission denied" in answers["write_outside"]


@needs_landlock
def test_a_module_planted_in_the_servers_folder_or_pythonpath_does_not_replace_the_launcher(
    place: Place,
) -> None:
    planted = place.workspace / "nehanda"
    (planted / "sandbox").mkdir(parents=True)
    escape = f"open({str(place.outside / 'escaped')!r}, 'w').write('x')\n"
    for module in (planted / "__init__.py", planted / "sandbox" / "launch.py"):
        module.write_text(escape)
    (planted / "sandbox" / "__init__.py").write_text("")
    cwd, env = repr(str(place.workspace)), f"{{ PYTHONPATH = {str(place.workspace)!r} }}"
    configure(place, probe_entry(True, cwd=cwd, env=env))
    with socket.create_server(("127.0.0.1", 0)) as listener:
        answers = probe_all(place, listener.getsockname()[1])
    assert "Permission denied" in answers["write_outside"]
    assert not (place.outside / "escaped").exists()


@needs_landlock
def test_a_sandboxed_server_flooding_its_stderr_stays_within_the_log_cap(place: Place) -> None:
    """The launcher execs the server with the pipe as its stderr: the cap holds for it too,
    and the server, which cannot open nehanda's state folder, never held its log file."""
    notes = PROBE.with_name("notes_server.py")
    calls, log = place.workspace / "calls.jsonl", log_path("notes")
    env = f"{{ NOTES_LOG = {str(calls)!r}, NOTES_STDERR = '3000000' }}"
    configure(
        place,
        f"[mcp_servers.notes]\ncommand = {sys.executable!r}\n"
        f"args = [{str(notes)!r}, 'stdio']\nenv = {env}\nsandbox = true\n",
    )
    ready, _ = runnable(load_settings(place.workspace), place.workspace)
    assert ready[0][1].command == sys.executable and "nehanda.sandbox.launch" in ready[0][1].args
    assert call_once(ready, "list_notes", {}) == "note one\nnote two"
    assert log.stat().st_size <= LOG_CAP and log.read_text().endswith("flood done\n")
    assert 0 < log.with_name("notes.log.1").stat().st_size <= LOG_CAP


def test_without_sandbox_the_same_server_reaches_everything(place: Place) -> None:
    configure(place, probe_entry(False))
    with socket.create_server(("127.0.0.1", 0)) as listener:
        answers = probe_all(place, listener.getsockname()[1])
    assert answers["write_inside"] == "done: 1"
    assert answers["write_outside"] == "done: 1"
    assert (place.outside / "planted").read_text() == "x"
    assert answers["read_secret"] == "done: the secret"
    assert answers["read_settings"].startswith("done: [sandbox]")
    assert answers["connect"].startswith("done")


def test_sandbox_true_without_a_kernel_sandbox_refuses_to_start_the_server(
    place: Place,
) -> None:
    configure(place, probe_entry(True).replace("[mcp_servers", "enabled = false\n[mcp_servers"))
    ready, notes = runnable(load_settings(place.workspace), place.workspace)
    assert ready == []
    assert "'probe'" in notes[0] and "sandbox = true, but the sandbox is off" in notes[0]
    entry = McpServerEntry(command="server", sandbox=True)
    no_landlock = Sandbox(Policy(place.workspace, Path.home()), Support(0, False, False))
    with pytest.raises(ValueError, match="no Landlock"):
        confined(entry, no_landlock)


def test_the_launcher_refuses_to_run_a_program_where_the_kernel_offers_no_sandbox(
    place: Place,
) -> None:
    no_landlock = Sandbox(Policy(place.workspace, Path.home()), Support(0, False, False))
    marker = place.outside / "ran"
    argv = launch_argv(no_landlock, "touch", [str(marker)])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert done.returncode == 126 and "offers no sandbox" in done.stderr
    assert not marker.exists()


def test_turning_sandbox_off_on_a_project_server_asks_again(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"tools": {"command": "tool-server", "sandbox": True}}})
    )
    trust_folder(tmp_path)
    server = load_settings(tmp_path).mcp_servers[0]
    assert server.entry.sandbox
    approve(tmp_path, server)
    unconfined = DefinedServer("tools", McpServerEntry(command="tool-server"), "project", "")
    assert approval(tmp_path, unconfined) == "changed"
    assert approval(tmp_path, server) == "approved"


def test_an_approval_made_before_the_sandbox_key_existed_stays_valid() -> None:
    server = DefinedServer("tools", McpServerEntry(command="tool-server"), "project", "")
    before: list[object] = [server.entry.command, [], {}, None, None, {}]
    assert server.fingerprint() == hashlib.sha256(json.dumps(before).encode()).hexdigest()


def test_sandbox_on_a_url_server_is_an_error() -> None:
    with pytest.raises(ValueError, match="sandbox belong to a command"):
        McpServerEntry(url="http://127.0.0.1:1/mcp", sandbox=True)
