"""Finding where a JSON value ends, incrementally, and decoding it once.

``ValueScanner`` follows the structure of one JSON value as text arrives: it skips
string bodies with a regex, counts brackets outside strings and notices a block's
closer there. It never decodes; ``decode`` runs once, on the finished value, with
duplicate keys, huge numbers and deep nesting turned into a ``Failure`` instead of
an exception.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

# Outside strings only quotes, brackets and the first characters of closers matter.
_OUTSIDE = re.compile(r'[^"{}\[\]<`]*')
_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)

MORE = 0
CLOSED = 1
CLOSER = 2


class ValueScanner:
    """Tracks one JSON value (object or array) that starts at the first character fed."""

    __slots__ = ("closers", "depth", "in_string")

    def __init__(self, closers: tuple[str, ...]) -> None:
        self.closers = closers
        self.depth = 0
        self.in_string = False

    def scan(self, buf: str, pos: int, final: bool) -> tuple[int, int]:
        """Advance from ``pos``; returns ``(status, index)``.

        CLOSED: the value ends just before ``index``. CLOSER: a closer starts at
        ``index`` while the value is still open. MORE: text up to ``index`` is
        consumed and more is needed (what is left is a partial escape or closer).
        """
        n = len(buf)
        while pos < n:
            if self.in_string:
                pos = _STRING_BODY.match(buf, pos).end()  # type: ignore[union-attr]
                if pos >= n or buf[pos] == "\\":
                    return MORE, pos
                self.in_string = False
                pos += 1
                continue
            pos = _OUTSIDE.match(buf, pos).end()  # type: ignore[union-attr]
            if pos >= n:
                break
            c = buf[pos]
            if c == '"':
                self.in_string = True
            elif c == "{":
                self.depth += 1
            elif c == "}" or c == "]":
                self.depth -= 1
                if self.depth <= 0:
                    return CLOSED, pos + 1
            else:
                status = self._closer_at(buf, pos, final)
                if status is not None:
                    return status, pos
                if c == "[":
                    self.depth += 1
            pos += 1
        return MORE, pos

    def _closer_at(self, buf: str, pos: int, final: bool) -> int | None:
        """CLOSER if a closer starts here, MORE if one may once more text arrives."""
        for closer in self.closers:
            if buf.startswith(closer, pos):
                return CLOSER
            if not final and len(buf) - pos < len(closer) and closer.startswith(buf[pos:]):
                return MORE
        return None


@dataclass(frozen=True)
class Failure:
    """Why a finished value could not be decoded; ``kind`` is a problem kind."""

    kind: str
    detail: str
    repairable: bool = True


class DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return obj


DECODER = json.JSONDecoder(object_pairs_hook=_pairs)


def decode(text: str) -> Any | Failure:
    """The value ``text`` holds (nothing else around it), or why not."""
    try:
        value, end = DECODER.raw_decode(text)
    except DuplicateKeyError as exc:
        return Failure("duplicate_key", exc.key)
    except RecursionError:
        return Failure("invalid_json", "nested too deeply", repairable=False)
    except json.JSONDecodeError as exc:
        return Failure("invalid_json", f"{exc.msg} at character {exc.pos}")
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        return Failure("invalid_json", str(exc).split(";")[0], repairable=False)
    if end != len(text):
        return Failure("invalid_json", f"extra data at character {end}")
    return value


def split_outside_strings(text: str, mark: re.Pattern[str]) -> list[str]:
    """``text`` cut at each match of ``mark`` outside a JSON string, the marks dropped.

    Any ``"`` outside a string opens one (escapes understood); a string the text ends
    inside runs to its end. This is how a section with ``json_strings`` finds its
    closer, so a body splits where its collector would have stopped.
    """
    pieces: list[str] = []
    start = 0
    for m in _marks_or_strings(mark).finditer(text):
        if m.lastgroup != "string":
            pieces.append(text[start : m.start()])
            start = m.end()
    pieces.append(text[start:])
    return pieces


@functools.cache
def _marks_or_strings(mark: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(rf'(?P<string>"{_STRING_BODY.pattern}"?)|(?:{mark.pattern})', re.S)


def decode_at(buf: str, pos: int) -> tuple[Any, int] | None:
    """Decode a complete value starting at ``pos`` if there is one, else None.

    Used optimistically on text that is often already complete; any failure falls
    back to the structural scan, which gives the same answer more slowly.
    """
    try:
        return DECODER.raw_decode(buf, pos)
    except (ValueError, RecursionError):
        return None


_SNIFF = re.compile(
    r'(?:\[\s*)?\{\s*(?:"type"\s*:\s*"function"\s*,\s*)?'
    r'"(?:name|tool|tool_name|function)"\s*:\s*(?:\{\s*"name"\s*:\s*)?"([^"\\]{1,200})"'
)


def sniff_name(text: str) -> str | None:
    """The tool name at the start of a call object, read before the object is complete."""
    m = _SNIFF.match(text)
    return m.group(1) if m else None
