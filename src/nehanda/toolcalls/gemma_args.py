"""Gemma's argument syntax: ``{key:value,...}``, and the ``(key: value, ...)`` it drifts to.

Gemma 4's template writes bare keys, strings between a quote mark (``<|"|>``, or
FunctionGemma's ``<escape>``; raw, no escapes), numbers and booleans bare, objects and
arrays nested. Under load Gemma 4 also writes the call's arguments in parentheses
(``call:NAME(key: "value")``, hermes-agent#7449; ``call:NAME(key=value)``, omlx#1886)
and a key's value after ``=`` or in ordinary quotes (ollama#17882): ``Args`` reads
those too, because the decoder only uses it after Gemma's own opener.

Typing: a top-level value the tool's schema types (integer, number, boolean, ...) is
converted from its text as raw-text dialects are; with no schema type, a quoted value
stays a string and a bare one is read as true/false/null or a number where it is one,
else kept as text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from nehanda.toolcalls.xmlcalls import schema_property, typed

MAX_DEPTH = 64
QUOTES = "\"'"

_WS = re.compile(r"\s*")
_BARE_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_BARE_WORDS: dict[str, Any] = {
    "true": True,
    "false": False,
    "True": True,
    "False": False,
    "null": None,
    "None": None,
    "none": None,
    "nil": None,
}
# An ordinary quoted string: backslash escapes understood, up to its own quote.
_QUOTED = {q: re.compile(q + r"(?:[^" + q + r"\\]|\\.)*" + q, re.S) for q in QUOTES}
_CLOSE = {"{": "}", "(": ")"}


class Bad(Exception):
    def __init__(self, detail: str, kind: str = "invalid_json") -> None:
        super().__init__(detail)
        self.detail = detail
        self.kind = kind


class Cut(Exception):
    pass


class Args:
    """Reads Gemma's ``{key:value,...}`` with ``quote`` as the string mark."""

    def __init__(self, text: str, quote: str) -> None:
        self.text = text
        self.n = len(text)
        self.quote = quote

    def ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def string(self, i: int) -> tuple[str, int]:
        """The quoted text at ``i`` (which starts with the mark) and the index after it."""
        start = i + len(self.quote)
        end = self.text.find(self.quote, start)
        if end < 0:
            raise Cut
        return self.text[start:end], end + len(self.quote)

    def quoted(self, i: int) -> tuple[str, int]:
        """An ordinary ``"..."`` or ``'...'`` string at ``i``, escapes read."""
        m = _QUOTED[self.text[i]].match(self.text, i)
        if m is None:
            raise Cut
        inner = m.group()[1:-1]
        try:
            return json.loads('"' + inner.replace("\\'", "'").replace('"', '\\"') + '"'), m.end()
        except ValueError:
            return inner, m.end()

    def bare(self, i: int, stops: str) -> tuple[str, int]:
        """Unquoted text up to one of ``stops`` (or a quote mark), stripped."""
        j = i
        text = self.text
        while j < self.n and text[j] not in stops and not text.startswith(self.quote, j):
            j += 1
        if j >= self.n:
            raise Cut
        return text[i:j].strip(), j

    def key(self, i: int) -> tuple[str, int]:
        if self.text.startswith(self.quote, i):
            key, i = self.string(i)
            return key, self.ws(i)
        if self.text[i] in QUOTES:
            key, i = self.quoted(i)
            return key, self.ws(i)
        return self.bare(i, ":={}[](),")

    def object(
        self, i: int, depth: int, schema: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], int]:
        """The object whose "{" (or "(") is at ``i``; top-level values typed by ``schema``."""
        if depth >= MAX_DEPTH:
            raise Bad("the value is nested too deeply")
        text = self.text
        close = _CLOSE[text[i]]
        out: dict[str, Any] = {}
        i = self.ws(i + 1)
        while True:
            if i >= self.n:
                raise Cut
            if text[i] == close:
                return out, i + 1
            key, i = self.key(i)
            if i >= self.n:
                raise Cut
            if text[i] not in ":=" or not key:
                raise Bad(f"expected key:value, found {text[i]!r}")
            if key in out:
                raise Bad(key, "duplicate_key")
            value, i = self.value(self.ws(i + 1), depth, schema, key, close)
            out[key] = value
            i = self.ws(i)
            if i >= self.n:
                raise Cut
            if text[i] == ",":
                i = self.ws(i + 1)
            elif text[i] != close:
                raise Bad(f"unexpected {text[i]!r} after the value of {key!r}")

    def array(self, i: int, depth: int) -> tuple[list[Any], int]:
        if depth >= MAX_DEPTH:
            raise Bad("the value is nested too deeply")
        text = self.text
        out: list[Any] = []
        i = self.ws(i + 1)
        while True:
            if i >= self.n:
                raise Cut
            if text[i] == "]":
                return out, i + 1
            value, i = self.value(i, depth, None, None)
            out.append(value)
            i = self.ws(i)
            if i >= self.n:
                raise Cut
            if text[i] == ",":
                i = self.ws(i + 1)
            elif text[i] != "]":
                raise Bad(f"unexpected {text[i]!r} in an array")

    def value(
        self,
        i: int,
        depth: int,
        schema: Mapping[str, Any] | None,
        key: str | None,
        close: str = "}",
    ) -> tuple[Any, int]:
        if i >= self.n:
            raise Cut
        text = self.text
        prop = schema_property(schema, key) if schema is not None and key is not None else {}
        declared = any(k in prop for k in ("type", "anyOf", "oneOf"))
        if text.startswith(self.quote, i) or text[i] in QUOTES:
            raw, j = self.string(i) if text[i] not in QUOTES else self.quoted(i)
            return (typed(raw, prop) if declared else raw), j
        if text[i] == "{":
            return self.object(i, depth + 1)
        if text[i] == "[":
            return self.array(i, depth + 1)
        raw, j = self.bare(i, ",}]" + close)
        if not raw and key is None:
            raise Bad("a missing value in an array")
        # "key:" with nothing after it is an empty string, as vLLM reads it.
        if declared:
            value = typed(raw, prop)
            if not isinstance(value, str) or _says_string(prop):
                return value, j
        return _bare_value(raw), j


def _says_string(prop: Mapping[str, Any]) -> bool:
    """Whether the schema allows a string: then unquoted text is kept as written."""
    declared = prop.get("type")
    if declared == "string" or (isinstance(declared, list) and "string" in declared):
        return True
    options = [*(prop.get("anyOf") or ()), *(prop.get("oneOf") or ())]
    return any(isinstance(o, Mapping) and _says_string(o) for o in options)


def _bare_value(raw: str) -> Any:
    if raw in _BARE_WORDS:
        return _BARE_WORDS[raw]
    if _BARE_NUMBER.fullmatch(raw):
        if any(c in raw for c in ".eE"):
            number = float(raw)
            return number if number not in (float("inf"), float("-inf")) else raw
        try:
            return int(raw)
        except ValueError:  # more digits than the interpreter converts
            return raw
    return raw
