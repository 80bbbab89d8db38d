"""The one event vocabulary every provider streams, native or rescue alike.

A response is a sequence of these events ending with ``MessageEnd``. Tool calls are
announced by ``ToolUseStart``, may grow through ``ToolUseArgsDelta`` fragments, and
always finish with ``ToolUseEnd`` carrying the complete ``ToolUse``: nothing after
the provider layer needs to know which path produced a call. ``ToolCallProblem``
reports text that looked like a call but could not become one (unknown tool,
irreparable JSON, truncated block), with a message fit to send back to the model.
``Notice`` carries something the user should know about the request itself (a
prompt that may not fit the context the server was asked for); it changes nothing.
``ImagesWithheld``, a ``Notice``, says the model got notes in place of the images.
``Retrying`` says a request failed before its answer began and will be sent again
after a wait, so a person is not left looking at nothing for seconds.
``ModeSwitched`` and ``LeakedCallsRecovered`` come from the tool-calling policy
(``providers.calling``): the request was refused native tools and is asked again in
rescue mode, or calls the server left in the text were made calls.

A run of the engine (``engine.loop.Agent.run``) yields an ``EngineEvent``: these, and its
own events around them, which the front ends render: ``TurnStarted``, ``ToolStarted``,
``ToolExecuted``, ``Compacted`` (older turns replaced by a summary, ``engine.compaction``)
and ``RunFinished``; a subagent's run (a ``Task`` call, ``nehanda.agents``) reaches the
front ends as ``SubagentEvent``s, each of its events under its parent call's id, and ends
with one ``SubagentEnded`` (its answer or its error, its usage and its transcript), the
one place a subagent's end is reported. They are defined here, with the rest of the
vocabulary, so that a renderer reads them without loading the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from nehanda.types import (
    UNKNOWN_TOOL,
    Message,
    Origin,
    RequestCount,
    ToolFacts,
    ToolResult,
    ToolUse,
    Usage,
)

StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "other"]
ProblemKind = Literal[
    "unknown_tool", "invalid_json", "truncated", "repaired", "duplicate_key", "echo"
]


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    """Reasoning text; ``signature`` closes a block whose API verifies it when sent back."""

    text: str
    signature: str | None = None


@dataclass(frozen=True)
class ToolUseStart:
    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ToolUseArgsDelta:
    index: int
    fragment: str


@dataclass(frozen=True)
class ToolUseEnd:
    index: int
    tool_use: ToolUse


@dataclass(frozen=True)
class ToolCallProblem:
    """A block that looked like a call but was dropped (or repaired, see ``kind``)."""

    kind: ProblemKind
    message: str
    raw: str = ""


@dataclass(frozen=True)
class Notice:
    message: str


@dataclass(frozen=True)
class ImagesWithheld(Notice):
    """The model cannot see images, so it got a note in place of each (said once);
    ``learned`` when the server's refusal taught it, to be remembered."""

    learned: bool = False


@dataclass(frozen=True)
class Retrying:
    """The request is sent again in ``delay`` seconds: attempt ``attempt`` of ``attempts``,
    after ``reason`` ("HTTP 503", "connection refused")."""

    delay: float
    attempt: int
    attempts: int
    reason: str


@dataclass(frozen=True)
class ModeSwitched:
    mode: Origin
    reason: str


@dataclass(frozen=True)
class LeakedCallsRecovered:
    """The server's parser missed calls printed as text; they run as calls all the same."""

    calls: tuple[ToolUse, ...]


@dataclass(frozen=True)
class MessageEnd:
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)


StreamEvent = (
    TextDelta
    | ReasoningDelta
    | ToolUseStart
    | ToolUseArgsDelta
    | ToolUseEnd
    | ToolCallProblem
    | Notice
    | ImagesWithheld
    | Retrying
    | ModeSwitched
    | LeakedCallsRecovered
    | MessageEnd
)


@dataclass(frozen=True)
class TurnStarted:
    turn: int


@dataclass(frozen=True)
class ToolStarted:
    """A call is about to go through permissions and run; ``facts`` are its tool's, as
    its check found them (none known for a call the check answered)."""

    tool_use: ToolUse
    facts: ToolFacts = UNKNOWN_TOOL


@dataclass(frozen=True)
class ToolExecuted:
    """A call's result; ``seconds`` is how long the tool ran, any wait for the user's
    approval left out; ``facts`` are its tool's, for the renderers."""

    tool_use: ToolUse
    result: ToolResult
    seconds: float
    facts: ToolFacts = UNKNOWN_TOOL


@dataclass(frozen=True)
class RunFinished:
    text: str
    turns: int
    stop_reason: str
    usage: Usage
    problem: str | None = None
    context: RequestCount | None = None  # the last request, as counted before it was sent
    window: int | None = None


@dataclass(frozen=True)
class Compacted:
    """Older messages were replaced by ``summary``; ``kept`` recent ones follow it."""

    replaced: int
    kept: int
    before: int
    after: int
    window: int
    summary: Message
    problem: str | None = None  # why the model's summary could not be had


@dataclass(frozen=True)
class SubagentEvent:
    """One event of the subagent that the call ``parent_id`` started (its calls, its
    text); ``agent`` names its definition."""

    parent_id: str
    agent: str
    event: EngineEvent


@dataclass(frozen=True)
class SubagentEnded:
    """The subagent of call ``parent_id`` is done: ``answer`` is what it sent back (the
    error, when ``error`` is set), ``messages`` its conversation, ``usage`` its cost,
    counted toward the session's."""

    parent_id: str
    agent: str
    answer: str
    usage: Usage
    messages: tuple[Message, ...] = ()
    error: bool = False


EngineEvent = (
    StreamEvent
    | TurnStarted
    | ToolStarted
    | ToolExecuted
    | RunFinished
    | Compacted
    | SubagentEvent
    | SubagentEnded
)
