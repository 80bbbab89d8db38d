"""GLM-4.5 / 4.6 / 4.7: ``<tool_call>NAME`` then ``<arg_key>``/``<arg_value>`` pairs.

Sources: vllm-project/vllm vllm/tool_parsers/glm4_moe_tool_parser.py and
tests/tool_parsers/test_glm4_moe_tool_parser.py (4.5/4.6: a newline after the name and
between tags), vllm/tool_parsers/glm47_moe_tool_parser.py and
tests/tool_parsers/test_glm47_moe_tool_parser.py (4.7: inline, zero-argument calls, a
literal backslash-n between key and value), sgl-project/sglang
python/sglang/srt/function_call/glm47_moe_detector.py, ggml-org/llama.cpp
models/templates/GLM-4.6.jinja (the template: strings raw, other values as JSON) and
common/chat.cpp common_chat_parse_glm_4_5 (the same tags, <think> reasoning).
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import glm
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


def pair(key: str, value: str, sep: str = "\n") -> str:
    return f"<arg_key>{key}</arg_key>{sep}<arg_value>{value}</arg_value>{sep}"


READ_45 = "<tool_call>Read\n" + pair("file_path", "/src/app.py") + "</tool_call>"
BASH_45 = "<tool_call>Bash\n" + pair("command", "ls") + "</tool_call>"
READ_47 = "<tool_call>Read" + pair("file_path", "/src/app.py", "") + "</tool_call>"

TABLE: list[tuple[str, str, Calls]] = [
    (
        "4.5/4.6 template layout (llama.cpp models/templates/GLM-4.6.jinja; vllm "
        "test_glm4_moe_tool_parser.py test_extract_tool_calls_with_thinking_tags)",
        READ_45,
        [("Read", READ)],
    ),
    (
        "4.5 pairs indented on their lines (vllm test_glm4_moe_tool_parser.py single_tool_call)",
        "<tool_call>Bash\n    <arg_key>command</arg_key>\n    <arg_value>ls</arg_value>\n"
        "    </tool_call>",
        [("Bash", LS)],
    ),
    (
        "4.5 two calls (vllm test_glm4_moe_tool_parser.py multiple_tool_calls)",
        READ_45 + "\n" + BASH_45,
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "4.5 prose before the call (vllm test_glm4_moe_tool_parser.py "
        "tool_call_with_content_before)",
        "I'll read the file. " + READ_45,
        [("Read", READ)],
    ),
    (
        "4.5 calls between paragraphs (vllm test_glm4_moe_tool_parser.py "
        "test_extract_tool_calls_mixed_content)",
        "I will read it.\n\n" + READ_45 + "\n\nMeanwhile, listing.\n\n" + BASH_45,
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "4.5 no arguments (vllm test_glm4_moe_tool_parser.py "
        "test_extract_tool_calls_empty_arguments)",
        "<tool_call>Bash\n</tool_call>",
        [("Bash", {})],
    ),
    (
        "4.7 inline (vllm test_glm47_moe_tool_parser.py test_args_same_line)",
        READ_47,
        [("Read", READ)],
    ),
    (
        "4.7 inline, two calls (vllm test_glm47_moe_tool_parser.py test_multiple; sglang "
        "glm47_moe_detector.py docstring)",
        READ_47 + "<tool_call>Bash" + pair("command", "ls", "") + "</tool_call>",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "4.7 with newlines (vllm test_glm47_moe_tool_parser.py test_args_with_newlines)",
        "<tool_call>Read\n<arg_key>file_path</arg_key>\n<arg_value>/src/app.py</arg_value>\n"
        "</tool_call>",
        [("Read", READ)],
    ),
    (
        "4.7 no arguments, inline (vllm test_glm47_moe_tool_parser.py test_zero_arg_inline)",
        "<tool_call>Bash</tool_call>",
        [("Bash", {})],
    ),
    (
        "4.7 no arguments, newline (vllm test_glm47_moe_tool_parser.py test_zero_arg_newline)",
        "<tool_call>Bash\n</tool_call>",
        [("Bash", {})],
    ),
    (
        "4.7 literal backslash-n between key and value (vllm glm47_moe_tool_parser.py "
        "func_arg_regex)",
        "<tool_call>Read<arg_key>file_path</arg_key>\\n<arg_value>/src/app.py</arg_value>"
        "</tool_call>",
        [("Read", READ)],
    ),
    (
        "4.7 prose before (vllm test_glm47_moe_tool_parser.py test_content_before)",
        "Checking." + READ_47,
        [("Read", READ)],
    ),
    (
        "a space after the name (ikawrakow/ik_llama.cpp discussion 753, GLM-4.5-Air output)",
        "Let me list it: <tool_call>Bash <arg_key>command</arg_key> <arg_value>ls</arg_value> "
        "</tool_call>",
        [("Bash", LS)],
    ),
    (
        "values typed by the schema (GLM-4.6.jinja writes non-strings with tojson)",
        "<tool_call>Bash\n"
        + pair("command", "ls -la")
        + pair("timeout", "2.5")
        + pair("background", "true")
        + pair("env", '{"A": "1"}')
        + pair("args", "[1, 2]")
        + "</tool_call>",
        [
            (
                "Bash",
                {
                    "command": "ls -la",
                    "timeout": 2.5,
                    "background": True,
                    "env": {"A": "1"},
                    "args": [1, 2],
                },
            )
        ],
    ),
    (
        "an integer typed, a string kept as written (GLM-4.6.jinja)",
        "<tool_call>Read" + pair("file_path", "42", "") + pair("limit", "10", "") + "</tool_call>",
        [("Read", {"file_path": "42", "limit": 10})],
    ),
    (
        "a dotted MCP tool name (vllm glm4_moe_tool_parser.py: the name runs to the newline)",
        "<tool_call>mcp__git.log-v2\n" + pair("n", "3") + "</tool_call>",
        [("mcp__git.log-v2", {"n": "3"})],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_glm_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected)


def test_glm_markup_is_removed_and_prose_kept() -> None:
    text = "Reading.\n" + READ_45 + "<|observation|>"
    check(text, [("Read", READ)], visible="Reading.", hidden=("<tool_call>", "<|observation|>"))


def test_glm_value_is_raw_text_and_keeps_inner_markup() -> None:
    # A value runs to its </arg_value>: the closer and tags inside it are content.
    content = 'print("</tool_call> <arg_key>x</arg_key> <tool_call>")\n'
    text = (
        "<tool_call>Write\n"
        + pair("file_path", "f.py")
        + pair("content", "\n" + content + "\n")
        + "</tool_call>"
    )
    check(text, [("Write", {"file_path": "f.py", "content": content})])


def test_glm_value_loses_one_framing_newline_each_side() -> None:
    text = "<tool_call>Write" + pair("content", "\n\nx\n\n", "") + "</tool_call>"
    check(text, [("Write", {"content": "\nx\n"})])


def test_glm_value_keeps_escapes_as_written() -> None:
    text = "<tool_call>Bash" + pair("command", 'echo "a\\nb" &amp;', "") + "</tool_call>"
    check(text, [("Bash", {"command": 'echo "a\\nb" &amp;'})])


def test_glm_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = "<tool_call>Nope\n" + pair("a", "1") + "</tool_call>\n" + READ_45
    check(text, [("Read", READ)], ["unknown_tool"])


def test_glm_placeholder_name_is_an_unknown_tool() -> None:
    # Syntactically a zero-argument call: the model is told no such tool exists.
    check("Use <tool_call>NAME</tool_call> with the tool's name.", [], ["unknown_tool"])


def test_glm_names_match_exactly() -> None:
    text = "<tool_call>read\n" + pair("file_path", "a") + "</tool_call>"
    check(text, [], ["unknown_tool"])


def test_glm_duplicate_key_is_a_problem() -> None:
    text = "<tool_call>Read" + pair("file_path", "a", "") + pair("file_path", "b", "")
    check(text + "</tool_call>", [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        # vllm test_glm4_moe_tool_parser.py test_extract_tool_calls_incomplete_tool_call
        "<tool_call>Read\n<arg_key>file_path</arg_key>\n<arg_value>/src/app.py</arg_value>",
        "<tool_call>Write\n<arg_key>content</arg_key>\n<arg_value>half a fi",
        "<tool_call>Read<arg_key>file_pa",
        "<tool_call>Bash\n",
    ],
    ids=["after a pair", "inside a value", "inside a key", "after the name"],
)
def test_glm_cut_off_call_is_truncated(text: str) -> None:
    for result in outcomes(text):
        assert calls_of(result) == []
        assert kinds(result) == ["truncated"]


@pytest.mark.parametrize(
    "text",
    [
        "Wrap each call in <tool_call> tags, then <arg_key> and <arg_value> pairs.",
        "Write `<tool_call>Read<arg_key>file_path</arg_key><arg_value>a</arg_value>"
        "</tool_call>` to read a file.",
        "Example:\n```text\n<tool_call>Read\n<arg_key>file_path</arg_key>\n"
        "<arg_value>a</arg_value>\n</tool_call>\n```\nThat is the format.",
        "```python\ns = '<tool_call>Bash<arg_key>command</arg_key><arg_value>ls</arg_value>"
        "</tool_call>'\n```",
        # The template's own instructions, echoed (GLM-4.6.jinja).
        "<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n"
        "<arg_value>{arg-value-1}</arg_value>\n...\n</tool_call>",
    ],
    ids=["prose", "inline code", "text fence", "python fence", "schema echo"],
)
def test_glm_look_alikes_are_not_calls(text: str) -> None:
    no_call(text)


def test_glm_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    text = "<think>I could run " + READ_45 + " but first I answer.</think>\nThe file is small."
    for result in outcomes(text):
        assert calls_of(result) == []
        assert "<tool_call>" not in result.text
        assert result.text.strip() == "The file is small."


def test_glm_call_in_reasoning_only_counts() -> None:
    check("<think>I need the file.\n" + READ_45 + "</think>", [("Read", READ)])


def test_glm_call_after_reasoning_runs() -> None:
    # vllm test_glm4_moe_tool_parser.py test_extract_tool_calls_with_thinking_tags
    text = "<think>I want the file.</think>\n\nI will read it.\n" + READ_45
    check(text, [("Read", READ)], visible="I will read it.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '<tool_call>{"name": "Read", "arguments": {"file_path": "/src/app.py"}}</tool_call>',
            READ,
        ),
        (
            '<tool_call>\n{"name": "Read", "arguments": {"file_path": "/src/app.py"}}\n'
            "</tool_call>",
            READ,
        ),
        ('<tool_call>Read{"file_path": "/src/app.py"}</tool_call>', READ),
        ('<tool_call>Read\n{"file_path": "/src/app.py"}\n</tool_call>', READ),
        (
            "<tool_call>\n<function=Read>\n<parameter=file_path>\n/src/app.py\n</parameter>\n"
            "</function>\n</tool_call>",
            READ,
        ),
    ],
    ids=["json", "json on its line", "name then json", "name, newline, json", "qwen xml"],
)
def test_hermes_forms_of_the_shared_opener_still_read(text: str, expected: dict[str, str]) -> None:
    check(text, [("Read", expected)])


# -- the decoder on its own -------------------------------------------------------


def test_decode_glm_reads_pairs_in_order() -> None:
    found = glm.decode_glm(body("Read\n" + pair("file_path", "a") + pair("limit", "5")))
    assert found_calls(found) == [("Read", {"file_path": "a", "limit": 5})]


def test_decode_glm_zero_arguments_and_stray_text() -> None:
    assert found_calls(glm.decode_glm(body("Bash"))) == [("Bash", {})]
    found = glm.decode_glm(body("Bash\nnoise " + pair("command", "ls")))
    assert found_calls(found) == [("Bash", LS)]


def test_decode_glm_forgotten_value_closer_ends_at_the_block_end() -> None:
    found = glm.decode_glm(body("Bash<arg_key>command</arg_key><arg_value>ls\n"))
    assert found_calls(found) == [("Bash", LS)]


def test_decode_glm_key_without_value_is_invalid() -> None:
    found = glm.decode_glm(body("Bash<arg_key>command</arg_key>ls</tool_call>"))
    assert found_kinds(found) == ["invalid_json"]


def test_decode_glm_unclosed_body_is_truncated() -> None:
    found = glm.decode_glm(body("Read" + pair("file_path", "a", ""), closed=False))
    assert found_kinds(found) == ["truncated"]
    assert found is not None and found[0].name == "Read"


def test_decode_glm_unknown_and_any_name() -> None:
    assert found_kinds(glm.decode_glm(body("Nope"))) == ["unknown_tool"]
    assert found_calls(glm.decode_glm(body("Nope", known=None))) == [("Nope", {})]


def test_glm_head_and_refuse_split_the_shared_opener() -> None:
    for glm_text in ("Read\n<arg_key>", "Read<arg_key>", "Bash</tool_call>", " Bash \\n<arg_key>"):
        assert glm.HEAD.match(glm_text), glm_text
        assert not glm.REFUSE.match(glm_text), glm_text
    for hermes_text in ('{"name"', "\n{", "Read{", "Read\n{", "<function=Read>", "tags to call"):
        assert not glm.HEAD.match(hermes_text), hermes_text
        assert glm.REFUSE.match(hermes_text), hermes_text
    for partial in ("", "Rea", "Read\n", "Read\\"):
        assert not glm.HEAD.match(partial) and not glm.REFUSE.match(partial), partial


def test_decode_glm_is_linear_on_hostile_bodies() -> None:
    hostile = "Read" + "<arg_key>k</arg_key>" * 20000
    assert glm.decode_glm(body(hostile)) is not None
    assert glm.decode_glm(body("Read" + "\\n " * 50000 + "<arg_key>" * 20000)) is not None
