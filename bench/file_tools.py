"""What one Read, Write or Edit call costs, through the registry as a session runs it.

Run by hand: ``python bench/file_tools.py`` (``--walk`` opens paths with the
component walk instead of ``openat2``). Each tool is called 100 times on a file four
folders deep in a temporary workspace; prints the best of 20 such rounds, in
microseconds per call. Write and Edit include their two fsyncs, so on a disk the
disk's latency shows; ``TMPDIR=/dev/shm`` leaves only the call's own work.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolUse

CALLS = 100
REPEATS = 20
FILE = "a/b/c/d/file.txt"


async def _calls(context: ToolContext, name: str, arguments: list[dict[str, Any]]) -> None:
    for number, args in enumerate(arguments):
        result = await execute_builtin_tool(ToolUse(f"call_{number}", name, args), context)
        if result.is_error:
            raise SystemExit(f"{name} failed: {result.content}")


def best_us(context: ToolContext, name: str, arguments: list[dict[str, Any]]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        asyncio.run(_calls(context, name, arguments))
        best = min(best, time.perf_counter() - started)
    return best / len(arguments) * 1e6


def main() -> None:
    if "--walk" in sys.argv:
        from nehanda.tools import beneath

        beneath.use_openat2 = lambda: False
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(os.path.realpath(folder))
        (workspace / FILE).parent.mkdir(parents=True)
        rows = {
            "Read (100 lines)": ("Read", [{"file_path": FILE}] * CALLS),
            "Write (replace, 100 lines)": (
                "Write",
                [{"file_path": FILE, "content": "x\n" * 100}] * CALLS,
            ),
            "Edit (one replacement)": (
                "Edit",
                [
                    {
                        "file_path": FILE,
                        "old_string": f"{n % 2}x\n",
                        "new_string": f"{1 - n % 2}x\n",
                    }
                    for n in range(CALLS)
                ],
            ),
        }
        print(f"{'call, ' + FILE:34} {'best us/call':>13}")
        for label, (name, arguments) in rows.items():
            # Edit's calls take 0x to 1x and back: each round starts from the same text.
            (workspace / FILE).write_text("0x\n" + "line\n" * 99)
            context = ToolContext(workspace)
            print(f"{label:34} {best_us(context, name, arguments):13.0f}")


if __name__ == "__main__":
    main()
