"""IBM Granite: ``<|tool_call|>`` + a JSON array (3.x), Hermes ``<tool_call>`` (4.x).

Sources: vllm-project/vllm vllm/tool_parsers/granite_tool_parser.py and
tests/tool_parsers/test_granite_tool_parser.py (3.0 token, 3.1 string),
vllm/tool_parsers/granite4_tool_parser.py and tests/tool_parsers/test_granite4_tool_parser.py
(4.x, arguments as a JSON string), ggml-org/llama.cpp common/chat.cpp
common_chat_parse_granite (the token anywhere, <think> and <response> tags).
"""

from __future__ import annotations

import json

import pytest

from nehanda.toolcalls.families import granite
from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call

R = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
B = '{"name": "Bash", "arguments": {"command": "ls"}}'

TABLE: list[tuple[str, str, Calls]] = [
    (
        "3.0 token, one call (vllm tests/tool_parsers/test_granite_tool_parser.py "
        "single_tool_call_output)",
        f"<|tool_call|> [{R}]",
        [("Read", READ)],
    ),
    (
        "3.0 token, no space (vllm test_granite_tool_parser.py "
        "test_streaming_parallel_calls_single_delta)",
        f"<|tool_call|>[{R}, {B}]",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "3.0 token, parallel calls over lines (vllm test_granite_tool_parser.py "
        "parallel_tool_calls_output)",
        f"<|tool_call|> [\n  {R},\n  {B}\n]",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "3.0 token, arguments before name (vllm test_granite_tool_parser.py "
        "test_streaming_parallel_calls_batched_deltas)",
        '<|tool_call|> [{"arguments": {"file_path": "/src/app.py"}, "name": "Read"}]',
        [("Read", READ)],
    ),
    (
        "3.1 string <tool_call>, array, no closer (vllm test_granite_tool_parser.py "
        "test_granite_string_prefix_format)",
        f"<tool_call> [{R}]",
        [("Read", READ)],
    ),
    (
        "3.x token after prose (llama.cpp common/chat.cpp common_chat_parse_granite "
        "try_find_regex)",
        f"Let me check that file.\n<|tool_call|> [{R}]",
        [("Read", READ)],
    ),
    (
        "4.x Hermes block, arguments as a JSON string (vllm "
        "tests/tool_parsers/test_granite4_tool_parser.py create_complex_input(True))",
        "<tool_call> "
        + json.dumps({"name": "Read", "arguments": json.dumps(READ)})
        + " </tool_call>",
        [("Read", READ)],
    ),
    (
        "4.x calls between prose (vllm test_granite4_tool_parser.py test_tool_call_parser_complex)",
        f"Here goes the read: \n<tool_call> {R} </tool_call> Now the listing: \n "
        f"<tool_call> {B} </tool_call> See? I'm a helpful assistant.",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "3.2 thinking, then a response with a call (llama.cpp common_chat_parse_granite "
        "<think>/<response>)",
        f"<think>The user wants the file.</think><response>Reading it.<|tool_call|>[{R}]"
        "</response>",
        [("Read", READ)],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_granite_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected, hidden=("<|tool_call|>", "<response>", "</response>"))


def test_granite_surrounding_text_stays_visible() -> None:
    # vllm test_granite_tool_parser.py surrounding_text_output (xfail there).
    text = f"Let me check the file.\n<|tool_call|> [{R}]\nI'll get that information."
    check(text, [("Read", READ)])
    from toolcalls.toolcall_render import parse

    visible = parse(text).text
    assert "Let me check the file." in visible
    assert "I'll get that information." in visible


def test_granite_response_tags_are_markup() -> None:
    # llama.cpp common_chat_parse_granite: <response> wraps the answer.
    check(
        "<think>Nothing to run.</think><response>The answer is 4.</response>",
        [],
        visible="The answer is 4.",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Granite marks a call with <|tool_call|> followed by a JSON list.",
        "Write `<|tool_call|>[" + R + "]` to call a tool.",
        "```text\n<|tool_call|>[" + R + "]\n```",
        "```python\nprint('<|tool_call|>[" + R.replace('"', "'") + "]')\n```",
        "<|tool_call|> [see the list below]",
    ],
    ids=["prose", "inline code", "text fence", "python fence", "bracketed prose"],
)
def test_granite_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_granite_unknown_tool_is_dropped_others_kept() -> None:
    text = '<|tool_call|>[{"name": "Nope", "arguments": {}}, ' + R + "]"
    check(text, [("Read", READ)], ["unknown_tool"])


def test_granite_truncated_call_never_runs() -> None:
    check('<|tool_call|>[{"name": "Read", "arguments": {"file_path": "/src/a', [], ["truncated"])


def test_granite_call_drafted_in_reasoning_does_not_run() -> None:
    check(f"<think>Maybe <|tool_call|>[{R}]</think>No need: it is 4.", [])


def test_granite_call_in_reasoning_only_counts() -> None:
    check(f"<think><|tool_call|>[{R}]</think>", [("Read", READ)])


def test_granite_dialect_row() -> None:
    assert granite.GRANITE.opener == "<|tool_call|>"
    assert not granite.GRANITE.closer_required
    assert granite.FAMILY.dialects == (granite.GRANITE,)
    assert set(granite.FAMILY.markup) == {"<response>", "</response>"}
