"""What a PID namespace of its own costs each Bash command.

Run by hand: ``python bench/bash_spawn.py [RUNS]``. Each row runs the real Bash tool
RUNS times (default 40) on a command, in the sandbox as this kernel offers it, without
a PID namespace (the command's process group is all that is stopped) and with one (a
relay and an init forked beside it, everything left killed as it ends), the two kinds
in turns; the columns are the median and the 90th percentile in milliseconds, and the
difference of the medians. Without user namespaces there is nothing to compare, and the
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


def timed(context: ToolContext, command: str) -> float:
    async def once() -> float:
        started = time.perf_counter()
        await execute_builtin_tool(ToolUse("call_1", "Bash", {"command": command}), context)
        return (time.perf_counter() - started) * 1000

    return asyncio.run(once())


def main(runs: int) -> None:
    found = probe_support()
    if not found.pid_namespaces:
        print("this kernel offers no PID namespace to a command here: nothing to compare")
        return
    kernel = (found.landlock_abi, found.user_namespaces, found.seccomp)
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        policy = Policy(workspace, workspace)
        contexts = [
            ToolContext(workspace, sandbox=Sandbox(policy, Support(*kernel, pid_namespaces)))
            for pid_namespaces in (False, True)
        ]
        print(
            f"{'command':<20} {'group p50':>10} {'p90':>7} {'pidns p50':>10} {'p90':>7} {'+ms':>6}"
        )
        for name, command in COMMANDS.items():
            # Taken in turns, so that the load of the moment weighs on both alike.
            took: list[list[float]] = [[], []]
            for _ in range(runs):
                for kind, context in enumerate(contexts):
                    took[kind].append(timed(context, command))
            (group, group90), (pidns, pidns90) = (_median_p90(t) for t in took)
            print(
                f"{name:<20} {group:>10.1f} {group90:>7.1f} {pidns:>10.1f} {pidns90:>7.1f}"
                f" {pidns - group:>6.1f}"
            )


def _median_p90(took: list[float]) -> tuple[float, float]:
    ordered = sorted(took)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.9) - 1)]


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
