"""``RescueProvider``: tool calling for models and servers that cannot do it natively.

It wraps any provider: the rescue path's request and stream. Outgoing, it drops
``tools``/``tool_choice``, teaches the tools in one leading system message, appends
the ``[SYSTEM DIRECTIVE]`` to the last user message of the request (never to the
stored transcript) and renders earlier calls and results as text; images and documents
travel as they do natively (those results showed, beside the results' text). Incoming, text
deltas go through ``ToolCallScanner``, so the engine receives the same events as on
the native path and the user never sees call markup. The parsing itself is
``toolcalls``'s, which two other readers of model text use too: leak recovery in native
mode (``providers.leaks``) and the copied-call check (``engine.copied_calls``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import replace

from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseEnd,
)
from nehanda.providers.base import ChatRequest, Provider, Wrapper
from nehanda.providers.prefix import Prefix
from nehanda.toolcalls.parse import parse_tool_calls
from nehanda.toolcalls.prompt import (
    is_example_echo,
    render_call,
    render_result,
    render_tool_prompt,
    with_directive,
)
from nehanda.toolcalls.scanner import ToolCallScanner
from nehanda.types import (
    DocumentPart,
    ImagePart,
    Message,
    Part,
    TextPart,
    ToolResult,
    ToolSpec,
    ToolUse,
)


class RescueProvider(Wrapper):
    def __init__(self, inner: Provider) -> None:
        super().__init__(inner)
        self._rendered = RenderCache()

    def shape(self, request: ChatRequest) -> ChatRequest:
        """``rescue_request(request)``, each message rendered once for the conversation."""
        return rescue_request(request, self._rendered)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        state = RescueStreamState(request.tools)
        async for event in self.inner.stream(self.shape(request)):
            for out in state.handle(event):
                yield out


class RenderCache:
    """Rendered forms kept by the identity of what they render (messages are immutable),
    so a long conversation is not rendered again on every request."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}  # call id -> tool name, of every call seen
        self._body: Prefix[Message, Message | None] = Prefix(self._render)
        self._prompts: dict[tuple[int, bool], tuple[tuple[ToolSpec, ...], str]] = {}
        self._system: Message | None = None
        self._merged: dict[tuple[int, ...], tuple[tuple[Message, ...], Message]] = {}

    def body(self, messages: Sequence[Message]) -> list[Message]:
        """Every message but the system ones, as text, user messages in a row as one:
        some servers refuse two (a Ctrl-C'd call's result, then the next prompt)."""
        body: list[Message] = []
        run: list[Message] = []
        merged: dict[tuple[int, ...], tuple[tuple[Message, ...], Message]] = {}
        for message in [*filter(None, self._body.map(messages)), None]:
            if message is not None and message.role == "user":
                run.append(message)
                continue
            if run:
                body.append(self._merge(tuple(run), merged))
                run = []
            if message is not None:
                body.append(message)
        self._merged = merged
        return body

    def _merge(
        self,
        run: tuple[Message, ...],
        merged: dict[tuple[int, ...], tuple[tuple[Message, ...], Message]],
    ) -> Message:
        if len(run) == 1:
            return run[0]
        key = tuple(map(id, run))
        kept = self._merged.get(key)
        if kept is None or any(a is not b for a, b in zip(kept[0], run, strict=True)):
            parts = [part for m in run for part in (TextPart("\n\n"), *m.parts)][1:]
            kept = (run, Message("user", tuple(parts)))
        merged[key] = kept
        return kept[1]

    def _render(self, message: Message) -> Message | None:
        # A call always comes before its result, so its name is known by then.
        self._names.update((use.id, use.name) for use in message.tool_uses)
        return None if message.role == "system" else _as_text(message, self._names)

    def system(self, text: str) -> Message:
        if self._system is None or self._system.text != text:
            self._system = Message.text_message("system", text)
        return self._system

    def prompt(self, tools: tuple[ToolSpec, ...], compact: bool) -> str:
        kept = self._prompts.get((id(tools), compact))
        if kept is None or kept[0] is not tools:
            # Schemas ToolSearch loaded reach the model in its result, not in the prompt.
            taught = tuple(spec for spec in tools if not spec.searched)
            kept = (tools, render_tool_prompt(taught, compact=compact))
            self._prompts = {(id(tools), compact): kept}
        return kept[1]


class RescueStreamState:
    """The inner provider's events in, native-path events out; one per response."""

    def __init__(self, tools: tuple[ToolSpec, ...]) -> None:
        self.tools = tools
        self.names = [spec.name for spec in tools]
        self.schemas = {spec.name: spec.input_schema for spec in tools}
        self.scanner = ToolCallScanner(self.names, self.schemas)
        self.calls = 0
        self.shown: list[str] = []
        self.reasoning: list[str] = []

    def handle(self, event: StreamEvent) -> list[StreamEvent]:
        if isinstance(event, TextDelta):
            return self._note(self.scanner.feed(event.text))
        if not isinstance(event, MessageEnd):
            return self._note([event])
        out = self._note(self.scanner.finish())
        if not self.calls and not "".join(self.shown).strip():
            out += self._calls_in_reasoning()
        tool_use = self.calls and event.stop_reason == "end_turn"
        return [*out, MessageEnd("tool_use" if tool_use else event.stop_reason, event.usage)]

    def _note(self, events: Iterable[StreamEvent]) -> list[StreamEvent]:
        out = list(_refuse_echoes(events, self.tools))
        for event in out:
            if isinstance(event, ToolUseEnd):
                self.calls += 1
            elif isinstance(event, TextDelta):
                self.shown.append(event.text)
            elif isinstance(event, ReasoningDelta):
                self.reasoning.append(event.text)
        return out

    def _calls_in_reasoning(self) -> list[StreamEvent]:
        """A reasoning model cut off before its answer leaves only reasoning; then the
        calls in that reasoning are its answer."""
        found = parse_tool_calls("".join(self.reasoning), self.names, self.schemas).calls
        return self._note(ToolUseEnd(index, use) for index, use in enumerate(found))


def _refuse_echoes(
    events: Iterable[StreamEvent], tools: tuple[ToolSpec, ...]
) -> Iterable[StreamEvent]:
    for event in events:
        if isinstance(event, ToolUseEnd) and is_example_echo(event.tool_use, tools):
            yield ToolCallProblem(
                "echo",
                f"Your {event.tool_use.name} call repeats the example from the instructions "
                "with its placeholder values, so it was not run. Use real values.",
                render_call(event.tool_use.name, event.tool_use.input),
            )
        else:
            yield event


def rescue_request(request: ChatRequest, cache: RenderCache | None = None) -> ChatRequest:
    """The request as a model without native tools must see it."""
    cache = cache or RenderCache()
    system_texts = [m.text for m in request.messages if m.role == "system" and m.text]
    if request.tools:
        system_texts.append(cache.prompt(request.tools, request.small_window))
    body = cache.body(request.messages)
    last_user = max((i for i, m in enumerate(body) if m.role == "user"), default=None)
    if last_user is not None and request.tools:
        required = request.tool_choice == "required"
        text = with_directive(body[last_user].text, required=required)
        body[last_user] = Message("user", (*_shown(body[last_user].parts), TextPart(text)))
    system = [cache.system("\n\n".join(system_texts))] if system_texts else []
    return replace(request, messages=(*system, *body), tools=(), tool_choice=None)


def _as_text(message: Message, names: dict[str, str]) -> Message:
    if message.role == "tool" or message.tool_results:
        text = TextPart(_results_text(message.parts, names))
        shown = [image for result in message.tool_results for image in result.images]
        return Message("user", (*shown, *_shown(message.parts), text))
    if message.role == "assistant" and message.tool_uses:
        return Message("assistant", (TextPart(_assistant_text(message.parts)),))
    return message


def _shown(parts: Iterable[Part]) -> list[Part]:
    """The images and documents among ``parts``: they travel as they are, in any mode."""
    return [part for part in parts if isinstance(part, ImagePart | DocumentPart)]


def _results_text(parts: tuple[Part, ...], names: dict[str, str]) -> str:
    """The results as delimited blocks, then the engine's own notes (the feedback on
    calls that were not run) as plain text: only tool output needs neutralizing."""
    blocks = [
        render_result(p, names.get(p.tool_use_id, "unknown"))
        for p in parts
        if isinstance(p, ToolResult)
    ]
    notes = [p.text.strip() for p in parts if isinstance(p, TextPart) and p.text.strip()]
    return "\n\n".join([*blocks, *notes])


def _assistant_text(parts: Iterable[Part]) -> str:
    chunks = []
    for part in parts:
        if isinstance(part, TextPart) and part.text.strip():
            chunks.append(part.text.strip())
        elif isinstance(part, ToolUse):
            chunks.append(render_call(part.name, part.input))
    return "\n".join(chunks)
