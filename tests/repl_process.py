"""The REPL in a pseudo-terminal (pexpect), as a user at a terminal starts it, against a
scripted server; what it writes is kept in ``logfile_read`` for a test to read back."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pexpect

from waiting import GUARD


def spawn_repl(
    base_url: str,
    cwd: Path,
    *extra: str,
    rows: int = 24,
    columns: int = 100,
    timeout: float = GUARD,
    env: dict[str, str] | None = None,
    command: tuple[str, ...] = (),
) -> pexpect.spawn:
    """``nehanda COMMAND… --provider vllm --base-url URL --model q EXTRA…`` on a ``rows``
    x ``columns`` xterm (no ``command``: the REPL; ``("run", PROMPT)``: one run); an
    ``expect`` waits ``timeout`` seconds, a hang guard only."""
    options = ["--provider", "vllm", "--base-url", base_url, "--model", "q"]
    child = pexpect.spawn(
        sys.executable,
        ["-m", "nehanda", *command, *options, *extra],
        cwd=str(cwd),
        env={**os.environ, "TERM": "xterm", **(env or {})},
        encoding="utf-8",
        timeout=timeout,
        dimensions=(rows, columns),
    )
    child.logfile_read = io.StringIO()
    return child
