"""The permission modes, strictest first: small enough for ``nehanda --help`` to import."""

from __future__ import annotations

from typing import Literal

Mode = Literal["default", "accept-edits", "plan", "yolo"]
MODES: tuple[Mode, ...] = ("plan", "default", "accept-edits", "yolo")
# What Shift-Tab steps through in the REPL, as Claude Code does. yolo is never reached
# by a key: it takes ``--yes`` or typing ``/permissions mode yolo``; from yolo the next
# step is the first mode of the cycle.
CYCLE: tuple[Mode, ...] = ("default", "accept-edits", "plan")


def next_in_cycle(mode: Mode) -> Mode:
    """The mode Shift-Tab moves to from ``mode``."""
    if mode not in CYCLE:
        return CYCLE[0]
    return CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)]
