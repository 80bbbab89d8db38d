"""Which Landlock grants make "everything readable but these paths".

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
    root = _Node()
    for path in denied:
        node = root
        for part in [p for p in path.split("/") if p]:
            node = node.children.setdefault(part, _Node())
        node.denied = True
    grants: list[Grant] = []
    _carve("/", root, grants)
    return grants


def _carve(path: str, node: _Node, grants: list[Grant]) -> None:
    if node.denied:
        return
    if not node.children:
        grants.append(Grant(path, READ))
        return
    grants.append(Grant(path, READ_DIR))
    try:
        entries = [entry.name for entry in Path(path).iterdir()]
    except OSError:
        return
    for name in entries:
        child = str(Path(path, name))
        if name in node.children:
            _carve(child, node.children[name], grants)
        else:
            grants.append(Grant(child, READ))
