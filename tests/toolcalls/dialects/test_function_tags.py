"""``<function...>`` elements: JSON bodies (Llama 3.1 / Functionary v3.1, Hermes 2 Pro),
Qwen3-Coder parameters, ``<function name="...">`` with named parameters (MiniCPM).

Sources: ggml-org/llama.cpp common/chat.cpp common_chat_parse_hermes_2_pro
(``<function=([^>]+)>`` and ``<function name="([^"]+)">`` followed by JSON) and
common_chat_parse_functionary_v3_1_llama_3_1, tests/test-chat.cpp (Functionary v3.1
cases); vllm-project/vllm vllm/tool_parsers/qwen3coder_tool_parser.py (parameters as raw
text) and vllm/tool_parsers/minicpm5xml_tool_parser.py (``<param name=...>``, an
optional ``<arguments>`` wrapper).
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import functions
from toolcalls.dialects.family_checks import (
    LS,
    READ,
    Calls,
    body,
    check,
    found_calls,
    found_kinds,
    no_call,
    outcomes,
)
from toolcalls.toolcall_render import calls_of, kinds

R_JSON = '{"file_path": "/src/app.py"}'
B_JSON = '{"command": "ls"}'

TABLE: list[tuple[str, str, Calls]] = [
    (
        "JSON after <function=NAME> (llama.cpp tests/test-chat.cpp meetkai-functionary-medium-v3.1 "
        "'<function=special_function>{\"arg1\": 1}</function>')",
        f"<function=Read>{R_JSON}</function>",
        [("Read", READ)],
    ),
    (
        "two JSON calls inside prose (llama.cpp tests/test-chat.cpp FunctionaryV3Llama31 "
        "'Hell<function=foo>...</function>o, world<function=bar>...</function>!')",
        f"Hell<function=Read>{R_JSON}</function>o, world<function=Bash>{B_JSON}</function>!",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "JSON on its own line (llama.cpp common/chat.cpp common_chat_parse_hermes_2_pro: "
        "try_consume_json after the tag)",
        f"<function=Read>\n{R_JSON}\n</function>",
        [("Read", READ)],
    ),
    (
        'JSON after <function name="NAME"> (llama.cpp common_chat_parse_hermes_2_pro, match 5)',
        f'<function name="Read">{R_JSON}</function>',
        [("Read", READ)],
    ),
    (
        "named function, named parameters (vllm minicpm5xml_tool_parser.py "
        "_FUNC_NAME_V1_REGEX with <parameter name=...>)",
        '<function name="Read"><parameter name="file_path">/src/app.py</parameter></function>',
        [("Read", READ)],
    ),
    (
        "named function over lines, single quotes (vllm minicpm5xml_tool_parser.py: either quote)",
        "<function name='Bash'>\n<parameter name='command'>\nls\n</parameter>\n</function>",
        [("Bash", LS)],
    ),
    (
        "MiniCPM <param name=...> (vllm minicpm5xml_tool_parser.py _PARAM_WITH_NAME_REGEX)",
        '<function name="Read"><param name="file_path">/src/app.py</param>'
        '<param name="limit">20</param></function>',
        [("Read", {"file_path": "/src/app.py", "limit": 20})],
    ),
    (
        "MiniCPM <arguments> wrapper (vllm minicpm5xml_tool_parser.py args_node)",
        '<function name="Read"><arguments><param name="file_path">/src/app.py</param>'
        "</arguments></function>",
        [("Read", READ)],
    ),
    (
        "Qwen3-Coder parameters still read by the streaming reader (vllm "
        "qwen3coder_tool_parser.py)",
        "<function=Read>\n<parameter=file_path>\n/src/app.py\n</parameter>\n</function>",
        [("Read", READ)],
    ),
    (
        "JSON whose strings hold tags (llama.cpp common_chat_parse_hermes_2_pro: the JSON "
        "value ends the arguments)",
        '<function=Write>{"file_path": "a.html", "content": "<b>x</b> <parameter=y>"}</function>',
        [("Write", {"file_path": "a.html", "content": "<b>x</b> <parameter=y>"})],
    ),
    (
        "a call with no arguments (llama.cpp try_consume_json of an empty object)",
        "<function=Bash>{}</function>",
        [("Bash", {})],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_function_tags_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected)


def test_function_tags_prose_is_kept_around_calls() -> None:
    text = f"Hell<function=Read>{R_JSON}</function>o, world<function=Bash>{B_JSON}</function>!"
    check(text, [("Read", READ), ("Bash", LS)], visible="Hello, world!")


def test_function_tags_slightly_broken_json_is_repaired() -> None:
    for result in outcomes("<function=Read>{'file_path': '/src/app.py',}</function>"):
        assert calls_of(result) == [("Read", READ)]
        assert kinds(result) == ["repaired"]


def test_function_tags_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = f'<function=Nope>{{"a": 1}}</function>\n<function name="Read">{R_JSON}</function>'
    check(text, [("Read", READ)], ["unknown_tool"])


def test_function_tags_duplicate_key_is_a_problem() -> None:
    check('<function=Read>{"file_path": "a", "file_path": "b"}</function>', [], ["duplicate_key"])
    text = (
        '<function name="Read"><parameter name="file_path">a</parameter>'
        '<parameter name="file_path">b</parameter></function>'
    )
    check(text, [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        '<function=Read>{"file_path": "/src/a',
        f"<function=Read>{R_JSON}",
        '<function name="Read"><parameter name="file_path">/src/app.py</parameter>',
        '<function name="Read">{"file_path": ',
    ],
    ids=["inside the JSON", "before </function>", "named, before </function>", "named, JSON"],
)
def test_function_tags_cut_off_call_is_truncated(text: str) -> None:
    for result in outcomes(text):
        assert calls_of(result) == []
        assert kinds(result) == ["truncated"]


@pytest.mark.parametrize(
    "text",
    [
        "Llama 3.1 calls look like <function=NAME> followed by JSON.",
        'Hermes also writes <function name="NAME"> tags.',
        f"Write `<function=Read>{R_JSON}</function>` to read a file.",
        f'Or `<function name="Read">{R_JSON}</function>`.',
        f"Like this:\n```text\n<function=Read>{R_JSON}</function>\n```\n",
        f'```html\n<function name="Read">{R_JSON}</function>\n```',
        "In JavaScript, <function=foo> is not valid; use function foo() {}.",
    ],
    ids=["prose", "prose named", "inline", "inline named", "text fence", "html fence", "code talk"],
)
def test_function_tags_look_alikes_are_not_calls(text: str) -> None:
    no_call(text)


def test_function_tags_schema_echo_names_no_known_tool() -> None:
    # The Llama 3.1 custom-tool instructions' example, echoed back.
    text = '<function=example_function_name>{"example_name": "example_value"}</function>'
    check(text, [], ["unknown_tool"])


def test_function_tags_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    text = f"<think>Perhaps <function=Read>{R_JSON}</function>.</think>\nNo call needed."
    for result in outcomes(text):
        assert calls_of(result) == []
        assert result.text.strip() == "No call needed."


def test_function_tags_call_in_reasoning_only_counts() -> None:
    check(f"<think>I need it: <function=Read>{R_JSON}</function></think>", [("Read", READ)])


# A Write whose content documents the Qwen3-Coder format: the value runs to its
# </parameter>, so the <parameter=KEY> it mentions is text, not a new parameter.
DOC = "Name the file with <parameter=file_path> and close it.\n<parameter=x> too."
QWEN_DOC_WRAPPED = (
    "<tool_call>\n<function=Write>\n<parameter=content>\n"
    + DOC
    + "\n</parameter>\n<parameter=file_path>\ndoc.md\n</parameter>\n</function>\n</tool_call>"
)
QWEN_DOC = (
    "<function=Write>\n<parameter=content>\n"
    + DOC
    + "\n</parameter>\n<parameter=file_path>\ndoc.md\n</parameter>\n</function>"
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(QWEN_DOC_WRAPPED, id="in <tool_call>"),
        pytest.param(QWEN_DOC, id="unwrapped"),
    ],
)
def test_qwen_value_mentioning_a_parameter_tag_stays_text(text: str) -> None:
    check(text, [("Write", {"content": DOC, "file_path": "doc.md"})])


# -- the decoders on their own ----------------------------------------------------


def test_decode_function_eq_reads_json_and_parameters() -> None:
    assert found_calls(functions.decode_function_eq(body(f"Read>{R_JSON}"))) == [("Read", READ)]
    text = "Read>\n<parameter=file_path>\n/src/app.py\n</parameter>\n<parameter=limit>5</parameter>"
    found = functions.decode_function_eq(body(text))
    assert found_calls(found) == [("Read", {"file_path": "/src/app.py", "limit": 5})]


def test_decode_function_eq_value_runs_to_its_closing_tag() -> None:
    text = "Write>\n<parameter=content>\n" + DOC + " </function>\n</parameter>\n"
    text += "<parameter=file_path>doc.md</parameter>\n"
    found = functions.decode_function_eq(body(text))
    assert found_calls(found) == [
        ("Write", {"content": DOC + " </function>", "file_path": "doc.md"})
    ]


def test_decode_function_eq_skips_stray_text_between_parameters() -> None:
    text = "Read>\n<parameter=file_path>a</parameter>\nnoise <b>\n<parameter=limit>2</parameter>\n"
    found = functions.decode_function_eq(body(text))
    assert found_calls(found) == [("Read", {"file_path": "a", "limit": 2})]


def test_decode_function_eq_forgotten_parameter_closer() -> None:
    found = functions.decode_function_eq(body("Read><parameter=file_path>a.py<parameter=limit>3"))
    assert found_calls(found) == [("Read", {"file_path": "a.py", "limit": 3})]


def test_decode_function_named_forms() -> None:
    for text in (
        f'"Read">{R_JSON}',
        "'Read'><parameter name=\"file_path\">/src/app.py</parameter>",
        'Read><param name="file_path">/src/app.py</param>',
        '"Read"><parameter=file_path>/src/app.py</parameter>',
    ):
        assert found_calls(functions.decode_function_named(body(text))) == [("Read", READ)], text


def test_decode_function_mentions_and_truncation() -> None:
    assert functions.decode_function_eq(body("no name here")) is None
    assert functions.decode_function_named(body('"unterminated')) is None
    found = functions.decode_function_eq(body(f"Read>{R_JSON}", closed=False))
    assert found_kinds(found) == ["truncated"]
    assert found is not None and found[0].name == "Read"


def test_decode_function_json_problems() -> None:
    assert found_kinds(functions.decode_function_eq(body("Read>[1, 2]"))) == ["invalid_json"]
    dup = functions.decode_function_eq(body('Read>{"a": 1, "a": 2}'))
    assert found_kinds(dup) == ["duplicate_key"]
    assert found_kinds(functions.decode_function_eq(body("Nope>{}"))) == ["unknown_tool"]
    assert found_calls(functions.decode_function_eq(body("Nope>{}", known=None))) == [("Nope", {})]


def test_decode_function_json_cut_inside_a_string_is_not_repaired() -> None:
    # "</function>" inside a JSON string ends the section early: nothing is invented.
    found = functions.decode_function_eq(body('Write>{"content": "a'))
    assert found_kinds(found) == ["invalid_json"]
    found = functions.decode_function_eq(body('Read>{"file_path": "/src/app.py"'))
    assert found_calls(found) == [("Read", READ)]


def test_function_tags_closer_inside_a_json_string_is_content() -> None:
    text = '<function=Write>{"content": "a</function>\\"b", "file_path": "f"}</function>'
    check(text, [("Write", {"content": 'a</function>"b', "file_path": "f"})])
    text = '<function name="Write">{"content": "</function>", "file_path": "f"}</function>'
    check(text, [("Write", {"content": "</function>", "file_path": "f"})])


def test_read_elements_in_a_wrapper() -> None:
    text = f"\n<function=Read>{R_JSON}</function>\n<function=Bash>\n<parameter=command>ls"
    found = functions.read_elements(body(text + "</parameter>\n</function>\n"))
    assert found_calls(found) == [("Read", READ), ("Bash", LS)]
    found = functions.read_elements(body(text, closed=False))
    assert found_calls(found) == [("Read", READ)]
    assert found_kinds(found) == ["truncated"]
    assert functions.read_elements(body("no functions")) is None


def test_heads_and_refusals() -> None:
    assert functions.EQ_HEAD.match('Read>{"a"')
    assert functions.EQ_HEAD.match("Read>\n  {")
    for other in ("Read>\n<parameter=", "NAME> followed", "foo> is", "a\nb>{"):
        assert not functions.EQ_HEAD.match(other), other
        assert functions.EQ_REFUSE.match(other), other
    for partial in ("Rea", "Read>", "Read>\n"):
        assert not functions.EQ_HEAD.match(partial) and not functions.EQ_REFUSE.match(partial)
    for named in (
        '"Read">{',
        "'Read'>\n<parameter name=",
        'Read><param name="a">',
        '"R"></function>',
    ):
        assert functions.NAMED_HEAD.match(named), named
        assert not functions.NAMED_REFUSE.match(named), named
    assert functions.NAMED_REFUSE.match('"NAME"> tags')
    assert not functions.NAMED_REFUSE.match('"Rea')


def test_decoders_are_linear_on_hostile_bodies() -> None:
    many = "Read>" + "<parameter=k>" * 20000
    assert functions.decode_function_eq(body(many)) is not None
    many = "Read>" + "<parameter=k>v</parameter><function" * 10000
    assert functions.decode_function_eq(body(many)) is not None
    nested = "Read>" + "[" * 50000
    assert found_kinds(functions.decode_function_eq(body(nested))) == ["invalid_json"]
    wrapper = "<function=a>" * 20000
    assert functions.read_elements(body(wrapper)) is not None
