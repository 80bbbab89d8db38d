"""The way every tool call of a run goes: checked, decided, asked about, then executed.

A call that cannot run (an unknown tool, bad arguments) is answered at once, without
asking anyone. A denied call, or one the user refused or could not be asked about,
is answered with an error result saying so and why; it never runs. A call may use
paths outside the workspace only when its decision named them
(``ToolContext.granted``). Answering "always" adds the suggested rules for the rest
of the session.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nehanda.permissions.approver import Approver
from nehanda.permissions.decision import Ask, Deny, PermissionRules, decide
from nehanda.tools.base import ToolContext
from nehanda.tools.output import cap_output
from nehanda.tools.registry import check_call, execute_builtin_tool
from nehanda.types import ToolResult, ToolUse

# Small models tend to send a refused call again, word for word.
_DO_NOT_RETRY = "Do not repeat this call; do without it, or ask the user."


@dataclass
class ToolGate:
    context: ToolContext
    rules: PermissionRules
    approver: Approver

    async def __call__(self, tool_use: ToolUse) -> ToolResult:
        checked = check_call(tool_use)
        if isinstance(checked, ToolResult):
            return checked
        decision = decide(tool_use, self.rules, self.context.workspace)
        if isinstance(decision, Deny):
            return _refused(tool_use, f"it is not allowed: {decision.reason}")
        if isinstance(decision, Ask):
            answer = await self.approver.ask(tool_use, decision)
            if not answer.run:
                why = f"it needs the user's approval ({decision.reason}), and {answer.reason}"
                return _refused(tool_use, why)
            if answer.always:
                self.rules = self.rules.allowing(decision.suggestions)
        context = self.context
        if decision.outside:
            context = replace(context, granted=decision.outside)
        return await execute_builtin_tool(tool_use, context)


def _refused(tool_use: ToolUse, why: str) -> ToolResult:
    message = f"Permission denied: {tool_use.name} was not run because {why}. {_DO_NOT_RETRY}"
    return ToolResult(tool_use.id, cap_output(message), is_error=True)
