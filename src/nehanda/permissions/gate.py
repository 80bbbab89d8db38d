"""The gate every tool call of a session goes through: a ``Toolset`` wrapping a ``Toolset``.

``check`` is the inner toolset's: a call that cannot run (an unknown tool, bad
arguments) is answered at once, without asking anyone. ``run`` decides a checked call
under the rules in force and asks the approver when the decision says so. A denied
call, or one the user refused or could not be asked about, raises ``PermissionDenied``
inside the gate and is answered with an error result saying so and why; it never
runs. A call may use paths outside the workspace only when its decision named them
(``CheckedCall.granted``). Answering "always" adds the suggested rules for the rest of
the session.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from nehanda.errors import PermissionDenied
from nehanda.permissions.approver import Approver
from nehanda.permissions.decision import Ask, Deny, PermissionRules, decide
from nehanda.tools.output import cap_output
from nehanda.types import CheckedCall, ToolResult, Toolset, ToolSpec, ToolUse

# Small models tend to send a refused call again, word for word.
_DO_NOT_RETRY = "Do not repeat this call; do without it, or ask the user."


@dataclass
class ToolGate:
    inner: Toolset
    workspace: Path
    rules: PermissionRules
    approver: Approver

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return self.inner.specs

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        return self.inner.check(use)

    def plain_output(self, content: str) -> str:
        return self.inner.plain_output(content)

    async def run(self, checked: CheckedCall) -> ToolResult:
        try:
            permitted = await self._permit(checked)
        except PermissionDenied as denied:
            return _refused(denied)
        return await self.inner.run(permitted)

    async def _permit(self, checked: CheckedCall) -> CheckedCall:
        """``checked`` with the paths its decision grants; ``PermissionDenied`` if it may
        not run."""
        use = checked.use
        decision = decide(use, self.rules, self.workspace)
        if isinstance(decision, Deny):
            raise PermissionDenied(use, f"it is not allowed: {decision.reason}")
        if isinstance(decision, Ask):
            answer = await self.approver.ask(use, decision)
            if not answer.run:
                why = f"it needs the user's approval ({decision.reason}), and {answer.reason}"
                raise PermissionDenied(use, why)
            if answer.always:
                self.rules = self.rules.allowing(decision.suggestions)
        return replace(checked, granted=decision.outside)


def _refused(denied: PermissionDenied) -> ToolResult:
    use = denied.tool_use
    message = f"Permission denied: {use.name} was not run because {denied.reason}. {_DO_NOT_RETRY}"
    return ToolResult(use.id, cap_output(message), is_error=True)
