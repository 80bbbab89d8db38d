"""Recent Responses API conversations, kept on disk for ``previous_response_id``.

Serve runs as several worker processes, so what one stored another must find: each
response is one file, ``resp_<hex>.json``, in ``serve/responses`` under nehanda's
state folder, written atomically (``fs.write_atomic``) but not synced (the files are
written on the event loop, and a crash may lose the newest: a cache), holding the
conversation's items up to and including that response's output. The store is
bounded: a conversation larger than ``max_entry_bytes`` is not kept, and the oldest
files go until at most ``max_count`` files and ``max_bytes`` remain. Listing the
folder costs milliseconds, so a process prunes after its first write and then once
every ``PRUNE_EVERY`` writes or an eighth of ``max_bytes`` written, whichever comes
first: between prunes, each worker may add that much. An id that is malformed, never
stored or already dropped reads as ``None``; the id is checked against its form before
it names a file, so no id reaches another path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from pathlib import Path

from nehanda.fs import state_dir, write_atomic
from nehanda.providers import bounded_json
from nehanda.types import JsonObject

_ID = re.compile(r"resp_[0-9a-f]{32}")
PRUNE_EVERY = 16


def new_response_id() -> str:
    return "resp_" + secrets.token_hex(16)


class ResponseStore:
    def __init__(
        self,
        folder: Path | None = None,
        *,
        max_count: int = 256,
        max_bytes: int = 64 << 20,
        max_entry_bytes: int = 8 << 20,
    ) -> None:
        self._folder = folder
        self.max_count = max_count
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self._unpruned: tuple[int, int] | None = None  # writes and bytes since a prune

    @property
    def folder(self) -> Path:
        """Where the files are; the state folder is read when first needed."""
        return self._folder or state_dir() / "serve" / "responses"

    def put(self, response_id: str, items: list[JsonObject]) -> bool:
        """Keep ``items`` as ``response_id``'s conversation; False if too large to keep."""
        if not _ID.fullmatch(response_id):
            raise ValueError(f"not a response id: {response_id!r}")
        data = json.dumps({"items": items}, ensure_ascii=False).encode()
        if len(data) > self.max_entry_bytes:
            return False
        folder = self.folder
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(folder / f"{response_id}.json", data, 0o600, durable=False)
        count, size = self._unpruned or (PRUNE_EVERY, self.max_bytes)
        self._unpruned = (count + 1, size + len(data))
        if self._unpruned[0] >= PRUNE_EVERY or self._unpruned[1] >= self.max_bytes // 8:
            self._prune(folder)
            self._unpruned = (0, 0)
        return True

    def get(self, response_id: str) -> list[JsonObject] | None:
        """The conversation stored for ``response_id``, or ``None``."""
        if not _ID.fullmatch(response_id):
            return None
        try:
            raw = (self.folder / f"{response_id}.json").read_bytes()
            items = bounded_json.loads(raw).get("items")
        except (OSError, ValueError, AttributeError):
            return None
        return items if isinstance(items, list) else None

    def _prune(self, folder: Path) -> None:
        entries = []
        with os.scandir(folder) as listing:
            for entry in listing:
                if not _ID.fullmatch(entry.name.removesuffix(".json")):
                    continue
                with contextlib.suppress(OSError):  # another worker may have dropped it
                    status = entry.stat(follow_symlinks=False)
                    entries.append((status.st_mtime_ns, status.st_size, entry.name))
        entries.sort(reverse=True)
        kept, size = 0, 0
        for _, length, name in entries:
            kept, size = kept + 1, size + length
            if kept > self.max_count or size > self.max_bytes:
                with contextlib.suppress(OSError):
                    (folder / name).unlink()
