"""The collector is held off while nehanda starts, and runs again in what runs for long."""

from __future__ import annotations

import subprocess
import sys

import pytest

# The long-running command's body is replaced by a look at the collector: what matters is
# its state once the command line hands over, not the server itself.
SCRIPT = """
import gc, sys
import {module} as target
def look(*args, **kwargs):
    print("collecting" if gc.isenabled() else "held")
    return 0
target.{function} = look
from nehanda.cli.main import main
sys.argv = ["nehanda", "{command}"]
main()
"""


@pytest.mark.parametrize(
    ("command", "module", "function"),
    [
        ("serve", "nehanda.serve.run", "serve_command"),
        ("acp", "nehanda.acp.command", "acp_command"),
    ],
)
def test_a_long_running_command_collects_its_garbage(
    command: str, module: str, function: str
) -> None:
    script = SCRIPT.format(module=module, function=function, command=command)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "collecting", done.stderr
