"""Whether the sandbox denied something during a command that failed, judged from its
output; pure.

Landlock leaves no record a process can read: from ABI 7 on, its denials go to the
kernel's audit log, which needs ``CAP_AUDIT_READ`` and an audit daemon, and before that
there is none. So the judge reads what the command printed, and claims a denial only
where the sandbox is the one cause left:

- a write: a line reporting a refused access ("Permission denied", "Operation not
  permitted", "Read-only file system", ``EACCES``…) that names an absolute path outside
  every writable root (once resolved), which the user could write without the sandbox
  (the caller finds those, ``named_paths`` saying which to look at), and that is no
  place closed to reading too (a secret place: the refusal may be a read's, and no
  setting should open it); a relative path is never judged, the command may have
  changed folder;
- the network: while it is closed to commands, a failed name lookup or connection
  ("Temporary failure in name resolution", "Could not resolve host", "Network is
  unreachable", ``EAI_AGAIN``…); with the network open, none is ever claimed.

A command that exited 0 denied nothing the user needs to hear of.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

NOTE_PREFIX = "nehanda: the sandbox denied"

_REFUSED = re.compile(
    r"permission denied|operation not permitted|read-only file system|\b(?:EACCES|EPERM|EROFS)\b",
    re.IGNORECASE,
)
# An absolute path quoted in any of the ways programs quote one, or bare up to a colon,
# a comma, a quote or a space.
_QUOTED = re.compile(r"""['"`‘“](/[^'"`’”\n]*)['"’”]""")
_BARE = re.compile(r"""(?:^|[\s(=])(/[^\s:,'"`’”()]+)""")
_LOOKUP = re.compile(
    r"temporary failure in name resolution|could not resolve host|\bEAI_AGAIN\b"
    r"|unable to resolve host address",
    re.IGNORECASE,
)
_CONNECT = re.compile(
    r"network is unreachable|\bENETUNREACH\b|couldn't connect to server"
    r"|failed to establish a new connection",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Held:
    """What held a command: the writable roots and the places closed even to reading
    (both resolved), whether the network was closed to it."""

    writable: tuple[str, ...]
    network_closed: bool
    closed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Denial:
    """What the sandbox denied: the paths written to (at most a few), a name lookup, a
    connection."""

    writes: tuple[str, ...] = ()
    lookup: bool = False
    connection: bool = False

    def line(self) -> str:
        """The one line the model and the user get."""
        denied: list[str] = []
        settings: list[str] = []
        if self.writes:
            denied.append(f"a write to {', '.join(self.writes)}")
            folders = list(dict.fromkeys(str(PurePosixPath(path).parent) for path in self.writes))
            settings.append(f"[sandbox] writable = {json.dumps(folders)}")
        if self.lookup or self.connection:
            what = "a DNS lookup" if self.lookup else "a connection"
            denied.append(f"{what} (the network is closed to commands)")
            settings.append("[sandbox] network = true" if not self.writes else "network = true")
        return (
            f"{NOTE_PREFIX} {' and '.join(denied)}; {' and '.join(settings)} in the settings "
            "would allow it."
        )


def named_paths(output: str) -> list[str]:
    """The absolute paths named on the lines of ``output`` that report a refused access,
    in order, once each."""
    found: dict[str, None] = {}
    for line in output.splitlines():
        if not _REFUSED.search(line):
            continue
        quoted = _QUOTED.findall(line)
        for path in quoted or _BARE.findall(line):
            found[os.path.normpath(path.rstrip("."))] = None
    return list(found)


def judge(
    output: str, code: int | None, held: Held, unconfined: Mapping[str, str]
) -> Denial | None:
    """What the sandbox denied during a command that ended with ``code`` and printed
    ``output``, if anything can be told; ``unconfined``: those of ``named_paths(output)``
    the user may write without the sandbox, each with its resolved form."""
    if code == 0:
        return None
    writes = tuple(
        path
        for path in named_paths(output)
        if path in unconfined
        and not _inside(unconfined[path], held.writable)
        and not _inside(unconfined[path], held.closed)
    )[:3]
    lookup = held.network_closed and bool(_LOOKUP.search(output))
    connection = held.network_closed and bool(_CONNECT.search(output))
    if not (writes or lookup or connection):
        return None
    return Denial(writes, lookup, connection)


def _inside(path: str, roots: Collection[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)
