"""When to stop a loop that is going nowhere, and what to tell a model that slipped.

Pure bookkeeping over replies: consecutive format failures, the same calls repeated
turn after turn, and output cut off inside a call (which ``providers.calling.is_truncated``
detects). Each problem becomes a message the
model can act on; only repeated failure stops the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from nehanda.engine.reply import Reply
from nehanda.events import ToolCallProblem

MAX_FORMAT_FAILURES = 3
MAX_REPEATS = 3
TRUNCATION_NOTICE = (
    "Your output was cut off (the response hit its length limit) inside a tool call, so "
    "that call was not run. Repeat it, complete, and keep the rest of your answer short."
)


def feedback(problems: list[ToolCallProblem], truncated: bool) -> str:
    """One message for the model listing everything that went wrong in its reply."""
    lines = [f"- {problem.message}" for problem in problems if problem.kind != "repaired"]
    if truncated:
        lines.append(f"- {TRUNCATION_NOTICE}")
    if not lines:
        return ""
    return "Some of your tool calls were not run:\n" + "\n".join(lines)


@dataclass
class LoopGuard:
    format_failures: int = 0
    truncations: int = 0
    repeats: int = 0
    last_calls: str = ""

    def check(self, reply: Reply, truncated: bool, valid_calls: int) -> str | None:
        """Records one reply; returns why the run must stop, or ``None`` to go on.

        ``valid_calls``: how many of the reply's calls passed validation (known tool,
        readable and valid arguments) and go on to permissions. A reply that tried to
        call and got none through is a format failure; one valid call resets the count.
        """
        tried = (
            truncated or bool(reply.tool_uses) or any(p.kind != "repaired" for p in reply.problems)
        )
        self.format_failures = self.format_failures + 1 if tried and not valid_calls else 0
        if self.format_failures >= MAX_FORMAT_FAILURES:
            return f"stopped: the model's tool calls failed {MAX_FORMAT_FAILURES} times in a row"
        self.truncations = self.truncations + 1 if truncated else 0
        if self.truncations > 1:
            return "stopped: the model's output was cut off inside a tool call twice in a row"
        calls = json.dumps(
            [(use.name, use.input) for use in reply.tool_uses], sort_keys=True, default=str
        )
        self.repeats = self.repeats + 1 if reply.tool_uses and calls == self.last_calls else 1
        self.last_calls = calls
        if reply.tool_uses and self.repeats >= MAX_REPEATS:
            return f"stopped: the model made the same tool call {MAX_REPEATS} times in a row"
        return None
