"""MeetKai Functionary: v3.2's ``>>>recipient`` messages, v3.1's ``<function=NAME>``.

Functionary v3.2 addresses every part of its answer to a recipient: ``>>>all`` then
text for the user, ``>>>NAME`` then a JSON object for a call, several in a row::

    all
    Let me look.>>>Read
    {"file_path": "a.py"}>>>Bash
    {"command": "ls"}

The chat template's generation prompt already ends with ``>>>``, so the output's
first recipient comes without it (``all\\n...`` or ``NAME\\n{...}``) and every later
one after ``>>>``, anywhere in the text (llama.cpp ``common/chat.cpp``
``common_chat_parse_functionary_v3_2``: ``(\\w+\\n\\{|python\\n|all\\n)`` at the start,
``>>>(\\w+\\n\\{|python\\n|all\\n)`` after it; ``common/parsers/functionary-v3-2.cpp``
and ``tests/test-chat.cpp``, which also feed ``>>>all\\n`` and ``>>>NAME\\n{...}``
with the prompt's ``>>>`` included). ``all`` is never a call: ``>>>all\\n`` is markup
and the text after it is the answer, and so is ``all\\n`` as the output's very first
text (``OPENING``; llama.cpp consumes it only there). The calls follow the text; the
grammar puts nothing after them but further calls.

- ``RECIPIENT``: ``>>>NAME`` and the JSON after it, anywhere (a JSON ``Dialect``:
  the value ends the block, the next ``>>>`` starts the next one), for known tools
  only, since ``>>>`` is also the Python prompt.
- ``START``: ``NAME\\n{...}`` as the message's very first text, for a known tool
  only (a word, a newline and a brace are weak evidence). ``START_REFUSE`` settles
  ordinary prose after its first word, so a message is held back no longer than that.

Functionary v3.1 (Llama 3.1 based) writes ``<function=NAME>{json}</function>``, read
by ``functions.FUNCTION_EQ``, and raw Python after ``<|python_tag|>``. The ``python``
recipient's raw code (v3.2) is not read: no nehanda tool takes it.
"""

from __future__ import annotations

import re
import string

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.families.functions import CLOSED_VALUE, json_args, json_end
from nehanda.toolcalls.family import Body, Family, StartForm
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.shapes import Found

PROMPT_END = ">>>"
CONTENT = ">>>all\n"
OPENING = "all\n"

# Weak: ">>>" is also the Python prompt ("\n>>> d\n{'a': 1}" in a pasted session), so
# only a call to a known tool counts and anything else stays prose as written.
RECIPIENT = Dialect(
    "functionary_v32",
    PROMPT_END,
    (),
    closer_required=False,
    name_prefix=True,
    name_required=True,
    multi=False,
    weak=True,
)

# A tool name: words joined by "." or "-" ("mcp__git.log-v2"), never ending in one.
_NAME = r"[A-Za-z_]\w{0,63}+(?:[.\-]\w{1,63}+){0,8}+"
_CALL = re.compile(r"(" + _NAME + r")[ \t]{0,8}+\r?\n\s{0,8}+(?=\{)")
_WS = re.compile(r"\s*")

START_PATTERN = re.compile(r"(?!all\n)" + _NAME + r"[ \t]{0,8}+\r?\n\s{0,8}+\{")
# What a StartForm ``refuse`` would be: ``all``, or a first word not followed by a
# newline and a brace, makes the message prose (decided after one word, not after
# START_WINDOW characters). It never matches where START_PATTERN does.
START_REFUSE = re.compile(
    r"all\n|[^A-Za-z_\s]|" + _NAME + r"[ \t]{0,8}+(?:[^\r\n \t]|\r?\n\s{0,8}+[^\s{])"
)


def decode_recipients(body: Body) -> list[Found] | None:
    """``NAME\\n{json}`` at the message start, and the ``>>>NAME\\n{json}`` after it.

    The first name must be a known tool (else the message is prose). Text after the
    calls that is not another call is not kept: the format puts none there.
    """
    text = body.text
    known = body.known
    found: list[Found] = []
    pos = 0
    while True:
        m = _CALL.match(text, pos)
        if m is None:
            break
        name = m.group(1)
        if not found and known is not None and name not in known:
            return None
        end, state = json_end(text, m.end())
        if state != CLOSED_VALUE:
            found.append(truncated(name))
            break
        found.append(json_args(name, text[m.end() : end], known))
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]
        if not text.startswith(PROMPT_END, pos) or text.startswith(CONTENT, pos):
            break
        pos += len(PROMPT_END)
    return found or None


START = StartForm(
    "functionary_v32_start",
    START_PATTERN,
    decode_recipients,
    firsts=string.ascii_letters + "_",
    refuse=START_REFUSE,
)

FAMILY = Family(
    key="functionary",
    source="ggml-org/llama.cpp common/chat.cpp (common_chat_parse_functionary_v3_2, "
    "common_chat_parse_functionary_v3_1_llama_3_1), common/parsers/functionary-v3-2.cpp, "
    "tests/test-chat.cpp",
    dialects=(RECIPIENT,),
    starts=(START,),
    opening=(OPENING,),
    markup=(CONTENT,),
)
