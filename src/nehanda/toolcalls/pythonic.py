"""Pythonic tool calls, ``NAME(k="v", n=1)``, read without Python: a small hand-written parser.

Llama 3.2 / Llama 4 / BFCL print a list ``[A(k="v"), B()]``; Olmo 3 prints calls on
separate lines; LFM2 wraps a list in its own tokens. Arguments are keyword arguments
whose values are literals, mapped to JSON: strings (every Python prefix but ``b``, triple
quotes, Python escapes, adjacent strings joined), ints (``0x``, ``_``, leading zeros
tolerated), finite floats, ``True``/``False``/``None`` and the JSON spellings
``true``/``false``/``null``, lists, tuples and sets (as lists), dicts (string, number or
literal keys). Anything else (a name, an attribute, a call, an operator, a positional
argument) makes that call unreadable: it is kept as a ``PyCall`` with ``problem`` set, and
its siblings are still read (as vLLM's pythonic parsers salvage good siblings).
``read_object`` reads one dict literal with the same reader, leniently, for the calls
written in tool output (``toolcalls.objects``).

The parser is linear in the text: one pass, plus at most one more over an unreadable
call to find its end; nesting is capped (``MAX_DEPTH``) so no input recurses deeply, and
names are capped at 256 characters. It never raises on any text and never evaluates.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

from nehanda.toolcalls.jsonvalue import Failure
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.shapes import Found, checked, failure_found

MAX_DEPTH = 64

_WS = re.compile(r"\s*")
_INLINE_WS = re.compile(r"[ \t\f\v\r]*")
# A tool name: Python-like, but MCP names also hold dots and hyphens (mcp__git.log-v2).
_NAME = re.compile(r"[^\W\d][\w.\-]{0,255}")
_IDENT = re.compile(r"[^\W\d]\w{0,255}")
_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?"
)
_PREFIX = re.compile(r"[rRuUfFbB]{0,2}(?=['\"])")
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\n": "",
}
_LITERAL_NAMES: dict[str, Any] = {
    "True": True,
    "False": False,
    "None": None,
    "true": True,
    "false": False,
    "null": None,
}
ProblemTag = Literal["invalid", "duplicate", "signature"]


@dataclass(frozen=True)
class PyCall:
    """One call as written. ``problem`` set: it could not be read (``args`` is then {}).

    ``cut``: the text ended inside this call.
    """

    name: str
    args: dict[str, Any]
    problem: tuple[ProblemTag, str] | None = None
    cut: bool = False


@dataclass(frozen=True)
class PyCalls:
    """The calls read from the start of a text.

    ``end``: where reading stopped (trailing text begins). ``listed``: they were written
    as a ``[...]`` list. ``closed``: the list's ``]`` was read (always True for calls not
    in a list). ``cut``: the text ended before the calls were finished.
    """

    calls: tuple[PyCall, ...]
    end: int
    listed: bool
    closed: bool
    cut: bool


class _Bad(Exception):
    def __init__(self, detail: str, tag: ProblemTag = "invalid") -> None:
        super().__init__(detail)
        self.detail = detail
        self.tag: ProblemTag = tag


class _Cut(Exception):
    pass


def read_calls(text: str, pos: int = 0, *, unwrap: Collection[str] = ()) -> PyCalls | None:
    """The calls written at ``text[pos:]`` (after whitespace), or None if none starts there.

    ``[A(...), B(...)]`` is a list; otherwise calls follow one another, separated by
    newlines, ``;`` or ``,``. A name in ``unwrap`` wrapping a single call (Gemma 3's
    ``print(NAME(...))``) stands for that call.
    """
    try:
        return _Reader(text, frozenset(unwrap)).calls(pos)
    except (RecursionError, MemoryError):  # pragma: no cover - depth is capped
        return None


class _Reader:
    def __init__(self, text: str, unwrap: frozenset[str]) -> None:
        self.text = text
        self.n = len(text)
        self.unwrap = unwrap

    # -- structure ---------------------------------------------------------

    def ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def call_ahead(self, i: int) -> bool:
        m = _NAME.match(self.text, i)
        if m is None:
            return False
        j = self.ws(m.end())
        return j < self.n and self.text[j] == "("

    def calls(self, pos: int) -> PyCalls | None:
        text = self.text
        i = self.ws(pos)
        listed = i < self.n and text[i] == "["
        if listed:
            i = self.ws(i + 1)
        if not self.call_ahead(i):
            return None
        found: list[PyCall] = []
        while True:
            call, i = self.call(i)
            found.append(call)
            if call.cut:
                return PyCalls(tuple(found), self.n, listed, False, True)
            if listed:
                j = self.ws(i)
                if j >= self.n:
                    return PyCalls(tuple(found), self.n, True, False, True)
                if text[j] == "]":
                    return PyCalls(tuple(found), j + 1, True, True, False)
                if text[j] != ",":
                    return PyCalls(tuple(found), i, True, False, False)
                j = self.ws(j + 1)
                if j >= self.n:
                    return PyCalls(tuple(found), self.n, True, False, True)
                if text[j] == "]":
                    return PyCalls(tuple(found), j + 1, True, True, False)
                if not self.call_ahead(j):
                    return PyCalls(tuple(found), i, True, False, False)
                i = j
                continue
            # Not listed: a newline, ";" or "," may separate the next call.
            j = _INLINE_WS.match(text, i).end()  # type: ignore[union-attr]
            if j < self.n and text[j] in ";,":
                j += 1
            elif not (j < self.n and text[j] == "\n"):
                return PyCalls(tuple(found), i, False, True, False)
            j = self.ws(j)
            if not self.call_ahead(j):
                return PyCalls(tuple(found), i, False, True, False)
            i = j

    def call(self, i: int, *, outer: bool = True) -> tuple[PyCall, int]:
        """The call at ``i`` (a name then "(" is known to be there) and the index after it.

        Only an ``outer`` call is unwrapped: ``print(print(...))`` recurses no deeper.
        """
        m = _NAME.match(self.text, i)
        assert m is not None
        name = m.group()
        open_at = self.ws(m.end())
        inner = self.ws(open_at + 1)
        if outer and name in self.unwrap and self.call_ahead(inner):
            call, j = self.call(inner, outer=False)
            if call.cut:
                return call, self.n
            j = self.ws(j)
            if j < self.n and self.text[j] == ")":
                return call, j + 1
            if j >= self.n:
                return PyCall(call.name, {}, None, cut=True), self.n
            # print(A(), more): not the wrapper form; read it as a call to the wrapper.
        try:
            args, j = self.arguments(open_at + 1)
        except _Cut:
            return PyCall(name, {}, None, cut=True), self.n
        except _Bad as bad:
            end = self.skip_group(open_at)
            if end < 0:
                return PyCall(name, {}, None, cut=True), self.n
            return PyCall(name, {}, (bad.tag, bad.detail)), end
        return PyCall(name, args), j

    def arguments(self, i: int) -> tuple[dict[str, Any], int]:
        text = self.text
        args: dict[str, Any] = {}
        i = self.ws(i)
        while True:
            if i >= self.n:
                raise _Cut
            if text[i] == ")":
                return args, i + 1
            m = _IDENT.match(text, i)
            key = m.group() if m else None
            j = self.ws(m.end()) if m else i
            if key is None or j >= self.n or text[j] != "=" or text.startswith("==", j):
                if j >= self.n:
                    raise _Cut
                if key is not None and text[j] == ":":
                    raise _Bad("a parameter list (name: type), not a call", "signature")
                raise _Bad("a positional argument; name every argument: NAME(key=value)")
            if key in args:
                raise _Bad(key, "duplicate")
            value, i = self.value(self.ws(j + 1), 0)
            args[key] = value
            i = self.ws(i)
            if i >= self.n:
                raise _Cut
            if text[i] == ",":
                i = self.ws(i + 1)
            elif text[i] != ")":
                raise _Bad(f"unexpected {text[i]!r} after the argument {key!r}")

    def skip_group(self, open_at: int) -> int:
        """The index after the bracket matching ``text[open_at]``, or -1 if the text ends."""
        text = self.text
        depth = 0
        i = open_at
        while i < self.n:
            c = text[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    return i + 1
            elif c in "'\"":
                try:
                    _, i = self.string_at(i, i, decode=False)
                except _Cut:
                    return -1
                except _Bad:
                    i += 1
                continue
            i += 1
        return -1

    # -- values ------------------------------------------------------------

    def value(self, i: int, depth: int) -> tuple[Any, int]:
        text = self.text
        if i >= self.n:
            raise _Cut
        if depth >= MAX_DEPTH:
            raise _Bad("the value is nested too deeply")
        c = text[i]
        if c in "'\"" or self._prefixed(i):
            return self.strings(i)
        if c in "-+":
            j = self.ws(i + 1)
            if j >= self.n:
                raise _Cut
            number, k = self.value(j, depth + 1)
            if type(number) not in (int, float):
                raise _Bad(f"{c} before a value that is not a number")
            return (-number if c == "-" else number), k
        if c.isdigit() or (c == "." and i + 1 < self.n and text[i + 1].isdigit()):
            return self.number(i)
        if c == "[":
            items, j = self.sequence(i + 1, "]", depth)
            return items, j
        if c == "(":
            items, j, single = self.tuple_or_group(i + 1, depth)
            return (items[0] if single else items), j
        if c == "{":
            return self.braces(i + 1, depth)
        m = _IDENT.match(text, i)
        if m is not None:
            word = m.group()
            if word in _LITERAL_NAMES:
                return _LITERAL_NAMES[word], m.end()
            if m.end() >= self.n:
                raise _Cut
            raise _Bad(f"{word!r} is not a literal value")
        raise _Bad(f"unexpected {c!r} where a value should be")

    def number(self, i: int) -> tuple[Any, int]:
        m = _NUMBER.match(self.text, i)
        if m is None:  # pragma: no cover - guarded by the caller
            raise _Bad("a malformed number")
        token = m.group()
        end = m.end()
        if end < self.n and (self.text[end].isalnum() or self.text[end] == "_"):
            raise _Bad(f"a malformed number near {token!r}")
        if end >= self.n:
            raise _Cut  # more digits may have followed
        raw = token.replace("_", "")
        if raw[-1] in "jJ":
            raise _Bad("a complex number")
        try:
            if raw[:2].lower() in ("0x", "0o", "0b"):
                return int(raw, 0), end
            if any(ch in raw for ch in ".eE"):
                number = float(raw)
                if not math.isfinite(number):
                    raise _Bad(f"{token} is not a finite number")
                return number, end
            return int(raw, 10), end  # leading zeros (month=07) read as decimal
        except ValueError as exc:  # int digits over the interpreter's limit, "0x_"
            raise _Bad(f"a malformed number near {token[:40]!r}") from exc

    def sequence(self, i: int, close: str, depth: int) -> tuple[list[Any], int]:
        text = self.text
        items: list[Any] = []
        i = self.ws(i)
        while True:
            if i >= self.n:
                raise _Cut
            if text[i] == close:
                return items, i + 1
            value, i = self.value(i, depth + 1)
            items.append(value)
            i = self.ws(i)
            if i >= self.n:
                raise _Cut
            if text[i] == ",":
                i = self.ws(i + 1)
            elif text[i] != close:
                raise _Bad(f"unexpected {text[i]!r} in a list")

    def tuple_or_group(self, i: int, depth: int) -> tuple[list[Any], int, bool]:
        text = self.text
        i = self.ws(i)
        if i < self.n and text[i] == ")":
            return [], i + 1, False
        first, i = self.value(i, depth + 1)
        i = self.ws(i)
        if i >= self.n:
            raise _Cut
        if text[i] == ")":
            return [first], i + 1, True
        if text[i] != ",":
            raise _Bad(f"unexpected {text[i]!r} in parentheses")
        rest, j = self.sequence(self.ws(i + 1), ")", depth)
        return [first, *rest], j, False

    def braces(self, i: int, depth: int) -> tuple[Any, int]:
        text = self.text
        i = self.ws(i)
        if i >= self.n:
            raise _Cut
        if text[i] == "}":
            return {}, i + 1
        first, i = self.value(i, depth + 1)
        i = self.ws(i)
        if i >= self.n:
            raise _Cut
        if text[i] != ":":
            if text[i] not in ",}":
                raise _Bad(f"unexpected {text[i]!r} in braces")
            rest: list[Any] = []
            if text[i] == ",":
                rest, i = self.sequence(self.ws(i + 1), "}", depth)
            else:
                i += 1
            return [first, *rest], i  # a set, as a list in writing order
        obj: dict[str, Any] = {}
        key = first
        while True:
            name = _key(key)
            if name in obj:
                raise _Bad(name, "duplicate")
            obj[name], i = self.value(self.ws(i + 1), depth + 1)
            i = self.ws(i)
            if i >= self.n:
                raise _Cut
            if text[i] == ",":
                i = self.ws(i + 1)
                if i >= self.n:
                    raise _Cut
            elif text[i] != "}":
                raise _Bad(f"unexpected {text[i]!r} in a dict")
            if text[i] == "}":
                return obj, i + 1
            key, i = self.value(i, depth + 1)
            i = self.ws(i)
            if i >= self.n:
                raise _Cut
            if text[i] != ":":
                raise _Bad(f"unexpected {text[i]!r} after a dict key")

    # -- strings -----------------------------------------------------------

    def strings(self, i: int) -> tuple[str, int]:
        """One string literal, or several written side by side (joined, as Python does)."""
        parts: list[str] = []
        while True:
            m = _PREFIX.match(self.text, i)
            start = m.end() if m else i
            value, i = self.string_at(i, start, decode=True)
            parts.append(value)
            j = self.ws(i)
            if j < self.n and (self.text[j] in "'\"" or self._prefixed(j)):
                i = j
                continue
            return "".join(parts), i

    def _prefixed(self, j: int) -> bool:
        m = _PREFIX.match(self.text, j)
        return m is not None and m.end() > j

    def string_at(self, at: int, quote_at: int, *, decode: bool) -> tuple[str, int]:
        """The string whose prefix starts at ``at`` and quote at ``quote_at``; index after it."""
        text = self.text
        prefix = text[at:quote_at].lower()
        if len(set(prefix)) != len(prefix) or ("u" in prefix and len(prefix) > 1):
            raise _Bad(f"a string prefix {prefix!r}")
        if "b" in prefix:
            raise _Bad("a bytes literal")
        q = text[quote_at]
        triple = text.startswith(q * 3, quote_at)
        delim = q * 3 if triple else q
        raw = "r" in prefix
        i = quote_at + len(delim)
        out: list[str] = []
        # The next quote, found again only once passed, and the next backslash before it:
        # each search covers new text only, so a string costs its own length.
        nq = text.find(q, i, self.n)
        while True:
            if 0 <= nq < i:
                nq = text.find(q, i, self.n)
            nb = text.find("\\", i, nq if nq >= 0 else self.n)
            stop = nb if nb >= 0 else nq
            if stop < 0:
                raise _Cut
            if stop > i:
                out.append(text[i:stop])
            if stop == nb:
                if stop + 1 >= self.n:
                    raise _Cut
                if raw:
                    out.append(text[stop : stop + 2])
                    i = stop + 2
                elif decode:
                    piece, i = self.escape(stop + 1)
                    out.append(piece)
                else:
                    i = stop + 2
                continue
            # A quote: closes the string unless a triple-quoted one needs three.
            if triple and not text.startswith(delim, stop):
                out.append(q)
                i = stop + 1
                continue
            value = "".join(out)
            if "f" in prefix and decode:
                bare = value.replace("{{", "").replace("}}", "")
                if "{" in bare or "}" in bare:
                    raise _Bad("an f-string with a placeholder")
                value = value.replace("{{", "{").replace("}}", "}")
            return _no_lone_surrogates(value), stop + len(delim)

    def escape(self, i: int) -> tuple[str, int]:
        """The character(s) an escape stands for; ``i`` is just after the backslash."""
        text = self.text
        c = text[i]
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c], i + 1
        if c in "01234567":
            j = i
            while j < self.n and j < i + 3 and text[j] in "01234567":
                j += 1
            return chr(int(text[i:j], 8)), j
        width = {"x": 2, "u": 4, "U": 8}.get(c)
        if width is not None:
            digits = text[i + 1 : i + 1 + width]
            if len(digits) < width and i + 1 + width > self.n:
                raise _Cut
            if len(digits) < width or any(ch not in "0123456789abcdefABCDEF" for ch in digits):
                raise _Bad(f"a malformed \\{c} escape")
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise _Bad(f"a malformed \\{c} escape")
            return chr(code), i + 1 + width
        if c == "N" and i + 1 < self.n and text[i + 1] == "{":
            close = text.find("}", i + 2, min(i + 130, self.n))
            if close < 0:
                if self.n < i + 130:
                    raise _Cut
                raise _Bad("a malformed \\N escape")
            try:
                return unicodedata.lookup(text[i + 2 : close]), close + 1
            except KeyError as exc:
                raise _Bad("an unknown \\N character name") from exc
        return "\\" + c, i + 1  # unknown escapes keep their backslash, as Python does


def _no_lone_surrogates(value: str) -> str:
    """Pair surrogates written as two escapes (``\\ud83d\\ude00``); replace lone ones."""
    if not any("\ud800" <= ch <= "\udfff" for ch in value):
        return value
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int | float):
        return str(key)
    raise _Bad("a dict key that is not a string or a number")


# -- dicts read leniently ----------------------------------------------------

# Up to the next character that may end or nest a value being skipped.
_SKIPPED = re.compile(r"[^'\"()\[\]{},]*")


@dataclass(frozen=True)
class LooseObject:
    """A dict read by ``read_object``.

    ``keys``: where each key read starts, at any depth, and the dict it is a key of.
    ``reached``: how far the reading went (past the dict's end, for one left open).
    """

    value: dict[str, Any]
    keys: dict[int, dict[str, Any]]
    reached: int


def read_object(
    text: str, start: int = 0, end: int | None = None, *, opened: bool = False
) -> LooseObject | None:
    """The dict at ``text[start:end]`` (after whitespace), read leniently; None if no ``{``
    starts it. ``opened``: its entries start there, as if a ``{`` stood just before.

    The reading for calls written in tool output, where any text may stand beside a call:
    an entry whose value is no literal (a name, a call) is left out, keys may be bare
    names (JavaScript's ``{name: "x"}``), a later key replaces an earlier one, a missing
    comma is read past, and a dict broken off (by ``end``, a slip, or nesting deeper than
    ``MAX_DEPTH``) keeps the entries read before it. Linear in the text read, as the strict
    reader is: a value left out is walked once more.
    """
    reader = _LooseReader(text, end)
    start = reader.ws(start) - opened
    if opened:
        reader.unopened = start
    elif not text.startswith("{", start) or start >= reader.n:
        return None
    try:
        value, stop = reader.braces(start + 1, 0)
    except (RecursionError, MemoryError):  # pragma: no cover - depth is capped
        return None
    return LooseObject(value, reader.keys, stop if reader.deep is None else reader.deep)


class _LooseReader(_Reader):
    """``_Reader`` with dicts read leniently, up to ``end`` (``read_object``)."""

    def __init__(self, text: str, end: int | None) -> None:
        super().__init__(text, frozenset())
        self.n = len(text) if end is None else min(end, len(text))
        self.keys: dict[int, dict[str, Any]] = {}
        self.deep: int | None = None  # where nesting past MAX_DEPTH stopped the reading
        # Once the reading is cut (by ``end`` or the depth), every dict open returns what
        # it has: none reads on, or skips, past the cut.
        self.stopped = False
        self.unopened: int | None = None  # where a "{" is taken to stand (``opened``)

    def value(self, i: int, depth: int) -> tuple[Any, int]:
        if depth >= MAX_DEPTH:
            self.deep = i
            raise _Cut
        return super().value(i, depth)

    def braces(self, i: int, depth: int) -> tuple[Any, int]:
        text, open_at = self.text, i - 1
        obj: dict[str, Any] = {}
        try:
            i = self.ws(i)
            while i < self.n and text[i] != "}":
                self.keys[i] = obj
                key, i = self.loose_key(i, depth)
                i = self.ws(i)
                if i < self.n and text[i] != ":":
                    raise _Bad("a key without a value")
                start = self.ws(i + 1)
                try:
                    obj[key], i = self.value(start, depth + 1)
                except _Bad:
                    i = self.skip_value(start)
                if self.stopped:
                    raise _Cut
                i = self.ws(i)
                if i < self.n and text[i] == ",":  # a missing comma is a slip: read on
                    i = self.ws(i + 1)
            return obj, min(i + 1, self.n)
        except _Bad:
            end = -1 if open_at == self.unopened else self.skip_group(open_at)
            return obj, self.n if end < 0 else end
        except _Cut:
            self.stopped = True
            return obj, self.n

    def loose_key(self, i: int, depth: int) -> tuple[str, int]:
        bare = _IDENT.match(self.text, i)
        if bare is not None and self.text.startswith(":", self.ws(bare.end())):
            return bare.group(), bare.end()
        key, i = self.value(i, depth + 1)
        if self.stopped:
            raise _Cut
        return _key(key), i

    def skip_value(self, i: int) -> int:
        """Where the value at ``i`` ends: at the next ``,`` or closing bracket outside it."""
        depth = 0
        while True:
            i = _SKIPPED.match(self.text, i).end()  # type: ignore[union-attr]
            if i >= self.n:
                return self.n
            char = self.text[i]
            if char in "'\"":
                try:
                    _, i = self.string_at(i, i, decode=False)
                except _Cut:
                    return self.n
                continue
            if char in "([{":
                depth += 1
            elif depth == 0 and char in ",)]}":
                return i
            elif char in ")]}":
                depth -= 1
            i += 1


# -- from calls to Founds ---------------------------------------------------

_TRAILING_MARKUP = (
    "<|python_end|>",
    "<|eot|>",
    "<|eom|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|im_end|>",
    "<|endoftext|>",
    "</s>",
)


def rest_is_blank(text: str, end: int) -> bool:
    """Whether only whitespace and end-of-turn tokens follow ``end``."""
    i = end
    while True:
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if i >= len(text):
            return True
        token = next((t for t in _TRAILING_MARKUP if text.startswith(t, i)), None)
        if token is None:
            return False
        i += len(token)


def founds(
    calls: PyCalls,
    known: Collection[str] | None,
    *,
    closed: bool,
    rename: Callable[[str], str] | None = None,
) -> list[Found]:
    """The ``Found`` for each call: unknown names, unreadable calls and cut-off calls dropped
    with their problem. ``closed``: a closer ended the text, so a call left unfinished is
    malformed rather than cut off by the end of the output."""
    out: list[Found] = []
    for call in calls.calls:
        name = rename(call.name) if rename else call.name
        if call.cut:
            out.append(
                truncated(name)
                if not closed
                else failure_found(name, Failure("invalid_json", "the call is not finished"))
            )
        elif call.problem is not None:
            tag, detail = call.problem
            kind = "duplicate_key" if tag == "duplicate" else "invalid_json"
            out.append(failure_found(name, Failure(kind, detail)))
        else:
            out.append(checked(name, call.args, known))
    return out


def decode_block(
    text: str,
    known: Collection[str] | None,
    *,
    closed: bool,
    unwrap: Collection[str] = (),
    rename: Callable[[str], str] | None = None,
) -> list[Found] | None:
    """Calls in a block reserved for them (after an opener): every call counts, problems
    included; text that does not start with a call is not one (None). A malformed call to
    a name that is no tool is a mention ("<function_calls>NAME(...)</function_calls>"),
    not a call: it is left out, and a block of nothing else is None."""
    calls = read_calls(text, unwrap=unwrap)
    if calls is None:
        return None
    return mentions_dropped(founds(calls, known, closed=closed, rename=rename), known)


def mentions_dropped(found: list[Found], known: Collection[str] | None) -> list[Found] | None:
    """``found`` without the malformed calls to unknown names; None when none is left."""
    if known is None:
        return found
    kept = [
        f
        for f in found
        if not (f.problem is not None and f.problem[0] in _MALFORMED and f.name not in known)
    ]
    return kept or None


_MALFORMED = frozenset({"invalid_json", "duplicate_key"})


def decode_message(
    text: str,
    known: Collection[str] | None,
    *,
    require_list: bool = True,
    closed: bool = False,
    unwrap: Collection[str] = (),
    rename: Callable[[str], str] | None = None,
) -> list[Found] | None:
    """Calls that are a whole message or code block (a bare Llama list, a Gemma 3 fence).

    Stricter than a block: the calls must be all there is (only end-of-turn tokens may
    follow), a list when ``require_list``, and when no call is readable nor names a known
    tool the text is prose, as vLLM's pythonic parsers keep it ("[print(x)]" or
    "[Note(see below)]" is not a call); so is an echoed signature ("Read(path: str)").
    Lists written one after another count as one (vLLM reads only the first).
    """
    groups: list[PyCalls] = []
    pos = 0
    while True:
        part = read_calls(text, pos, unwrap=unwrap)
        if part is None or (require_list and not part.listed):
            break
        groups.append(part)
        if part.cut or not part.closed or part.end == pos:
            break
        pos = part.end
    if not groups:
        return None
    last = groups[-1]
    if not last.cut and not (last.closed and rest_is_blank(text, last.end)):
        return None
    calls = PyCalls(
        tuple(c for g in groups for c in g.calls), last.end, last.listed, last.closed, last.cut
    )
    if any(c.problem is not None and c.problem[0] == "signature" for c in calls.calls):
        return None  # "[Read(file_path: str)]": a signature echoed, not a call
    names = [rename(c.name) if rename else c.name for c in calls.calls]
    if not any(
        (c.problem is None and not c.cut) or (known is not None and name in known)
        for c, name in zip(calls.calls, names, strict=True)
    ):
        return None
    return founds(calls, known, closed=closed, rename=rename)


def decode_bare_list(text: str, known: Collection[str] | None) -> list[Found] | None:
    """A whole message that is a ``[NAME(...), ...]`` list (Llama 3.2/4, BFCL)."""
    return decode_message(text, known)
