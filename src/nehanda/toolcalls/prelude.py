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

from nehanda.toolcalls.dialects import JSON_FENCE_LANGS, Dialect

LIMIT = 512
# Whitespace, a leaked tag or two, a fence, a name, [ARGS]: never more than this.
_MAX_TOKENS = 12
_MAX_TAGS = 2

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      |(?P<tag></?(?:tool_call|tool_calls|arguments|function_call)>)
      |(?P<fence>```[A-Za-z0-9_]{0,32}[ \t]{0,8}\r?\n)
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
_FENCED_TAGS = ("<tool_call>", "<function_call>")
_FENCED_TAG = re.compile(r"(?:<tool_call>|<function_call>)\s*")
_PARTIAL_FENCE = re.compile(r"`{1,2}\Z|```[A-Za-z0-9_]{0,32}[ \t]{0,8}\r?\Z")
# No literal, closer or fence line the callers pass is longer than this.
_LONGEST = 48
# A value must look like one from its first characters: prose such as "[TOOL_CALL]
# [see below]" is a mention, not a block with broken JSON.
# ``{{"`` too: a call inside one extra pair of braces (read by ``blocks``'s repair).
STRONG_GATE = re.compile(r"\{\s*[\"'}]|\[\s*\{|\{\{\s*\"")
WEAK_GATE = re.compile(r"\{\s*\"|\[\s*\{\s*\"")
_GATE_PARTIAL = re.compile(r"\{\s*\Z|\[\s*\Z|\[\s*\{\s*\Z|\{\{\s*\Z")

NEED = "need"
REJECT = "reject"
TRUNCATED = "truncated"

_LANG_LINE = re.compile(r"([^\n`]{0,64})\n")
_LANG_PARTIAL = re.compile(r"[^\n`]{0,64}\Z")
_SPACE = re.compile(r"\s*")


@dataclass(frozen=True)
class Start:
    """The value (or ``<function=`` element when ``xml``) starts at ``at``."""

    at: int
    name: str | None
    xml: bool = False


def partial_literal(buf: str, pos: int, literals: tuple[str, ...] = _LITERALS) -> bool:
    """Whether ``buf[pos:]`` is the start of one of ``literals`` (or of a code fence)."""
    if len(buf) - pos > _LONGEST:
        return False
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
    tags: int = 0
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
    for _ in range(_MAX_TOKENS):
        if i - pos > LIMIT:
            break
        if i >= n:
            return _at_end(seen, dialect, known) if final else NEED
        c = buf[i]
        if c == "[" and not final and partial_literal(buf, i):
            return NEED
        if c in "{[" and not buf.startswith(("[ARGS]", "[CALL_ID]"), i):
            return _value_start(buf, i, final, seen, dialect)
        if dialect.xml and not seen.names and buf.startswith("<function=", i):
            return Start(i, None, xml=True)
        # Bounded: a token running past LIMIT rejects alike, and is not matched again
        # to the end of the buffer on every chunk.
        m = _TOKEN.match(buf, i, min(n, pos + LIMIT + 1))
        if m is None:
            return NEED if not final and partial_literal(buf, i) else REJECT
        if m.end() == n and not final:
            return NEED
        if not _take(seen, m, dialect):
            return REJECT
        i = m.end()
    return REJECT


def _take(seen: _Seen, m: re.Match[str], dialect: Dialect) -> bool:
    """Note one prelude token; False when it shows the opener was only mentioned."""
    kind = m.lastgroup
    if kind == "name":
        if seen.id_next:
            seen.id_next = False
            return True
        seen.names.append(m.group())
        return dialect.name_prefix and (dialect.name_required or _name(seen, dialect) is not False)
    if kind == "tag":
        seen.tags += 1
        # The opener again: the first one was a mention (or a stutter) and the second
        # starts the block.
        return seen.tags <= _MAX_TAGS and m.group() != dialect.opener
    if kind in ("args", "sep", "callid"):
        seen.keyword = True
        seen.id_next = kind == "callid"
    return True


NO_LANG = "\0"


def fence_lang(buf: str, pos: int, final: bool) -> str | None:
    """After a line-start fence mark: its language, lowercased; None until the line ends.

    ``NO_LANG`` when no language line can follow (the fence holds nothing to read).
    """
    m = _LANG_LINE.match(buf, pos)
    if m is not None:
        return m.group(1).strip().lower()
    return None if not final and _LANG_PARTIAL.match(buf, pos) else NO_LANG


def fence_start(buf: str, pos: int, final: bool) -> int | str:
    """After a line-start fence mark: where a JSON call value starts, NEED, or REJECT.

    REJECT means a code fence: a language other than JSON, or a body that does not
    start like a call.
    """
    m = _LANG_LINE.match(buf, pos)
    if m is None:
        return NEED if not final and _LANG_PARTIAL.match(buf, pos) else REJECT
    if m.group(1).strip().lower() not in JSON_FENCE_LANGS:
        return REJECT
    at = _SPACE.match(buf, m.end()).end()  # type: ignore[union-attr]
    if buf.startswith("<", at):  # a call tag inside the fence (mlx-omni-server#4)
        tag = _FENCED_TAG.match(buf, at)
        if tag is None and not final and partial_literal(buf, at, _FENCED_TAGS):
            return NEED
        at = tag.end() if tag else at
    if at >= len(buf):
        return NEED if not final and at - pos <= LIMIT else REJECT
    ok = gate(buf, at, final, STRONG_GATE)
    if ok is None:
        return NEED
    return at if ok else REJECT
