"""Every registered dialect: any split of a text parses like the whole text.

The soup is built from the registry itself (every trigger word of every family) plus
the pieces their bodies are made of, so a new family is covered the day it is listed.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nehanda.toolcalls.parse import collect, parse_tool_calls
from nehanda.toolcalls.registry import FULL, grammar
from toolcalls.toolcall_render import KNOWN, SCHEMAS, feed_in_pieces, summary

# Line openers (functools) and opening markup (all\n) are words too, though no trigger.
LINES = grammar(FULL).lines
WORDS = sorted(
    {*grammar(FULL).plain.words, *(LINES.dialects if LINES else ()), *grammar(FULL).opening}
)
BODY_PIECES = [
    "Read",
    "functions.Read:0",
    "Bash",
    "Nope",
    "\n",
    " ",
    '{"file_path": "a"}',
    '{"name": "Read", "arguments": {"file_path": "a"}}',
    '[{"name": "Bash", "arguments": {"command": "ls"}}]',
    "<arg_key>file_path</arg_key><arg_value>a</arg_value>",
    '<invoke name="Read"><parameter name="file_path">a</parameter></invoke>',
    "<function=Read><parameter=file_path>a</parameter></function>",
    "]<]minimax[>[",
    '<invoke name="Read">',
    "<file_path>a",
    "</file_path>",
    "</invoke>",
    "</tool_call>",
    "</function_calls>",
    '<parameter name="file_path">a</parameter>',
    'Read(file_path="a")',
    'Read({"file_path": "a"})',
    '[Read(file_path="a")]',
    'call:Read{file_path:<|"|>a<|"|>}',
    "to=functions.Read",
    "commentary",
    "analysis",
    "json",
    "Some prose. ",
    "`",
    "```json\n",
    "```tool_code\n",
    "<|message|>",
    "<|channel|>",
]
pieces = st.one_of(st.sampled_from(WORDS), st.sampled_from(BODY_PIECES))
soups = st.lists(pieces, min_size=1, max_size=10).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soups, st.data())
def test_any_split_of_any_dialect_soup_parses_like_the_whole(
    text: str, data: st.DataObject
) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    whole = parse_tool_calls(text, KNOWN, SCHEMAS)
    assert summary(collect(feed_in_pieces(text, cuts, KNOWN, SCHEMAS))) == summary(whole)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soups)
# A message-start form whose look-ahead matched at the end of a chunk, not of the text.
@example("commentary\nfunctions.Read:0</reasoning>")
def test_char_by_char_parses_like_the_whole(text: str) -> None:
    whole = parse_tool_calls(text, KNOWN, SCHEMAS)
    cuts = range(1, len(text))
    assert summary(collect(feed_in_pieces(text, cuts, KNOWN, SCHEMAS))) == summary(whole)


def test_function_tag_json_error_message_does_not_depend_on_the_split() -> None:
    """The blanks inside a JSON body read in pieces are kept: the error names the same
    character whole and streamed one character at a time."""
    text = "<tool_call><function=d>{ T</function>"
    whole = parse_tool_calls(text, KNOWN, SCHEMAS)
    cuts = range(1, len(text))
    assert summary(collect(feed_in_pieces(text, cuts, KNOWN, SCHEMAS))) == summary(whole)
