"""The calls a run was not let run, counted so that a refused run does not look done.

``Denials`` reads a run's top-level ``ToolExecuted`` events; its ``line`` ends the run on
stderr (``2 calls were not run: …; rerun with …``), ``entries`` are the JSON result's
``permission_denials``, and ``nothing_ran`` decides exit code 3. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nehanda.events import ToolExecuted
from nehanda.ui.summary import describe_call

REFUSED_EXIT_CODE = 3  # calls were refused and none ran


@dataclass
class Denials:
    ran: int = 0
    refused: list[ToolExecuted] = field(default_factory=list)

    def add(self, event: ToolExecuted) -> None:
        if event.result.refusal is None:
            self.ran += 1
        else:
            self.refused.append(event)

    @property
    def nothing_ran(self) -> bool:
        return bool(self.refused) and self.ran == 0

    def line(self) -> str | None:
        """``2 calls were not run: Bash touch x, Write a.py; rerun with …``, or ``None``."""
        if not self.refused:
            return None
        count = len(self.refused)
        head = "1 call was not run" if count == 1 else f"{count} calls were not run"
        calls = ", ".join(describe_call(event.tool_use, event.facts) for event in self.refused)
        hint = self._hint()
        return f"{head}: {calls}" + (f"; {hint}" if hint else "")

    def entries(self) -> list[dict[str, Any]]:
        """``permission_denials``: ``{"tool_name", "tool_use_id", "tool_input", "by",
        "reason"}`` per refused call, in order."""
        return [
            {
                "tool_name": event.tool_use.name,
                "tool_use_id": event.tool_use.id,
                "tool_input": event.tool_use.input,
                "by": event.result.refusal.by,
                "reason": event.result.refusal.reason,
            }
            for event in self.refused
            if event.result.refusal is not None
        ]

    def _hint(self) -> str | None:
        """What would let them run: only calls that waited for an approval nobody could
        give can be let through by a flag; a user's no or a deny rule cannot."""
        waiting = [e for e in self.refused if e.result.refusal and e.result.refusal.by == "nobody"]
        if not waiting:
            return None
        if all(event.facts.kind == "edit" for event in waiting):
            return "rerun with --permission-mode accept-edits or --yes"
        return "rerun with --yes, or allow them in [permissions] allow"
