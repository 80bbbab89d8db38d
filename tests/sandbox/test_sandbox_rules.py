"""Which Read deny rules the kernel can hold, and what the sandbox reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from nehanda.config.settings import SandboxTable, load_settings, user_settings_path
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.sandboxing import deny_rule_paths, report, session_sandbox, start_note
from nehanda.sandbox.confine import Policy, Sandbox, Support


@pytest.mark.parametrize(
    ("rule", "path"),
    [
        ("Read(~/.ssh/**)", "~/.ssh"),
        ("Read(~/.ssh)", "~/.ssh"),
        ("Read(/etc/shadow)", "/etc/shadow"),
        ("Read(./secrets/**)", "secrets"),
        ("Read(secrets/*)", "secrets"),
        ("Read(~/vault/**/*)", "~/vault"),
        ("Read(**/.env)", None),
        ("Read(~/keys/*.pem)", None),
        ("Read", None),
        ("Edit(~/.ssh/**)", "skip"),
    ],
)
def test_read_deny_rules_become_paths_where_the_kernel_can_hold_them(
    rule: str, path: str | None
) -> None:
    kernel, matcher_only = deny_rule_paths(PermissionRules.parse(deny=[rule]))
    if path == "skip":
        assert (kernel, matcher_only) == ([], [])
    elif path is None:
        assert (kernel, matcher_only) == ([], [rule])
    else:
        assert (kernel, matcher_only) == ([path], [])


def sandbox(workspace: Path, home: Path, abi: int, userns: bool, **policy: object) -> Sandbox:
    return Sandbox(Policy(workspace, home, **policy), Support(abi, userns, abi > 0))  # type: ignore[arg-type]


def test_the_report_names_what_the_kernel_holds_and_what_it_cannot(tmp_path: Path) -> None:
    (tmp_path / "ws" / "keys").mkdir(parents=True)
    box = sandbox(tmp_path / "ws", tmp_path, 7, True, deny_read=(str(tmp_path / "ws" / "keys"),))
    lines = dict(box.report())
    assert "Landlock ABI 7" in lines["writes"] and str(tmp_path / "ws") in lines["writes"]
    assert lines["reads"].endswith(f"only nehanda's rules guard {tmp_path / 'ws' / 'keys'}")
    assert lines["network"].startswith("closed by the kernel (a network namespace)")


@pytest.mark.parametrize(
    ("abi", "userns", "network", "says"),
    [
        (7, True, False, "closed by the kernel (a network namespace)"),
        (4, False, False, "TCP closed by the kernel (Landlock); UDP is still open"),
        (3, False, False, "open: this kernel can close it neither"),
        (7, True, True, "open ([sandbox] network = true)"),
    ],
)
def test_the_network_line_says_how_it_is_closed(
    tmp_path: Path, abi: int, userns: bool, network: bool, says: str
) -> None:
    box = sandbox(tmp_path, tmp_path, abi, userns, network=network)
    assert dict(box.report())["network"].startswith(says)


def test_without_landlock_the_sandbox_says_it_is_off_once(tmp_path: Path) -> None:
    box = sandbox(tmp_path, tmp_path, 0, False)
    assert "Bash sandbox off" in dict(box.report())["writes"]
    note = start_note(box)
    assert note is not None and "the sandbox is off" in note and "--yes" in note
    assert start_note(sandbox(tmp_path, tmp_path, 7, True)) is None
    open_network = start_note(sandbox(tmp_path, tmp_path, 3, False))
    assert open_network is not None and "the network stays open" in open_network


def test_turned_off_it_is_none_and_says_so(tmp_path: Path) -> None:
    rules = PermissionRules()
    assert session_sandbox(SandboxTable(enabled=False), rules, tmp_path) is None
    assert report(None, rules) == [
        ("sandbox", "off ([sandbox] enabled = false): Bash commands run with your rights")
    ]


def test_a_closed_network_drops_the_agent_and_bus_sockets(tmp_path: Path) -> None:
    environ = {"SSH_AUTH_SOCK": "/a", "DOCKER_HOST": "unix:///d", "PATH": "/bin"}
    assert sandbox(tmp_path, tmp_path, 7, True).environment(environ) == {"PATH": "/bin"}
    assert sandbox(tmp_path, tmp_path, 7, True, network=True).environment(environ) == environ


def test_nehandas_own_folders_are_denied_and_relative_paths_anchor_at_the_workspace(
    tmp_path: Path,
) -> None:
    table = SandboxTable(deny_read=["keys"], writable=["build"])
    box = session_sandbox(table, PermissionRules.parse(deny=["Read(~/vault/**)"]), tmp_path)
    assert box is not None
    assert str(tmp_path / "keys") in box.policy.deny_read
    assert "~/vault" in box.policy.deny_read
    assert box.policy.writable == (str(tmp_path / "build"),)
    assert len(box.policy.private) == 3


def test_deny_read_and_writable_add_up_across_settings_files(tmp_path: Path) -> None:
    user = user_settings_path()
    user.parent.mkdir(parents=True)
    user.write_text('[sandbox]\ndeny_read = ["~/a"]\nwritable = ["~/.cargo"]\nnetwork = true\n')
    project = tmp_path / ".nehanda" / "settings.toml"
    project.parent.mkdir()
    project.write_text('[sandbox]\ndeny_read = ["b"]\nnetwork = false\n')
    table = load_settings(tmp_path, environ={}).sandbox
    assert table.deny_read == ["~/a", "b"] and table.writable == ["~/.cargo"]
    assert table.network is False  # a project may close what the user opened


def test_the_start_note_forks_no_probe_where_landlock_closes_tcp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user-namespace and seccomp checks each fork a child: a session start that
    needs neither (Landlock ABI 4 closes TCP by itself) runs neither."""

    def no_fork() -> int:
        raise AssertionError("a probe forked at start")

    monkeypatch.setattr("os.fork", no_fork)
    assert start_note(Sandbox(Policy(tmp_path, tmp_path), Support(4))) is None
    assert start_note(Sandbox(Policy(tmp_path, tmp_path, network=True), Support(1))) is None
