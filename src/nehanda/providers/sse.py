"""Sans-I/O decoders for streamed response bodies: Server-Sent Events and NDJSON.

Both take bytes in whatever pieces the network delivers (``feed``) and return the
complete items those bytes finish; ``flush`` ends the stream and returns what the
last, unterminated line completes. The result never depends on where the pieces were
split: a line ending (``\\n``, ``\\r\\n`` or ``\\r``) or a UTF-8 character cut in two
decodes the same as when it arrives whole. Work is linear in the bytes fed.

The SSE rules follow the WHATWG event-stream format: ``data`` lines join with
``\\n``, lines starting with ``:`` are comments, an empty line dispatches the event.
One leniency: at ``flush`` a pending event is dispatched even without its closing
empty line, because servers often end the body right after the last ``data:`` line.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import Any

from nehanda.errors import StreamProtocolError

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class _LineSplitter:
    """Bytes in, complete text lines out; a ``\\r\\n`` split across pieces counts once."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial: list[str] = []
        self._after_cr = False

    def feed(self, data: bytes) -> list[str]:
        return self._split(self._decoder.decode(data))

    def flush(self) -> list[str]:
        lines = self._split(self._decoder.decode(b"", final=True))
        if self._partial:
            lines.append("".join(self._partial))
            self._partial = []
        return lines

    def _split(self, text: str) -> list[str]:
        if not text:
            return []
        if self._after_cr and text[0] == "\n":
            text = text[1:]
        self._after_cr = text.endswith("\r")
        parts = _LINE_END.split(text)
        if len(parts) == 1:
            if text:
                self._partial.append(text)
            return []
        parts[0] = "".join(self._partial) + parts[0]
        tail = parts.pop()
        self._partial = [tail] if tail else []
        return parts


class SSEDecoder:
    """Turns an ``text/event-stream`` body into ``SSEEvent``s."""

    def __init__(self) -> None:
        self._lines = _LineSplitter()
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None
        self._started = False

    def feed(self, data: bytes) -> list[SSEEvent]:
        return self._events(self._lines.feed(data))

    def flush(self) -> list[SSEEvent]:
        events = self._events(self._lines.flush())
        event = self._dispatch()
        if event is not None:
            events.append(event)
        return events

    def _events(self, lines: list[str]) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        for line in lines:
            if not self._started:
                self._started = True
                line = line.removeprefix("\ufeff")
            if not line:
                event = self._dispatch()
                if event is not None:
                    events.append(event)
            elif not line.startswith(":"):
                self._field(line)
        return events

    def _field(self, line: str) -> None:
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)

    def _dispatch(self) -> SSEEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SSEEvent("\n".join(data), event or "message", self._id, self._retry)


class NDJSONDecoder:
    """Turns a newline-delimited JSON body into one parsed object per line.

    Blank lines are skipped; a line that is not a JSON object raises
    ``StreamProtocolError`` naming the provider and model given here.
    """

    def __init__(self, *, provider: str = "", model: str = "") -> None:
        self._lines = _LineSplitter()
        self._provider = provider
        self._model = model

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        return self._parse(self._lines.feed(data))

    def flush(self) -> list[dict[str, Any]]:
        return self._parse(self._lines.flush())

    def _parse(self, lines: list[str]) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for line in lines:
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise self._error(f"a line of the stream is not JSON ({exc.msg})", line) from exc
            if not isinstance(item, dict):
                raise self._error("a line of the stream is not a JSON object", line)
            items.append(item)
        return items

    def _error(self, what: str, line: str) -> StreamProtocolError:
        return StreamProtocolError(
            f"{what}: {line[:200]!r}", provider=self._provider, model=self._model
        )
