"""UNIX sockets by the back doors, through the real Bash tool in the real sandbox.

A socket file outside every writable root (a fake ``docker.sock``) listens in the test;
the command tries to reach it without ``socket(2)``: by io_uring's own socket and
connect operations, and by the datagram end of a ``socketpair``. The listener must see
nothing, and the programs that only try io_uring at start (Node) must keep working.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nehanda.sandbox.confine import Policy, Sandbox, probe_support
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse

SUPPORT = probe_support()
pytestmark = pytest.mark.skipif(
    not SUPPORT.seccomp, reason="no Landlock, or no seccomp filter for this architecture"
)
CLIENT = Path(__file__).with_name("io_uring_client.py")


def bash(ws: Path, command: str, *, network: bool = False) -> ToolResult:
    box = Sandbox(Policy(ws, ws.parent / "home", network=network), SUPPORT)
    tool_use = ToolUse("call_1", "Bash", {"command": command})
    return asyncio.run(execute_builtin_tool(tool_use, ToolContext(ws, sandbox=box)))


@pytest.fixture
def docker_sock(ws: Path) -> Iterator[socket.socket]:
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(ws.parent / "docker.sock"))
        listener.listen()
        listener.setblocking(False)
        yield listener


def reached(listener: socket.socket) -> bool:
    try:
        listener.accept()[0].close()
    except BlockingIOError:
        return False
    return True


@pytest.mark.parametrize("network", [False, True])
def test_io_uring_cannot_make_a_socket_to_a_socket_file_outside(
    ws: Path, docker_sock: socket.socket, network: bool
) -> None:
    path = docker_sock.getsockname()
    control = subprocess.run([sys.executable, str(CLIENT), path], capture_output=True, text=True)
    if control.returncode in (3, 4):
        pytest.skip(f"this host refuses it already: {control.stdout.strip()}")
    assert control.stdout == "connected\n" and reached(docker_sock)  # the attack works outside
    result = bash(ws, f"{sys.executable} {CLIENT} {path}", network=network)
    assert "io_uring_setup refused: Function not implemented" in result.content
    assert "(exit code 3)" in result.content  # answered, not killed
    assert not reached(docker_sock)


IO_URING_CALLS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for number in (425, 426, 427):  # io_uring_setup, _enter, _register
    libc.syscall(number, -1, 0, 0, 0, 0, 0)
    print(os.strerror(ctypes.get_errno()))
print("still running")
"""


def test_each_io_uring_call_is_answered_as_absent_and_the_process_lives(ws: Path) -> None:
    (ws / "calls.py").write_text(IO_URING_CALLS)
    result = bash(ws, f"{sys.executable} calls.py")
    expected = "Function not implemented\n" * 3 + "still running"
    assert result.content == f"{expected}\n\n(exit code 0)"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_falls_back_from_io_uring_and_runs(ws: Path) -> None:
    """libuv sets up a ring at start when asked to use one, and falls back when refused."""
    (ws / "data.txt").write_text("read through libuv")
    script = "require('fs').readFile('data.txt', 'utf8', (e, d) => console.log(e ? e.code : d))"
    result = bash(ws, f'UV_USE_IO_URING=1 node -e "{script}"')
    assert result.content == "read through libuv\n\n(exit code 0)"


DATAGRAMS = """
import socket, sys
target = sys.argv[1]
AF, DGRAM = socket.AF_UNIX, socket.SOCK_DGRAM
for kind in (DGRAM, DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC, socket.SOCK_RAW):
    try:
        socket.socketpair(AF, kind)[0].sendto(b"leak", target)
        print("sent")
    except OSError as error:
        print("pair refused:", error.strerror)
for kind in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
    end = socket.socketpair(AF, kind)[0]
    for attempt in (lambda: end.sendto(b"leak", target), lambda: end.connect(target)):
        try:
            attempt()  # a connected pair: refused, or the address ignored
        except OSError:
            pass
left, right = socket.socketpair()
left.send(b"ok")
print("stream pair works:", right.recv(2).decode())
"""


def test_a_socketpair_cannot_send_datagrams_to_a_socket_file_outside(ws: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(ws.parent / "syslog.sock"))
        listener.setblocking(False)
        (ws / "datagrams.py").write_text(DATAGRAMS)
        result = bash(ws, f"{sys.executable} datagrams.py {listener.getsockname()}")
        with pytest.raises(BlockingIOError):
            listener.recv(100)
    refused = "pair refused: Operation not permitted\n" * 3
    assert result.content == f"{refused}stream pair works: ok\n\n(exit code 0)"
