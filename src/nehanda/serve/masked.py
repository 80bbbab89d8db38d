"""What leaves serve, masked: the reply as it streams, and every log record.

An upstream may echo nehanda's key (or the clients' token) into what it answers; serve
masks every secret it knows (``nehanda.masking``) at three places. ``MaskedEvents`` (sans
I/O: ``handle``, ``finish``) passes the reply's text and its reasoning each through a
``MaskStream``, so that a key cut across two deltas is still found, and masks each call
whole; the app masks every encoded chunk and body before it is sent (ids, names, errors,
model lists); ``mask_log_records`` masks each log record the process makes, from any
logger, its traceback included.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from nehanda.events import ReasoningDelta, TextDelta
from nehanda.masking import SecretMask
from nehanda.serve.turn import CallOut, ServeEvent


class MaskedEvents:
    """A reply's events in, the same events with every secret masked out."""

    def __init__(self, mask: SecretMask) -> None:
        self._mask = mask
        self._text = mask.stream()
        self._reasoning = mask.stream()

    def handle(self, event: ServeEvent) -> list[ServeEvent]:
        if not self._mask:
            return [event]
        if isinstance(event, TextDelta):
            text = self._text.feed(event.text)
            return [*self._end_reasoning(), *([TextDelta(text)] if text else [])]
        if isinstance(event, ReasoningDelta):
            out = self._end_text()
            if event.signature is not None:  # the block ends: nothing more may join it
                text = self._reasoning.feed(event.text) + self._reasoning.flush()
                return [*out, ReasoningDelta(text, self._mask.mask(event.signature))]
            text = self._reasoning.feed(event.text)
            return [*out, *([ReasoningDelta(text)] if text else [])]
        out = self.finish()
        if isinstance(event, CallOut):
            masked = self._mask.mask
            event = replace(
                event,
                id=masked(event.id),
                name=masked(event.name),
                arguments=masked(event.arguments),
            )
        return [*out, event]

    def finish(self) -> list[ServeEvent]:
        """What is held back, once the reply has no more text."""
        return [*self._end_text(), *self._end_reasoning()]

    def _end_text(self) -> list[ServeEvent]:
        text = self._text.flush()
        return [TextDelta(text)] if text else []

    def _end_reasoning(self) -> list[ServeEvent]:
        text = self._reasoning.flush()
        return [ReasoningDelta(text)] if text else []


def mask_log_records(mask: SecretMask) -> None:
    """From now on, every log record this process makes has ``mask``'s secrets masked
    in its message and its traceback, whichever logger and handler it goes to."""
    if not mask:
        return
    make = logging.getLogRecordFactory()

    def masked(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        record.msg, record.args = mask.mask(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = mask.mask(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = mask.mask(record.stack_info)
        return record

    logging.setLogRecordFactory(masked)
