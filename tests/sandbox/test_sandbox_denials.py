"""The judge of what the sandbox denied a failed command (``sandbox.denials``), on the
lines real programs print; pure: the paths the user may write unconfined are given."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.sandbox.denials import Denial, Held, judge, named_paths

HELD = Held(writable=("/work/ws", "/tmp"), network_closed=True, closed=("/root/.ssh",))
OPEN = Held(writable=("/work/ws", "/tmp"), network_closed=False)

WRITES = [
    ("bash: line 1: /root/out/f: Permission denied", "/root/out/f"),
    ("touch: cannot touch '/root/out/g': Permission denied", "/root/out/g"),
    ("mkdir: cannot create directory ‘/root/out/d’: Permission denied", "/root/out/d"),
    ("PermissionError: [Errno 13] Permission denied: '/root/out/p'", "/root/out/p"),
    (
        "cp: cannot create regular file '/root/out/hostname': Permission denied",
        "/root/out/hostname",
    ),
    ("tee: /root/out/t: Permission denied", "/root/out/t"),
    ("sed: couldn't open temporary file /root/sedfbqhqh: Permission denied", "/root/sedfbqhqh"),
    ("/root/out/.git: Permission denied", "/root/out/.git"),
    (
        "ERROR: Could not install packages due to an OSError: [Errno 30] Read-only file "
        "system: '/usr/lib/python3/dist-packages/six.py'",
        "/usr/lib/python3/dist-packages/six.py",
    ),
    (
        "npm error EACCES: permission denied, mkdir '/usr/lib/node_modules/x'",
        "/usr/lib/node_modules/x",
    ),
    ("rm: cannot remove '/root/.profile': Operation not permitted", "/root/.profile"),
]


@pytest.mark.parametrize(("output", "path"), WRITES)
def test_a_refused_write_outside_the_roots_is_named_with_the_setting(
    output: str, path: str
) -> None:
    denial = judge(f"{output}\n", 1, HELD, {path: path})
    assert denial == Denial(writes=(path,))
    folder = path.rsplit("/", 1)[0] or "/"
    assert denial.line() == (
        f"nehanda: the sandbox denied a write to {path}; "
        f'[sandbox] writable = ["{folder}"] in the settings would allow it.'
    )


NETWORK = [
    ("curl: (6) Could not resolve host: example.com", "lookup"),
    ("socket.gaierror: [Errno -3] Temporary failure in name resolution", "lookup"),
    (
        "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
        "lookup",
    ),
    (
        "npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN",
        "lookup",
    ),
    ("ssh: Could not resolve hostname github.com: Temporary failure in name resolution", "lookup"),
    ("OSError: [Errno 101] Network is unreachable", "connection"),
    (
        "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server",
        "connection",
    ),
]


@pytest.mark.parametrize(("output", "what"), NETWORK)
def test_a_failed_lookup_or_connection_with_the_network_closed_is_named(
    output: str, what: str
) -> None:
    denial = judge(output, 1, HELD, {})
    assert denial is not None
    assert (denial.lookup, denial.connection) == (what == "lookup", what == "connection")
    assert denial.line().endswith("[sandbox] network = true in the settings would allow it.")
    word = "a DNS lookup" if what == "lookup" else "a connection"
    assert denial.line().startswith(f"nehanda: the sandbox denied {word} (the network is closed")


NOTHING = [
    # The command's own failures: inside a root, relative, missing, another error.
    (
        "touch: cannot touch '/work/ws/sub/x': Permission denied",
        {"/work/ws/sub/x": "/work/ws/sub/x"},
    ),
    ("bash: /tmp/x/y: Permission denied", {"/tmp/x/y": "/tmp/x/y"}),
    ("touch: cannot touch 'rel': Permission denied", {}),
    (
        "touch: cannot touch '/root/out/x': No such file or directory",
        {"/root/out/x": "/root/out/x"},
    ),
    # A secret place: closed to reading too, and never to be opened by a setting.
    (
        "cat: /root/.ssh/id_ed25519: Permission denied",
        {"/root/.ssh/id_ed25519": "/root/.ssh/id_ed25519"},
    ),
    # A path the user could not write without the sandbox either.
    ("bash: /etc/shadow: Permission denied", {}),
    # A path outside, named by a line that reports no refusal.
    ("wrote /root/out/log\nerror: tests failed", {"/root/out/log": "/root/out/log"}),
    # Through a symlink into the workspace: its resolved form is inside.
    ("bash: /home/u/proj/f: Permission denied", {"/home/u/proj/f": "/work/ws/f"}),
    ("assertion failed", {}),
]


@pytest.mark.parametrize(("output", "unconfined"), NOTHING)
def test_a_command_that_failed_on_its_own_gets_no_line(
    output: str, unconfined: dict[str, str]
) -> None:
    assert judge(output, 1, HELD, unconfined) is None


def test_with_the_network_open_no_lookup_or_connection_is_claimed() -> None:
    for output, _ in NETWORK:
        assert judge(output, 1, OPEN, {}) is None


def test_a_command_that_exited_0_denied_nothing_to_tell() -> None:
    output = "bash: /root/out/f: Permission denied\ncurl: (6) Could not resolve host: x"
    assert judge(output, 0, HELD, {"/root/out/f": "/root/out/f"}) is None
    assert judge(output, 2, HELD, {"/root/out/f": "/root/out/f"}) == Denial(
        ("/root/out/f",), lookup=True
    )


def test_a_write_and_a_lookup_make_one_line_naming_both_settings() -> None:
    denial = Denial(("/root/out/f",), lookup=True)
    assert denial.line() == (
        "nehanda: the sandbox denied a write to /root/out/f and a DNS lookup (the network is "
        'closed to commands); [sandbox] writable = ["/root/out"] and network = true in the '
        "settings would allow it."
    )


def test_named_paths_are_read_once_each_in_order() -> None:
    output = "cp: cannot stat '/a/b': Permission denied\ntee: /c/d: Permission denied\n" * 2
    assert named_paths(output) == ["/a/b", "/c/d"]


paths = st.lists(st.sampled_from("abcxyz._-"), min_size=1, max_size=8).map("".join)
lines = st.text(max_size=80)


@given(st.lists(lines, max_size=6), paths, st.integers(-9, 255))
def test_a_path_inside_a_root_is_never_claimed(noise: list[str], name: str, code: int) -> None:
    path = f"/work/ws/{name}"
    output = "\n".join([*noise, f"bash: {path}: Permission denied"])
    denial = judge(
        output, code, OPEN, {p: p for p in named_paths(output) if p.startswith("/work/ws/")}
    )
    assert denial is None or path not in denial.writes


@given(st.lists(lines, max_size=6), st.integers(-9, 255))
def test_only_what_the_user_may_write_unconfined_is_claimed(noise: list[str], code: int) -> None:
    output = "\n".join([*noise, "bash: /root/out/f: Permission denied"])
    allowed = {"/root/out/f": "/root/out/f"}
    denial = judge(output, code, OPEN, allowed)
    assert denial is None or set(denial.writes) <= set(allowed)
    assert (denial is None) == (code == 0)
