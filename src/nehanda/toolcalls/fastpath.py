"""The common complete output, parsed without the streaming machinery.

Most outputs are prose with a few well-formed ``[TOOL_CALL]`` or ``<tool_call>``
blocks holding valid JSON for known tools. ``parse_simple`` handles exactly that and
answers None for anything else (reasoning tags, fences, other formats, repairs,
problems, a leading JSON value, what may be an echoed schema), so the scanner
decides every case with a choice in it. The split-invariance property test holds
this path to the scanner's answers.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from nehanda.toolcalls.dialects import FENCE_MARK
from nehanda.toolcalls.families.hermes import HERMES
from nehanda.toolcalls.families.tool_call import TOOL_CALL
from nehanda.toolcalls.family import START_WINDOW
from nehanda.toolcalls.inline_code import inline_code_end
from nehanda.toolcalls.jsonvalue import DECODER
from nehanda.toolcalls.prelude import WEAK_GATE
from nehanda.toolcalls.registry import FULL, LINE_STARTS, TICK, grammar
from nehanda.toolcalls.schema_echo import is_schema_echo
from nehanda.toolcalls.shapes import calls_in
from nehanda.toolcalls.triggers import Finder, trigger_set
from nehanda.types import ToolUse, new_call_id

_CLOSERS = {TOOL_CALL.opener: TOOL_CALL.closers[0], HERMES.opener: HERMES.closers[0]}
_SPACE = re.compile(r"\s*")
_LEADING_VALUE = re.compile(r"\s*(?:\{|\[\s*[{\]\"\d-]|\[\s*\Z)")
_STARTS = grammar(FULL).starts
_OPENING = grammar(FULL).opening
_LINES = grammar(FULL).lines
_LINE_OPENERS = tuple(_LINES.dialects) if _LINES is not None else ()
# Backticks are looked at only around a word: spans end with their line, so the
# backtick runs of a word's own line say whether it is in inline code (_past_code).
_TRIGGERS = trigger_set(grammar(FULL).plain.words - {TICK}, frozenset(_LINE_OPENERS))
_DECODE = DECODER.raw_decode


def parse_simple(text: str, known: Collection[str]) -> tuple[list[ToolUse], str] | None:
    """The calls and visible text of a plain output, or None when it needs the scanner."""
    if _LEADING_VALUE.match(text) or _starts_a_form(text) or text.startswith(_OPENING):
        return None
    find = Finder(_TRIGGERS).search
    m = find(text)
    if m is None:
        return [], text
    calls: list[ToolUse] = []
    parts: list[str] = []
    pos = code = 0  # inline code is known up to ``code``
    while m is not None:
        start = m.start()
        code = _past_code(text, start, code)
        if code > start:
            m = find(text, code)
            continue
        word = m.group()
        if word in LINE_STARTS:
            if _line_value(text, start) or _after_line_opener(text, start):
                return None
            m = find(text, start + 1)
            continue
        if word == FENCE_MARK and not _at_line_start(text, start):
            code = _code_end(text, start)
            m = find(text, code)
            continue
        closer = _CLOSERS.get(word)
        if closer is None or (start and text[start - 1] == "`"):
            return None
        value_at = _SPACE.match(text, m.end()).end()  # type: ignore[union-attr]
        if not text.startswith("{", value_at):
            return None
        try:
            value, end = _DECODE(text, value_at)
        except (ValueError, RecursionError):
            return None
        end = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if not text.startswith(closer, end) or not _add_calls(value, known, calls):
            return None
        parts.append(text[pos:start])
        pos = code = end + len(closer)
        m = find(text, pos)
    parts.append(text[pos:])
    return calls, "".join(parts)


def _past_code(text: str, at: int, known: int) -> int:
    """Where the inline code holding ``at`` ends (``at`` if none does).

    Read from ``known`` (no span open there) or from ``at``'s line start, if later.
    """
    i = max(known, text.rfind("\n", known, at) + 1)
    while (j := text.find(TICK, i, at)) >= 0:
        i = _code_end(text, j)
        if i > at:
            return i
    return at


def _code_end(text: str, at: int) -> int:
    end = inline_code_end(text, at)
    assert end is not None  # the whole text is here: always decided
    return end


def _starts_a_form(text: str) -> bool:
    at = _SPACE.match(text).end()  # type: ignore[union-attr]
    return any(form.pattern.match(text, at, at + START_WINDOW) for form in _STARTS)


def _at_line_start(text: str, at: int) -> bool:
    j = at
    while j > 0 and text[j - 1] in " \t":
        j -= 1
    return j == 0 or text[j - 1] == "\n"


def _line_value(text: str, at: int) -> bool:
    """Whether a JSON value may start the line at ``at`` (the scanner then decides)."""
    return _at_line_start(text, at) and WEAK_GATE.match(text, at) is not None


def _after_line_opener(text: str, at: int) -> bool:
    """Whether a line opener word (``functools``) starts a line right before ``at``."""
    return any(
        text.endswith(word, 0, at) and _at_line_start(text, at - len(word))
        for word in _LINE_OPENERS
    )


def _add_calls(value: Any, known: Collection[str], calls: list[ToolUse]) -> bool:
    """Append the calls ``value`` names; False if any would be a problem."""
    if type(value) is dict and len(value) == 2:
        name, args = value.get("name"), value.get("arguments")
        if type(name) is str and type(args) is dict and name in known:
            if is_schema_echo(args, None):
                return False  # possibly an echoed schema: the scanner judges it
            calls.append(ToolUse(new_call_id(), name, args, "rescue"))
            return True
    found = calls_in(value, known)
    if not found or any(
        call.problem is not None or call.name is None or is_schema_echo(call.args, None)
        for call in found
    ):
        return False
    calls.extend(ToolUse(new_call_id(), str(call.name), call.args, "rescue") for call in found)
    return True
