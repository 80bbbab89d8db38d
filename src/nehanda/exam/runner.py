"""Sends the exam's tasks to the model, in one mode at a time, and records each outcome.

Every request goes through ``ToolCalling`` exactly as a run's would (rescue mode through
``RescueProvider``, native mode with leak recovery), offering every built-in tool, with
the system prompt a session starts with, at temperature 0 (dropped for good if the
server refuses it). No tool runs: each expected call gets the task's canned result. The
outcomes are appended to a ``ModeRun`` as they come, so an interrupted exam keeps
everything it finished. In native mode a refusal of tools ends that mode (``refused``)
rather than switching: the exam measures each mode on its own.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, cast

from nehanda.engine.reply import Reply
from nehanda.engine.system_prompt import build_system_prompt
from nehanda.errors import AuthenticationError, ProviderConnectionError, ProviderError
from nehanda.errors import ProviderStatusError as StatusError
from nehanda.events import LeakedCallsRecovered, ModeSwitched, StreamEvent
from nehanda.exam.scoring import score_turn
from nehanda.exam.tasks import Task
from nehanda.providers.base import ChatRequest, Provider
from nehanda.providers.calling import ToolCalling
from nehanda.providers.mode import Mode
from nehanda.tools.registry import builtin_specs
from nehanda.types import Message

# The workspace the exam's prompt names; nothing there is touched.
EXAM_WORKSPACE = Path("/home/user/project")

Status = Literal["done", "refused", "skipped", "stopped", "not run"]


@dataclass(frozen=True)
class TaskRun:
    """One task, once, in one mode."""

    task: str
    mode: Mode
    run: int
    passed: bool
    failure: str | None = None
    leaked: int = 0
    malformed: int = 0
    false_calls: int = 0
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0


@dataclass
class ModeRun:
    mode: Mode
    status: Status = "not run"
    reason: str | None = None
    tasks: list[TaskRun] = field(default_factory=list)


@dataclass
class Exam:
    """Everything one exam found, filled in as it goes (a stopped exam keeps its part)."""

    tasks: tuple[Task, ...]
    runs: int = 1
    provider: str = ""
    provider_type: str = ""
    model: str = ""
    base_url: str = ""
    modes: list[ModeRun] = field(default_factory=list)
    interrupted: bool = False
    error: str | None = None

    @property
    def complete(self) -> bool:
        return not self.interrupted and self.error is None


class ExamStopped(Exception):
    """The server cannot take the exam at all (unreachable, key refused)."""


class _Refused(Exception):
    pass


@dataclass
class Examiner:
    provider: Provider
    model: str
    on_task: Callable[[TaskRun], None] = lambda run: None
    temperature: float | None = 0.0

    async def run_mode(self, sink: ModeRun, tasks: tuple[Task, ...], runs: int) -> None:
        """Every task ``runs`` times (all tasks once, then again), into ``sink``."""
        calling = ToolCalling(self.provider, sink.mode)
        sink.status = "stopped"  # until the last task is in
        for run in range(1, runs + 1):
            for task in tasks:
                try:
                    outcome = await self._task(calling, task, run)
                except _Refused as refusal:
                    sink.status, sink.reason = "refused", str(refusal)
                    return
                sink.tasks.append(outcome)
                self.on_task(outcome)
        sink.status = "done"

    async def _task(self, calling: ToolCalling, task: Task, run: int) -> TaskRun:
        system = build_system_prompt(EXAM_WORKSPACE)
        messages = [Message.text_message("system", system)]
        messages.append(Message.text_message("user", task.prompt))
        outcome = TaskRun(task.name, calling.mode, run, passed=False)
        for turn in task.turns:
            request = ChatRequest(
                self.model, tuple(messages), builtin_specs(), "auto", task.max_tokens
            )
            try:
                reply, leaked, seconds = await self._ask(calling, request)
            except (ProviderConnectionError, AuthenticationError) as exc:
                raise ExamStopped(str(exc)) from exc
            except ProviderError as exc:
                return replace(outcome, failure=f"the server failed: {exc}")
            score = score_turn(turn, reply.text, reply.tool_uses, reply.problems)
            failure = score.failure
            if failure and reply.end and reply.end.stop_reason == "max_tokens":
                failure += f" (the reply stopped at the length limit, {task.max_tokens} tokens)"
            outcome = replace(
                outcome,
                failure=failure,
                leaked=outcome.leaked + leaked,
                malformed=outcome.malformed + score.malformed,
                false_calls=outcome.false_calls + score.false_calls,
                seconds=outcome.seconds + seconds,
                input_tokens=outcome.input_tokens + reply.usage.input_tokens,
                output_tokens=outcome.output_tokens + reply.usage.output_tokens,
                requests=outcome.requests + 1,
            )
            if not score.passed:
                return outcome
            messages.append(reply.message(reply.tool_uses))
            if score.results:
                messages.append(Message("tool", score.results))
        return replace(outcome, passed=True)

    async def _ask(self, calling: ToolCalling, request: ChatRequest) -> tuple[Reply, int, float]:
        """One reply, how many of its calls leaked into text, and how long it took."""
        try:
            return await self._once(calling, replace(request, temperature=self.temperature))
        except StatusError as exc:
            refused = exc.status == 400 and "temperature" in str(exc).lower()
            if self.temperature is None or not refused:
                raise
        self.temperature = None  # the server does not take it: ask as it allows
        return await self._once(calling, request)

    async def _once(self, calling: ToolCalling, request: ChatRequest) -> tuple[Reply, int, float]:
        reply, leaked, started = Reply(), 0, time.perf_counter()
        stream = cast("AsyncGenerator[StreamEvent, None]", calling.stream(request))
        async with contextlib.aclosing(stream) as events:
            async for event in events:
                if isinstance(event, ModeSwitched):
                    raise _Refused(event.reason)
                if isinstance(event, LeakedCallsRecovered):
                    leaked += len(event.calls)
                reply.add(event)
        reply.finished(self.provider.name, self.model)
        return reply, leaked, time.perf_counter() - started
