"""The images of a session log, stored by content hash beside it (never inline).

``sessions/images/<sha256>`` holds one image's bytes, written atomically and owner-only
once, however often the conversation shows it; a record names the hash. A file whose
bytes no longer hash to its name (edited, torn) reads as missing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from nehanda.fs import write_atomic

_FILE_MODE = 0o600


class Blobs:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def beside(cls, log: Path) -> Blobs:
        return cls(log.parent / "images")

    def put(self, data: bytes) -> str:
        """Stores ``data`` (once) and returns its name, the SHA-256 of its bytes."""
        digest = hashlib.sha256(data).hexdigest()
        path = self.folder / digest
        if not path.is_file():
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data, _FILE_MODE)
        return digest

    def get(self, digest: str) -> bytes | None:
        """The bytes stored as ``digest``; ``None`` when they are gone or changed."""
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            return None
        try:
            data = (self.folder / digest).read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == digest else None
