"""``ToolCalling``: a provider with the tool-calling policy on top, the one holder of the mode.

The adapters speak wire protocols and decide nothing; this wrapper decides how tools
are called and keeps a response honest about its calls. It is shared by everything
that streams a conversation (the engine now, ``nehanda serve`` later):

- the mode, native or rescue: chosen at the start (``choose_mode``, the specification's
  four rules) and switched by ``mode`` alone; in rescue mode requests go through
  ``RescueProvider``;
- the fallback: a native request the provider refuses (``ToolsUnsupportedError``)
  before any answer arrived is asked again in rescue mode, after ``ModeSwitched``;
- leak recovery: in native mode, the text goes through ``providers.leaks.LeakedCalls``
  (loaded by ``providers.leak_watch.LeakWatch`` only for text that may hold a call),
  so that call markup the server passed on as prose is never shown, and the complete
  calls in it become calls (``ToolUseEnd`` events, then ``LeakedCallsRecovered``) before
  ``MessageEnd`` when the server gave none of its own;
- truncation: ``is_truncated`` says whether a response stopped for length inside a call;
- sight: a model known not to see images gets notes in their place, and the user is
  told once (``ImagesWithheld``); a server that refuses images (``ImagesUnsupportedError``)
  before any answer is asked again so, and the lesson is ``ImagesWithheld.learned``
  (``providers.vision``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from nehanda.errors import ImagesUnsupportedError, ToolsUnsupportedError
from nehanda.events import (
    ImagesWithheld,
    MessageEnd,
    ModeSwitched,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
)
from nehanda.providers.base import Capabilities, ChatRequest, Provider, Wrapper
from nehanda.providers.mode import Mode, ModeDecision, decide_mode
from nehanda.providers.vision import has_images, withheld_message, without_images
from nehanda.types import ToolUse

if TYPE_CHECKING:
    # Only choose_mode's callers need these, and settings bring pydantic with them; the
    # rescue path loads the parser, which native mode does without.
    from nehanda.config.settings import ProviderConfig
    from nehanda.providers.leak_watch import LeakWatch
    from nehanda.providers.rescue import RescueProvider
    from nehanda.providers.tool_support import ToolSupportCache


def choose_mode(
    config: ProviderConfig,
    found: Capabilities,
    support: ToolSupportCache,
    override: Mode | None = None,
) -> ModeDecision:
    """The mode a conversation starts in: ``override`` (``--mode``, the REPL's ``/mode``)
    wins over the settings, what the provider found out about the model and remembered
    refusals; only an endpoint that takes no native tools at all overrules it."""
    return decide_mode(
        config.type,
        force_manual_tools=override == "rescue" if override else config.force_manual_tools,
        native_tools=True if override == "native" else found.native_tools,
        tools_refused=support.refused(config) and override != "native",
    )


class ToolCalling(Wrapper):
    """``inner`` with the mode, the refusal fallback and leak recovery applied."""

    def __init__(
        self,
        inner: Provider,
        mode: Mode = "native",
        *,
        recover_leaks: bool = True,
        sees_images: bool | None = None,
        tell_each_request: bool = False,
    ):
        super().__init__(inner)
        self.mode: Mode = mode
        self.recover_leaks = recover_leaks
        # None: ask the provider what it knows of the model when an image first comes.
        self.sees_images = sees_images
        # serve's requests come from many clients, each to be told; a session's user once.
        self.tell_each_request = tell_each_request
        self._blind_told = False
        self._wrapped: RescueProvider | None = None

    @property
    def _rescue(self) -> RescueProvider:
        """Built when first needed: the rescue parser is not loaded for native mode."""
        if self._wrapped is None:
            from nehanda.providers.rescue import RescueProvider

            self._wrapped = RescueProvider(self.inner)
        return self._wrapped

    def as_sent(self, request: ChatRequest) -> ChatRequest:
        """``request`` as the server will receive it in the current mode (for counting)."""
        return self._rescue.shape(request) if self.mode == "rescue" else request

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        if not has_images(request.messages):
            async for event in self._with_fallback(request):
                yield event
            return
        if self.sees_images is None:
            self.sees_images = (await self.inner.capabilities(request.model)).vision
        if self.sees_images is False:
            if self.tell_each_request or not self._blind_told:
                self._blind_told = True
                yield ImagesWithheld(withheld_message(request.model))
            async for event in self._with_fallback(without_images(request)):
                yield event
            return
        try:
            async for event in self._with_fallback(request):
                yield event
        except ImagesUnsupportedError as refusal:
            # A status error: it comes before any answer, so asking again repeats nothing.
            self.sees_images, self._blind_told = False, True
            yield ImagesWithheld(withheld_message(request.model, str(refusal)), learned=True)
            async for event in self._with_fallback(without_images(request)):
                yield event

    async def _with_fallback(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        answered = False
        asked_in = self.mode
        try:
            async for event in self._in_mode(request):
                answered = answered or isinstance(event, TextDelta | MessageEnd)
                yield event
        except ToolsUnsupportedError as refusal:
            if asked_in == "rescue" or answered:
                raise
            # Requests running alongside (nehanda serve) share the mode: one switches it.
            if self.mode == "native":
                self.mode = "rescue"
                yield ModeSwitched("rescue", str(refusal))
            async for event in self._with_fallback(request):
                yield event

    async def _in_mode(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        if self.mode == "rescue":
            async for event in self._rescue.stream(request):
                yield event
            return
        if not (self.recover_leaks and request.tools):
            async for event in self.inner.stream(request):
                yield event
            return
        leaks: LeakWatch | None = None
        async for event in self.inner.stream(request):
            if leaks is None:  # loaded while the server answers; the parser, only if needed
                from nehanda.providers.leak_watch import LeakWatch

                leaks = LeakWatch(request.tools)
            for out in leaks.handle(event):
                yield out


def is_truncated(
    end: MessageEnd | None, calls: Sequence[ToolUse], problems: Sequence[ToolCallProblem]
) -> bool:
    """Whether a response stopped for length with a call cut short or left unclosed."""
    if end is None or end.stop_reason != "max_tokens":
        return False
    return any(may_be_cut(use) for use in calls) or any(
        problem.kind == "truncated" for problem in problems
    )


def may_be_cut(use: ToolUse) -> bool:
    """A call the length limit may have cut: its rescue block never closed, or its native
    arguments are not readable JSON (the limit stops them mid-value)."""
    return use.unclosed or use.input_error is not None
