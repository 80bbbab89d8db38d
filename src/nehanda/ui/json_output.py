"""Machine output: ``--output json`` (one object) and ``--output stream-json`` (lines).

Both end with the same result object, so a program can read either the same way.
JSON escapes C0 controls, but not DEL and the C1 controls (U+0080 to U+009F, among them
CSI and OSC as one character): those are escaped here too (``\\u009b``), the same JSON to
a program, and nothing a terminal acts on when the lines are shown on one. Notes on
stderr go through ``ui.shown_text.printable``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from nehanda.events import (
    EngineEvent,
    LeakedCallsRecovered,
    ModeSwitched,
    Notice,
    ReasoningDelta,
    Retrying,
    RunFinished,
    SubagentEnded,
    SubagentEvent,
    TextDelta,
    ToolExecuted,
    ToolStarted,
)
from nehanda.ui.denials import Denials
from nehanda.ui.shown_text import printable
from nehanda.ui.summary import Chosen, describe_notice
from nehanda.ui.todo_lines import plan_set

_C1 = {c: f"\\u{c:04x}" for c in range(0x7F, 0xA0)}


@dataclass
class RunDescription:
    provider: str
    model: str
    mode: str
    session_id: str


@dataclass
class JsonOutput:
    """Collects a run into the result object; with ``stream`` set, also prints each event."""

    out: IO[str]
    err: IO[str]
    run: RunDescription
    stream: bool = False
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    denials: Denials = field(default_factory=Denials)

    def start(self, chosen: Chosen | None = None) -> None:
        """The ``init`` line; ``chosen`` adds why tools are called as they are and the
        permission mode."""
        if not self.stream:
            return
        why = {}
        if chosen is not None:
            why = {"mode_reason": chosen.mode_reason, "permission_mode": chosen.permission_mode}
        self._write({"type": "init", **self.run.__dict__, **why})

    def handle(self, event: EngineEvent) -> None:
        if notice := describe_notice(event):
            self.err.write(f"note: {printable(notice)}\n")
        if isinstance(event, ToolStarted):
            self._stream(_tool_use(event))
        elif isinstance(event, SubagentEvent):
            self._subagent(event)
        elif isinstance(event, SubagentEnded):
            self._stream(
                {
                    "type": "subagent_result",
                    "parent_tool_use_id": event.parent_id,
                    "agent": event.agent,
                    "is_error": event.error,
                    "usage": event.usage.as_dict(),
                }
            )
        elif isinstance(event, ToolExecuted):
            call, refused = event.tool_use, _refusal(event)
            self.denials.add(event)
            self.tool_calls.append(
                {
                    "id": call.id,
                    "name": call.name,
                    "input": call.input,
                    "is_error": event.result.is_error,
                    **refused,
                }
            )
            self._stream(_tool_result(event))
            if (plan := plan_set(event)) is not None:
                todos = [
                    {"content": t.content, "status": t.status, "activeForm": t.active_form}
                    for t in plan
                ]
                self._stream({"type": "todos", "tool_use_id": call.id, "todos": todos})
        elif isinstance(event, TextDelta):
            self._stream({"type": "text", "text": event.text})
        elif isinstance(event, ReasoningDelta):
            self._stream({"type": "reasoning", "text": event.text})
        elif isinstance(event, Notice):
            self._stream({"type": "notice", "message": event.message})
        elif isinstance(event, Retrying):
            self._stream({"type": "retry", **asdict(event)})
        elif isinstance(event, ModeSwitched):
            self._stream({"type": "mode_switch", "mode": event.mode, "reason": event.reason})
        elif isinstance(event, LeakedCallsRecovered):
            ids = [call.id for call in event.calls]
            self._stream({"type": "leaked_calls_recovered", "tool_use_ids": ids})
        elif isinstance(event, RunFinished):
            self._write(self.result(event))
            if line := self.denials.line():
                self.err.write(f"note: {printable(line)}\n")

    def _subagent(self, event: SubagentEvent) -> None:
        """A subagent's calls, as the session's own but under ``parent_tool_use_id``."""
        inner, parent = event.event, {"parent_tool_use_id": event.parent_id}
        if isinstance(inner, ToolStarted):
            self._stream({**_tool_use(inner), **parent})
        elif isinstance(inner, ToolExecuted):
            self._stream({**_tool_result(inner), **parent})

    def result(self, finished: RunFinished) -> dict[str, Any]:
        return {
            "type": "result",
            "result": finished.text,
            "mode": self.run.mode,
            "provider": self.run.provider,
            "model": self.run.model,
            "session_id": self.run.session_id,
            "turns": finished.turns,
            "tool_calls": self.tool_calls,
            "permission_denials": self.denials.entries(),
            "stop_reason": finished.stop_reason,
            "usage": {**finished.usage.as_dict(), **_context(finished)},
            "error": finished.problem,
        }

    def note(self, message: str) -> None:
        """Something worth knowing that changes nothing, such as a resumed log's damage."""
        self.err.write(f"note: {printable(message)}\n")
        self._stream({"type": "notice", "message": message})

    def error(self, message: str) -> None:
        self._write({"type": "error", "error": message, **self.run.__dict__})

    def _stream(self, obj: dict[str, Any]) -> None:
        if self.stream:
            self._write(obj)

    def _write(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False).translate(_C1) + "\n")
        self.out.flush()


def _tool_use(event: ToolStarted) -> dict[str, Any]:
    call = event.tool_use
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}


def _tool_result(event: ToolExecuted) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": event.tool_use.id,
        "content": event.result.content,
        "is_error": event.result.is_error,
        **_refusal(event),
    }


def _refusal(event: ToolExecuted) -> dict[str, Any]:
    """``{"refused": {"by", "reason", "words"}}`` for a call that was not let run, so a
    program can tell a user's no or a rule from a tool that failed; else nothing."""
    refusal = event.result.refusal
    return {} if refusal is None else {"refused": asdict(refusal)}


def _context(finished: RunFinished) -> dict[str, int]:
    """The last request's size as nehanda counted it, beside the window it had to fit."""
    if finished.context is None or finished.window is None:
        return {}
    return {"context_tokens": finished.context.total, "context_window": finished.window}
