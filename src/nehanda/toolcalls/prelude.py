"""What may sit between a block's opener and its JSON, and whether a value follows.

After ``[TOOL_CALL]`` a model may write whitespace, leaked tags, a code fence, a
bare tool name (``Name[ARGS]{...}``, ``name<｜tool▁sep｜>{...}``) before the value.
``read_prelude`` decides, from a bounded stretch of text, whether the opener starts
a call (and where its value begins) or was only mentioned in prose. The answer
depends only on the text, never on where a chunk ended.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from nehanda.toolcalls.dialects import Dialect

LIMIT = 512

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      |(?P<tag></?(?:tool_call|tool_calls|arguments|function_call)>)
      |(?P<fence>```[A-Za-z0-9_]*[ \t]*\r?\n)
      |(?P<args>\[ARGS\])
      |(?P<callid>\[CALL_ID\])
      |(?P<sep><｜tool▁sep｜>)
      |(?P<name>\w[\w.\-]*)""",
    re.X,
)
_LITERALS = (
    "<tool_call>",
    "</tool_call>",
    "<tool_calls>",
    "</tool_calls>",
    "<arguments>",
    "</arguments>",
    "<function_call>",
    "</function_call>",
    "[ARGS]",
    "[CALL_ID]",
    "<｜tool▁sep｜>",
    "<function=",
)
_PARTIAL_FENCE = re.compile(r"`{1,2}\Z|```[A-Za-z0-9_]*[ \t]*\r?\Z")
# A value must look like one from its first characters: prose such as "[TOOL_CALL]
# [see below]" is a mention, not a block with broken JSON.
STRONG_GATE = re.compile(r"\{\s*[\"'}]|\[\s*\{")
WEAK_GATE = re.compile(r"\{\s*\"|\[\s*\{\s*\"")
_GATE_PARTIAL = re.compile(r"\{\s*\Z|\[\s*\Z|\[\s*\{\s*\Z")

NEED = "need"
REJECT = "reject"
TRUNCATED = "truncated"


@dataclass(frozen=True)
class Start:
    """The value (or ``<function=`` element when ``xml``) starts at ``at``."""

    at: int
    name: str | None
    xml: bool = False


def partial_literal(buf: str, pos: int, literals: tuple[str, ...] = _LITERALS) -> bool:
    rest = buf[pos:]
    return any(len(rest) < len(lit) and lit.startswith(rest) for lit in literals) or bool(
        _PARTIAL_FENCE.match(rest)
    )


def gate(buf: str, pos: int, final: bool, pattern: re.Pattern[str]) -> bool | None:
    """True if a value starts at ``pos``, None if more text must decide, else False."""
    if pattern.match(buf, pos):
        return True
    if not final and _GATE_PARTIAL.match(buf, pos):
        return None
    return False


@dataclass
class _Seen:
    names: list[str]
    keyword: bool = False
    id_next: bool = False


def _name(seen: _Seen, dialect: Dialect) -> str | bool | None:
    """The tool name the prelude gave; False when its words cannot be a call."""
    limit = 2 if dialect.name_required else 1
    if len(seen.names) > limit:
        return False
    if dialect.name_required:
        return seen.names[-1] if seen.names else False
    return seen.names[0] if seen.names else None


def _at_end(seen: _Seen, dialect: Dialect, known: Collection[str] | None) -> str:
    name = _name(seen, dialect)
    if name is None or seen.keyword or (isinstance(name, str) and (known is None or name in known)):
        return TRUNCATED
    return REJECT


def _value_start(buf: str, i: int, final: bool, seen: _Seen, dialect: Dialect) -> Start | str:
    name = _name(seen, dialect)
    if name is False or (name is not None and buf[i] != "{"):
        return REJECT
    ok = gate(buf, i, final, STRONG_GATE)
    if ok is None:
        return NEED
    return Start(i, name if isinstance(name, str) else None) if ok else REJECT


def read_prelude(
    buf: str, pos: int, final: bool, dialect: Dialect, known: Collection[str] | None
) -> Start | str:
    """Where the value after an opener starts, or NEED, REJECT (a mention), TRUNCATED."""
    seen = _Seen([])
    i, n = pos, len(buf)
    while i - pos <= LIMIT:
        if i >= n:
            return _at_end(seen, dialect, known) if final else NEED
        c = buf[i]
        if c == "[" and not final and partial_literal(buf, i):
            return NEED
        if c in "{[" and not buf.startswith(("[ARGS]", "[CALL_ID]"), i):
            return _value_start(buf, i, final, seen, dialect)
        if dialect.xml and not seen.names and buf.startswith("<function=", i):
            return Start(i, None, xml=True)
        m = _TOKEN.match(buf, i)
        if m is None:
            return NEED if not final and partial_literal(buf, i) else REJECT
        if m.end() == n and not final:
            return NEED
        kind = m.lastgroup
        if kind == "name":
            if seen.id_next:
                seen.id_next = False
            elif dialect.name_prefix:
                seen.names.append(m.group())
                if _name(seen, dialect) is False and not dialect.name_required:
                    return REJECT
            else:
                return REJECT
        elif kind in ("args", "sep", "callid"):
            seen.keyword = True
            seen.id_next = kind == "callid"
        i = m.end()
    return REJECT
