"""Runs the real ``nehanda`` command in a child process, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def nehanda(
    *args: str,
    cwd: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    python: str = sys.executable,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "nehanda", *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def run_json(
    base_url: str,
    *args: str,
    cwd: Path,
    provider: str = "vllm",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``nehanda run ... --output json`` against the server at ``base_url``, model ``q``."""
    return nehanda(
        "run", *args, "--provider", provider, "--base-url", base_url, "--model", "q",
        "--output", "json", cwd=cwd, env=env,
    )  # fmt: skip
