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

One event (SSE) or line (NDJSON) may hold ``MAX_EVENT_BYTES``: a server that never ends
one meets a ``StreamProtocolError`` once that much is held, counted in bytes as they come,
instead of filling memory; JSON lines are read with their nesting bounded (``bounded_json``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from nehanda.errors import StreamProtocolError
from nehanda.providers.bounded_json import loads

_LINE_END = re.compile(rb"\r\n|\r|\n")
MAX_EVENT_BYTES = 16 << 20


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class _LineSplitter:
    """Bytes in, complete lines out; a ``\\r\\n`` split across pieces counts once.

    Lines are cut on bytes: in UTF-8 no character's bytes include ``\\r`` or ``\\n``, so
    each line decodes whole, however the pieces were cut."""

    def __init__(self) -> None:
        self._partial: list[bytes] = []
        self.partial_bytes = 0
        self._after_cr = False

    def feed(self, data: bytes) -> list[bytes]:
        if self._after_cr and data[:1] == b"\n":
            data = data[1:]
        if not data:
            return []
        self._after_cr = data.endswith(b"\r")
        parts = _LINE_END.split(data)
        if len(parts) == 1:
            self._partial.append(data)
            self.partial_bytes += len(data)
            return []
        parts[0] = b"".join(self._partial) + parts[0]
        tail = parts.pop()
        self._partial, self.partial_bytes = ([tail] if tail else []), len(tail)
        return parts

    def flush(self) -> list[bytes]:
        if not self._partial:
            return []
        line = b"".join(self._partial)
        self._partial, self.partial_bytes = [], 0
        return [line]


class _Bounded:
    """What both decoders share: the stream's name for errors, and the bound on what one
    item may hold before it ends (a server that never ends one must not fill memory)."""

    def __init__(
        self, *, provider: str = "", model: str = "", limit: int = MAX_EVENT_BYTES
    ) -> None:
        self._lines = _LineSplitter()
        self._provider = provider
        self._model = model
        self.limit = limit

    def _error(self, what: str) -> StreamProtocolError:
        where = f"{self._provider} (model {self._model})" if self._model else self._provider
        return StreamProtocolError(
            f"{where}: {what}" if where else what, provider=self._provider, model=self._model
        )

    def _check(self, held: int, item: str) -> None:
        if held > self.limit:
            raise self._error(
                f"{item} of the stream passed {self.limit >> 20} MiB without ending, so "
                "nehanda stopped reading it (is this server streaming as its API says?)"
            )


class SSEDecoder(_Bounded):
    """Turns an ``text/event-stream`` body into ``SSEEvent``s; one event may hold up to
    ``limit`` bytes."""

    def __init__(
        self, *, provider: str = "", model: str = "", limit: int = MAX_EVENT_BYTES
    ) -> None:
        super().__init__(provider=provider, model=model, limit=limit)
        self._data: list[str] = []
        self._data_bytes = 0
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None
        self._started = False

    @property
    def buffered(self) -> int:
        """The bytes held for the event not yet complete."""
        return self._data_bytes + self._lines.partial_bytes

    def feed(self, data: bytes) -> list[SSEEvent]:
        events = self._events(self._lines.feed(data))
        self._check(self.buffered, "an event")
        return events

    def flush(self) -> list[SSEEvent]:
        events = self._events(self._lines.flush())
        event = self._dispatch()
        if event is not None:
            events.append(event)
        return events

    def _events(self, lines: list[bytes]) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if not self._started:
                self._started = True
                line = line.removeprefix("\ufeff")
            if not line:
                event = self._dispatch()
                if event is not None:
                    events.append(event)
            elif not line.startswith(":"):
                self._field(line, len(raw))
        return events

    def _field(self, line: str, size: int) -> None:
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_bytes += size
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)

    def _dispatch(self) -> SSEEvent | None:
        data, event = self._data, self._event
        self._data, self._data_bytes, self._event = [], 0, ""
        if not data:
            return None
        return SSEEvent("\n".join(data), event or "message", self._id, self._retry)


class NDJSONDecoder(_Bounded):
    """Turns a newline-delimited JSON body into one parsed object per line.

    Blank lines are skipped; a line that is not a JSON object, or one longer than
    ``limit`` bytes, raises ``StreamProtocolError`` naming the provider and model given here.
    """

    @property
    def buffered(self) -> int:
        return self._lines.partial_bytes

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        items = self._parse(self._lines.feed(data))
        self._check(self.buffered, "a line")
        return items

    def flush(self) -> list[dict[str, Any]]:
        return self._parse(self._lines.flush())

    def _parse(self, lines: list[bytes]) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for raw in lines:
            self._check(len(raw), "a line")
            line = raw.decode("utf-8", "replace")
            if not line.strip():
                continue
            try:
                item = loads(line)
            except json.JSONDecodeError as exc:
                raise self._line_error(
                    f"a line of the stream is not JSON ({exc.msg})", line
                ) from exc
            if not isinstance(item, dict):
                raise self._line_error("a line of the stream is not a JSON object", line)
            items.append(item)
        return items

    def _line_error(self, what: str, line: str) -> StreamProtocolError:
        return self._error(f"{what}: {line[:200]!r}")
