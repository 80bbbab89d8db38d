"""The audit's attacks through the real gate and the real Bash tool, each with a canary.

Under --yes (yolo mode) with deny rules, each command below would delete, write or read
what the rules forbid if it ran; it must come back "Permission denied" and leave the
canary untouched. The controls show the same shapes do run where no rule forbids them.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from fakes import run_through
from nehanda.config.permission_modes import Mode
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import ToolResult, ToolUse

KEY = "PRIVATE-KEY-MATERIAL"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    workspace = Path(os.path.realpath(tmp_path)) / "ws"
    workspace.mkdir()
    (workspace / "canary").write_text("alive\n")
    home = workspace.parent / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(KEY + "\n")
    monkeypatch.setenv("HOME", str(home))
    return workspace


def bash(ws: Path, command: str, mode: Mode = "yolo", **rules: list[str]) -> ToolResult:
    gate = ToolGate(
        BuiltinTools(ToolContext(ws)), ws, PermissionRules.parse(mode, **rules), NoTerminal()
    )
    return asyncio.run(run_through(gate, ToolUse("call_1", "Bash", {"command": command})))


DELETIONS = [
    "/bin/r[m] -f canary",
    "$'\\x72m' -f canary",
    "{rm,-f,canary}",
    "x=rm; $x -f canary",
    "r''m -f canary",
    "taskset -c 0 rm -f canary",
    "stdbuf -oL rm -f canary",
    "flock /tmp/nehanda-test-lock rm -f canary",
    "find . -name canary -delete",
    "echo 'rm -f canary' | sh",
    "{ rm -f canary; }",
    "if true; then rm -f canary; fi",
]


@pytest.mark.parametrize("command", DELETIONS)
def test_yolo_with_a_deny_rule_refuses_every_spelling_of_it(ws: Path, command: str) -> None:
    result = bash(ws, command, deny=["Bash(rm:*)"])
    assert result.is_error and result.content.startswith("Permission denied"), result.content
    assert (ws / "canary").read_text() == "alive\n"


@pytest.mark.parametrize("command", ["taskset -c 0 rm -f canary", "find . -name canary -delete"])
def test_control_without_the_rule_the_same_command_runs(ws: Path, command: str) -> None:
    result = bash(ws, command)
    assert not result.is_error, result.content
    assert not (ws / "canary").exists()


@pytest.mark.parametrize(
    "command", ["cat ~/.ssh/id_ed25519", "cat $HOME/.ssh/id_*", "base64 < ~/.ssh/id_ed25519"]
)
def test_a_read_deny_rule_refuses_a_command_naming_the_key(ws: Path, command: str) -> None:
    result = bash(ws, command, deny=["Read(~/.ssh/**)"])
    assert result.is_error and result.content.startswith("Permission denied"), result.content
    assert KEY not in result.content


def test_control_without_the_rule_the_key_is_read(ws: Path) -> None:
    assert KEY in bash(ws, "cat ~/.ssh/id_ed25519").content


@pytest.mark.parametrize(
    ("command", "allow"),
    [
        ("git log --output=../written -1", "Bash(git log:*)"),
        ("sort -o ../written canary", "Bash(sort:*)"),
        ("sed -n 'w ../written' canary", "Bash(sed:*)"),
        ("awk 'BEGIN{system(\"touch ../written\")}'", "Bash(awk:*)"),
        (
            "tar -cf /dev/null canary --checkpoint=1 --checkpoint-action=exec='touch ../written'",
            "Bash(tar:*)",
        ),
    ],
)
def test_a_prefix_rule_does_not_allow_an_option_that_writes_or_runs(
    ws: Path, command: str, allow: str
) -> None:
    result = bash(ws, command, mode="default", allow=[allow])
    assert result.is_error and "needs the user's approval" in result.content, result.content
    assert not (ws.parent / "written").exists()
