"""A call's duration is the time its tool ran: the time the user took to approve it is left
out, through the real gate, the real Bash tool and an approver that takes its time."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fakes import FakeProvider, call_reply, text_reply
from nehanda.engine.loop import Agent, ToolExecuted
from nehanda.permissions.approver import Answer
from nehanda.permissions.decision import Ask, PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import ToolUse

USER_THINKS = 0.8
COMMAND_RUNS = 0.1


class SlowUser:
    """Says yes, after a while."""

    def __init__(self) -> None:
        self.asked: list[ToolUse] = []

    async def ask(self, tool_use: ToolUse, decision: Ask) -> Answer:
        self.asked.append(tool_use)
        await asyncio.sleep(USER_THINKS)
        return Answer(run=True)


def test_the_duration_leaves_out_the_wait_for_approval(tmp_path: Path) -> None:
    call = ToolUse("call_1", "Bash", {"command": f"sleep {COMMAND_RUNS}"})
    provider = FakeProvider([call_reply(call), text_reply("done")])
    user = SlowUser()
    gate = ToolGate(
        BuiltinTools(ToolContext(tmp_path.resolve())), tmp_path, PermissionRules(), user
    )
    agent = Agent(provider, "m", gate)

    async def run() -> list[ToolExecuted]:
        return [event async for event in agent.run("go") if isinstance(event, ToolExecuted)]

    (executed,) = asyncio.run(run())
    assert user.asked == [call]
    assert not executed.result.is_error, executed.result.content
    assert COMMAND_RUNS <= executed.seconds < USER_THINKS
