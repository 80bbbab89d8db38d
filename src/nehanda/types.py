"""The conversation model: pure values with no I/O, identity or storage.

A conversation is a list of ``Message``s; each message is a role and a tuple of
parts. A ``ToolUse`` is the one shape every tool call takes, whichever path (native
structured calls or rescue text parsing) produced it, and every ``ToolUse`` is
answered by exactly one ``ToolResult`` with the same id.

``Toolset`` is all the engine knows of tools: their specs, ``check`` (which turns a
call into a ``CheckedCall`` or answers it with an error result) and ``run``, which takes
only a checked call, so a call is validated once, by construction.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

Role = Literal["system", "user", "assistant", "tool"]
Origin = Literal["native", "rescue"]
JsonObject = dict[str, Any]


def new_call_id() -> str:
    """An id for a call that arrived without one (rescue calls, Ollama calls)."""
    return "call_" + secrets.token_hex(12)


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ReasoningPart:
    """Reasoning the model showed; ``signature`` is kept for APIs that verify it."""

    text: str
    signature: str | None = None


@dataclass(frozen=True)
class ToolUse:
    """One tool call the model asked for.

    ``input_error`` is set when the call was recognised but its arguments could not
    be read (invalid JSON, say): the engine answers it with that message as an error
    result instead of running it. ``unclosed`` marks a rescue call whose block had
    no closing delimiter although its JSON value was complete, so the engine can
    apply its truncation policy. ``copied_from`` says where the same call is written
    in an earlier tool's output (``engine.copied_calls``); permissions then ask.
    """

    id: str
    name: str
    input: JsonObject = field(default_factory=dict)
    origin: Origin = "native"
    input_error: str | None = None
    unclosed: bool = False
    copied_from: str | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a call was not run, for the people watching (the model reads ``content``).

    ``by``: "user" (they said no; ``words`` holds what they added, if anything),
    "rules" (a rule or the mode denies it) or "nobody" (it needed approval and nobody
    could be asked). ``reason`` says why in full.
    """

    by: Literal["user", "rules", "nobody"]
    reason: str
    words: str = ""


@dataclass(frozen=True)
class ToolResult:
    """``refusal`` is set, by the permission gate only, on the answer to a call that
    was not allowed to run."""

    tool_use_id: str
    content: str
    is_error: bool = False
    refusal: Refusal | None = None


Part = TextPart | ReasoningPart | ToolUse | ToolResult


@dataclass(frozen=True)
class Message:
    role: Role
    parts: tuple[Part, ...] = ()

    @classmethod
    def text_message(cls, role: Role, text: str) -> Message:
        return cls(role, (TextPart(text),))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_uses(self) -> list[ToolUse]:
        return [p for p in self.parts if isinstance(p, ToolUse)]

    @property
    def tool_results(self) -> list[ToolResult]:
        return [p for p in self.parts if isinstance(p, ToolResult)]


@dataclass(frozen=True)
class ToolSpec:
    """What the model is told about a tool; ``input_schema`` is a JSON Schema object.

    ``searched`` marks a tool the model learnt from a ToolSearch result: it is callable,
    and rescue mode leaves it out of the system prompt, which stays as it was (and the
    server's prompt cache with it), since its schema is in the transcript already.
    ``brief`` is the description a small window gets (None: its first sentence), for a
    tool whose whole description is what it offers (ToolSearch's list of names).
    """

    name: str
    description: str
    input_schema: JsonObject
    searched: bool = False
    brief: str | None = None


@dataclass(frozen=True)
class CheckedCall:
    """A call that passed its tool's check: a known tool, valid arguments.

    Only ``Toolset.check`` makes one. ``arguments`` is the tool's own reading of the
    input, opaque to the engine; ``granted`` holds the resolved paths outside the
    workspace that the permission decision named for this call.
    """

    use: ToolUse
    arguments: object
    granted: tuple[Path, ...] = ()


class Toolset(Protocol):
    """The tools a conversation may call, as the engine sees them."""

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """What the model is told about each tool, in the order it is told."""

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        """The call checked, or the error result that answers it (nothing runs)."""

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        """Runs a checked call; failures come back as error results, never raised.

        ``started`` is called as the tool itself begins, after any wait for the user's
        approval, so that the caller can time the run alone."""

    def plain_output(self, content: str) -> str:
        """Tool output with the tools' own framing taken away (Read's line numbers), as
        the engine reads it for calls the model may have copied from it."""

    def key_arguments(self, name: str) -> tuple[str, ...]:
        """The arguments that say what a call to ``name`` does, as permissions judge it:
        the command it runs, the path it works on; none for a tool without them (an MCP
        tool). The engine compares these to tell a call copied from tool output."""


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


@dataclass(frozen=True)
class RequestCount:
    """A request's estimated tokens, split as ``/context`` shows them."""

    system: int
    tools: int
    messages: int

    @property
    def total(self) -> int:
        return self.system + self.tools + self.messages
