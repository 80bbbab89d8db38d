"""The catalogue of attacks, through the real gate and tools, each with a marker-file canary.

No terminal is attached (``NoTerminal``), so a call that needs approval is refused. A
refused call must come back as a "Permission denied" error and must not create its
marker; the control tests show that the same calls, once allowed, do create it.
"""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from fakes import run_through
from nehanda.config.permission_modes import Mode
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import ToolResult, ToolUse

# Prefix rules for every wrapper and evaluator: none of them may let a hidden command by.
WRAPPING = ("echo", "cat", "env", "timeout", "xargs", "sudo", "nohup", "bash", "eval", "find")
GENEROUS = ["Bash(git status)", "Bash(printf:*)", *(f"Bash({name}:*)" for name in WRAPPING)]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "ws-evil").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("the secret\n")
    (workspace / "out").symlink_to(tmp_path / "outside")
    return Path(os.path.realpath(workspace))


def call(
    ws: Path, name: str, mode: Mode = "default", allow: list[str] | None = None, **args: Any
) -> ToolResult:
    rules = PermissionRules.parse(mode, allow=GENEROUS if allow is None else allow)
    gate = ToolGate(BuiltinTools(ToolContext(ws)), ws, rules, NoTerminal())
    return asyncio.run(run_through(gate, ToolUse("call_1", name, args)))


def assert_refused(result: ToolResult) -> None:
    assert result.is_error
    assert result.content.startswith("Permission denied:"), result.content


@pytest.mark.parametrize(
    "template",
    [
        # chained
        "git status && touch {m}",
        "git status; touch {m}",
        "git status || touch {m}",
        "git status | touch {m}",
        "git status & touch {m}",
        "git status\ntouch {m}",
        "echo ok;touch {m}",
        # substituted
        "echo $(touch {m})",
        "echo `touch {m}`",
        'echo "$(touch {m})"',
        "echo ${{x:-$(touch {m})}}",
        "cat <(touch {m})",
        # redirected
        "echo pwned > {m}",
        "echo pwned >> {m}",
        "echo pwned &> {m}",
        "echo pwned 2>{m}",
        "printf x | cat >{m}",
        # wrapped or evaluated
        "env touch {m}",
        "timeout 5 touch {m}",
        "echo {m} | xargs touch",
        "sudo touch {m}",
        "nohup touch {m}",
        "bash -c 'touch {m}'",
        "eval 'touch {m}'",
        "find . -maxdepth 0 -exec touch {m} \\;",
        "MARK={m} bash -c 'touch $MARK'",
        "T=touch; $T {m}",
    ],
)
def test_hidden_commands_are_never_run_by_a_prefix_rule(ws: Path, template: str) -> None:
    marker = ws / "marker"
    result = call(ws, "Bash", command=template.format(m=marker))
    assert_refused(result)
    assert "user could not be asked" in result.content
    assert not marker.exists()


def test_control_an_allowed_command_does_run(ws: Path) -> None:
    marker = ws / "marker"
    result = call(ws, "Bash", allow=[f"Bash(touch {marker})"], command=f"touch {marker}")
    assert not result.is_error, result.content
    assert marker.exists()


def test_yolo_still_obeys_deny_rules_through_wrappers(ws: Path) -> None:
    marker = ws / "marker"
    rules = PermissionRules.parse("yolo", deny=["Bash(touch:*)"])
    gate = ToolGate(BuiltinTools(ToolContext(ws)), ws, rules, NoTerminal())
    for command in (f"sudo touch {marker}", f"echo $(touch {marker})", f"bash -c 'touch {marker}'"):
        assert_refused(asyncio.run(run_through(gate, ToolUse("1", "Bash", {"command": command}))))
    assert not marker.exists()


def test_plan_mode_runs_no_command_whatever_the_rules(ws: Path) -> None:
    marker = ws / "marker"
    result = call(ws, "Bash", "plan", allow=["Bash"], command=f"touch {marker}")
    assert_refused(result)
    assert "plan mode" in result.content
    assert not marker.exists()


@pytest.mark.parametrize(
    ("raw", "marker"),
    [
        ("../marker", "../marker"),
        ("../../marker", "../../marker"),
        ("../ws-evil/marker", "../ws-evil/marker"),
        ("out/marker", "../outside/marker"),
        ("{ws}/../outside/marker", "../outside/marker"),
    ],
)
def test_writes_that_leave_the_workspace_are_refused(ws: Path, raw: str, marker: str) -> None:
    result = call(ws, "Write", "accept-edits", file_path=raw.format(ws=ws), content="pwned")
    assert_refused(result)
    assert "outside the workspace" in result.content
    assert not (ws / marker).exists()


def test_reads_through_a_symlink_out_of_the_workspace_are_refused(ws: Path) -> None:
    result = call(ws, "Read", file_path="out/secret.txt")
    assert_refused(result)
    assert "the secret" not in result.content
    listing = call(ws, "LS", path="out")
    assert_refused(listing)
    assert "secret.txt" not in listing.content


def test_an_allow_rule_for_the_workspace_does_not_follow_its_symlinks_out(ws: Path) -> None:
    """The project ships ``out -> ../outside``; the user allowed ``Edit(out/**)`` and
    ``Read(out/**)`` meaning files in the project."""
    marker = ws.parent / "outside" / "marker"
    wrote = call(ws, "Write", allow=["Edit(out/**)"], file_path="out/marker", content="pwned")
    assert_refused(wrote)
    assert "outside the workspace" in wrote.content
    assert not marker.exists()
    read = call(ws, "Read", allow=["Read(out/**)"], file_path="out/secret.txt")
    assert_refused(read)
    assert "the secret" not in read.content


def test_control_a_rule_naming_the_outside_place_itself_allows_it(ws: Path) -> None:
    marker = ws.parent / "outside" / "marker"
    allow = [f"Edit({ws.parent}/outside/**)"]
    result = call(ws, "Write", allow=allow, file_path="out/marker", content="ok")
    assert not result.is_error, result.content
    assert marker.read_text() == "ok"


@pytest.mark.parametrize(
    "command",
    [
        "ls < /dev/tcp/127.0.0.1/{port}",
        "ls < /dev//tcp/127.0.0.1/{port}",
        "ls 0</dev/tcp/127.0.0.1/{port}",
        "ls < /dev/tcp/$HOST/{port}",
    ],
)
def test_a_prefix_rule_opens_no_connection_through_an_input_redirection(
    ws: Path, command: str
) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        result = call(ws, "Bash", allow=["Bash(ls:*)"], command=command.format(port=port))
        assert_refused(result)
        with pytest.raises(TimeoutError):
            listener.accept()


@pytest.mark.parametrize("command", ["/usr/bin/touch {m}", "./bin/../touch {m}"])
def test_deny_rules_match_a_command_run_by_its_path(ws: Path, command: str) -> None:
    marker = ws / "marker"
    rules = PermissionRules.parse("yolo", deny=["Bash(touch:*)"])
    gate = ToolGate(BuiltinTools(ToolContext(ws)), ws, rules, NoTerminal())
    result = asyncio.run(
        run_through(gate, ToolUse("1", "Bash", {"command": command.format(m=marker)}))
    )
    assert_refused(result)
    assert not marker.exists()


@pytest.mark.parametrize(
    "raw", [".git/hooks/pre-commit", ".nehanda/settings.toml", "pkg/.git/config", ".envrc"]
)
def test_protected_paths_are_not_written_even_in_accept_edits(ws: Path, raw: str) -> None:
    result = call(ws, "Write", "accept-edits", allow=["Edit"], file_path=raw, content="x")
    assert_refused(result)
    assert "protected" in result.content
    assert not (ws / raw).exists()


def test_a_protected_file_is_not_edited(ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]\n")
    result = call(
        ws,
        "Edit",
        "accept-edits",
        file_path=".git/config",
        old_string="[core]",
        new_string="[core]\n\tfsmonitor = touch marker",
    )
    assert_refused(result)
    assert (ws / ".git" / "config").read_text() == "[core]\n"
