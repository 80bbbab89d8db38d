"""A call's duration is the time its tool ran: the time the user took to approve it is left
out, through the real gate, the real Bash tool and an approver that takes its time."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from fakes import FakeProvider, call_reply, text_reply
from nehanda.engine.loop import Agent
from nehanda.events import ToolExecuted
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import CheckedCall, ToolUse
from nehanda.verdicts import Answer, Ask

USER_THINKS = 0.3
COMMAND_RUNS = 0.1


class SlowUser:
    """Answers ``run``, after a while."""

    def __init__(self, run: bool) -> None:
        self.run = run
        self.asked: list[ToolUse] = []
        self.answered_at = 0.0

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        self.asked.append(call.use)
        await asyncio.sleep(USER_THINKS)
        self.answered_at = time.perf_counter()
        return Answer(run=self.run, reason="the user said no")


def executed(call: ToolUse, user: SlowUser, tmp_path: Path) -> tuple[ToolExecuted, float]:
    """The call's event, and when it came."""
    provider = FakeProvider([call_reply(call), text_reply("done")])
    gate = ToolGate(
        BuiltinTools(ToolContext(tmp_path.resolve())), tmp_path, PermissionRules(), user
    )
    agent = Agent(provider, "m", gate)

    async def run() -> list[tuple[ToolExecuted, float]]:
        return [
            (event, time.perf_counter())
            async for event in agent.run("go")
            if isinstance(event, ToolExecuted)
        ]

    (done,) = asyncio.run(run())
    assert user.asked == [call]
    return done


def test_the_duration_leaves_out_the_wait_for_approval(tmp_path: Path) -> None:
    call = ToolUse("call_1", "Bash", {"command": f"sleep {COMMAND_RUNS}"})
    user = SlowUser(run=True)
    done, came_at = executed(call, user, tmp_path)
    assert not done.result.is_error, done.result.content
    # All of it between the answer and the event, however slow the machine: with the
    # wait counted in, it would be USER_THINKS longer than that.
    assert COMMAND_RUNS <= done.seconds <= came_at - user.answered_at


def test_a_refused_call_ran_for_no_time(tmp_path: Path) -> None:
    call = ToolUse("call_1", "Bash", {"command": "touch x"})
    done, _ = executed(call, SlowUser(run=False), tmp_path)
    assert done.result.is_error and "Permission denied" in done.result.content
    assert done.seconds == 0.0 and not (tmp_path / "x").exists()
