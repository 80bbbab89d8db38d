"""Kimi K2: ``<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}``.

Sources: vllm-project/vllm vllm/tool_parsers/kimi_k2_tool_parser.py (the call regex,
``functions.`` optional, the singular ``<|tool_call_section_begin|>`` variants) and
tests/tool_parsers/test_kimi_k2_tool_parser.py; sgl-project/sglang
python/sglang/srt/function_call/kimik2_detector.py (the format docstring, the id
regex ``^(?:functions\\.)?(?P<name>[\\w\\.]+):(?P<index>\\d+)$``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nehanda.toolcalls.families import kimi
from toolcalls.dialects.family_checks import (
    LS,
    READ,
    Calls,
    body,
    check,
    found_calls,
    found_kinds,
    no_call,
)
from toolcalls.linear import assert_linear

R = '{"file_path": "/src/app.py"}'
B = '{"command": "ls"}'
BEGIN, END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
TOKENS = (BEGIN, END, "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>")


def call(call_id: str, args: str) -> str:
    return f"<|tool_call_begin|>{call_id}<|tool_call_argument_begin|>{args}<|tool_call_end|>"


TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "one call (sglang kimik2_detector.py format docstring)",
        f"{BEGIN}{call('functions.Read:0', R)}{END}",
        [("Read", READ)],
        "",
    ),
    (
        "several calls in one section, on their own lines (vllm kimi_k2_tool_parser.py "
        "tool_call_regex; test_kimi_k2_tool_parser.py multiple tools)",
        f"I'll look.\n{BEGIN}\n{call('functions.Read:0', R)}\n{call('functions.Bash:1', B)}\n{END}",
        [("Read", READ), ("Bash", LS)],
        "I'll look.",
    ),
    (
        "name without functions. (sglang kimik2_detector.py tool_call_id_regex fallback)",
        f"{BEGIN}{call('Read:0', R)}{END}",
        [("Read", READ)],
        "",
    ),
    (
        "singular section tokens (vllm kimi_k2_tool_parser.py tool_calls_start_token_variants)",
        f"<|tool_call_section_begin|>{call('functions.Read:0', R)}<|tool_call_section_end|>",
        [("Read", READ)],
        "",
    ),
    (
        "dotted tool name kept whole (only functions. and :IDX are markup)",
        f"{BEGIN}{call('functions.mcp__git.log-v2:3', '{}')}{END}",
        [("mcp__git.log-v2", {})],
        "",
    ),
    (
        "spaces around the id and the JSON (vllm kimi_k2_tool_parser.py \\s* in the regex)",
        f"{BEGIN}<|tool_call_begin|> functions.Read:0 <|tool_call_argument_begin|> {R} "
        f"<|tool_call_end|>{END}",
        [("Read", READ)],
        "",
    ),
    (
        "the call end forgotten before the section end",
        f"{BEGIN}<|tool_call_begin|>functions.Read:0<|tool_call_argument_begin|>{R}{END}",
        [("Read", READ)],
        "",
    ),
    (
        "the call end forgotten before the next call",
        f"{BEGIN}<|tool_call_begin|>functions.Read:0<|tool_call_argument_begin|>{R}"
        f"{call('functions.Bash:1', B)}{END}",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "no section wrapper (sglang kimik2_detector.py streaming: tool_call_start_token alone)",
        call("functions.Read:0", R),
        [("Read", READ)],
        "",
    ),
    (
        "text after the section (vllm kimi_k2_tool_parser.py content before the section kept)",
        f"Reading.{BEGIN}{call('functions.Read:0', R)}{END}",
        [("Read", READ)],
        "Reading.",
    ),
    (
        "DeepSeek's ASCII call under the same opener (deepseek decode_call_body)",
        f"<|tool_calls_begin|><|tool_call_begin|>Read<|tool_sep|>{R}<|tool_call_end|>"
        "<|tool_calls_end|>",
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_kimi_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=TOKENS)


@pytest.mark.parametrize(
    "text",
    [
        "Kimi starts each call with <|tool_call_begin|> and ends it with <|tool_call_end|>.",
        "Then <|tool_call_begin|> and <|tool_call_argument_begin|> come before the JSON.",
        f"Use `{call('functions.Read:0', R)}` to read.",
        f"```text\n{BEGIN}{call('functions.Read:0', R)}{END}\n```",
        # The format echoed with its placeholders (sglang kimik2_detector.py docstring,
        # after Moonshot's docs/tool_call_guidance.md).
        "<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.{func_name}:{index}"
        "<|tool_call_argument_begin|>{json_args}<|tool_call_end|>\n<|tool_calls_section_end|>",
        f"{BEGIN}{END}",
        "<|tool_call_begin|>not a call at all<|tool_call_end|>",
    ],
    ids=[
        "prose",
        "prose, two tokens",
        "inline code",
        "text fence",
        "schema echo",
        "empty section",
        "no id",
    ],
)
def test_kimi_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = f"{BEGIN}{call('functions.Nope:0', '{}')}{call('functions.Read:1', R)}{END}"
    check(text, [("Read", READ)], ["unknown_tool"])


def test_names_match_exactly() -> None:
    check(f"{BEGIN}{call('functions.read:0', R)}{END}", [], ["unknown_tool"])


def test_a_closer_inside_a_json_string_is_content() -> None:
    args = '{"command": "echo <|tool_call_end|> done"}'
    expected = [("Bash", {"command": "echo <|tool_call_end|> done"})]
    check(f"{BEGIN}{call('functions.Bash:0', args)}{END}", expected)


@pytest.mark.parametrize(
    "content",
    [
        "Kimi marks each call with <|tool_call_begin|>.",
        'a quote \\" then <|tool_call_begin|>functions.Bash:1<|tool_call_argument_begin|>{}',
        "<|tool_call_begin|>functions.Bash:1<|tool_call_argument_begin|>{}<|tool_call_end|>",
    ],
    ids=["the marker alone", "after an escaped quote", "a whole call"],
)
def test_an_opener_inside_a_json_string_is_data(content: str) -> None:
    # vllm-project/vllm#44137: the section split at every opener, this one too.
    args = json.dumps({"file_path": "notes.md", "content": content})
    expected = [("Write", {"file_path": "notes.md", "content": content})]
    check(f"{BEGIN}{call('functions.Write:0', args)}{END}", expected)


def test_an_opener_outside_the_strings_still_splits_a_forgotten_end() -> None:
    args = '{"content": "a <|tool_call_begin|> b", "file_path": "n.md"}'
    text = f"{BEGIN}<|tool_call_begin|>functions.Write:0<|tool_call_argument_begin|>{args}"
    expected = [
        ("Write", {"content": "a <|tool_call_begin|> b", "file_path": "n.md"}),
        ("Bash", LS),
    ]
    check(f"{text}{call('functions.Bash:1', B)}{END}", expected)


def test_an_opener_in_a_string_the_output_ends_inside_is_truncated() -> None:
    text = (
        f"{BEGIN}<|tool_call_begin|>functions.Write:0<|tool_call_argument_begin|>"
        '{"content": "x <|tool_call_begin|>functions.Bash:1<|tool_call_argument_begin|>{}'
    )
    check(text, [], ["truncated"])


def test_duplicate_key_is_a_problem() -> None:
    dup = '{"file_path": "a", "file_path": "b"}'
    text = f"{BEGIN}{call('functions.Read:0', dup)}{END}"
    check(text, [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        f'{BEGIN}<|tool_call_begin|>functions.Read:0<|tool_call_argument_begin|>{{"file_path": "/s',
        f"{BEGIN}<|tool_call_begin|>functions.Read:0<|tool_call_argument_begin|>",
        f"{BEGIN}{call('functions.Bash:0', B)}<|tool_call_begin|>functions.Read:1"
        '<|tool_call_argument_begin|>{"file_',
    ],
    ids=["inside a string", "no arguments yet", "second call"],
)
def test_cut_off_call_is_truncated(text: str) -> None:
    expected = [("Bash", LS)] if "Bash" in text else []
    check(text, expected, ["truncated"])


def test_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    # Kimi K2-Thinking reasons in <think>...</think> (vllm reasoning parser kimi_k2).
    text = f"<think>Maybe {BEGIN}{call('functions.Read:0', R)}{END}</think>No need."
    check(text, [], visible="No need.")


def test_call_in_reasoning_only_counts() -> None:
    check(f"<think>Reading: {BEGIN}{call('functions.Read:0', R)}{END}</think>", [("Read", READ)])


# ---------------------------------------------------------------- the decoder


def test_call_name() -> None:
    assert kimi.call_name("functions.Read:0") == "Read"
    assert kimi.call_name(" Read:12 ") == "Read"
    assert kimi.call_name("functions.mcp__git.log-v2:1") == "mcp__git.log-v2"
    assert kimi.call_name("functions.Read") == "Read"


def test_decode_call_on_bodies() -> None:
    arg = "<|tool_call_argument_begin|>"
    assert found_calls(kimi.decode_call(body(f"functions.Read:0{arg}{R}"))) == [("Read", READ)]
    assert found_calls(kimi.decode_call(body(f"functions.Write:0{arg}"))) == [("Write", {})]
    assert found_kinds(kimi.decode_call(body(f"functions.Read:0{arg}{{", closed=False))) == [
        "truncated"
    ]
    assert found_kinds(kimi.decode_call(body(f"functions.Read:0{arg}[1, 2]"))) == ["invalid_json"]
    assert found_calls(kimi.decode_call(body(f"Read<|tool_sep|>{R}"))) == [("Read", READ)]
    assert kimi.decode_call(body("just words")) is None
    found = kimi.decode_call(body(f"functions.Read:0{arg}{{'file_path': '/src/app.py'}}"))
    assert found_calls(found) == [("Read", READ)]
    assert found is not None and found[0].repaired


def test_decode_accepts_any_name_when_none_is_known() -> None:
    arg = "<|tool_call_argument_begin|>"
    found = kimi.decode_call(body(f"functions.get_weather:0{arg}{{}}", known=None))
    assert found_calls(found) == [("get_weather", {})]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "functions.Read:0<|tool_call_argument_begin|>{" * (n // 44),
        lambda n: "<|tool_call_begin|>" * (n // 19),
        lambda n: 'functions.Read:0<|tool_call_argument_begin|>{"a": "' + "x" * n,
    ],
)
def test_decoder_takes_linear_time(make: Any) -> None:
    assert_linear(lambda text: kimi.decode_call(body(text, closed=False)), make, 4_000)
