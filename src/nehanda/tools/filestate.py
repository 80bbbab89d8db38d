"""What the model last saw of each file, so that Edit and Write never clobber later changes.

Read records a file's state when it shows the file; Edit and Write record it after
they write. When a recorded file has since changed on disk (the user saved it, a
command rewrote it), Edit and Write refuse and ask the model to read it again. The
state comes from the descriptor the tool opened (``os.fstat``), not from the name
again, which may lead elsewhere by then.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from nehanda.errors import ToolError


@dataclass(frozen=True)
class _Stamp:
    mtime_ns: int
    size: int
    inode: int


def _stamp(info: os.stat_result | None) -> _Stamp | None:
    return None if info is None else _Stamp(info.st_mtime_ns, info.st_size, info.st_ino)


class FileRecord:
    """Resolved path -> the file's state when the model last read or wrote it."""

    def __init__(self) -> None:
        self._seen: dict[Path, _Stamp] = {}

    def remember(self, path: Path, info: os.stat_result | None) -> None:
        """``info``: the file's status as the tool saw it; ``None`` when there is none."""
        stamp = _stamp(info)
        if stamp is None:
            self._seen.pop(path, None)
        else:
            self._seen[path] = stamp

    def check_unchanged(
        self, path: Path, info: os.stat_result | None, *, tool: str, shown: str
    ) -> None:
        """Refuse when the file at ``path``, whose status is now ``info``, differs from
        what the model last saw.

        A file never seen, or gone since, has nothing the model could overwrite unseen.
        """
        seen = self._seen.get(path)
        now = _stamp(info)
        if seen is None or now is None or now == seen:
            return
        raise ToolError(
            tool,
            f"{shown} has changed since you last read it (edited by the user or by a "
            "command). Read it again, then make your change against its current contents.",
        )
