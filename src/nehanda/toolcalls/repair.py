"""Repairs for the JSON inside one delimited tool-call block, and nowhere else.

The fixes are the slips models actually make: leaked tags and code fences inside
the block, single quotes, Python's ``True``/``False``/``None``, trailing commas, raw
newlines and tabs inside strings, the ``{"ToolName", "arguments": ...}`` shorthand,
and a missing or extra final bracket. They run as one regex pass over the block, so
a large argument costs little. ``json_repair`` is the last resort, for small blocks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from nehanda.toolcalls.jsonvalue import Failure, decode

_TOKEN = re.compile(
    r"""(?P<dq>"[^"\\]*(?:\\.[^"\\]*)*")
      |(?P<sq>'[^'\\]*(?:\\.[^'\\]*)*')
      |(?P<tag></?(?:tool_call|tool_calls|arguments|function_call|parameters)>)
      |(?P<fence>```[A-Za-z0-9_]*)
      |(?P<lit>True|False|None)
      |(?P<comma>,(?=\s*[}\]]))""",
    re.S | re.X,
)
_NOTES = {"tag": "leaked tags", "fence": "code fences", "comma": "trailing commas"}
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_NEEDS_FIX = re.compile(r'[\x00-\x1f]|\\[^"\\/bfnrtu]', re.S)
_ESCAPE = re.compile(r"\\(.)|([\x00-\x1f])", re.S)
_CONTROL = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
_SQ_BODY = re.compile(r'\\(.)|"', re.S)
_SHORTHAND = re.compile(r'\s*\{\s*("[^"\\]*")\s*,')
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]', re.S)
_PAIRS = {"{": "}", "[": "]"}
_BARE_WORD = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|([^\s{}\[\],:"]+)', re.S)

# json_repair is pure Python: fine for a small block, slow on a megabyte.
_JSON_REPAIR_MAX_CHARS = 64 * 1024
_JSON_REPAIR_MAX_DEPTH = 100


@dataclass(frozen=True)
class Repaired:
    value: Any
    notes: tuple[str, ...]
    by_json_repair: bool = False


def _fix_escape(m: re.Match[str]) -> str:
    escaped, control = m.group(1), m.group(2)
    if control is not None:
        return _CONTROL.get(control, f"\\u{ord(control):04x}")
    if escaped in '"\\/bfnrtu':
        return m.group(0)
    if escaped == "'":
        return "'"
    return "\\\\" + (_CONTROL.get(escaped, escaped))


def _string(body: str, notes: set[str]) -> str:
    if _NEEDS_FIX.search(body):
        notes.add("raw control characters or bad escapes in strings")
        body = _ESCAPE.sub(_fix_escape, body)
    return '"' + body + '"'


def _requote(m: re.Match[str]) -> str:
    escaped = m.group(1)
    if escaped is None:
        return '\\"'
    return "'" if escaped == "'" else m.group(0)


def _single_quoted(body: str) -> str:
    return _SQ_BODY.sub(_requote, body)


def _tokens(text: str, notes: set[str]) -> str:
    def fix(m: re.Match[str]) -> str:
        kind = m.lastgroup
        token = m.group(0)
        if kind == "dq":
            return _string(token[1:-1], notes)
        if kind == "sq":
            notes.add("single quotes")
            return _string(_single_quoted(token[1:-1]), notes)
        if kind == "lit":
            start, end = m.span()
            if (start and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
                return token
            notes.add("Python literals")
            return _LITERALS[token]
        notes.add(_NOTES.get(kind or "", "stray text"))
        return ""

    return _TOKEN.sub(fix, text)


def _balance(text: str, notes: set[str]) -> tuple[str, int]:
    """Close what is left open and drop closers that close nothing; returns max depth."""
    stack: list[str] = []
    deepest = 0
    kept: list[str] = []
    start = 0
    for m in _STRUCTURE.finditer(text):
        c = m.group(0)
        if c in _PAIRS:
            stack.append(_PAIRS[c])
            deepest = max(deepest, len(stack))
        elif c in "}]":
            if stack:
                stack.pop()
            else:
                kept.append(text[start : m.start()])
                start = m.end()
    if kept:
        notes.add("an extra closing bracket")
        text = "".join(kept) + text[start:]
    if stack:
        notes.add("a missing closing bracket")
        text = text.rstrip() + "".join(reversed(stack))
    return text, deepest


def repair(text: str) -> Repaired | Failure:
    """The value a malformed block meant, or why it cannot be read."""
    notes: set[str] = set()
    fixed = _tokens(text, notes)
    shorthand = _SHORTHAND.match(fixed)
    if shorthand:
        notes.add("the name shorthand")
        fixed = '{"name": ' + shorthand.group(1) + "," + fixed[shorthand.end() :]
    fixed, deepest = _balance(fixed.strip(), notes)
    value = decode(fixed)
    if not isinstance(value, Failure):
        return Repaired(value, tuple(sorted(notes)))
    if not value.repairable or value.kind == "duplicate_key":
        return value
    if deepest > _JSON_REPAIR_MAX_DEPTH:
        return value
    if len(fixed) > _JSON_REPAIR_MAX_CHARS:
        return value
    return _last_resort(fixed, value)


def _last_resort(text: str, failure: Failure) -> Repaired | Failure:
    try:
        import json_repair

        value = json_repair.loads(text)
    except Exception:
        # json_repair is third-party code fed hostile text: any failure means "no".
        return failure
    if not isinstance(value, dict | list) or not value or not _keeps_words(text, value):
        return failure
    return Repaired(value, ("quotes, commas or brackets",), by_json_repair=True)


def _keeps_words(text: str, value: Any) -> bool:
    """Whether every unquoted word of ``text`` survives in ``value``.

    json_repair may fix structure (quotes, commas, colons, brackets) but must not
    drop content: ``{"path": ??? }`` is not a call with an empty path.
    """
    try:
        blob = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        return False
    for m in _BARE_WORD.finditer(text):
        word = m.group(1)
        if word is not None and word not in blob:
            return False
    return True
