"""Gemma: Gemma 3's ``tool_code`` fence, Gemma 4's ``call:NAME{...}``, FunctionGemma's.

- Gemma 3 (prompted function calling) writes a ```` ```tool_code ```` fence holding
  ``NAME(k="v")`` or ``print(NAME(k="v"))``, Gemini-style ``default_api.NAME`` too; the
  body is read as pythonic calls (``nehanda.toolcalls.pythonic``), or as a JSON call.
- Gemma 4: ``<|tool_call>call:NAME{k:<|"|>v<|"|>,n:1,flag:true}<tool_call|>``; the chat
  template (llama.cpp ``models/templates/gemma4.jinja``) writes bare keys, strings between
  ``<|"|>`` marks (raw: no escapes), numbers and booleans bare, objects and arrays nested.
  vLLM (``vllm/tool_parsers/gemma4_tool_parser.py``, ``gemma4_utils.py`` and
  ``tests/tool_parsers/test_gemma4_regex_and_bare_calls.py``) also takes ``<turn|>`` as the
  closer, a stray ``:`` after the opener, and a bare ``call:NAME{...}`` with no opener.
  Reasoning sits in ``<|channel>thought ... <channel|>``. Prompted otherwise, Gemma 4
  also writes ``<tool_call>NAME({...})</tool_call>`` with a JSON object (vLLM PR
  vllm-project/vllm#39172); under Hermes' opener that counts only as a call to a known
  tool whose object is whole, anything else there being Hermes' or prose; a stray
  quote there ends at the first ``</tool_call>`` after all (``cut_at_closer``), so the
  text and Hermes calls after it are read again.
- FunctionGemma: ``<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>``
  (vLLM ``functiongemma_tool_parser.py``), every value usually quoted.

Typing: a top-level value the tool's schema types (integer, number, boolean, ...) is
converted from its text as raw-text dialects are (FunctionGemma quotes numbers); with no
schema type, a quoted value stays a string and a bare one is read as true/false/null or
a number where it is one, else kept as text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from nehanda.toolcalls import pythonic
from nehanda.toolcalls.family import (
    Body,
    Decoded,
    Family,
    Section,
    StartForm,
    refuse_unless_led_by,
)
from nehanda.toolcalls.gemma_args import Args, Bad, Cut
from nehanda.toolcalls.jsonvalue import Failure, decode, decode_at
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.shapes import Found, calls_in, checked, failure_found

GEMMA4_QUOTE = '<|"|>'
FUNCTIONGEMMA_QUOTE = "<escape>"

_NAME = re.compile(r"[\w.\-]{1,256}")
_WS = re.compile(r"\s*")
# Tokens that may sit between or after calls in a body read to the end of the output.
_BETWEEN = ("<|tool_call>", "<tool_call|>", "<turn|>", "<|tool_response>", "<eos>")

# After Gemma 4's opener the arguments may also sit in parentheses (see gemma_args).
HEAD_GEMMA4 = re.compile(r"\s*:?\s*call:\s*[\w.\-]{1,256}\s*[{(]")
HEAD_FUNCTIONGEMMA = re.compile(r"\s*call:\s*[\w.\-]{1,256}\s*\{")
BARE_CALL = re.compile(r"call:[\w.\-]{1,256}\{")
# <tool_call>NAME({: Hermes' JSON, name prefix and <function=...> never start so, and
# anything else is handed to them (or to GLM) as soon as it shows.
_TAG_NAME = r"[^\W\d][\w.\-]{0,255}+"
HEAD_TAG = re.compile(rf"\s*+{_TAG_NAME}\s*+\(\s*+\{{")
REFUSE_TAG = re.compile(r"\s*+(?:[^\w\s]|\d|[\w.\-]++\s*+(?:[^\s(]|\(\s*+[^\s{]))")
_TAG_CALL = re.compile(rf"\s*({_TAG_NAME})\s*\(\s*")
_TAG_CALL_END = re.compile(r"\s*\)\s*\Z")


def read_calls(
    text: str,
    quote: str,
    known: Collection[str] | None,
    schemas: Mapping[str, Mapping[str, Any]],
    *,
    closed: bool,
    between: tuple[str, ...] = (),
    parens: bool = False,
) -> list[Found] | None:
    """The ``call:NAME{...}`` calls at the start of ``text``; None if it holds none.

    ``closed``: a closer ended the text, so an unfinished call is malformed rather than
    cut off by the end of the output. ``between``: tokens skipped between calls.
    """
    read = read_calls_to(text, quote, known, schemas, closed=closed, between=between, parens=parens)
    return None if read is None else read.found


def read_calls_to(
    text: str,
    quote: str,
    known: Collection[str] | None,
    schemas: Mapping[str, Mapping[str, Any]],
    *,
    closed: bool,
    between: tuple[str, ...] = (),
    parens: bool = False,
) -> Decoded | None:
    """``read_calls``, and where the last call read ends (the text's end when that
    is unknown: a cut or malformed call). ``parens``: arguments may sit in ``(...)``."""
    out: list[Found] = []
    end = len(text)
    reader = Args(text, quote)
    i = reader.ws(0)
    if text.startswith(":", i):  # "<|tool_call>:call:..." (vLLM's test)
        i = reader.ws(i + 1)
    while text.startswith("call:", i):
        m = _NAME.match(text, reader.ws(i + 5))
        if m is None:
            break
        name = m.group()
        j = reader.ws(m.end())
        if j >= len(text):
            out.append(truncated(name) if not closed else _unfinished(name))
            return _decoded(out, known, len(text))
        if text[j] != "{" and not (parens and text[j] == "("):
            break
        try:
            args, i = _arguments(reader, j, schemas.get(name, {}))
        except Cut:
            out.append(truncated(name) if not closed else _unfinished(name))
            return _decoded(out, known, len(text))
        except Bad as bad:
            # Where this call ends is unknown: nothing after it is read.
            out.append(failure_found(name, Failure(bad.kind, bad.detail)))
            return _decoded(out, known, len(text))
        except (RecursionError, MemoryError):  # pragma: no cover - depth is capped
            out.append(failure_found(name, Failure("invalid_json", "unreadable")))
            return _decoded(out, known, len(text))
        out.append(checked(name, args, known))
        end = i
        i = _skip_between(text, reader.ws(i), between)
    return _decoded(out, known, end) if out else None


def _arguments(reader: Args, j: int, schema: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """The arguments at ``j``: ``{...}``, ``(...)``, or one object in parentheses."""
    inner = reader.ws(j + 1)
    if reader.text[j] == "(" and reader.text.startswith("{", inner):
        args, i = reader.object(inner, 0, schema)
        i = reader.ws(i)
        if i >= reader.n:
            raise Cut
        if reader.text[i] != ")":
            raise Bad(f"unexpected {reader.text[i]!r} after the arguments")
        return args, i + 1
    return reader.object(j, 0, schema)


def _decoded(out: list[Found], known: Collection[str] | None, end: int) -> Decoded | None:
    # "<|tool_call>call:NAME{...}<tool_call|>" in prose: a malformed call to no tool.
    found = pythonic.mentions_dropped(out, known)
    return None if found is None else Decoded(found, end)


def _unfinished(name: str) -> Found:
    return failure_found(name, Failure("invalid_json", "the call is not finished"))


def _skip_between(text: str, i: int, tokens: tuple[str, ...]) -> int:
    moved = True
    while moved:
        moved = False
        for token in tokens:
            if text.startswith(token, i):
                i = _WS.match(text, i + len(token)).end()  # type: ignore[union-attr]
                moved = True
    return i


def decode_gemma4(body: Body) -> list[Found] | None:
    """``<|tool_call>`` ... ``<tool_call|>`` (or ``<turn|>``)."""
    return read_calls(
        body.text,
        GEMMA4_QUOTE,
        body.known,
        body.schemas,
        closed=body.closed,
        between=_BETWEEN,
        parens=True,
    )


def decode_gemma4_bare(body: Body) -> Decoded | None:
    """A message that starts with ``call:NAME{``: read to the end of the output; the
    text after the calls is the answer's."""
    return read_calls_to(
        body.text, GEMMA4_QUOTE, body.known, body.schemas, closed=False, between=_BETWEEN
    )


def decode_functiongemma(body: Body) -> list[Found] | None:
    """``<start_function_call>`` ... ``<end_function_call>``."""
    return read_calls(body.text, FUNCTIONGEMMA_QUOTE, body.known, body.schemas, closed=body.closed)


def decode_tag_call(body: Body) -> list[Found] | None:
    """``<tool_call>NAME({json})</tool_call>``: one call to a known tool, its object
    whole and alone in the parentheses; otherwise prose (truncated if the output
    ended inside it)."""
    text = body.text
    m = _TAG_CALL.match(text)
    if m is None:
        return None
    name = m.group(1)
    if body.known is not None and name not in body.known:
        return None
    value = decode_at(text, m.end())
    if value is None or not isinstance(value[0], dict) or not _TAG_CALL_END.match(text, value[1]):
        return None if body.closed else [truncated(name)]
    return [checked(name, value[0], body.known)]


def _drop_namespace(name: str) -> str:
    return name.removeprefix("default_api.")


def decode_tool_code(body: Body) -> list[Found] | None:
    """A ```` ```tool_code ```` fence: pythonic calls (``print(...)`` unwrapped), or JSON.

    The body starts with the fence's language word, which is skipped.
    """
    text = body.text.lstrip(" \t")
    text = text.removeprefix("tool_code")
    found = pythonic.decode_message(
        text,
        body.known,
        require_list=False,
        closed=body.closed,
        unwrap=("print",),
        rename=_drop_namespace,
    )
    if found is not None:
        return found
    text = text.strip()
    if not text.startswith("{"):
        return None
    value = decode(text)
    if isinstance(value, Failure):
        return None
    return calls_in(value, body.known, loose=False)


FAMILY = Family(
    key="gemma",
    source="vllm-project/vllm vllm/tool_parsers/gemma4_tool_parser.py",
    sections=(
        Section(
            "gemma4",
            "<|tool_call>",
            ("<tool_call|>", "<turn|>"),
            decode_gemma4,
            HEAD_GEMMA4,
            protect=((GEMMA4_QUOTE, GEMMA4_QUOTE),),
        ),
        Section(
            "gemma4_tool_call_tag",
            "<tool_call>",
            ("</tool_call>",),
            decode_tag_call,
            HEAD_TAG,
            REFUSE_TAG,
            json_strings=True,
            cut_at_closer=True,  # Hermes' opener: a stray quote must not eat its calls
        ),
        Section(
            "functiongemma",
            "<start_function_call>",
            ("<end_function_call>",),
            decode_functiongemma,
            HEAD_FUNCTIONGEMMA,
            protect=((FUNCTIONGEMMA_QUOTE, FUNCTIONGEMMA_QUOTE),),
        ),
    ),
    starts=(
        StartForm("gemma4_bare", BARE_CALL, decode_gemma4_bare, "c", refuse_unless_led_by("call:")),
    ),
    fences=(("tool_code", decode_tool_code),),
    reasoning=(("<|channel>", "<channel|>"),),
    markup=("<turn|>", "<tool_call|>", "<|tool_response>", "<start_function_response>"),
)
