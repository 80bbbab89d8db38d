"""The permission modes, strictest first, and what each does with a call, as data.

``PERMISSION_MODES`` is the one table: for each mode, the tool kinds (``types.ToolKind``)
whose calls it settles itself, over any ask or allow rule (only a deny rule comes
first): plan refuses every kind that could change something, yolo runs every kind;
the kinds whose calls inside the workspace run when no rule names them (the read-only
tools in every mode, file edits too in accept-edits); the line ``/permissions`` gives
and the one under the REPL's prompt. ``permissions.decision``, the gate, the REPL's
Shift-Tab and status line and ``/permissions`` read it. Small enough for
``nehanda --help`` to import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nehanda.types import ToolKind

Mode = Literal["default", "accept-edits", "plan", "yolo"]
MODES: tuple[Mode, ...] = ("plan", "default", "accept-edits", "yolo")
# What Shift-Tab steps through in the REPL, as Claude Code does. yolo is never reached
# by a key: it takes ``--yes`` or typing ``/permissions mode yolo``; from yolo the next
# step is the first mode of the cycle.
CYCLE: tuple[Mode, ...] = ("default", "accept-edits", "plan")

READS: frozenset[ToolKind] = frozenset({"read", "search", "think", "fetch"})
CHANGES: frozenset[ToolKind] = frozenset({"edit", "delete", "move", "execute", "other"})
FILE_CHANGES: frozenset[ToolKind] = frozenset({"edit", "delete", "move"})


@dataclass(frozen=True)
class ModeRules:
    """What one mode does. ``runs`` and ``refuses``: the kinds whose every call it
    lets run or refuses, whatever an ask or allow rule says; ``unasked``: the kinds
    whose calls inside the workspace run when no rule names them (any other asks).
    ``meaning`` says it in words, ``status`` on the line under the REPL's prompt."""

    runs: frozenset[ToolKind]
    refuses: frozenset[ToolKind]
    unasked: frozenset[ToolKind]
    meaning: str
    status: str

    def settles(self, kind: ToolKind) -> Literal["run", "refuse"] | None:
        """Whether the mode itself runs or refuses a call of ``kind`` (None: rules decide)."""
        if kind in self.refuses:
            return "refuse"
        return "run" if kind in self.runs else None

    @property
    def refuses_changes(self) -> bool:
        """Only what reads may run: the model is offered only such tools (plan mode)."""
        return self.refuses >= CHANGES


PERMISSION_MODES: dict[Mode, ModeRules] = {
    "plan": ModeRules(
        runs=frozenset(),
        refuses=CHANGES,
        unasked=READS,
        meaning="read-only tools only; nothing that could change something runs",
        status="⏸ plan mode on: read-only tools only",
    ),
    "default": ModeRules(
        runs=frozenset(),
        refuses=frozenset(),
        unasked=READS,
        meaning="read-only tools run inside the workspace; everything else asks first",
        status="default permissions",
    ),
    "accept-edits": ModeRules(
        runs=frozenset(),
        refuses=frozenset(),
        unasked=READS | FILE_CHANGES,
        meaning="read-only tools and file edits inside the workspace run; commands ask",
        status="⏵⏵ accept edits on",
    ),
    "yolo": ModeRules(
        runs=READS | CHANGES,
        refuses=frozenset(),
        unasked=READS | CHANGES,
        meaning="every call runs without asking (--yes)",
        status="⏵⏵⏵ yolo: every call runs without asking",
    ),
}


def next_in_cycle(mode: Mode) -> Mode:
    """The mode Shift-Tab moves to from ``mode``."""
    if mode not in CYCLE:
        return CYCLE[0]
    return CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)]
