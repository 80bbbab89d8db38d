"""The permission modes are one table (``config.permission_modes.PERMISSION_MODES``), and
``decide`` answers as it says: for every mode and every built-in, a call inside the
workspace that no rule names runs, asks or is refused as the table has it for the
tool's kind; the REPL's status line and ``/permissions`` say what the table says."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes import checked
from nehanda.cli.repl_commands import mode_line
from nehanda.config.permission_modes import MODES, PERMISSION_MODES, Mode
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.overview import describe_permissions
from nehanda.tools.registry import builtin_specs
from nehanda.types import ToolUse
from nehanda.verdicts import Allow, Ask, Deny

CALLS = {
    "Read": {"file_path": "a.txt"},
    "Write": {"file_path": "a.txt", "content": "x"},
    "Edit": {"file_path": "a.txt", "old_string": "x", "new_string": "y"},
    "Bash": {"command": "nehanda-example-command"},
    "LS": {"path": "."},
    "Glob": {"pattern": "*.txt"},
    "Grep": {"pattern": "x"},
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CALLS))
def test_decide_answers_as_the_table_says(mode: Mode, name: str, tmp_path: Path) -> None:
    call = checked(ToolUse("c", name, CALLS[name]))
    rules = PERMISSION_MODES[mode]
    settled, kind = rules.settles(call.facts.kind), call.facts.kind
    expected = {"run": Allow, "refuse": Deny}.get(settled or "") or (
        Allow if kind in rules.unasked else Ask
    )
    decision = decide(call, PermissionRules(mode=mode), tmp_path)
    assert isinstance(decision, expected), (mode, name, decision)


def test_plan_mode_is_the_one_that_refuses_every_change_and_offers_only_reads() -> None:
    assert [mode for mode in MODES if PERMISSION_MODES[mode].refuses_changes] == ["plan"]
    plan = PERMISSION_MODES["plan"]
    offered = [spec.name for spec in builtin_specs() if plan.settles(spec.facts.kind) is None]
    assert offered == ["Read", "LS", "Glob", "Grep", "BashOutput", "WebFetch", "TodoWrite"]


@pytest.mark.parametrize("mode", MODES)
def test_the_status_line_and_permissions_say_what_the_table_says(mode: Mode) -> None:
    assert mode_line(mode).startswith(PERMISSION_MODES[mode].status)
    assert PERMISSION_MODES[mode].meaning in describe_permissions(PermissionRules(mode=mode))
