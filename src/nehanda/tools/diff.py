"""The unified diff a file change would make, read before the change runs."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from nehanda.tools.paths import resolve_path, workspace_relative
from nehanda.types import JsonObject


def file_diff(
    arguments: JsonObject, workspace: Path, before_after: Callable[[Path], tuple[str, str]]
) -> list[str]:
    """The diff between the two texts ``before_after`` gives for the call's ``file_path``."""
    path = resolve_path(str(arguments.get("file_path", "")), workspace)
    before, after = before_after(path)
    shown = workspace_relative(path, workspace)
    old_name = f"a/{shown}" if path.exists() else "/dev/null"
    return list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), old_name, f"b/{shown}", lineterm=""
        )
    )
