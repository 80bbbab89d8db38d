"""The names MCP tools are offered under: ``mcp__SERVER__TOOL``, within ``[A-Za-z0-9_-]{1,64}``.

Pure. A server's part never holds ``__``, so a rule ``mcp__github__*`` covers the tools
of the server ``github`` and of no server named ``github__x``. Names that come out the
same after normalising, or after cutting to 64 characters, are told apart by a suffix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

PREFIX = "mcp__"
MAX_LENGTH = 64
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
_RUNS_OF_UNDERSCORES = re.compile(r"_{2,}")


def server_part(server: str) -> str:
    """A server's name as it appears in its tools' names."""
    cleaned = _RUNS_OF_UNDERSCORES.sub("_", _NOT_ALLOWED.sub("_", server)).strip("_")
    return cleaned or "server"


def offered_names(server: str, tools: Iterable[str], taken: set[str]) -> list[str]:
    """The name each of ``server``'s ``tools`` is offered under, none of them in ``taken``
    (which gains them)."""
    names = []
    for tool in tools:
        base = f"{PREFIX}{server_part(server)}__{_NOT_ALLOWED.sub('_', tool) or 'tool'}"
        name, number = base[:MAX_LENGTH], 1
        while name in taken:
            number += 1
            suffix = f"_{number}"
            name = base[: MAX_LENGTH - len(suffix)] + suffix
        taken.add(name)
        names.append(name)
    return names


def is_mcp_name(name: str) -> bool:
    return name.startswith(PREFIX)
