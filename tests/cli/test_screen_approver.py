"""The spinner of a call that asked first counts the call's run, from its approval on,
not the time the question waited for the user."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from rich.console import Console

from fakes import checked
from nehanda.cli.repl import ScreenApprover
from nehanda.events import ToolStarted
from nehanda.types import ToolUse
from nehanda.ui.live import LiveRenderer
from nehanda.verdicts import Answer, Ask


class SlowUser:
    """Answers yes once the test has seen the question being asked."""

    def __init__(self, renderer: LiveRenderer) -> None:
        self.renderer = renderer
        self.counted_from_during_the_question: float | None = None

    async def ask(self, call: object, decision: Ask) -> Answer:
        assert self.renderer.activity is not None
        self.counted_from_during_the_question = self.renderer.activity[1]
        await asyncio.sleep(0)
        return Answer(run=True)


def test_the_running_calls_seconds_start_when_it_is_approved() -> None:
    renderer = LiveRenderer(Console(file=io.StringIO(), width=80), Path())
    use = ToolUse("c1", "Bash", {"command": "make"})
    call = checked(use)
    renderer.handle(ToolStarted(use, call.facts))
    assert renderer.activity is not None
    user = SlowUser(renderer)
    answer = asyncio.run(ScreenApprover(user, renderer).ask(call, Ask("asks")))
    assert answer.run
    assert user.counted_from_during_the_question is not None
    assert renderer.activity is not None
    assert renderer.activity[1] > user.counted_from_during_the_question
    assert renderer.activity[0].startswith("running Bash")
