"""DeepSeek V3.1 / V3.2: the call markers in ASCII, and V3.2's DSML blocks.

Sources: vllm-project/vllm vllm/tool_parsers/deepseekv31_tool_parser.py and
tests/tool_parsers/test_deepseekv31_tool_parser.py (``NAME<｜tool▁sep｜>{json}``);
vllm/tool_parsers/deepseekv32_tool_parser.py (the DSML docstring and regexes) and
vllm/tokenizers/deepseek_v32_encoding.py (DeepSeek's encoding_dsv32.py: the tool
prompt, ``encode_arguments_to_dsml``: ``string="true"`` for strings, JSON for the
rest); sgl-project/sglang python/sglang/srt/function_call/deepseekv31_detector.py
and deepseekv32_detector.py (JSON bodies in an invoke, mixed DSML closing tags).
The fullwidth V3 / V3.1 markers stay the classic dialect (test_toolcalls_formats.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.families import deepseek, dsml
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
FC, FC_END = "<｜DSML｜function_calls>", "</｜DSML｜function_calls>"
TOKENS = ("DSML", "tool▁", "tool_call", "tool_sep", "<｜end▁of▁sentence｜>")


def invoke(name: str, *params: tuple[str, str, str], dsml: str = "｜DSML｜") -> str:
    inner = "".join(
        f'<{dsml}parameter name="{k}" string="{s}">{v}</{dsml}parameter>\n' for k, v, s in params
    )
    return f'<{dsml}invoke name="{name}">\n{inner}</{dsml}invoke>'


READ_INVOKE = invoke("Read", ("file_path", "/src/app.py", "true"))
LS_INVOKE = invoke("Bash", ("command", "ls", "true"))

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "V3.1 in ASCII bars (vllm tests/tool_parsers/test_deepseekv31_tool_parser.py "
        "with_tool, markers as text)",
        f"normal text<|tool▁calls▁begin|><|tool▁call▁begin|>Read<|tool▁sep|>{R}"
        "<|tool▁call▁end|><|tool▁calls▁end|>",
        [("Read", READ)],
        "normal text",
    ),
    (
        "V3.1 in ASCII bars and underscores, two calls, text around "
        "(test_deepseekv31_tool_parser.py multiple_tools)",
        f"some prefix text<|tool_calls_begin|><|tool_call_begin|>Read<|tool_sep|>{R}"
        f"<|tool_call_end|><|tool_call_begin|>Bash<|tool_sep|>{B}<|tool_call_end|>"
        "<|tool_calls_end|> some suffix text",
        [("Read", READ), ("Bash", LS)],
        "some prefix text some suffix text",
    ),
    (
        "V3 fenced form in ASCII (vllm deepseekv3_tool_parser.py function<sep>NAME + ```json)",
        f"<|tool▁calls▁begin|><|tool▁call▁begin|>function<|tool▁sep|>Read\n```json\n{R}\n```"
        "<|tool▁call▁end|><|tool▁calls▁end|>",
        [("Read", READ)],
        "",
    ),
    (
        "V3.1 fullwidth, end-of-sentence token after it (sglang deepseekv31_detector.py "
        "docstring: ...<｜tool▁calls▁end｜><｜end▁of▁sentence｜>)",
        f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>Read<｜tool▁sep｜>{R}<｜tool▁call▁end｜>"
        "<｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
        [("Read", READ)],
        "",
    ),
    (
        "V3.2 DSML, two invokes (vllm deepseekv32_tool_parser.py docstring)",
        f"{FC}\n{READ_INVOKE}\n{LS_INVOKE}\n{FC_END}",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "V3.2 DSML after text (encoding_dsv32.py: content, then \\n\\n<｜DSML｜function_calls>)",
        f"Let me look.\n\n{FC}\n{READ_INVOKE}\n{FC_END}",
        [("Read", READ)],
        "Let me look.",
    ),
    (
        'string="false" values are JSON (encoding_dsv32.py encode_arguments_to_dsml)',
        f"{FC}\n"
        + invoke(
            "Bash",
            ("command", "ls", "true"),
            ("timeout", "30", "false"),
            ("env", '{"A": "1"}', "false"),
            ("args", '["-l", 2]', "false"),
            ("background", "false", "false"),
        )
        + f"\n{FC_END}",
        [
            (
                "Bash",
                {
                    "command": "ls",
                    "timeout": 30,
                    "env": {"A": "1"},
                    "args": ["-l", 2],
                    "background": False,
                },
            )
        ],
        "",
    ),
    (
        "an invoke holding JSON (sglang deepseekv32_detector.py format 2)",
        f'{FC}\n<｜DSML｜invoke name="Read">\n{R}\n</｜DSML｜invoke>\n{FC_END}',
        [("Read", READ)],
        "",
    ),
    (
        "mixed closing tags (sglang deepseekv32_detector.py _parse_parameters_from_xml)",
        f'{FC}\n<｜DSML｜invoke name="Read">\n<｜DSML｜parameter name="file_path" '
        'string="true">/src/app.py</parameter>\n</invoke>\n' + FC_END,
        [("Read", READ)],
        "",
    ),
    (
        "DSML in ASCII bars",
        "<|DSML|function_calls>\n"
        + invoke("Read", ("file_path", "/src/app.py", "true"), dsml="|DSML|")
        + "\n</|DSML|function_calls>",
        [("Read", READ)],
        "",
    ),
    (
        "an invoke without its function_calls wrapper (sglang deepseekv32_detector.py "
        "streaming: <｜DSML｜invoke alone)",
        READ_INVOKE,
        [("Read", READ)],
        "",
    ),
    (
        "the section end forgotten: the output ends after the invokes",
        f"{FC}\n{READ_INVOKE}\n",
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_deepseek_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=TOKENS)


def test_dsml_raw_text_loses_one_framing_newline_and_keeps_escapes() -> None:
    value = "\n    if x:\n        return '\\n'\n\n"
    text = f"{FC}\n{invoke('Write', ('content', value, 'true'))}\n{FC_END}"
    check(text, [("Write", {"content": "    if x:\n        return '\\n'\n"})])


def test_dsml_raw_text_is_typed_by_the_schema_only() -> None:
    text = (
        f"{FC}\n"
        + invoke("Read", ("file_path", "42", "true"), ("limit", "10", "true"))
        + "\n"
        + invoke("Bash", ("command", "true", "true"), ("background", "true", "true"))
        + f"\n{FC_END}"
    )
    check(
        text,
        [
            ("Read", {"file_path": "42", "limit": 10}),
            ("Bash", {"command": "true", "background": True}),
        ],
    )


@pytest.mark.parametrize(
    "text",
    [
        "DeepSeek V3.2 writes <｜DSML｜function_calls> blocks with invokes inside.",
        f"Use `{READ_INVOKE}` to read.",
        f"Use `{FC}{READ_INVOKE.replace(chr(10), '')}{FC_END}` to read.",
        f"```text\n{FC}\n{READ_INVOKE}\n{FC_END}\n```",
        # The tool prompt echoed (encoding_dsv32.py TOOLS_SYSTEM_TEMPLATE).
        f'{FC}\n<｜DSML｜invoke name="$FUNCTION_NAME">\n<｜DSML｜parameter '
        'name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</｜DSML｜parameter>\n'
        f"...\n</｜DSML｜invoke>\n{FC_END}",
        'Write <｜DSML｜invoke name="Read"> and then the parameters.',
        "ASCII markers: <|tool▁call▁begin|> and <|tool▁sep|> by themselves.",
    ],
    ids=[
        "prose",
        "inline code",
        "inline code, whole block",
        "text fence",
        "schema echo",
        "bare invoke in prose",
        "ascii",
    ],
)
def test_deepseek_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = f"{FC}\n{invoke('Nope', ('x', '1', 'true'))}\n{READ_INVOKE}\n{FC_END}"
    check(text, [("Read", READ)], ["unknown_tool"])
    ascii_text = (
        f"<|tool_call_begin|>Nope<|tool_sep|>{{}}<|tool_call_end|>"
        f"<|tool_call_begin|>Bash<|tool_sep|>{B}<|tool_call_end|>"
    )
    check(ascii_text, [("Bash", LS)], ["unknown_tool"])


def test_names_match_exactly() -> None:
    check(f"{FC}\n{invoke('read', ('file_path', 'a', 'true'))}\n{FC_END}", [], ["unknown_tool"])


def test_a_closer_inside_a_json_string_is_content() -> None:
    text = (
        '<|tool_call_begin|>Bash<|tool_sep|>{"command": "echo <|tool_call_end|>"}<|tool_call_end|>'
    )
    check(text, [("Bash", {"command": "echo <|tool_call_end|>"})])


def test_duplicate_key_is_a_problem() -> None:
    dup = invoke("Read", ("file_path", "a", "true"), ("file_path", "b", "true"))
    check(f"{FC}\n{dup}\n{FC_END}", [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        f'{FC}\n<｜DSML｜invoke name="Read">\n<｜DSML｜parameter name="file_path" '
        'string="true">/sr',
        f'{FC}\n<｜DSML｜invoke name="Re',
        '<|tool▁calls▁begin|><|tool▁call▁begin|>Read<|tool▁sep|>{"file_path": "/s',
        "<|tool_call_begin|>Read<|tool_sep|>",
    ],
    ids=["dsml value", "dsml name", "ascii json", "ascii no arguments"],
)
def test_cut_off_call_is_truncated(text: str) -> None:
    check(text, [], ["truncated"])


def test_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    # V3.1 / V3.2 think in <think>...</think> (encoding_dsv32.py thinking_start_token).
    text = f"<think>Maybe\n\n{FC}\n{READ_INVOKE}\n{FC_END}</think>No need."
    check(text, [], visible="No need.")


def test_call_in_reasoning_only_counts() -> None:
    check(f"<think>Reading:\n\n{FC}\n{READ_INVOKE}\n{FC_END}</think>", [("Read", READ)])


# ---------------------------------------------------------------- the decoders


@pytest.mark.parametrize(
    "text",
    [
        f"Read<｜tool▁sep｜>{R}",
        f"Read<|tool▁sep|>{R}",
        f"Read<|tool_sep|>{R}",
        f"Read<｜tool_sep｜>{R}",
        f"function<|tool▁sep|>Read\n```json\n{R}\n```",
        f"function<|tool_sep|>Read\n{R}",
        f" Read <|tool_sep|>\n{R}\n",
    ],
)
def test_decode_call_body_reads_every_spelling(text: str) -> None:
    assert found_calls(deepseek.decode_call_body(body(text))) == [("Read", READ)]


def test_decode_call_body_edges() -> None:
    assert deepseek.decode_call_body(body("two words<|tool_sep|>{}")) is None
    assert found_kinds(deepseek.decode_call_body(body("Read<|tool_sep|>{", closed=False))) == [
        "truncated"
    ]
    assert found_kinds(deepseek.decode_call_body(body("Read<|tool_sep|>[1]"))) == ["invalid_json"]
    assert found_calls(deepseek.decode_call_body(body("Write<|tool_sep|>"))) == [("Write", {})]
    # A forgotten call end: the next call is inside the body.
    text = f"Read<|tool_sep|>{R}<|tool_call_begin|>Bash<|tool_sep|>{B}"
    assert found_calls(deepseek.decode_call_body(body(text))) == [("Read", READ), ("Bash", LS)]
    # An opener inside an argument string is data, one outside splits.
    args = '{"command": "echo <|tool_call_begin|>Bash<|tool_sep|>{}"}'
    found = deepseek.decode_call_body(body(f"Bash<|tool_sep|>{args}"))
    assert found_calls(found) == [
        ("Bash", {"command": "echo <|tool_call_begin|>Bash<|tool_sep|>{}"})
    ]
    found = deepseek.decode_call_body(
        body(f"Bash<|tool_sep|>{args}<|tool_call_begin|>Read<|tool_sep|>{R}")
    )
    assert len(found_calls(found)) == 2
    # A tool named "function" in the V3.1 form.
    found = deepseek.decode_call_body(body("function<|tool_sep|>{}", known=None))
    assert found_calls(found) == [("function", {})]


def test_json_call() -> None:
    known = frozenset({"Read"})
    assert deepseek.json_call("Read", f"  {R}\n", known, closed=True).args == READ
    assert deepseek.json_call("Read", "", known, closed=True).args == {}
    assert deepseek.json_call("Read", "", known, closed=False).problem is not None
    fixed = deepseek.json_call("Read", "{'file_path': '/src/app.py'}", known, closed=True)
    assert fixed.args == READ and fixed.repaired
    nope = deepseek.json_call("Nope", "{oops", known, closed=True)
    assert nope.problem is not None and nope.problem[0] == "unknown_tool"


def test_decode_dsml_on_bodies() -> None:
    inner = f"\n{READ_INVOKE}\n{LS_INVOKE}\n"
    assert found_calls(dsml.decode_dsml(body(inner))) == [("Read", READ), ("Bash", LS)]
    assert dsml.decode_dsml(body("\nno invokes here\n")) is None
    cut = '\n<｜DSML｜invoke name="Read">\n<｜DSML｜parameter name="file_path" string="true">/'
    assert found_kinds(dsml.decode_dsml(body(cut, closed=False))) == ["truncated"]
    # A forgotten parameter end: the value runs to the next parameter.
    loose = (
        '<｜DSML｜invoke name="Read">\n<｜DSML｜parameter name="file_path" string="true">'
        '/src/app.py\n<｜DSML｜parameter name="limit" string="false">5</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>"
    )
    assert found_calls(dsml.decode_dsml(body(loose))) == [
        ("Read", {"file_path": "/src/app.py", "limit": 5})
    ]
    # string="false" that is not JSON: the text, typed by the schema.
    odd = invoke("Read", ("file_path", "/src/app.py", "false"))
    assert found_calls(dsml.decode_dsml(body(odd))) == [("Read", READ)]


@pytest.mark.parametrize(
    ("decode", "make"),
    [
        (dsml.decode_dsml, lambda n: '<｜DSML｜parameter name="a" string="true">x' * (n // 44)),
        (dsml.decode_dsml, lambda n: '<｜DSML｜invoke name="Read">' * (n // 26)),
        (
            dsml.decode_dsml,
            lambda n: (
                '<｜DSML｜invoke name="Read">\n'
                + '<｜DSML｜parameter name="a" string="true">x' * (n // 44)
            ),
        ),
        (
            deepseek.decode_call_body,
            lambda n: "Read<|tool_sep|>{" + "<|tool_call_begin|>" * (n // 19),
        ),
        (deepseek.decode_call_body, lambda n: 'Read<|tool_sep|>{"a": "' + "x" * n),
    ],
)
def test_decoders_take_linear_time(decode: Any, make: Any) -> None:
    assert_linear(lambda text: decode(body(text, closed=False)), make, 4_000)
