"""Where checkpoints live: a content-addressed store and each session's records.

Under ``$XDG_STATE_HOME/nehanda/checkpoints/``: ``objects/ab/cdef…`` holds file
contents by their SHA-256 (written once, atomically, synced), and
``sessions/ID/`` one session's records: ``session.json`` (its workspace),
``turns/N.json`` (a turn's prompt and the files it changed, rewritten atomically as
each change is recorded, before the change), ``snapshots.jsonl`` (the workspace as
Bash last saw it, one line of differences per command) and ``undos/N.json`` (what
each undo did, so that ``--redo`` can take it back). Everything is written before
the change it describes, so a crash or a SIGKILL leaves records ``undo`` can use.

``prune`` drops the sessions older than the age limit, then the oldest until the
store fits its size limit, and then every object no record names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nehanda.errors import ConfigError
from nehanda.fs import state_dir, write_atomic

_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_PRUNE_EVERY = 24 * 3600.0


def checkpoints_dir() -> Path:
    return state_dir() / "checkpoints"


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Store:
    root: Path

    @classmethod
    def default(cls) -> Store:
        return cls(checkpoints_dir())

    def object_path(self, digest: str) -> Path:
        return self.root / "objects" / digest[:2] / digest[2:]

    def put(self, data: bytes, *, durable: bool = True) -> str:
        """Keeps ``data``; its hash. Not ``durable``, it is on disk only after ``sync``
        (one sync for a snapshot's many files, not one each)."""
        digest = digest_of(data)
        path = self.object_path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data, 0o600, durable=durable)
        return digest

    def sync(self) -> None:
        """Everything written to the store's file system is on disk (``syncfs``)."""
        import ctypes  # only once a snapshot copied files

        handle = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            syncfs = getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None)
            if syncfs is None or syncfs(handle) != 0:
                os.sync()
        finally:
            os.close(handle)

    def get(self, digest: str) -> bytes:
        """The contents kept as ``digest``; ``ConfigError`` when gone or damaged."""
        try:
            data = self.object_path(digest).read_bytes()
        except OSError:
            raise ConfigError(f"the checkpoint store has lost the contents {digest[:12]}") from None
        if digest_of(data) != digest:
            raise ConfigError(f"the checkpoint store's copy {digest[:12]} is damaged")
        return data

    def session(self, session_id: str) -> Path:
        if not _SESSION_ID.fullmatch(session_id):
            raise ConfigError(f"{session_id!r} is not a session id; `nehanda undo --list` shows")
        return self.root / "sessions" / session_id

    def sessions(self) -> Iterator[Path]:
        """Session folders, the most recently changed first."""
        folder = self.root / "sessions"
        if folder.is_dir():
            found = [(_changed(path), path.name, path) for path in folder.iterdir()]
            yield from (path for _, _, path in sorted(found, reverse=True))


def write_json(path: Path, record: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(record, separators=(",", ":")).encode(), 0o600)


def read_json(path: Path) -> Any:
    """The record at ``path``; ``ConfigError`` for one that is unreadable."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the checkpoint record {path}: {error}") from None


def numbered(folder: Path) -> list[Path]:
    """The ``N.json`` records in ``folder``, in order."""
    if not folder.is_dir():
        return []
    found = [(int(p.stem), p) for p in folder.glob("*.json") if p.stem.isdigit()]
    return [path for _, path in sorted(found)]


def next_number(folder: Path) -> int:
    records = numbered(folder)
    return int(records[-1].stem) + 1 if records else 1


def _changed(path: Path) -> float:
    try:
        return max([path.stat().st_mtime, *(p.stat().st_mtime for p in path.glob("*/*.json"))])
    except OSError:
        return 0.0


def prune(store: Store, *, keep_days: float, max_bytes: int, now: float | None = None) -> None:
    """Old sessions dropped, then the oldest until the objects fit ``max_bytes``; at most
    once a day (a stamp file says when it last ran)."""
    now = time.time() if now is None else now
    stamp = store.root / "pruned"
    with contextlib.suppress(OSError):
        if now - stamp.stat().st_mtime < _PRUNE_EVERY:
            return
    sessions = list(store.sessions())
    kept = [s for s in sessions if now - _changed(s) <= keep_days * 86400]
    for session in sessions:
        if session not in kept:
            shutil.rmtree(session, ignore_errors=True)
    _collect(store, kept, max_bytes)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()


def _collect(store: Store, sessions: list[Path], max_bytes: int) -> None:
    """Objects no kept session names are removed; the oldest sessions go while the
    rest still need more than ``max_bytes``."""
    sizes = _object_sizes(store)
    while True:
        named = set().union(*(_named(s) for s in sessions)) if sessions else set()
        if sum(size for digest, size in sizes.items() if digest in named) <= max_bytes:
            break
        shutil.rmtree(sessions.pop(), ignore_errors=True)
    for digest in set(sizes) - named:
        with contextlib.suppress(OSError):
            store.object_path(digest).unlink()


def _object_sizes(store: Store) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for path in (store.root / "objects").glob("??/*"):
        with contextlib.suppress(OSError):
            sizes[path.parent.name + path.name] = path.stat().st_size
    return sizes


_DIGEST = re.compile(rb'"digest":"([0-9a-f]{64})"')


def _named(session: Path) -> set[str]:
    """Every hash the records of ``session`` name."""
    named: set[str] = set()
    for path in session.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file():
                named.update(m.decode() for m in _DIGEST.findall(path.read_bytes()))
    return named
