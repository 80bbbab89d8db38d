"""What a configured PreToolUse hook costs each tool call, in milliseconds.

Run by hand: ``python bench/hooks.py``. Each row runs ``SessionHooks.pre_tool_use`` (what
the gate awaits before it decides) for one Bash call, N times, and prints the median and
the 90th percentile: no hook matching (the matcher names another tool: no process),
``true`` in the shell, Python starting and doing nothing, a Python script that reads the
JSON and answers allow, the same blocking with exit 2, and four Python hooks at once
(they run concurrently). The suite holds no timing.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from nehanda.config.hooks import DefinedHook, HookEntry
from nehanda.hooks.session import SessionHooks
from nehanda.types import ToolUse

RUNS = 40
ALLOW = (
    "import json, sys\njson.load(sys.stdin)\n"
    'print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}}))\n'
)
BLOCK = 'import json, sys\njson.load(sys.stdin)\nsys.stderr.write("no")\nsys.exit(2)\n'


def _hooks(folder: Path, commands: list[tuple[str, str]]) -> SessionHooks:
    defined = tuple(
        DefinedHook(
            "PreToolUse", HookEntry(matcher=matcher, command=command), "user", "bench", 1, i
        )
        for i, (matcher, command) in enumerate(commands)
    )
    return SessionHooks(defined, folder, "bench", str(folder / "t.jsonl"), lambda: "default")


async def _measure(hooks: SessionHooks) -> tuple[float, float]:
    use = ToolUse("call_1", "Bash", {"command": "git status"})
    times = []
    for _ in range(RUNS):
        began = time.perf_counter()
        await hooks.pre_tool_use(use)
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9)]


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "allow.py").write_text(ALLOW)
        (folder / "block.py").write_text(BLOCK)
        python = sys.executable
        allow, block = f"{python} {folder / 'allow.py'}", f"{python} {folder / 'block.py'}"
        cases = {
            "no hook matches (matcher Edit)": [("Edit", "true")],
            "sh: true": [("Bash", "true")],
            "python -c pass (its start alone)": [("Bash", f"{python} -c pass")],
            "python: reads JSON, allows": [("Bash", allow)],
            "python: exit 2 blocks": [("Bash", block)],
            "4 python hooks, concurrent": [("Bash", allow)]
            + [("*", f"{allow} {n}") for n in range(3)],
        }
        print(f"{'PreToolUse hooks per call':36} {'median ms':>10} {'p90 ms':>8}")
        for label, commands in cases.items():
            median, p90 = asyncio.run(_measure(_hooks(folder, commands)))
            print(f"{label:36} {median:10.2f} {p90:8.2f}")


if __name__ == "__main__":
    main()
