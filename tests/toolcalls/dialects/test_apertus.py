"""Swiss AI Apertus: ``<|tools_prefix|>[{"NAME": {args}}]<|tools_suffix|>``.

Sources: ggml-org/llama.cpp common/chat.cpp common_chat_parse_apertus (reasoning
``<|inner_prefix|>``/``<|inner_suffix|>``, the one-key "short form");
vllm-project/vllm vllm/tool_parsers/apertus_tool_parser.py and
tests/tool_parsers/test_apertus_tool_parser.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.families import apertus
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
from toolcalls.toolcall_render import streamed

P, S = "<|tools_prefix|>", "<|tools_suffix|>"
R = '{"Read": {"file_path": "/src/app.py"}}'
B = '{"Bash": {"command": "ls"}}'

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "one call (vllm tests/tool_parsers/test_apertus_tool_parser.py test_single_tool_call)",
        f"{P}[{R}]{S}",
        [("Read", READ)],
        "",
    ),
    (
        "two calls (test_apertus_tool_parser.py test_multiple_tool_calls)",
        f"{P}[{R}, {B}]{S}",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "text before (test_apertus_tool_parser.py test_text_before_tool_call)",
        f"Let me check the file for you. {P}[{R}]{S}",
        [("Read", READ)],
        "Let me check the file for you.",
    ),
    (
        "nested arguments (test_apertus_tool_parser.py test_nested_arguments)",
        f'{P}[{{"Bash": {{"command": "ls", "env": {{"A": "1"}}, "args": ["a", "b"]}}}}]{S}',
        [("Bash", {"command": "ls", "env": {"A": "1"}, "args": ["a", "b"]})],
        "",
    ),
    (
        "missing suffix (test_apertus_tool_parser.py test_missing_tool_suffix)",
        f"{P}[{R}]",
        [("Read", READ)],
        "",
    ),
    (
        "reasoning first (llama.cpp common_chat_parse_apertus try_parse_reasoning)",
        f"<|inner_prefix|>The user wants the file.<|inner_suffix|>{P}[{R}]{S}",
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_apertus_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=(P, S, "<|inner_prefix|>"))


@pytest.mark.parametrize(
    "text",
    [
        "Apertus wraps calls in <|tools_prefix|> and <|tools_suffix|>.",
        f"Use `{P}[{R}]{S}`.",
        f"```text\n{P}[{R}]{S}\n```",
        f"{P} nothing here {S}",
        f"{P}[1, 2]{S}",
    ],
    ids=["prose", "inline code", "text fence", "no JSON", "not calls"],
)
def test_apertus_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_apertus_unknown_tool_is_dropped_others_kept() -> None:
    check(f'{P}[{{"Nope": {{}}}}, {R}]{S}', [("Read", READ)], ["unknown_tool"])


def test_apertus_truncated_call_never_runs() -> None:
    # test_apertus_tool_parser.py test_incomplete_tool_call runs it; our rule: truncated.
    check(f'{P}[{{"Read": {{"file_path": "/src/app.py"}}', [], ["truncated"])


def test_apertus_missing_final_bracket_at_end_keeps_whole_calls() -> None:
    check(f"{P}[{R}, {B}", [("Read", READ), ("Bash", LS)], ["repaired", "repaired"])


def test_apertus_call_drafted_in_reasoning_does_not_run() -> None:
    text = f"<|inner_prefix|>Maybe {P}[{R}]{S}<|inner_suffix|>No call is needed."
    check(text, [], visible="No call is needed.")


def test_apertus_call_in_reasoning_only_counts() -> None:
    check(f"<|inner_prefix|>{P}[{R}]{S}<|inner_suffix|>", [("Read", READ)])


# -- the decoder on its own ---------------------------------------------------


def test_decode_tools_short_form() -> None:
    assert found_calls(apertus.decode_tools(body(f"[{R}, {B}]"))) == [
        ("Read", READ),
        ("Bash", LS),
    ]


def test_decode_tools_name_and_arguments_drift() -> None:
    found = apertus.decode_tools(
        body('[{"name": "Read", "arguments": {"file_path": "/src/app.py"}}]')
    )
    assert found_calls(found) == [("Read", READ)]


def test_decode_tools_problems() -> None:
    assert found_kinds(apertus.decode_tools(body('[{"Nope": {}}]'))) == ["unknown_tool"]
    assert found_kinds(apertus.decode_tools(body('[{"Read": "x"}]'))) == ["invalid_json"]
    assert found_kinds(apertus.decode_tools(body('[{"Read": {"a": 1, "a": 2}}]'))) == [
        "duplicate_key"
    ]
    cut = apertus.decode_tools(body('[{"Read": {"file_path": "/s', closed=False))
    assert found_kinds(cut) == ["truncated"]
    assert cut is not None and cut[0].name == "Read"


def test_decode_tools_any_name_without_known_tools() -> None:
    found = apertus.decode_tools(body('[{"get_weather": {"location": "London"}}]', known=None))
    assert found_calls(found) == [("get_weather", {"location": "London"})]


def test_decode_tools_not_an_array_is_none() -> None:
    assert apertus.decode_tools(body(" nothing ")) is None
    assert apertus.decode_tools(body("")) is None
    assert apertus.decode_tools(body("[]")) is None


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "[" + '{"Read": {"a": "' * (n // 16),
        lambda n: "[" + "[" * n,
        lambda n: "[" + '{"Read": {}}, ' * (n // 14),
        lambda n: '[{"Read": {"file_path": "' + "\\" * n,
    ],
)
def test_decode_tools_is_linear_on_hostile_text(make: Any) -> None:
    def run(text: str) -> None:
        apertus.decode_tools(body(text, closed=False))
        apertus.decode_tools(body(text))

    assert_linear(run, make, 2_000)


def test_apertus_long_body_streams_in_one_pass() -> None:
    def long_call(size: int) -> str:
        return f'{P}[{{"Bash": {{"command": "{"x" * size}"}}}}]{S}'

    check(long_call(200_000), [("Bash", {"command": "x" * 200_000})])
    assert_linear(lambda text: streamed(text, 7), long_call, 2_000)
