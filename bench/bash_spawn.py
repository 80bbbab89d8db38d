"""What a PID namespace of its own costs each Bash command.

Run by hand: ``python bench/bash_spawn.py [RUNS]``. Each row runs the real Bash tool
RUNS times (default 40) on a command, in the sandbox as this kernel offers it but
without a PID namespace (the command's process group is all that is stopped), and with
one (a relay and an init forked beside it, everything left killed when it ends); the
columns are the median and the 90th percentile in milliseconds, and the difference of
the medians. Without Landlock or user namespaces there is only the first kind, and the
table says so. The suite holds no timing.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from nehanda.sandbox.confine import Policy, Sandbox, Support, probe_support
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolUse

COMMANDS = {
    "true": "true",
    "echo and exit 3": "echo out; exit 3",
    "a background sleep": "sleep 30 > /dev/null 2>&1 & echo started",
    "python -c pass": f"{sys.executable} -c pass",
}


def timings(context: ToolContext, command: str, runs: int) -> list[float]:
    async def once() -> float:
        started = time.perf_counter()
        await execute_builtin_tool(ToolUse("call_1", "Bash", {"command": command}), context)
        return (time.perf_counter() - started) * 1000

    return [asyncio.run(once()) for _ in range(runs)]


def main(runs: int) -> None:
    found = probe_support()
    if not found.pid_namespaces:
        print("this kernel offers no PID namespace to a command here: nothing to compare")
        return
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        policy = Policy(workspace, workspace)
        kinds = {
            "process group": Support(
                found.landlock_abi, found.user_namespaces, found.seccomp, False
            ),
            "PID namespace": Support(
                found.landlock_abi, found.user_namespaces, found.seccomp, True
            ),
        }
        print(
            f"{'command':<20} {'group p50':>10} {'p90':>7} {'pidns p50':>10} {'p90':>7} {'+ms':>6}"
        )
        for name, command in COMMANDS.items():
            cells = []
            for support in kinds.values():
                context = ToolContext(workspace, sandbox=Sandbox(policy, support))
                took = sorted(timings(context, command, runs))
                cells.append((statistics.median(took), took[int(len(took) * 0.9) - 1]))
            (group, group90), (pidns, pidns90) = cells
            print(
                f"{name:<20} {group:>10.1f} {group90:>7.1f} {pidns:>10.1f} {pidns90:>7.1f}"
                f" {pidns - group:>6.1f}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
