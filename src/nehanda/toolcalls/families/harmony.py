"""gpt-oss Harmony: messages with headers; a call is a message addressed to a function.

A Harmony output is a run of messages (vLLM ``openai_tool_parser.py`` on
``harmony_utils.parse_output_into_messages``; llama.cpp ``common/chat.cpp``
``common_chat_parse_gpt_oss`` and ``tests/test-chat.cpp``; sglang
``harmony_parser.py`` and ``function_call/gpt_oss_detector.py``)::

    <|channel|>analysis<|message|>reasoning<|end|>
    <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>
    {...}<|call|>
    <|start|>assistant<|channel|>final<|message|>the answer<|return|>

The header runs from ``<|start|>`` (role, then the rest) or ``<|channel|>`` (when
the server drops the leading ``<|start|>assistant``) to ``<|message|>``. The
recipient ``to=functions.NAME`` may sit in the channel part or before the channel
(``<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>``);
the content type is ``<|constrain|>json``, a bare ``json``, or absent. A call body
is JSON and ends at ``<|call|>`` (a stop token servers often drop, so a complete
object at the end of the output is a call), ``<|end|>`` or the next ``<|start|>``.
``analysis`` is reasoning, ``final`` the answer, ``commentary`` without a recipient
a preamble shown to the user.

``classify_header`` is the pure header reader. ``parse_stripped`` reads what is
left when a server strips the special tokens: ``analysisREASONING`` then
``assistantcommentary to=functions.NAME json{...}`` and ``assistantfinalANSWER``
(the ``json`` sometimes glued to the name: ``to=functions.Readjson{...}``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from nehanda.toolcalls.families.deepseek import json_call
from nehanda.toolcalls.family import Body, Family, Section, StartForm, refuse_unless_led_by
from nehanda.toolcalls.jsonvalue import CLOSED, ValueScanner
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.shapes import Found
from nehanda.toolcalls.triggers import BARE_LEADS

SOURCE = (
    "vllm-project/vllm vllm/tool_parsers/openai_tool_parser.py (+ tests/tool_parsers/"
    "test_openai_tool_parser.py); ggml-org/llama.cpp common/chat.cpp "
    "common_chat_parse_gpt_oss, tests/test-chat.cpp; sgl-project/sglang "
    "python/sglang/srt/harmony_parser.py"
)

START = "<|start|>"
CHANNEL = "<|channel|>"
MESSAGE = "<|message|>"
CONSTRAIN = "<|constrain|>"
END = "<|end|>"
CALL = "<|call|>"
RETURN = "<|return|>"

# A header is short: role, channel, recipient and content type.
HEADER_MAX = 512
_NAME_MAX = 200
CHANNELS = frozenset({"analysis", "commentary", "final"})
# Recipients that address a person, not a tool.
_NOT_TOOLS = frozenset({"assistant", "user", "all", "system", "developer"})

HeaderKind = Literal["reasoning", "answer", "markup", "call"]


@dataclass(frozen=True)
class Header:
    """What one message header says its body is.

    ``reasoning``: an ``analysis`` message without a recipient. ``answer``: ``final``,
    or ``commentary`` without a recipient (a preamble), or no channel. ``markup``:
    a message that is not the assistant's (an echoed tool result such as
    ``functions.Read to=assistant``, a user or system turn) or names an unknown
    channel: header and body are template markup. ``call``: a recipient other than
    a person; ``name`` is it without the ``functions.`` namespace.
    """

    kind: HeaderKind
    name: str | None = None
    channel: str | None = None
    content_type: str | None = None


_WORD = re.compile(r"\s*([^\s<>]{1,200})")
_RECIPIENT = re.compile(r"\s*to=([^\s<>]{1,200})")
_CONSTRAIN = re.compile(r"\s*<\|constrain\|>\s*([^\s<>]{0,64})")
_TYPE = re.compile(r"\s*([A-Za-z][\w.+/-]{0,63})")
_TOKEN = re.compile(r"<\|[a-z_]{1,16}\|>")


def _attributes(part: str) -> tuple[str | None, str | None, str | None] | None:
    """(first word, recipient, content type) of one header part; None if malformed."""
    pos = 0
    word = recipient = ctype = None
    m = _WORD.match(part, pos)
    if m and not m.group(1).startswith("to="):
        word, pos = m.group(1), m.end()
    while pos < len(part):
        if part[pos:].strip() == "":
            break
        if (m := _RECIPIENT.match(part, pos)) and recipient is None:
            recipient, pos = m.group(1), m.end()
        elif (m := _CONSTRAIN.match(part, pos)) and ctype is None:
            ctype, pos = m.group(1) or None, m.end()
        elif (m := _TYPE.match(part, pos)) and ctype is None:
            ctype, pos = m.group(1), m.end()
        else:
            return None
    return word, recipient, ctype


def classify_header(text: str) -> Header | None:
    """Classify one header.

    ``text`` is what follows ``<|start|>`` or ``<|channel|>``, up to and including
    ``<|message|>``: ``assistant<|channel|>commentary to=functions.Read
    <|constrain|>json<|message|>``, ``analysis<|message|>``, ``assistant
    to=functions.Read<|channel|>commentary json<|message|>``. A text starting with a
    channel name came after ``<|channel|>``; any other first word is a role. None:
    not a header (no ``<|message|>`` at the end, another token inside, too long),
    so the opener was prose.
    """
    if len(text) > HEADER_MAX or not text.endswith(MESSAGE):
        return None
    inner = text[: -len(MESSAGE)]
    role_part, sep, channel_part = inner.partition(CHANNEL)
    if not sep:
        first = _WORD.match(inner)
        if first and first.group(1) in CHANNELS:
            role_part, channel_part = "", inner
    if CHANNEL in channel_part:
        return None
    for part in (role_part, channel_part):
        if any(t.group() != CONSTRAIN for t in _TOKEN.finditer(part)):
            return None
    role_attrs = _attributes(role_part) if role_part.strip() else (None, None, None)
    chan_attrs = _attributes(channel_part) if channel_part.strip() else (None, None, None)
    if role_attrs is None or chan_attrs is None:
        return None
    role, role_to, role_type = role_attrs
    channel, chan_to, chan_type = chan_attrs
    if sep and channel is None and chan_to is not None:
        return None
    recipient = chan_to or role_to
    ctype = chan_type or role_type
    if role is not None and role != "assistant":
        # A tool's reply (functions.Read to=assistant), a user or system turn.
        return Header("markup", None, channel, ctype)
    if recipient is not None and recipient not in _NOT_TOOLS:
        name = recipient.removeprefix("functions.")
        if not name:
            return None
        return Header("call", name, channel, ctype)
    if channel == "analysis":
        return Header("reasoning", None, channel, ctype)
    if channel in (None, "final", "commentary"):
        return Header("answer", None, channel, ctype)
    return Header("markup", None, channel, ctype)


def resolve_name(name: str, known: Collection[str] | None) -> str:
    """The tool a stripped header names: ``Readjson`` is ``Read`` + a glued ``json``."""
    if known is None or name in known:
        return name
    if name.endswith("json") and name[:-4] in known:
        return name[:-4]
    return name


def call_body(name: str, text: str, closed: bool, known: Collection[str] | None) -> Found:
    """The call a ``call`` header's body makes: JSON arguments (empty means none).

    ``closed`` False (no ``<|call|>``/``<|end|>`` before the output ended) still
    yields the call when the JSON is complete, since servers drop the stop token.
    """
    return json_call(resolve_name(name, known), text, known, closed=closed)


# ---------------------------------------------------------------- sections

_CLOSERS = (CALL, END, RETURN, START)
_BODY_END = re.compile("|".join(re.escape(c) for c in _CLOSERS))


def _header_then_body(prefix: str, body: Body) -> list[Found] | None:
    at = body.text.find(MESSAGE, 0, HEADER_MAX)
    if at < 0:
        return None
    header = classify_header(prefix + body.text[: at + len(MESSAGE)])
    if header is None or header.kind != "call" or header.name is None:
        return None
    return [call_body(header.name, body.text[at + len(MESSAGE) :], body.closed, body.known)]


def decode_channel(body: Body) -> list[Found] | None:
    """A ``<|channel|>`` message addressed to a function (the ``<|start|>assistant``
    before it is markup, or was dropped by the server)."""
    return _header_then_body("", body)


def decode_start_recipient(body: Body) -> list[Found] | None:
    """``<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{...}``."""
    return _header_then_body("assistant to=", body)


def decode_start_stripped(body: Body) -> list[Found] | None:
    """``<|start|>assistantcommentary to=functions.NAME {...}``: the channel and message
    tokens stripped, ``<|start|>`` kept (seen from hosted gpt-oss)."""
    parsed = parse_stripped("assistantcommentary" + body.text, body.known, closed=body.closed)
    return parsed.calls if parsed is not None and parsed.calls else None


# The recipient must come before the first token of the header; that is what
# ``refuse`` checks, so a ``<|channel|>`` that is not a call is settled at once.
# Possessive quantifiers: the head is matched again as each chunk arrives.
_CHANNEL_HEAD = re.compile(
    r"(?:commentary|analysis)[ \t]*+to=[^\s<>]{1,200}+[^<]{0,64}+"
    r"(?:<\|constrain\|>[^<]{0,64}+)?<\|message\|>"
)
_CHANNEL_REFUSE = re.compile(r"(?:(?!to=)[^<]){0,200}<")
_RECIPIENT_HEAD = re.compile(
    r"[^\s<>]{1,200}+[^<]{0,64}+(?:<\|channel\|>[^<]{0,64}+)?"
    r"(?:<\|constrain\|>[^<]{0,64}+)?<\|message\|>"
)
_STRIPPED_HEAD = re.compile(r"\s*to=[^\s<>]{1,200}")

CHANNEL_CALL = Section(
    "harmony",
    CHANNEL,
    _CLOSERS,
    decode_channel,
    head=_CHANNEL_HEAD,
    refuse=_CHANNEL_REFUSE,
    json_strings=True,
)
# Longer than the markup "<|start|>assistant", so the scanner sees this one first.
START_RECIPIENT = Section(
    "harmony_recipient",
    START + "assistant to=",
    _CLOSERS,
    decode_start_recipient,
    head=_RECIPIENT_HEAD,
    json_strings=True,
)
START_STRIPPED = Section(
    "harmony_stripped_channel",
    START + "assistantcommentary",
    _CLOSERS,
    decode_start_stripped,
    head=_STRIPPED_HEAD,
    json_strings=True,
)


# ---------------------------------------------------------------- stripped form


@dataclass
class Stripped:
    """A Harmony output read without its special tokens."""

    reasoning: list[str] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)
    calls: list[Found] = field(default_factory=list)


# Where a message starts once its tokens are gone ("assistant" + channel), and the
# tokens a partly stripped output still holds.
_MARK = re.compile(
    r"assistant(analysis|commentary|final)|<\|(start|end|call|return|channel|message|constrain)\|>"
)
_LEAD = re.compile(r"\s*(analysis|commentary|final)")
_STRIPPED_NAME = re.compile(r"[ \t]*to=([^\s<>{\[]{1,200})")
_AFTER_NAME = re.compile(r"[ \t]*(?:<\|constrain\|>)?[ \t]*(?:json\b)?[ \t]*(?:<\|message\|>)?\s*")
_AFTER_CHANNEL = re.compile(r"[ \t]*(?:<\|message\|>)?")


def parse_stripped(
    text: str, known: Collection[str] | None, *, closed: bool = False
) -> Stripped | None:
    """Read a Harmony output whose special tokens were stripped (or partly stripped).

    Messages start at ``assistant`` + channel (``assistantcommentary``), or at the
    very start with a bare channel (``analysisWe need...``). A recipient after the
    channel makes a call whose JSON value follows (``json`` and ``<|constrain|>``
    optional); the value is read to its own end, so a marker inside a string is
    content. None when nothing in ``text`` is Harmony. ``closed``: a closer follows
    ``text``, so a value cut at its end is invalid rather than truncated.
    """
    out = Stripped()
    n = len(text)
    seen = False
    channel: str | None = None
    pos = 0
    lead = _LEAD.match(text)
    if lead is not None:
        channel, pos, seen = lead.group(1), lead.end(), True
        pos = _AFTER_CHANNEL.match(text, pos).end()  # type: ignore[union-attr]
    while pos <= n:
        if channel is not None and (m := _STRIPPED_NAME.match(text, pos)):
            name = m.group(1).removeprefix("functions.")
            pos = _AFTER_NAME.match(text, m.end()).end()  # type: ignore[union-attr]
            pos = _read_call(text, pos, name, known, closed, out)
            channel = None
            continue
        mark = _MARK.search(text, pos)
        stop = mark.start() if mark else n
        piece = text[pos:stop]
        if piece:
            (out.reasoning if channel == "analysis" else out.answer).append(piece)
        if mark is None:
            break
        seen = True
        if mark.group(1):
            channel = mark.group(1)
            pos = _AFTER_CHANNEL.match(text, mark.end()).end()  # type: ignore[union-attr]
        elif mark.group(2) == "channel":
            word = _LEAD.match(text, mark.end())
            channel = word.group(1) if word else "commentary"
            pos = word.end() if word else mark.end()
        elif mark.group(2) in ("message", "constrain", "start"):
            pos = mark.end()
        else:  # end, call, return: the message is over
            channel, pos = None, mark.end()
    if not seen:
        return None
    return out


def _read_call(
    text: str, pos: int, name: str, known: Collection[str] | None, closed: bool, out: Stripped
) -> int:
    """Read the JSON value at ``pos`` as ``name``'s arguments; where reading stops."""
    n = len(text)
    if pos < n and text[pos] in "{[":
        status, end = ValueScanner(()).scan(text, pos, True)
        if status == CLOSED:
            out.calls.append(call_body(name, text[pos:end], True, known))
            return end
        out.calls.append(call_body(name, text[pos:], True, known) if closed else truncated(name))
        return n
    mark = _MARK.search(text, pos)
    stop = mark.start() if mark else n
    out.calls.append(call_body(name, text[pos:stop], mark is not None or closed, known))
    return stop


def decode_stripped(body: Body) -> list[Found] | None:
    """A message-start form: the body is the rest of the output, so a value that runs
    to its end was cut off, whatever ``closed`` says."""
    parsed = parse_stripped(body.text, body.known)
    return parsed.calls if parsed is not None and parsed.calls else None


def decode_leading_recipient(body: Body) -> list[Found] | None:
    """`` to=functions.NAME<|channel|>commentary json<|message|>{...}`` at the message
    start: the generation prompt ended with ``<|start|>assistant``."""
    at = body.text.find(MESSAGE, 0, HEADER_MAX)
    if at < 0:
        if not _STRIPPED_CALL_START.match(body.text):
            return None  # "to=functions.Read is how ..." names the format in prose
        return decode_stripped(
            Body("commentary " + body.text, body.closed, body.known, body.schemas)
        )
    header = classify_header("assistant " + body.text[: at + len(MESSAGE)])
    if header is None or header.kind != "call" or header.name is None:
        return None
    rest = body.text[at + len(MESSAGE) :]
    end = _BODY_END.search(rest)
    args = rest if end is None else rest[: end.start()]
    # The body runs to the end of the output: no terminator means the call may be cut.
    return [call_body(header.name, args, end is not None, body.known)]


_STRIPPED_CALL_START = re.compile(r"to=[^\s<>{]{1,200}?\s*(?:json)?\s*\{")

LEADING_RECIPIENT = StartForm(
    "harmony_leading_recipient",
    re.compile(r"to=[^\s<>]{1,200}"),
    decode_leading_recipient,
    "t",
    refuse_unless_led_by("to="),
)
# A stripped output starts with a bare channel glued to its text ("analysisWe need")
# or with "assistant" + channel; "analysis of the heap" is prose. The look-ahead needs
# the character that decides, so a match never depends on where a chunk ended.
_NOT_PROSE_NEXT = r"(?=[^ \t\n]|[ \t\n]+[^a-z \t\n])"
STRIPPED = StartForm(
    "harmony_stripped",
    re.compile(
        r"assistant(?:analysis|commentary|final)"
        rf"|analysis{_NOT_PROSE_NEXT}|commentary(?:[ \t]+to=|{_NOT_PROSE_NEXT})"
    ),
    decode_stripped,
    "ac",
    refuse_unless_led_by(*BARE_LEADS),
)

REASONING = (
    (CHANNEL + "analysis" + MESSAGE, END),
    (START + "assistant" + CHANNEL + "analysis" + MESSAGE, END),
)
MARKUP = (
    START + "assistant",
    CHANNEL + "final" + MESSAGE,
    START + "assistant" + CHANNEL + "final" + MESSAGE,
    CHANNEL + "commentary" + MESSAGE,
    START + "assistant" + CHANNEL + "commentary" + MESSAGE,
    RETURN,
    CALL,
    # Also the reasoning closer: outside an analysis message it ends a preamble or
    # an answer, and is markup there.
    END,
)

FAMILY = Family(
    key="harmony",
    source=SOURCE,
    sections=(CHANNEL_CALL, START_RECIPIENT, START_STRIPPED),
    starts=(LEADING_RECIPIENT, STRIPPED),
    reasoning=REASONING,
    markup=MARKUP,
)
