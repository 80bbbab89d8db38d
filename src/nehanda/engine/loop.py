"""The turn loop: ask the model, run the calls it makes, send the results back, repeat.

The loop ends at a reply with no tool call, after ``max_turns`` requests, or when
``LoopGuard`` sees the model going nowhere. With a ``ContextKeeper``, every request
is counted and made to fit the window first (``engine.compaction``). Tools are a
``Toolset``: each call is checked once (``Toolset.check``) and only a checked call
runs. Every ``ToolUse`` gets exactly one ``ToolResult``, whatever happens to it
(denied, invalid, failed), so the transcript stays well-formed for every provider. A
provider that refuses native tools switches the run to rescue mode and the same turn is
asked again: that policy, with leak recovery and truncation detection, lives in
``providers.calling``.

Calls run one after another in the order the model made them, except that a run of
calls whose tools say they may run together (``ToolFacts.parallel``: subagents) runs at
once; what those report as they go (``reports``, a queue their toolset is given too)
is yielded as it comes, and their results still go back in the model's order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from nehanda.engine.compaction import Conversation, keep_within
from nehanda.engine.context import ContextKeeper
from nehanda.engine.copied_calls import ToolOutputCalls
from nehanda.engine.guards import LoopGuard, feedback
from nehanda.engine.reply import Reply
from nehanda.errors import ContextTooLongError
from nehanda.events import (
    Compacted,
    EngineEvent,
    RunFinished,
    StreamEvent,
    SubagentEnded,
    ToolExecuted,
    ToolStarted,
    TurnStarted,
)
from nehanda.providers.base import ChatRequest, Provider, ToolChoice
from nehanda.providers.calling import is_truncated, may_be_cut
from nehanda.providers.window import window_from_error
from nehanda.types import (
    UNKNOWN_TOOL,
    CheckedCall,
    ImagePart,
    Message,
    Part,
    RequestCount,
    TextPart,
    ToolResult,
    Toolset,
    ToolUse,
    Usage,
)

Checked = tuple[ToolUse, CheckedCall | ToolResult]
INTERRUPTED_RESULT = "The call was interrupted before it finished; its result is unknown."


def interrupted(tool_use: ToolUse) -> ToolResult:
    return ToolResult(tool_use.id, INTERRUPTED_RESULT, is_error=True)


def not_run(tool_use: ToolUse, why: str) -> ToolResult:
    return ToolResult(tool_use.id, f"Not run: {why}.", is_error=True)


def cut_short(text: str) -> str:
    """The text of a reply that never finished, marked so the model knows."""
    return f"{text.rstrip()}\n[this reply was cut short]".lstrip()


class Stopwatch:
    """How long a tool ran: the toolset ``start``s it as the tool begins, after any
    approval (``Toolset.run``'s ``started``); a call refused or never begun ran 0 s."""

    def __init__(self) -> None:
        self._since: float | None = None

    def start(self) -> None:
        self._since = time.perf_counter()

    @property
    def seconds(self) -> float:
        return 0.0 if self._since is None else time.perf_counter() - self._since


@dataclass
class Agent:
    provider: Provider
    model: str
    toolset: Toolset
    max_turns: int = 50
    max_turns_source: str = "--max-turns"  # where the limit was set, named when it is reached
    tool_choice: ToolChoice | None = "auto"
    messages: list[Message] = field(default_factory=list)
    context: ContextKeeper | None = None
    # What the toolset reports while its calls run (a subagent's events), to be yielded.
    reports: asyncio.Queue[EngineEvent] | None = None
    # Told before a compaction summarises (trigger, focus): the session's PreCompact hooks.
    before_compact: Callable[[str, str], Awaitable[object]] | None = None
    _output_calls: ToolOutputCalls = field(init=False, repr=False)

    def __post_init__(self) -> None:
        toolset = self.toolset
        self._output_calls = ToolOutputCalls(toolset.specs, toolset.plain_output)

    async def run(
        self, prompt: str, images: tuple[ImagePart, ...] = ()
    ) -> AsyncIterator[EngineEvent]:
        self.messages.append(Message("user", (TextPart(prompt), *images)))
        usage, guard = Usage(), LoopGuard()
        for turn in range(1, self.max_turns + 1):
            yield TurnStarted(turn)
            reply = Reply()
            async for event in self._receive(reply):
                yield event
            end = reply.finished(self.provider.name, self.model)
            usage += end.usage
            if self.context:
                self.context.observe(end.usage)
            truncated = is_truncated(reply.end, reply.tool_uses, reply.problems)
            self._output_calls.learn(self.toolset.specs)  # tools joined since are known too
            runnable = self._output_calls.mark(
                [use for use in reply.tool_uses if not (truncated and may_be_cut(use))],
                self.messages,
            )
            checked = [(use, self.toolset.check(use)) for use in runnable]
            valid = sum(isinstance(outcome, CheckedCall) for _, outcome in checked)
            stop = guard.check(reply, truncated, valid)
            self.messages.append(reply.message(runnable))
            if stop or not (runnable or reply.problems or truncated):
                if stop and runnable:
                    results = tuple(not_run(use, stop) for use in runnable)
                    self.messages.append(Message("tool", results))
                reason = "error" if stop else end.stop_reason
                yield self._finished(reply.text, turn, reason, usage, stop)
                return
            async for event in self._run_calls(checked, feedback(reply.problems, truncated)):
                if isinstance(event, SubagentEnded):
                    usage += event.usage
                yield event
        limit = f"{self.max_turns} turns ({self.max_turns_source})"
        problem = f"stopped after {limit}; the task may be unfinished"
        yield self._finished(reply.text, self.max_turns, "max_turns", usage, problem)

    def _finished(
        self, text: str, turns: int, reason: str, usage: Usage, problem: str | None
    ) -> RunFinished:
        last, window = (self.context.last, self.context.window) if self.context else (None, None)
        return RunFinished(text, turns, reason, usage, problem, last, window)

    def context_use(self) -> RequestCount | None:
        """The next request as counted now (``None`` without a ``ContextKeeper``)."""
        return self.context.count(self._request()) if self.context else None

    async def compact(self, *, force: bool = False, focus: str = "") -> AsyncIterator[Compacted]:
        """Makes the next request fit the window (``force``: compacts now, as ``/compact``)."""
        if self.context is not None:
            self._output_calls.read(self.messages)
            specs = self.toolset.specs
            convo = Conversation(
                self.provider,
                self.model,
                self.messages,
                specs,
                self.tool_choice,
                self.before_compact,
            )
            async for done in keep_within(convo, self.context, force=force, focus=focus):
                yield done
            self.context.last = self.context.count(self._request())

    async def _receive(self, reply: Reply) -> AsyncIterator[EngineEvent]:
        """One response, streamed into ``reply``; a response that never finished still
        leaves an assistant message, so user and assistant turns keep alternating. A
        request the server finds too long before answering teaches the window and is
        compacted and asked again, once."""
        try:
            async for compacted in self.compact():
                yield compacted
            try:
                async for event in self._stream(reply):
                    yield event
            except ContextTooLongError as exc:
                if self.context is None or reply != Reply():
                    raise
                self.context.learn(window_from_error(str(exc)) or self.context.window * 3 // 4)
                if not self.context.auto_compact:
                    raise
                async for compacted in self.compact(force=True):
                    yield compacted
                async for event in self._stream(reply):
                    yield event
            reply.finished(self.provider.name, self.model)
        except BaseException:
            self.messages.append(Message.text_message("assistant", cut_short(reply.text)))
            raise

    async def _run_calls(self, calls: list[Checked], note: str) -> AsyncIterator[EngineEvent]:
        results: dict[int, ToolResult] = {}
        try:
            for group in _groups(calls):
                if len(group) == 1 and not _parallel(calls[group[0]][1]):
                    async for event in self._run_one(group[0], calls[group[0]], results):
                        yield event
                else:
                    async for event in self._run_together(group, calls, results):
                        yield event
        finally:
            # Interrupted or not, every call gets its result, so the transcript stays
            # valid for the next request; one that never began (its approval was being
            # asked) was not run, and the model must not think it may have been.
            parts: list[Part] = [
                results.get(index) or not_run(use, "the user interrupted before it started")
                for index, (use, _) in enumerate(calls)
            ]
            if note:
                parts.append(TextPart(note))
            self.messages.append(Message("tool" if calls else "user", tuple(parts)))

    async def _run_one(
        self, index: int, call: Checked, results: dict[int, ToolResult]
    ) -> AsyncIterator[EngineEvent]:
        tool_use, checked = call
        facts = checked.facts if isinstance(checked, CheckedCall) else UNKNOWN_TOOL
        yield ToolStarted(tool_use, facts)
        yield await self._execute(index, call, results)

    async def _execute(
        self, index: int, call: Checked, results: dict[int, ToolResult]
    ) -> ToolExecuted:
        tool_use, checked = call
        clock = Stopwatch()

        def begun() -> None:
            clock.start()
            results[index] = interrupted(tool_use)  # until its own result replaces it

        if isinstance(checked, ToolResult):
            ran, facts = checked, UNKNOWN_TOOL
        else:
            ran, facts = await self.toolset.run(checked, begun), checked.facts
        results[index] = ran
        return ToolExecuted(tool_use, ran, clock.seconds, facts)

    async def _run_together(
        self, group: list[int], calls: list[Checked], results: dict[int, ToolResult]
    ) -> AsyncIterator[EngineEvent]:
        """The calls at ``group`` run at once; each result and report as it comes."""
        queue = self.reports if self.reports is not None else asyncio.Queue()

        async def execute(index: int) -> None:
            try:
                done = await self._execute(index, calls[index], results)
            except Exception as error:  # a toolset's bug must not leave the others waiting
                use = calls[index][0]
                results[index] = ToolResult(use.id, f"{use.name} failed: {error}", is_error=True)
                done = ToolExecuted(use, results[index], 0.0)
            queue.put_nowait(done)

        for index in group:
            use, checked = calls[index]
            yield ToolStarted(
                use, checked.facts if isinstance(checked, CheckedCall) else UNKNOWN_TOOL
            )
        tasks = [asyncio.create_task(execute(index)) for index in group]
        try:
            left = len(group)
            while left:
                event = await queue.get()
                left -= isinstance(event, ToolExecuted)
                yield event
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _stream(self, reply: Reply) -> AsyncIterator[StreamEvent]:
        async for event in self.provider.stream(self._request()):
            reply.add(event)
            yield event

    def _request(self) -> ChatRequest:
        if self.context is None:
            return ChatRequest(
                self.model,
                tuple(self.messages),
                self.toolset.specs,
                self.tool_choice if self.toolset.specs else None,
            )
        return self.context.request(self.model, self.messages, self.toolset.specs, self.tool_choice)


def _parallel(checked: CheckedCall | ToolResult) -> bool:
    return isinstance(checked, CheckedCall) and checked.facts.parallel


def _groups(calls: list[Checked]) -> list[list[int]]:
    """The calls' indexes in runs: each run of parallel calls together, others alone."""
    groups: list[list[int]] = []
    for index, (_, checked) in enumerate(calls):
        if groups and _parallel(checked) and _parallel(calls[groups[-1][-1]][1]):
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups
