"""Workspace confinement: turn a path from the model into a resolved path inside the workspace.

Paths are resolved with ``os.path.realpath`` (symlinks followed) before they are
checked, and containment is decided by path components, so ``/proj-evil`` is not
inside ``/proj``. A path outside the workspace passes only when it lies inside one of
the ``granted`` paths: those the user allowed for the call at hand.

``place_in_workspace`` also names the root a resolved path lies beneath, so that the
file tools can open it below that root's descriptor (``beneath``) rather than by name
again: a name checked here can be swapped for a symlink before it is opened.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Placed:
    """A resolved ``path`` and the ``root`` it is opened beneath: the workspace or a
    granted folder holding it, or the folder of the very place that was granted."""

    path: Path
    root: Path

    @property
    def relative(self) -> str:
        """``path`` below ``root``, without symlinks, ``..`` or a leading ``/``."""
        return below(self.path, self.root)

    @property
    def folder(self) -> str:
        """The folder holding ``path``, below ``root`` ("." for the root itself)."""
        return below(self.path.parent, self.root) if self.path != self.root else "."


def below(path: PurePath, root: PurePath) -> str:
    """``path`` (normalised, inside ``root``) relative to ``root``; "." for the root.

    Plain string work: ``relative_to`` and ``relpath`` cost more than the open they feed.
    """
    return str(path)[len(str(root)) :].lstrip("/") or "."


def resolve_in_workspace(
    raw: str, workspace: Path, *, tool: str, action: str, granted: Sequence[Path] = ()
) -> Path:
    """Resolve ``raw`` (relative to the workspace, or absolute) or refuse it.

    ``action`` completes the refusal: "only files inside it can be {action}".
    """
    return place_in_workspace(raw, workspace, tool=tool, action=action, granted=granted).path


def place_in_workspace(
    raw: str, workspace: Path, *, tool: str, action: str, granted: Sequence[Path] = ()
) -> Placed:
    """``resolve_in_workspace``, with the root the resolved path lies beneath."""
    if "\0" in raw:
        raise ToolError(tool, f"The path {raw!r} contains a NUL character.")
    try:
        resolved = resolve_path(raw, workspace)
    except OSError as error:  # a symlink on the way changed while it was being read
        raise ToolError(
            tool, f"{raw} changed while it was being resolved ({error.strerror}); refused."
        ) from None
    root = next((root for root in (workspace, *granted) if is_inside(resolved, root)), None)
    if root is None:
        candidate = Path(raw).expanduser()
        direct = os.path.normpath(workspace / candidate) == str(resolved)
        via = "" if direct else f" (it resolves to {resolved})"
        raise ToolError(
            tool,
            f"{raw}{via} is outside the workspace {workspace}; "
            f"only files inside it can be {action}.",
        )
    return Placed(resolved, root.parent if resolved == root else root)


def workspace_relative(path: str | PurePath, workspace: PurePath) -> str:
    """``path`` relative to the workspace in POSIX form, "." for the workspace itself."""
    return PurePath(os.path.relpath(path, workspace)).as_posix()
