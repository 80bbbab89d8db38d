"""The conversation model: pure values with no I/O, identity or storage.

A conversation is a list of ``Message``s; each message is a role and a tuple of
parts. A ``ToolUse`` is the one shape every tool call takes, whichever path (native
structured calls or rescue text parsing) produced it, and every ``ToolUse`` is
answered by exactly one ``ToolResult`` with the same id. An ``ImagePart`` or a
``DocumentPart`` is something the user (or a client of ``nehanda serve``) showed the
model: its bytes, or the address the server fetches it from; an image's kind is read
from its bytes (``image_type``), never from a file name.

``Toolset`` is all the engine knows of tools: their specs, ``check`` (which turns a
call into a ``CheckedCall`` or answers it with an error result) and ``run``, which takes
only a checked call, so a call is validated once, by construction. A ``CheckedCall``
carries its tool's ``ToolFacts`` (and so does each ``ToolSpec``): permissions and the
renderers read those, never a table of tools.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

Role = Literal["system", "user", "assistant", "tool"]
Origin = Literal["native", "rescue"]
JsonObject = dict[str, Any]
# ACP's ToolKind values: what a call does, as a client shows it.
ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
# Where a tool comes from: nehanda itself, an MCP server, a subagent.
ToolSource = Literal["builtin", "mcp", "subagent"]


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


ImageType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
IMAGE_TYPES: tuple[ImageType, ...] = ("image/png", "image/jpeg", "image/gif", "image/webp")


def image_type(data: bytes) -> ImageType | None:
    """The image format ``data`` holds, by its magic bytes; ``None``: none nehanda sends."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class ImagePart:
    """An image shown to the model: its bytes (``data``) or an address (``url``, which
    the server fetches itself). ``name`` says where it came from, for the note a model
    that cannot see images gets instead, and for people."""

    media_type: str
    data: bytes | None = field(default=None, repr=False)
    url: str | None = None
    name: str = ""

    @classmethod
    def of(cls, data: bytes, name: str = "") -> ImagePart:
        """The image ``data`` holds; ``ValueError`` when it is none of PNG, JPEG, GIF, WebP."""
        kind = image_type(data)
        if kind is None:
            raise ValueError("not a PNG, JPEG, GIF or WebP image")
        return cls(kind, data, name=name)

    @property
    def base64(self) -> str:
        return base64.b64encode(self.data or b"").decode("ascii")

    @property
    def data_url(self) -> str:
        """``data:image/png;base64,...``, or the image's own address."""
        if self.data is None:
            return self.url or ""
        return f"data:{self.media_type};base64,{self.base64}"

    @property
    def note(self) -> str:
        """What a model that cannot see images reads in its place."""
        what = self.name or self.url or self.media_type
        return f"[an image was attached ({what}); this model cannot see images]"


@dataclass(frozen=True)
class DocumentPart:
    """A document shown to the model (Anthropic's ``document`` block): ``text`` for a
    plain-text one, else its bytes (``data``, a PDF) or ``url``."""

    media_type: str
    data: bytes | None = field(default=None, repr=False)
    url: str | None = None
    text: str | None = None
    title: str = ""

    @property
    def base64(self) -> str:
        return base64.b64encode(self.data or b"").decode("ascii")

    @property
    def note(self) -> str:
        what = self.title or self.url or self.media_type
        return f"[a document was attached ({what}); this model cannot read it]"


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
    was not allowed to run. ``images`` are what the call showed (Read of a picture), for
    a model that can see them; ``content`` says in words what they are.
    ``sandbox_denial``: the line, also ending ``content``, saying what the kernel sandbox
    denied a command that failed (set by the tool that ran it, never read from output)."""

    tool_use_id: str
    content: str
    is_error: bool = False
    refusal: Refusal | None = None
    images: tuple[ImagePart, ...] = ()
    sandbox_denial: str | None = None


Part = TextPart | ReasoningPart | ImagePart | DocumentPart | ToolUse | ToolResult


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

    @property
    def images(self) -> list[ImagePart]:
        """The images this message shows, its results' included."""
        own = [p for p in self.parts if isinstance(p, ImagePart)]
        return own + [image for result in self.tool_results for image in result.images]


TodoStatus = Literal["pending", "in_progress", "completed"]


@dataclass(frozen=True)
class Todo:
    """One item of the model's plan (Claude Code's TodoWrite item): ``content`` says the
    task, ``active_form`` the same as it is being done ("Running the tests")."""

    content: str
    status: TodoStatus
    active_form: str = ""


def count_lines(text: str) -> str:
    """``3 lines``, ``1 line`` or ``no output``: how long ``text`` is, in lines."""
    if not text:
        return "no output"
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    return f"{lines} line{'s' if lines != 1 else ''}"


@dataclass(frozen=True)
class ToolFacts:
    """What the layers above a toolset know of a tool, given by the tool itself.

    ``read_only``: the tool only reads; for an MCP tool (``source`` "mcp") it is its
    server's ``readOnlyHint``, a claim, which may keep a tool out of plan mode but never
    lets one run unasked. ``path_argument`` names the argument holding the path a file
    tool works on (``path_default`` when it is left out), and ``more_paths`` adds the
    other places a call reaches from it (Glob's pattern directories).
    ``command_argument`` names the shell command a tool runs, ``url_argument`` the URL a
    tool fetches (its rules name hosts: ``WebFetch(domain:HOST)``). ``summary_keys`` are the
    arguments that say most about a call, best first. ``diff`` is the unified diff a
    call would make to a file, read before it runs (it raises ``ToolError`` or
    ``ValueError`` when the call could not apply). ``plain_output`` takes away the
    framing the tool puts around what it shows. ``outcome`` sums up a successful call
    from its arguments and output in a few words; without it, the count of lines its
    plain output has. ``server`` names an MCP tool's server. The defaults know nothing:
    such a tool only reads nothing, names no path and asks. ``plan`` reads the model's
    plan from a call that sets it (TodoWrite's list), for the renderers and the log.
    ``parallel``: calls of the tool in one reply may run at once (subagents); others run
    one after another, in order. ``small_window``: offered in a window of 8k tokens or
    less too; a tool such a window can do without says False, so its definition leaves
    room for results.
    """

    kind: ToolKind = "other"
    source: ToolSource = "builtin"
    read_only: bool = False
    path_argument: str | None = None
    path_default: str | None = None
    more_paths: Callable[[JsonObject, str], list[str]] | None = None
    command_argument: str | None = None
    url_argument: str | None = None
    summary_keys: tuple[str, ...] = ()
    diff: Callable[[JsonObject, Path], list[str]] | None = None
    plain_output: Callable[[str], str] | None = None
    outcome: Callable[[JsonObject, str], str] | None = None
    server: str | None = None
    plan: Callable[[JsonObject], tuple[Todo, ...]] | None = None
    parallel: bool = False
    small_window: bool = True

    def paths(self, arguments: JsonObject) -> list[str] | None:
        """The paths a call works on, as written; ``None`` when it names none readable."""
        if self.path_argument is None:
            return None
        raw = arguments.get(self.path_argument, self.path_default)
        if not isinstance(raw, str):
            return None
        return [raw, *(self.more_paths(arguments, raw) if self.more_paths else ())]

    def command(self, arguments: JsonObject) -> str | None:
        """The command a call runs, if the tool runs commands and the call gives one."""
        if self.command_argument is None:
            return None
        command = arguments.get(self.command_argument)
        return command if isinstance(command, str) else None

    def url(self, arguments: JsonObject) -> str | None:
        """The URL a call fetches, if the tool fetches and the call gives one."""
        if self.url_argument is None:
            return None
        url = arguments.get(self.url_argument)
        return url if isinstance(url, str) else None

    @property
    def key_arguments(self) -> tuple[str, ...]:
        """The arguments that say what a call does, as permissions judge it: the command
        it runs, the path it works on, the URL it fetches."""
        keys = (self.command_argument, self.path_argument, self.url_argument)
        return tuple(key for key in keys if key)

    def summary(self, arguments: JsonObject) -> str | None:
        """The argument that says most about a call, if the call gives one."""
        return next(
            (value for key in self.summary_keys if isinstance(value := arguments.get(key), str)),
            None,
        )

    def shown_output(self, output: str) -> str:
        """The output as a person reads it: its plain text, without the tool's framing."""
        return self.plain_output(output) if self.plain_output else output

    def describe_outcome(self, arguments: JsonObject, output: str) -> str:
        """``3 lines``: what a successful call did, as its tool line says it."""
        if self.outcome is not None:
            return self.outcome(arguments, output)
        return count_lines(self.shown_output(output))


UNKNOWN_TOOL = ToolFacts()


@dataclass(frozen=True)
class ToolSpec:
    """What the model is told about a tool; ``input_schema`` is a JSON Schema object.

    ``searched`` marks a tool the model learnt from a ToolSearch result: it is callable,
    and rescue mode leaves it out of the system prompt, which stays as it was (and the
    server's prompt cache with it), since its schema is in the transcript already.
    ``brief`` is the description a small window gets (None: its first sentence), for a
    tool whose whole description is what it offers (ToolSearch's list of names).
    ``facts`` is what the toolset knows of the tool (never sent to a model), for those
    that judge or show a tool before any call of it: the plan-mode list, ``/tools``.
    """

    name: str
    description: str
    input_schema: JsonObject
    searched: bool = False
    brief: str | None = None
    facts: ToolFacts = field(default=UNKNOWN_TOOL, compare=False)


@dataclass(frozen=True)
class CheckedCall:
    """A call that passed its tool's check: a known tool, valid arguments.

    Only ``Toolset.check`` makes one. ``arguments`` is the tool's own reading of the
    input, opaque to the engine; ``granted`` holds the resolved paths outside the
    workspace that the permission decision named for this call; ``facts`` are its
    tool's, as the toolset that checked it knows them; ``unconfined``: run outside the
    kernel sandbox, set only by the gate once the user approved it.
    """

    use: ToolUse
    arguments: object
    granted: tuple[Path, ...] = ()
    facts: ToolFacts = UNKNOWN_TOOL
    unconfined: bool = False


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
