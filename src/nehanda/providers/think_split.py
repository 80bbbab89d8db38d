"""Splits ``<think>...</think>`` reasoning out of a response's streamed content.

llama.cpp's server, LM Studio and vLLM without a reasoning parser stream a reasoning
model's thinking (Qwen3, QwQ, DeepSeek-R1 distills) as content: ``<think>``, the
reasoning, ``</think>``, then the answer. ``ThinkSplitter.feed(delta)`` returns the
``ReasoningDelta`` and ``TextDelta`` events that ``delta`` settles and ``finish()``
the rest, so any split of a content yields the same reasoning and the same text.
Only a possible tag prefix (and the whitespace before ``<think>``) is held back.

The rules. A ``<think>`` counts only at the start of the content, after whitespace;
anywhere else it is text. Reasoning runs to the first ``</think>``, or to the end of
a response cut off while thinking. Whitespace right after either tag is dropped, so
an empty section (``<think>\\n\\n</think>\\n\\n``) yields nothing and the answer
starts at its first word.

A ``</think>`` with no ``<think>`` before it (the chat template opened the section in
the prompt) is left in the text as written. Recognising it would mean holding back
every answer until it proves not to end a reasoning section; what streamed before
it cannot be taken back, and the tag is then the only record of where the reasoning
ended: rescue mode's scanner and the engine's leaked-call recovery read it to tell
drafted calls from real ones, and such models' chat templates drop everything
before it from earlier turns.
"""

from __future__ import annotations

from nehanda.events import ReasoningDelta, TextDelta

OPENER = "<think>"
CLOSER = "</think>"

_OPENING, _REASONING_START, _REASONING, _ANSWER_START, _ANSWER = range(5)


class ThinkSplitter:
    """Content in, reasoning and text out; one instance per response."""

    def __init__(self) -> None:
        self._state = _OPENING
        self._held = ""
        self._out: list[ReasoningDelta | TextDelta] = []

    def feed(self, delta: str) -> list[ReasoningDelta | TextDelta]:
        if self._state == _ANSWER:
            return [TextDelta(delta)] if delta else []
        buf, self._held = self._held + delta, ""
        while buf:
            buf = self._step(buf)
        return self._drain()

    def finish(self) -> list[ReasoningDelta | TextDelta]:
        held, self._held = self._held, ""
        if self._state == _OPENING:
            self._emit(TextDelta, held)
        elif self._state == _REASONING:
            self._emit(ReasoningDelta, held)
        self._state = _ANSWER
        return self._drain()

    def _step(self, buf: str) -> str:
        """Consumes some of ``buf`` and returns the rest; ``""`` once all is settled."""
        if self._state == _OPENING:
            start = buf.lstrip()
            if start.startswith(OPENER):
                self._state = _REASONING_START
                return start[len(OPENER) :]
            if not start or OPENER.startswith(start):
                self._held = buf
                return ""
            self._state = _ANSWER
            self._emit(TextDelta, buf)
            return ""
        if self._state in (_REASONING_START, _ANSWER_START):
            rest = buf.lstrip()
            if rest:
                self._state = _REASONING if self._state == _REASONING_START else _ANSWER
            return rest
        if self._state == _REASONING:
            end = buf.find(CLOSER)
            if end >= 0:
                self._emit(ReasoningDelta, buf[:end])
                self._state = _ANSWER_START
                return buf[end + len(CLOSER) :]
            keep = _partial_closer(buf)
            self._emit(ReasoningDelta, buf[: len(buf) - keep])
            self._held = buf[len(buf) - keep :]
            return ""
        self._emit(TextDelta, buf)
        return ""

    def _emit(self, kind: type[ReasoningDelta] | type[TextDelta], text: str) -> None:
        if not text:
            return
        last = self._out[-1] if self._out else None
        if last is not None and type(last) is kind:
            self._out[-1] = kind(last.text + text)
        else:
            self._out.append(kind(text))

    def _drain(self) -> list[ReasoningDelta | TextDelta]:
        out, self._out = self._out, []
        return out


def _partial_closer(buf: str) -> int:
    """The length of the longest end of ``buf`` that may start a ``</think>``."""
    for size in range(min(len(buf), len(CLOSER) - 1), 0, -1):
        if buf.endswith(CLOSER[:size]):
            return size
    return 0
