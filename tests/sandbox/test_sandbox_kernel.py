"""The sandbox's parts against the real kernel, one command each (``Sandbox.spawn``).

The end-to-end attacks live in ``tests/cli/test_sandbox_e2e.py``; these try the parts
the default set-up does not reach there: a git worktree whose folders lie outside it,
the Landlock TCP fallback where namespaces are refused, and seccomp on its own.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from nehanda.sandbox.confine import Policy, Sandbox, Support, probe_support

SUPPORT = probe_support()
pytestmark = pytest.mark.skipif(SUPPORT.landlock_abi == 0, reason="this kernel has no Landlock")


@pytest.fixture(autouse=True)
def own_tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The system temp folder is writable in the sandbox, and tmp_path lies inside it."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))


def run(box: Sandbox, command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    with box.spawn() as steps:
        return subprocess.run(
            command, preexec_fn=steps, cwd=cwd, capture_output=True, text=True, timeout=30
        )


def test_a_commit_in_a_worktree_writes_to_the_main_repositorys_git_folder(tmp_path: Path) -> None:
    main, tree = tmp_path / "main", tmp_path / "tree"
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "i"], check=True)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(tree)], check=True)
    (tree / "f.txt").write_text("x")
    box = Sandbox(Policy(tree, tmp_path / "home"), SUPPORT)
    done = run(
        box, ["sh", "-c", f"{' '.join(git)} add f.txt && {' '.join(git)} commit -qm f"], tree
    )
    assert done.returncode == 0, done.stderr
    elsewhere = run(box, ["sh", "-c", f"echo x > {main}/planted"], tree)
    assert elsewhere.returncode != 0 and not (main / "planted").exists()


@pytest.mark.skipif(SUPPORT.landlock_abi < 4, reason="Landlock ABI 4 (TCP rules) is needed")
def test_without_namespaces_landlock_closes_tcp_but_udp_stays_open(tmp_path: Path) -> None:
    box = Sandbox(Policy(tmp_path, tmp_path), Support(SUPPORT.landlock_abi, False, SUPPORT.seccomp))
    assert box.network_method == "landlock-tcp"
    with (
        socket.create_server(("127.0.0.1", 0)) as tcp,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp,
    ):
        udp.bind(("127.0.0.1", 0))
        connect = (
            f"import socket; socket.create_connection(('127.0.0.1', {tcp.getsockname()[1]}), 2)"
        )
        assert run(box, [sys.executable, "-c", connect], tmp_path).returncode != 0
        send = (
            "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
            f".sendto(b'x', ('127.0.0.1', {udp.getsockname()[1]}))"
        )
        assert run(box, [sys.executable, "-c", send], tmp_path).returncode == 0
        udp.settimeout(2)
        assert udp.recvfrom(10)[0] == b"x"  # the residual risk the README names


@pytest.mark.skipif(not SUPPORT.seccomp, reason="no seccomp filter for this architecture")
def test_seccomp_refuses_a_unix_socket_but_not_a_socketpair(tmp_path: Path) -> None:
    box = Sandbox(Policy(tmp_path, tmp_path), Support(SUPPORT.landlock_abi, False, True))
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(tmp_path / "s.sock"))
        listener.listen()
        connect = (
            f"import socket; socket.socket(socket.AF_UNIX).connect({str(tmp_path / 's.sock')!r})"
        )
        refused = run(box, [sys.executable, "-c", connect], tmp_path)
        assert "Operation not permitted" in refused.stderr
    pair = run(box, [sys.executable, "-c", "import socket; socket.socketpair()"], tmp_path)
    assert pair.returncode == 0, pair.stderr


def test_an_open_network_reaches_loopback(tmp_path: Path) -> None:
    box = Sandbox(Policy(tmp_path, tmp_path, network=True), SUPPORT)
    with socket.create_server(("127.0.0.1", 0)) as tcp:
        connect = (
            f"import socket; socket.create_connection(('127.0.0.1', {tcp.getsockname()[1]}), 2)"
        )
        done = run(box, [sys.executable, "-c", connect], tmp_path)
        assert done.returncode == 0, done.stderr


def test_a_missing_writable_root_or_denied_path_is_left_out(tmp_path: Path) -> None:
    policy = Policy(tmp_path, tmp_path, writable=("/no/such/root",), deny_read=("/no/such/secret",))
    done = run(Sandbox(policy, SUPPORT), ["true"], tmp_path)
    assert done.returncode == 0


@pytest.mark.skipif(not SUPPORT.seccomp, reason="no seccomp filter for this architecture")
@pytest.mark.parametrize("network", [False, True])
def test_no_command_can_set_a_setuid_bit_but_plain_modes_change(
    tmp_path: Path, network: bool
) -> None:
    """Landlock leaves modes alone; as root, ``chmod u+s`` would hand out root."""
    program = tmp_path / "program"
    program.write_text("#!/bin/sh\n")
    box = Sandbox(Policy(tmp_path, tmp_path, network=network), SUPPORT)
    refused = run(box, ["chmod", "4755", str(program)], tmp_path)
    assert "Operation not permitted" in refused.stderr
    assert run(box, ["chmod", "755", str(program)], tmp_path).returncode == 0
    assert program.stat().st_mode & 0o7777 == 0o755


def test_only_the_usual_devices_open(tmp_path: Path) -> None:
    box = Sandbox(Policy(tmp_path, tmp_path), SUPPORT)
    usual = run(box, ["sh", "-c", "head -c 4 /dev/urandom > /dev/null && ls /dev/null"], tmp_path)
    assert usual.returncode == 0, usual.stderr
    for device in ("/dev/pts/ptmx", "/dev/kmsg"):
        refused = run(box, ["head", "-c", "1", device], tmp_path)
        assert "Permission denied" in refused.stderr, device
    terminals = Sandbox(Policy(tmp_path, tmp_path, writable=("/dev/ptmx", "/dev/pts")), SUPPORT)
    pty = run(terminals, [sys.executable, "-c", "import pty; pty.openpty()"], tmp_path)
    assert pty.returncode == 0, pty.stderr
