"""Hook scripts a test writes, and the settings that run them: small Python programs that
read the hook's JSON, keep what they were given, and answer as the test says."""

from __future__ import annotations

import json
import os
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any

PRELUDE = """\
import json, os, sys
data = json.load(sys.stdin)
with open({log!r}, "a") as log:
    log.write(json.dumps({{"input": data, "env": {{
        k: os.environ.get(k) for k in ("NEHANDA_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
    }}}}) + "\\n")
"""


def hook(folder: Path, name: str, body: str) -> str:
    """The command running a script named ``name`` whose ``body`` answers; every input it
    gets is kept in ``NAME.log`` beside it (``seen``)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / f"{name}.py"
    log = folder / f"{name}.log"
    script.write_text(PRELUDE.format(log=str(log)) + textwrap.dedent(body))
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def seen(folder: Path, name: str) -> list[dict[str, Any]]:
    """What the hook ``name`` was given, each run in turn."""
    log = folder / f"{name}.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def hooks_toml(*hooks: tuple[str, str, str] | tuple[str, str, str, float]) -> str:
    """``[[hooks.EVENT]]`` entries for (event, matcher, command[, timeout])."""
    parts = []
    for event, matcher, command, *timeout in hooks:
        parts.append(f"[[hooks.{event}]]\nmatcher = {json.dumps(matcher)}\n")
        parts[-1] += f"command = {json.dumps(command)}\n"
        parts[-1] += f"timeout = {timeout[0]}\n" if timeout else ""
    return "\n".join(parts)


def user_settings(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
