"""The environment as it was when nehanda started: what ``${VAR}`` in settings reads.

The sandbox takes provider keys out of the live environment once a session starts;
settings that name a variable must still find it. Small, for ``main`` to import first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_at_start: dict[str, str] | None = None


def capture_startup_environ(environ: Mapping[str, str] = os.environ) -> None:
    """Remembers ``environ``; only the first call counts."""
    global _at_start
    if _at_start is None:
        _at_start = dict(environ)


def startup_environ() -> dict[str, str]:
    return dict(_at_start if _at_start is not None else os.environ)
