"""What ``/tools`` says about Bash: that it asks first for commands no rule names, and,
where the kernel sandbox holds commands, that those that only read run unasked."""

from __future__ import annotations

import os
from pathlib import Path

from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.harmless import Confinement
from nehanda.permissions.overview import describe_tools
from nehanda.tools.registry import builtin_specs

WORKSPACE = Path(os.path.realpath("."))


def bash_line(shown: str) -> str:
    (line,) = [line for line in shown.splitlines() if line.startswith("  Bash ")]
    return line


def test_without_the_sandbox_every_command_no_rule_names_asks() -> None:
    shown = describe_tools(builtin_specs(), PermissionRules(), WORKSPACE)
    assert bash_line(shown) == "  Bash   commands no rule names: asks first"


def test_in_the_sandbox_commands_that_only_read_run_and_the_line_says_so() -> None:
    sandboxed = Confinement(True, (), False, True)
    shown = describe_tools(builtin_specs(), PermissionRules(), WORKSPACE, lambda _: sandboxed)
    assert bash_line(shown) == (
        "  Bash   commands no rule names: asks first; those that only read in the "
        "workspace (ls, cat, grep…): runs"
    )
    yolo = describe_tools(builtin_specs(), PermissionRules(mode="yolo"), WORKSPACE)
    assert bash_line(yolo) == "  Bash   commands no rule names: runs"
