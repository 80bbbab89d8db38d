"""The names MCP tools are offered under: ``mcp__SERVER__TOOL``, within ``[A-Za-z0-9_-]{1,64}``.

Pure. The server's part (``config.mcp.server_part``) never holds ``__`` and is never cut,
so a rule ``mcp__github__*`` covers the tools of the server ``github`` and of no server
named ``github__x``. Tools whose names come out the same after normalising, or after
their own part is cut to fit 64 characters, are told apart by a suffix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nehanda.config.mcp import server_part

PREFIX = "mcp__"
MAX_LENGTH = 64
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def offered_names(server: str, tools: Iterable[str], taken: set[str]) -> list[str]:
    """The name each of ``server``'s ``tools`` is offered under, none of them in ``taken``
    (which gains them)."""
    names = []
    prefix = f"{PREFIX}{server_part(server)}__"
    for tool in tools:
        part = _NOT_ALLOWED.sub("_", tool) or "tool"
        name, number = (prefix + part)[:MAX_LENGTH], 1
        while name in taken:
            number += 1
            suffix = f"_{number}"
            name = prefix + part[: max(0, MAX_LENGTH - len(prefix) - len(suffix))] + suffix
        taken.add(name)
        names.append(name)
    return names


def is_mcp_name(name: str) -> bool:
    return name.startswith(PREFIX)
