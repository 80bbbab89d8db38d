"""Step-3: ``<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">...``.

Sources: vllm-project/vllm vllm/tool_parsers/step3_tool_parser.py (the markers with
fullwidth bars and ``_``, ``type_part == "function"``, ``_parse_steptml_invoke``)
and tests/tool_parsers/test_step3_tool_parser.py (calls without the
``function<｜tool_sep｜>`` prefix, a name before the invoke, a stray
``<｜tool_sep｜>`` between calls, whitespace kept in string values);
sgl-project/sglang python/sglang/srt/function_call/step3_detector.py (the format
docstring, one parameter per line). Values are raw text typed by the tool's schema
(the brief's rule; vLLM strips them, sglang json-loads non-strings).
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.families import step3
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

BEGIN, END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
TOKENS = ("<｜tool", "steptml", "tool_sep")


def invoke(name: str, *params: tuple[str, str], sep: str = "") -> str:
    inner = "".join(
        f'{sep}<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in params
    )
    return f'<steptml:invoke name="{name}">{inner}{sep}</steptml:invoke>'


def call(inv: str, prefix: str = "function<｜tool_sep｜>") -> str:
    return f"<｜tool_call_begin｜>{prefix}{inv}<｜tool_call_end｜>"


READ_INV = invoke("Read", ("file_path", "/src/app.py"))
LS_INV = invoke("Bash", ("command", "ls"))

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "one call, a parameter per line (sglang step3_detector.py format docstring)",
        f"{BEGIN}\n{call(invoke('Read', ('file_path', '/src/app.py'), sep=chr(10)))}\n{END}",
        [("Read", READ)],
        "",
    ),
    (
        "without the function<｜tool_sep｜> prefix (vllm tests/tool_parsers/"
        "test_step3_tool_parser.py single_tool_call_output)",
        f"{BEGIN}{call(READ_INV, prefix='')}{END}",
        [("Read", READ)],
        "",
    ),
    (
        "two calls, a stray <｜tool_sep｜> between them (test_step3_tool_parser.py "
        "parallel_tool_calls_output)",
        f"{BEGIN}{call(READ_INV, prefix='')}<｜tool_sep｜>{call(LS_INV, prefix='')}{END}",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "a tool name between the separator and the invoke (test_step3_tool_parser.py "
        "_ws_output: function<｜tool_sep｜>edit_file\\n<steptml:invoke ...>)",
        f"{BEGIN}{call(READ_INV, prefix='function<｜tool_sep｜>Read' + chr(10))}{END}",
        [("Read", READ)],
        "",
    ),
    (
        "text around the block (test_step3_tool_parser.py surrounding_text_output)",
        f"Let me check.\n\n{BEGIN}{call(READ_INV)}{END}\n\nI'll get that information.",
        [("Read", READ)],
        "Let me check.\n\n\n\nI'll get that information.",
    ),
    (
        "empty arguments (test_step3_tool_parser.py empty_arguments_output)",
        f"{BEGIN}{call(invoke('mcp__git.log-v2'), prefix='')}{END}",
        [("mcp__git.log-v2", {})],
        "",
    ),
    (
        "values typed by the schema only (test_step3_tool_parser.py various_data_types_output)",
        f"{BEGIN}"
        + call(
            invoke(
                "Bash",
                ("command", "true"),
                ("timeout", "2.5"),
                ("background", "true"),
                ("env", '{"A": "1"}'),
                ("args", '["-l"]'),
            )
        )
        + END,
        [
            (
                "Bash",
                {
                    "command": "true",
                    "timeout": 2.5,
                    "background": True,
                    "env": {"A": "1"},
                    "args": ["-l"],
                },
            )
        ],
        "",
    ),
    (
        "the special tokens stripped by the server: the invoke alone",
        f"function{READ_INV}",
        [("Read", READ)],
        "function",
    ),
    (
        "a DeepSeek-style body under the Step-3 opener (deepseek decode_call_body)",
        f'{BEGIN}<｜tool_call_begin｜>Read<｜tool_sep｜>{{"file_path": "/src/app.py"}}'
        f"<｜tool_call_end｜>{END}",
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_step3_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=TOKENS)


def test_values_keep_whitespace_and_escapes_but_lose_one_framing_newline() -> None:
    # test_step3_tool_parser.py TestStep3ParameterWhitespace: string values keep
    # their whitespace; the dialect rule drops one framing newline on each side.
    value = "\n    if x:\n        return '\\n'\n\n"
    text = f"{BEGIN}{call(invoke('Write', ('content', value), ('file_path', 'hello ')))}{END}"
    check(
        text, [("Write", {"content": "    if x:\n        return '\\n'\n", "file_path": "hello "})]
    )


@pytest.mark.parametrize(
    "text",
    [
        'Step-3 calls a tool with <steptml:invoke name="Read"> and parameters.',
        f"Use `{READ_INV}` to read.",
        f"Use `{call(READ_INV)}` to read.",
        f"```text\n{BEGIN}{call(READ_INV)}{END}\n```",
        f"{BEGIN}{END}",
    ],
    ids=["prose", "inline code", "inline code, whole call", "text fence", "empty block"],
)
def test_step3_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_the_format_echoed_with_its_placeholders_runs_nothing() -> None:
    # sglang step3_detector.py docstring; "function_name" is a well-formed name, so
    # it is reported as an unknown tool rather than taken for prose.
    text = (
        f"{BEGIN}\n<｜tool_call_begin｜>function<｜tool_sep｜>"
        '<steptml:invoke name="function_name">\n'
        '<steptml:parameter name="param1">value1</steptml:parameter>\n'
        f"</steptml:invoke><｜tool_call_end｜>\n{END}"
    )
    check(text, [], ["unknown_tool"])


def test_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = f"{BEGIN}{call(invoke('Nope', ('x', '1')))}{call(READ_INV)}{END}"
    check(text, [("Read", READ)], ["unknown_tool"])


def test_names_match_exactly() -> None:
    check(f"{BEGIN}{call(invoke('read', ('file_path', 'a')))}{END}", [], ["unknown_tool"])


def test_duplicate_key_is_a_problem() -> None:
    dup = invoke("Read", ("file_path", "a"), ("file_path", "b"))
    check(f"{BEGIN}{call(dup)}{END}", [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        # test_step3_tool_parser.py malformed_input_outputs[0]: the block cut short.
        f'{BEGIN}<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="Read">',
        f'{BEGIN}<｜tool_call_begin｜><steptml:invoke name="Read"><steptml:parameter '
        'name="file_path">/src/ap',
        '<steptml:invoke name="Read"><steptml:parameter name="file_path">/sr',
    ],
    ids=["after the name", "inside a value", "bare invoke"],
)
def test_cut_off_call_is_truncated(text: str) -> None:
    check(text, [], ["truncated"])


def test_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    # Step-3 reasons in <think>...</think> (vllm reasoning parser step3).
    text = f"<think>Maybe {BEGIN}{call(READ_INV)}{END}</think>No need."
    check(text, [], visible="No need.")


def test_call_in_reasoning_only_counts() -> None:
    check(f"<think>Reading: {BEGIN}{call(READ_INV)}{END}</think>", [("Read", READ)])


# ---------------------------------------------------------------- the decoders


def test_decode_call_on_bodies() -> None:
    assert found_calls(step3.decode_call(body("function<｜tool_sep｜>" + READ_INV))) == [
        ("Read", READ)
    ]
    assert found_calls(step3.decode_call(body(READ_INV + LS_INV))) == [("Read", READ), ("Bash", LS)]
    assert found_calls(
        step3.decode_call(body('Read<｜tool_sep｜>{"file_path": "/src/app.py"}'))
    ) == [("Read", READ)]
    cut = '<steptml:invoke name="Read"><steptml:parameter name="file_path">/s'
    assert found_kinds(step3.decode_call(body(cut, closed=False))) == ["truncated"]
    assert step3.decode_call(body("function<｜tool_sep｜>nothing here")) is None


def test_a_forgotten_parameter_end_runs_to_the_next_parameter() -> None:
    text = (
        '<steptml:invoke name="Read"><steptml:parameter name="file_path">/src/app.py'
        '<steptml:parameter name="limit">7</steptml:parameter></steptml:invoke>'
    )
    assert found_calls(step3.decode_invokes(body(text))) == [
        ("Read", {"file_path": "/src/app.py", "limit": 7})
    ]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: '<steptml:invoke name="Read">' + '<steptml:parameter name="a">x' * (n // 30),
        lambda n: '<steptml:invoke name="Read">' * (n // 28),
        lambda n: '<steptml:invoke name="Read"><steptml:parameter name="a">' + "x" * n,
    ],
)
@pytest.mark.parametrize("closed", [True, False])
def test_decoder_takes_linear_time(make: Any, closed: bool) -> None:
    assert_linear(lambda text: step3.decode_call(body(text, closed=closed)), make, 4_000)
