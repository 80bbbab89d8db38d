"""DeepSeek V3 / V3.1: the call markers, also written in ASCII (V3.2's DSML is ``dsml``).

V3 and V3.1 print a section of calls between ``<｜tool▁calls▁begin｜>`` and
``<｜tool▁calls▁end｜>``; each call is ``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}
<｜tool▁call▁end｜>`` (V3.1, vLLM ``deepseekv31_tool_parser.py``, sglang
``deepseekv31_detector.py``) or ``function<｜tool▁sep｜>NAME`` followed by a fenced
``json`` block (V3). The fullwidth spelling stays the classic ``DEEPSEEK`` dialect
for now; this module reads the same markers written with ASCII bars and
underscores (``<|tool▁call▁begin|>``, ``<|tool_sep|>``), which models print when
they reproduce the tokens as text. ``decode_call_body`` reads one call body in any
of these spellings; Kimi's module uses it for the ASCII ``<|tool_call_begin|>``
opener both families share, and Step-3's for its ``<｜tool_call_begin｜>``.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.jsonvalue import CLOSED, Failure, ValueScanner, decode, split_outside_strings
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.repair import Repaired, repair
from nehanda.toolcalls.shapes import Found, checked, failure_found

SOURCE = (
    "vllm-project/vllm vllm/tool_parsers/deepseekv31_tool_parser.py, "
    "vllm/tool_parsers/deepseekv32_tool_parser.py, vllm/tokenizers/deepseek_v32_encoding.py; "
    "sgl-project/sglang python/sglang/srt/function_call/deepseekv31_detector.py, "
    "deepseekv32_detector.py"
)

_NAME_MAX = 200
# Any spelling of the separator and the call opener: fullwidth or ASCII bars, "▁" or "_".
SEP = re.compile(r"<[｜|]tool[▁_]sep[｜|]>")
CALL_BEGIN = re.compile(r"<[｜|]tool[▁_]call[▁_]begin[｜|]>")
_BAD_NAME = re.compile(r"[\s<>{}\[\]\"'`]")
_FENCE_OPEN = re.compile(r"```[A-Za-z0-9_]*[ \t]*\n?")


# ---------------------------------------------------------------- shared helpers


# ---------------------------------------------------------------- JSON arguments


def json_call(
    name: str,
    text: str,
    known: Collection[str] | None,
    *,
    closed: bool,
) -> Found:
    """One call named outside its JSON, whose arguments are the object ``text`` holds.

    Empty arguments mean ``{}``; a body the output ended inside (``closed`` False)
    that does not decode is truncated; slightly broken JSON is repaired.
    """
    stripped = text.strip()
    if not stripped:
        return checked(name, {}, known) if closed else truncated(name)
    value = decode(stripped)
    if isinstance(value, str):  # the object written as a JSON string (MoonshotAI/Kimi-K2#26)
        inner = decode(value)
        value = inner if isinstance(inner, dict) else value
    if not isinstance(value, Failure):
        if isinstance(value, dict):
            return checked(name, value, known)
        return failure_found(name, Failure("invalid_json", "the arguments are not an object"))
    if value.kind == "duplicate_key":
        return failure_found(name, value)
    if not closed:
        return truncated(name)
    if known is not None and name not in known:
        return checked(name, {}, known)
    if _ends_in_string(stripped):
        # The closer sat inside a string ("<|call|>" in an argument): what follows
        # it is lost, so completing the string would run a different call.
        return failure_found(name, Failure("invalid_json", "the arguments end inside a string"))
    fixed = repair(stripped)
    if isinstance(fixed, Repaired) and isinstance(fixed.value, dict):
        found = checked(name, fixed.value, known)
        if found.problem is None:
            found.repaired = fixed.notes
        return found
    return failure_found(name, fixed if isinstance(fixed, Failure) else value)


def _ends_in_string(text: str) -> bool:
    """Whether a JSON object's text ends inside one of its strings (linear)."""
    scanner = ValueScanner(())
    status, _ = scanner.scan(text, 0, True)
    return status != CLOSED and scanner.in_string


def _unfence(text: str) -> str:
    """The JSON inside a V3 code fence (```json ... ```), or ``text`` as it is."""
    stripped = text.strip()
    if not stripped.startswith("```"):
        return text
    m = _FENCE_OPEN.match(stripped)
    inner = stripped[m.end() :] if m else stripped[3:]
    inner = inner.rstrip()
    if inner.endswith("```"):
        inner = inner[:-3]
    return inner


def good_name(name: str) -> bool:
    return 0 < len(name) <= _NAME_MAX and _BAD_NAME.search(name) is None


def placeholder(name: str) -> bool:
    """``$FUNCTION_NAME``, ``{func_name}``: the template's instructions echoed."""
    return name.startswith("$") or "{" in name


# ---------------------------------------------------------------- V3 / V3.1 call bodies


def _one_call(text: str, closed: bool, known: Collection[str] | None) -> Found | None:
    sep = SEP.search(text, 0, min(len(text), _NAME_MAX + 64))
    if sep is None:
        # Only a later piece can lack the separator (the head saw the first one's).
        return None if closed else truncated(None)
    before = text[: sep.start()].strip()
    after = text[sep.end() :]
    rest = after.lstrip()
    if before == "function" and rest and not rest.startswith("{"):
        # V3: function<sep>NAME, then the arguments (usually in a ```json fence).
        cut = len(rest)
        for mark in ("\n", "```", "{"):
            at = rest.find(mark, 0, _NAME_MAX + 1)
            if at >= 0:
                cut = min(cut, at)
        name = rest[:cut].strip()
        args = rest[cut:]
    else:
        name, args = before, after
    if not good_name(name):
        return None if closed or name else truncated(None)
    return json_call(name, _unfence(args), known, closed=closed)


def decode_call_body(body: Body) -> list[Found] | None:
    """One ``tool_call_begin`` body: ``NAME<sep>{json}`` or ``function<sep>NAME`` + fence.

    A body that runs into a further call opener (a forgotten ``tool_call_end``) holds
    several calls; each is read on its own. An opener inside a JSON string is data.
    """
    pieces = split_outside_strings(body.text, CALL_BEGIN)
    found: list[Found] = []
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        call = _one_call(piece, body.closed or not last, body.known)
        if call is None:
            if i == 0:
                return None
            continue
        found.append(call)
    return found or None


# A name (or "function") without spaces, then the separator: "<|tool_sep|> and" is prose.
_ASCII_HEAD = re.compile(r"\n?[^\s<>]{1,200}+<[｜|]tool[▁_]sep[｜|]>")

# V3 / V3.1 markers with ASCII bars and "▁" (the "_" spelling of the opener is Kimi's
# <|tool_call_begin|>, read by kimi.ASCII_CALL with this module's decode_call_body).
ASCII_CALL = Section(
    "deepseek_ascii",
    "<|tool▁call▁begin|>",
    ("<|tool▁call▁end|>", "<|tool_call_end|>", "<|tool▁calls▁end|>", "<|tool_calls_end|>"),
    decode_call_body,
    head=_ASCII_HEAD,
    json_strings=True,
)
# V3's fullwidth call, read by the streaming JSON block (a closer inside an argument
# string stays content there): ``name<｜tool▁sep｜>{...}`` or V3's
# ``function<｜tool▁sep｜>name\n```json ...```.
DEEPSEEK = Dialect(
    "deepseek",
    "<｜tool▁call▁begin｜>",
    ("<｜tool▁call▁end｜>",),
    name_prefix=True,
    name_required=True,
    multi=False,
)

# Section wrappers and the end-of-sentence token: template markup, never prose.
MARKUP = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<|tool▁calls▁begin|>",
    "<|tool▁calls▁end|>",
    "<|tool_calls_begin|>",
    "<|tool_calls_end|>",
    "<｜end▁of▁sentence｜>",
    "<|end▁of▁sentence|>",
)

FAMILY = Family(
    key="deepseek",
    source=SOURCE,
    dialects=(DEEPSEEK,),
    sections=(ASCII_CALL,),
    # V3.1 and V3.2 think in <think>...</think>, which the think family reads.
    markup=MARKUP,
)
