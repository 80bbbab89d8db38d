"""What the sandbox denied a failed Bash command, said in the result's last line, against
the real kernel: a write outside the workspace, ``curl`` and a Python socket with the
network closed, a DNS lookup; and no such line for a command that fails on its own."""

from __future__ import annotations

import asyncio
import shutil
import socket
import sys
from pathlib import Path

import pytest

from fakes import run_through
from nehanda.masking import SecretMask
from nehanda.sandbox.confine import Policy, Sandbox, probe_support
from nehanda.tools.base import ToolContext
from nehanda.tools.masked import Masked
from nehanda.tools.registry import BuiltinTools, execute_builtin_tool
from nehanda.types import ToolResult, ToolUse

SUPPORT = probe_support()
pytestmark = pytest.mark.skipif(SUPPORT.landlock_abi == 0, reason="this kernel has no Landlock")
closed_network = pytest.mark.skipif(
    not SUPPORT.user_namespaces, reason="this system refuses user namespaces"
)
PREFIX = "nehanda: the sandbox denied"
NETWORK_SETTING = "[sandbox] network = true in the settings would allow it."


def bash(ws: Path, command: str, *, network: bool = False) -> ToolResult:
    box = Sandbox(Policy(ws, ws.parent / "home", network=network), SUPPORT)
    tool_use = ToolUse("call_1", "Bash", {"command": command})
    return asyncio.run(execute_builtin_tool(tool_use, ToolContext(ws, sandbox=box)))


def last_line(result: ToolResult) -> str:
    return result.content.rstrip("\n").rsplit("\n", 1)[-1]


def test_a_write_outside_the_workspace_ends_with_the_line_and_the_setting(ws: Path) -> None:
    outside = ws.parent / "outside"
    outside.mkdir()
    result = bash(ws, f"echo x > {outside}/f.txt")
    assert result.is_error and not (outside / "f.txt").exists()
    line = (
        f"{PREFIX} a write to {outside}/f.txt; "
        f'[sandbox] writable = ["{outside}"] in the settings would allow it.'
    )
    assert last_line(result) == line
    assert result.sandbox_denial == line
    made = bash(ws, f"mkdir {outside}/d")
    assert last_line(made).startswith(f"{PREFIX} a write to {outside}/d;")


@closed_network
def test_a_python_socket_connect_with_the_network_closed(ws: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), 2)"
        result = bash(ws, f'{sys.executable} -c "{connect}"')
    assert last_line(result) == (
        f"{PREFIX} a connection (the network is closed to commands); {NETWORK_SETTING}"
    )


@closed_network
@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_curl_with_the_network_closed(ws: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        result = bash(ws, f"curl -sS http://127.0.0.1:{listener.getsockname()[1]}/")
    assert last_line(result) == (
        f"{PREFIX} a connection (the network is closed to commands); {NETWORK_SETTING}"
    )
    named = bash(ws, "curl -sS https://pypi.org/simple/")
    assert last_line(named) == (
        f"{PREFIX} a DNS lookup (the network is closed to commands); {NETWORK_SETTING}"
    )


@closed_network
def test_a_dns_lookup_with_the_network_closed(ws: Path) -> None:
    lookup = "import socket; socket.getaddrinfo('pypi.org', 443)"
    result = bash(ws, f'{sys.executable} -c "{lookup}"')
    assert last_line(result) == (
        f"{PREFIX} a DNS lookup (the network is closed to commands); {NETWORK_SETTING}"
    )


def test_a_command_that_fails_on_its_own_in_the_workspace_gets_no_line(ws: Path) -> None:
    (ws / "locked").mkdir()
    commands = [
        "touch missing/x",
        f"echo 'bash: {ws}/locked/f: Permission denied' >&2; exit 1",
        "cd locked && echo 'touch: cannot touch rel: Permission denied'; false",
        f"{sys.executable} -c 'raise SystemExit(3)'",
    ]
    for command in commands:
        result = bash(ws, command)
        assert result.is_error, command
        assert PREFIX not in result.content and result.sandbox_denial is None, command


def test_with_the_network_open_a_failed_lookup_is_not_blamed_on_the_sandbox(ws: Path) -> None:
    lookup = "import socket; socket.getaddrinfo('no-such-host.invalid', 443)"
    result = bash(ws, f'{sys.executable} -c "{lookup}"', network=True)
    assert result.is_error and result.sandbox_denial is None
    assert PREFIX not in result.content


def test_a_secret_in_the_denied_path_is_masked_in_the_line_the_user_sees(ws: Path) -> None:
    secret = "sk-in-a-folder-name-0123456789"
    outside = ws.parent / secret
    outside.mkdir()
    box = Sandbox(Policy(ws, ws.parent / "home"), SUPPORT)
    tools = Masked(BuiltinTools(ToolContext(ws, sandbox=box)), SecretMask((secret,)))
    use = ToolUse("call_1", "Bash", {"command": f"echo x > {outside}/f"})
    result = asyncio.run(run_through(tools, use))
    assert result.sandbox_denial is not None
    assert result.sandbox_denial.startswith(f"{PREFIX} a write to ")
    assert secret not in result.sandbox_denial and secret not in result.content
