"""One hook process, for real: what it is given, what is kept of its output."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from nehanda.hooks.runner import OUTPUT_CAP, run_hook


def test_output_is_capped_and_the_hook_never_blocks_on_a_full_pipe(tmp_path: Path) -> None:
    script = f"{sys.executable} -c 'import sys; sys.stdout.write(\"x\" * 10_000_000); sys.exit(3)'"
    outcome = asyncio.run(run_hook(script, b"{}", 30, tmp_path, {}))
    assert outcome.code == 3 and len(outcome.stdout) == OUTPUT_CAP


def test_a_hook_that_reads_nothing_still_answers(tmp_path: Path) -> None:
    outcome = asyncio.run(run_hook("echo ok", b"x" * 1_000_000, 30, tmp_path, {"A": "1"}))
    assert outcome.code == 0 and outcome.stdout == "ok\n"
