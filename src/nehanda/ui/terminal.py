"""Human output for ``--output text``: the answer on stdout, activity on stderr.

The answer streams as it arrives, flushed per delta, to a terminal and to a pipe alike
(``nehanda run ... | tee log`` streams, and a cut-off stream leaves its partial answer
on stdout). Activity lines go to stderr, decorated only when
stderr is a terminal and ``NO_COLOR`` is unset.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO

from nehanda.engine.loop import (
    EngineEvent,
    RunFinished,
    ToolExecuted,
    TurnStarted,
)
from nehanda.events import ReasoningDelta, TextDelta
from nehanda.ui.summary import Chosen, describe_call, describe_notice, describe_result


def _decorated(stream: IO[str]) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


@dataclass
class TerminalOutput:
    out: IO[str]
    err: IO[str]

    def __post_init__(self) -> None:
        self.color = _decorated(self.err)
        self._at_line_start = True

    def start(self) -> None:
        pass

    def handle(self, event: EngineEvent) -> None:
        if isinstance(event, TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._at_line_start = event.text.endswith("\n")
        elif isinstance(event, ReasoningDelta) and self.color:
            self.err.write(f"\x1b[2m{event.text}\x1b[0m")
            self.err.flush()
        elif isinstance(event, TurnStarted) and event.turn > 1:
            self._end_line()
        elif isinstance(event, ToolExecuted):
            self._tool_line(event)
            if notice := describe_notice(event):
                self.note(notice)
        elif notice := describe_notice(event):
            self.note(notice)
        elif isinstance(event, RunFinished):
            self._finish(event)

    def chosen(self, chosen: Chosen) -> None:
        """The start line: what this run uses, and why it calls tools as it does."""
        line = f"nehanda: {chosen}"
        self.err.write(f"\x1b[2m{line}\x1b[0m\n" if self.color else f"{line}\n")
        self.err.flush()

    def error(self, message: str) -> None:
        self._end_line()
        prefix = "\x1b[31merror:\x1b[0m" if self.color else "error:"
        self.err.write(f"{prefix} {message}\n")
        self.err.flush()

    def note(self, message: str) -> None:
        self._end_line()
        prefix = "\x1b[33mnote:\x1b[0m" if self.color else "note:"
        self.err.write(f"{prefix} {message}\n")
        self.err.flush()

    def _tool_line(self, event: ToolExecuted) -> None:
        self._end_line()
        milliseconds = round(event.seconds * 1000)
        call, outcome = describe_call(event.tool_use), describe_result(event.result)
        if self.color:
            mark = "\x1b[31m✗\x1b[0m" if event.result.is_error else "\x1b[32m✓\x1b[0m"
            self.err.write(
                f"{mark} \x1b[1m{call}\x1b[0m \x1b[2m{outcome} · {milliseconds} ms\x1b[0m\n"
            )
        else:
            self.err.write(f"tool {call}: {outcome} ({milliseconds} ms)\n")
        self.err.flush()

    def _finish(self, event: RunFinished) -> None:
        self._end_line()
        if event.problem:
            self.error(event.problem)

    def _end_line(self) -> None:
        if not self._at_line_start:
            self.out.write("\n")
            self.out.flush()
            self._at_line_start = True
