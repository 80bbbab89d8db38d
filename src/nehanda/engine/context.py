"""Context accounting: how many tokens a request takes, the window it must fit, the budget.

Every request is counted before it is sent. Local servers often report no usage, so the
count is an estimate: characters over the model family's characters per token
(``config.profiles.chars_per_token``, rounded so the estimate errs large), corrected by
the server's own count of the previous request when it reports one. Each message's size
is computed once and kept by identity, so counting a long transcript costs a dictionary
look-up per message, not a pass over its text.

``Budget`` scales every threshold with the window: the reply's reserve, the point at which
the conversation is compacted, and how much of the room compaction frees, so a small window
does not compact on every step.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from nehanda.providers.base import ChatRequest, ToolChoice
from nehanda.providers.prefix import Prefix
from nehanda.types import (
    DocumentPart,
    ImagePart,
    Message,
    ReasoningPart,
    RequestCount,
    TextPart,
    ToolResult,
    ToolSpec,
    ToolUse,
    Usage,
)

PART_OVERHEAD = 12  # role markers and JSON punctuation around each part, in characters
IMAGE_CHARS = 4 * 1600  # an image costs a vision model about 1,600 tokens, not its bytes
SAFETY = 0.9  # the share of the room an estimate may plan to fill
SMALL_WINDOW = 8192


@dataclass(frozen=True)
class Budget:
    """Token thresholds for one window."""

    window: int

    @property
    def reply_reserve(self) -> int:
        return min(max(self.window // 8, 512), 16384)

    @property
    def limit(self) -> int:
        """A request estimated above this is compacted first."""
        return int((self.window - self.reply_reserve) * SAFETY)

    @property
    def summary_tokens(self) -> int:
        return min(max(self.window // 16, 256), 2048)

    @property
    def small(self) -> bool:
        return self.window <= SMALL_WINDOW


def part_chars(part: object) -> int:
    if isinstance(part, TextPart | ReasoningPart):
        return len(part.text) + PART_OVERHEAD
    if isinstance(part, ToolUse):
        return len(part.name) + len(json.dumps(part.input)) + len(part.id) + PART_OVERHEAD
    if isinstance(part, ToolResult):
        shown = IMAGE_CHARS * len(part.images)
        return len(part.content) + len(part.tool_use_id) + shown + PART_OVERHEAD
    if isinstance(part, ImagePart):
        return IMAGE_CHARS + PART_OVERHEAD
    if isinstance(part, DocumentPart):
        return len(part.text or "") + len(part.data or b"") + PART_OVERHEAD
    return PART_OVERHEAD


def specs_chars(tools: Iterable[ToolSpec]) -> int:
    return sum(
        len(t.name) + len(t.description) + len(json.dumps(t.input_schema)) + 40 for t in tools
    )


@dataclass
class TokenCounter:
    """Estimates tokens; sizes are kept per message object (messages are immutable)."""

    chars_per_token: float
    correction: float = 1.0
    _sizes: dict[int, tuple[Message, int]] = field(default_factory=dict, repr=False)
    _tools: dict[int, tuple[tuple[ToolSpec, ...], int]] = field(default_factory=dict, repr=False)

    def chars(self, message: Message) -> int:
        kept = self._sizes.get(id(message))
        if kept is not None and kept[0] is message:
            return kept[1]
        size = PART_OVERHEAD + sum(part_chars(part) for part in message.parts)
        self._sizes[id(message)] = (message, size)
        return size

    def tokens(self, chars: int) -> int:
        return math.ceil(chars / self.chars_per_token * self.correction)

    def messages(self, messages: Iterable[Message]) -> int:
        return self.tokens(sum(self.chars(m) for m in messages))

    def tools(self, tools: tuple[ToolSpec, ...]) -> int:
        kept = self._tools.get(id(tools))
        if kept is None or kept[0] is not tools:
            kept = (tools, specs_chars(tools))
            self._tools[id(tools)] = kept
        return self.tokens(kept[1])

    def forget(self, keep: Sequence[Message]) -> None:
        """Drops the sizes of messages no longer in the conversation."""
        alive = {id(m) for m in keep}
        self._sizes = {k: v for k, v in self._sizes.items() if k in alive}


def cut_middle(text: str, most: int, what: str = "this result") -> str:
    """``text`` within ``most`` characters: its head and tail, and a note of the cut."""
    if len(text) <= most:
        return text
    keep = max(most - 200, 80)
    head, tail = text[: keep * 2 // 3], text[len(text) - keep // 3 :]
    cut = len(text) - len(head) - len(tail)
    note = (
        f"\n[... {cut:,} of {len(text):,} characters cut from the middle of {what} to fit "
        "the context window; ask for a narrower part (a line range, a pattern) to see it ...]\n"
    )
    return head + note + tail


def size_text(count: int) -> str:
    """A byte count as people read it: ``512 bytes``, ``3.4 KB``, ``2.0 MB``."""
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def trim_call(use: ToolUse, most: int, paths: Mapping[str, str]) -> ToolUse:
    """A call whose arguments take more than ``most`` characters, its long strings
    replaced by what they were: ``[content of 2.0 MB written to data.txt]``, the path
    read from the argument the tool's facts name (``paths``: tool name to that key)."""
    if len(json.dumps(use.input)) <= most:
        return use
    key = paths.get(use.name)
    path = use.input.get(key) if key is not None else None
    where = f"written to {path}" if isinstance(path, str) and len(path) < 400 else "in this call"
    longest = max(most // 8, 400)
    args = {
        name: f"[content of {size_text(len(value.encode()))} {where}]"
        if isinstance(value, str) and len(value) > longest
        else value
        for name, value in use.input.items()
    }
    return replace(use, input=args)


def trim_message(message: Message, most: int, paths: Mapping[str, str]) -> Message:
    """``message`` as sent: its results and its calls' arguments within ``most``."""
    trimmed = trim_results(message, most)
    if not trimmed.tool_uses:
        return trimmed
    parts = tuple(trim_call(p, most, paths) if isinstance(p, ToolUse) else p for p in trimmed.parts)
    if all(new is old for new, old in zip(parts, trimmed.parts, strict=True)):
        return trimmed
    return Message(trimmed.role, parts)


def trim_results(message: Message, most: int) -> Message:
    if not any(isinstance(p, ToolResult) and len(p.content) > most for p in message.parts):
        return message
    parts = tuple(
        replace(p, content=cut_middle(p.content, most))
        if isinstance(p, ToolResult) and len(p.content) > most
        else p
        for p in message.parts
    )
    return Message(message.role, parts)


Shape = Callable[[ChatRequest], ChatRequest]


def as_is(request: ChatRequest) -> ChatRequest:
    return request


@dataclass
class ContextKeeper:
    """One conversation's window, counter and compaction switch.

    ``shape`` turns a request into the one the server receives (the rescue form in rescue
    mode), so the rescue prompt is counted; ``on_learned`` remembers a window a server's
    context-length error named.
    """

    window: int
    counter: TokenCounter
    shape: Shape = as_is
    auto_compact: bool = True
    on_learned: Callable[[int], None] | None = None
    last: RequestCount | None = None
    _views: tuple[tuple[int, tuple[tuple[str, str], ...]], Prefix[Message, Message]] | None = field(
        default=None, repr=False
    )
    _sizes: Prefix[Message, int] | None = field(default=None, repr=False)
    _compact: tuple[tuple[ToolSpec, ...], tuple[ToolSpec, ...]] = field(
        default=((), ()), repr=False
    )

    @property
    def budget(self) -> Budget:
        return Budget(self.window)

    @property
    def max_result_tokens(self) -> int:
        """The most one tool result may take of a request; more is cut from its middle."""
        return self.budget.limit // 3

    def count(self, request: ChatRequest) -> RequestCount:
        sent = self.shape(request)
        if self._sizes is None:
            self._sizes = Prefix(self.counter.chars)
        sizes = self._sizes.map(sent.messages)
        head = next((i for i, m in enumerate(sent.messages) if m.role != "system"), len(sizes))
        return RequestCount(
            self.counter.tokens(sum(sizes[:head])),
            self.counter.tools(sent.tools),
            self.counter.tokens(sum(sizes[head:])),
        )

    def request(
        self,
        model: str,
        messages: Sequence[Message],
        tools: tuple[ToolSpec, ...],
        tool_choice: ToolChoice | None,
    ) -> ChatRequest:
        """The next request: results trimmed to fit and, in a small window, the tools'
        descriptions cut short and the tools it can do without (``small_window`` False in
        their facts) left out."""
        small = self.budget.small
        if small and tools:
            if self._compact[0] is not tools:
                from nehanda.toolcalls.brief_specs import compact_spec  # small windows only

                kept = (compact_spec(spec) for spec in tools if spec.facts.small_window)
                self._compact = (tools, tuple(kept))
            tools = self._compact[1]
        return ChatRequest(
            model,
            self.view(messages, tools),
            tools,
            tool_choice if tools else None,
            small_window=small,
        )

    def view(
        self, messages: Sequence[Message], tools: tuple[ToolSpec, ...] = ()
    ) -> tuple[Message, ...]:
        """The messages as sent: every tool result, and every call's arguments (a Write
        of a large file, say), within ``max_result_tokens``."""
        most = int(self.max_result_tokens * self.counter.chars_per_token)
        paths = {t.name: t.facts.path_argument for t in tools if t.facts.path_argument}
        key = (most, tuple(sorted(paths.items())))
        if self._views is None or self._views[0] != key:
            self._views = (key, Prefix(lambda message: trim_message(message, most, paths)))
        return tuple(self._views[1].map(messages))

    def observe(self, usage: Usage) -> None:
        """The server's count of the request just sent corrects later estimates."""
        if usage.input_tokens <= 0 or self.last is None or self.last.total <= 0:
            return
        ratio = usage.input_tokens / (self.last.total / self.counter.correction)
        # Never below 1: the estimate was made to err large, and a server whose count
        # leaves out the template must not make it err small.
        self.counter.correction = min(max(ratio, 1.0), 2.0)

    def learn(self, tokens: int) -> None:
        if 0 < tokens < self.window:
            self.window = tokens
            if self.on_learned is not None:
                self.on_learned(tokens)
