"""Workspace confinement: turn a path from the model into a resolved path inside the workspace.

Paths are resolved with ``os.path.realpath`` (symlinks followed) before they are
checked, and containment is decided by path components, so ``/proj-evil`` is not
inside ``/proj``. A path outside the workspace passes only when it lies inside one of
the ``granted`` paths: those the user allowed for the call at hand.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePath

from nehanda.errors import ToolError


def is_inside(path: PurePath, root: PurePath) -> bool:
    """Whether normalised absolute ``path`` is ``root`` or lies below it."""
    return path.parts[: len(root.parts)] == root.parts


def resolve_path(raw: str, workspace: Path) -> Path:
    """``raw`` (relative to the workspace, absolute, or starting with ``~``) resolved."""
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = workspace / candidate
    return Path(os.path.realpath(candidate))


def resolve_in_workspace(
    raw: str, workspace: Path, *, tool: str, action: str, granted: Sequence[Path] = ()
) -> Path:
    """Resolve ``raw`` (relative to the workspace, or absolute) or refuse it.

    ``action`` completes the refusal: "only files inside it can be {action}".
    """
    if "\0" in raw:
        raise ToolError(tool, f"The path {raw!r} contains a NUL character.")
    resolved = resolve_path(raw, workspace)
    if not any(is_inside(resolved, root) for root in (workspace, *granted)):
        candidate = Path(raw).expanduser()
        direct = os.path.normpath(workspace / candidate) == str(resolved)
        via = "" if direct else f" (it resolves to {resolved})"
        raise ToolError(
            tool,
            f"{raw}{via} is outside the workspace {workspace}; "
            f"only files inside it can be {action}.",
        )
    return resolved


def workspace_relative(path: str | PurePath, workspace: PurePath) -> str:
    """``path`` relative to the workspace in POSIX form, "." for the workspace itself."""
    return PurePath(os.path.relpath(path, workspace)).as_posix()
