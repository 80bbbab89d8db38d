"""The diff each Write or Edit call makes, shown under its tool line: ``CallDiffs``.

A diff is taken as the call starts, from the file as it is then, and shown once the
call has run; none is shown for a call whose approval prompt showed it already
(``NotingApprover`` notes those). The REPL and ``nehanda run`` both use it.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from nehanda.errors import NehandaError
from nehanda.types import CheckedCall, ToolFacts, ToolUse
from nehanda.verdicts import Answer, Approver, Ask


@dataclass
class CallDiffs:
    workspace: Path
    asked: set[str] = field(default_factory=set)  # calls whose approval showed the diff
    _diffs: dict[str, list[str]] = field(default_factory=dict)

    def started(self, tool_use: ToolUse, facts: ToolFacts) -> None:
        if facts.diff is not None:
            # A call that cannot be previewed will fail and say why; it has no diff to show.
            with suppress(NehandaError, ValueError, OSError):
                self._diffs[tool_use.id] = facts.diff(tool_use.input, self.workspace)

    def made(self, call_id: str) -> list[str] | None:
        """The diff to show under call ``call_id``'s line, if any (asked once per call)."""
        diff = self._diffs.pop(call_id, None)
        return diff if diff and call_id not in self.asked else None


@dataclass
class NotingApprover:
    """Asks through ``inner``, noting in ``diffs`` each call the user was shown."""

    inner: Approver
    diffs: CallDiffs

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        self.diffs.asked.add(call.use.id)
        return await self.inner.ask(call, decision)
