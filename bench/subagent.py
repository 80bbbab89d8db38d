"""What a subagent costs at start: from the Task call to its first request in flight.

Run by hand: ``python bench/subagent.py``. A session's toolset as ``nehanda`` builds it
(the built-ins, ``WithAgents``, the permission gate, masking) answers a Task call with a
subagent whose provider answers at once; the table shows the milliseconds from
``WithAgents.run`` to the provider's first ``stream`` call (the subagent's set-up: its
definition, its tool subset, its conversation), and the whole run of a subagent that
answers without a call. No network: the provider is in-process. The suite holds no timing.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from nehanda.agents.runner import Subagents
from nehanda.agents.toolset import WithAgents
from nehanda.config.agent_files import BUILT_IN, GENERAL_PURPOSE
from nehanda.events import MessageEnd, StreamEvent, TextDelta
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.providers.base import Capabilities, ChatRequest
from nehanda.tools.base import ToolContext
from nehanda.tools.masked import Masked
from nehanda.tools.registry import BuiltinTools
from nehanda.types import CheckedCall, ToolUse

RUNS = 200


class Instant:
    """A provider that answers every request at once, noting when it was first asked."""

    name = type = "bench"

    def __init__(self) -> None:
        self.asked_at: float | None = None

    async def capabilities(self, model: str) -> Capabilities:
        return Capabilities()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.asked_at = self.asked_at or time.perf_counter()
        yield TextDelta("done")
        yield MessageEnd("end_turn")

    async def aclose(self) -> None:
        pass


async def one(workspace: Path) -> tuple[float, float]:
    provider = Instant()
    agents = WithAgents(BuiltinTools(ToolContext(workspace)), {GENERAL_PURPOSE: BUILT_IN})
    toolset = Masked(ToolGate(agents, workspace, PermissionRules(), NoTerminal()))
    agents.crew = Subagents(provider, "m", toolset, workspace, asyncio.Queue())
    use = ToolUse("call-1", "Task", {"description": "look", "prompt": "Look around."})
    checked = toolset.check(use)
    assert isinstance(checked, CheckedCall)
    start = time.perf_counter()
    result = await toolset.run(checked)
    end = time.perf_counter()
    assert result.content == "done" and provider.asked_at is not None
    return (provider.asked_at - start) * 1000, (end - start) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        times = [asyncio.run(one(Path(folder))) for _ in range(RUNS)]
    for label, values in (("to first request", [t[0] for t in times]),
                          ("whole answer", [t[1] for t in times])):  # fmt: skip
        ordered = sorted(values)
        print(
            f"{label:>17}: median {statistics.median(ordered):.3f} ms, "
            f"p90 {ordered[int(len(ordered) * 0.9)]:.3f} ms over {RUNS} runs"
        )


if __name__ == "__main__":
    main()
