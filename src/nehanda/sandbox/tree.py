"""Which Landlock grants make "everything readable but these paths", and the carving
that also keeps a place read-only inside a writable root.

Landlock cannot take a folder back out of one it allows, so a denied path is carved
out instead: each folder above it may be listed (not read beneath, beyond listing),
and each of that folder's other entries is readable whole. A denied path's own
contents get no rule at all. Entries are listed when the ruleset is built, so the
shape follows the file system of that moment; symlinks among them are granted as
links, never their targets (``landlock.Grant``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from nehanda.sandbox.landlock import READ, READ_DIR, Grant


@dataclass
class _Node:
    denied: bool = False
    children: dict[str, _Node] = field(default_factory=dict)


def readable_grants(denied: Iterable[str]) -> list[Grant]:
    """Grants reading all of ``/`` except the absolute, resolved paths ``denied``."""
    listed, whole = carve("/", denied)
    return [Grant(path, READ_DIR) for path in listed] + [Grant(path, READ) for path in whole]


def carve(top: str, out: Iterable[str]) -> tuple[list[str], list[str]]:
    """``top`` without the absolute, resolved paths ``out``: the folders on the way down
    to them (to be listed only) and every other entry met there (to be granted whole).
    ``out`` paths that are not beneath ``top`` change nothing."""
    root = _Node()
    base = [part for part in top.split("/") if part]
    for path in out:
        parts = [part for part in path.split("/") if part]
        if parts[: len(base)] != base:
            continue
        node = root
        for part in parts[len(base) :]:
            node = node.children.setdefault(part, _Node())
        node.denied = True
    listed: list[str] = []
    whole: list[str] = []
    _carve(top, root, listed, whole)
    return listed, whole


def _carve(path: str, node: _Node, listed: list[str], whole: list[str]) -> None:
    if node.denied:
        return
    if not node.children:
        whole.append(path)
        return
    listed.append(path)
    try:
        entries = [entry.name for entry in Path(path).iterdir()]
    except OSError:
        return
    for name in entries:
        child = str(Path(path, name))
        if name in node.children:
            _carve(child, node.children[name], listed, whole)
        else:
            whole.append(child)
