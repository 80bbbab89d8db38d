"""Salesforce xLAM: a bare JSON array of ``{"name", "arguments"}`` calls.

Source: vllm-project/vllm vllm/tool_parsers/xlam_tool_parser.py and
tests/tool_parsers/test_xlam_tool_parser.py (parallel_tool_calls,
single_tool_with_think_tag, single_tool_with_json_code_block,
single_tool_with_tool_calls_tag, single_tool_with_tool_call_xml_tags,
list_structured_tool_call); the templates examples/tool_chat_template_xlam_llama.jinja
and examples/tool_chat_template_xlam_qwen.jinja.
"""

from __future__ import annotations

import json

import pytest

from nehanda.toolcalls.families import xlam
from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call

R = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
B = '{"name": "Bash", "arguments": {"command": "ls"}}'

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "alone, parallel (vllm tests/tool_parsers/test_xlam_tool_parser.py parallel_tool_calls)",
        f"[{R}, {B}]",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "after </think> (test_xlam_tool_parser.py single_tool_with_think_tag)",
        f"<think>I'll help you with that.</think>[{R}]",
        [("Read", READ)],
        "",
    ),
    (
        "in a json fence after prose (test_xlam_tool_parser.py single_tool_with_json_code_block)",
        f"I'll help you with that.\n```json\n[{R}]\n```",
        [("Read", READ)],
        "I'll help you with that.",
    ),
    (
        "after [TOOL_CALLS] (test_xlam_tool_parser.py single_tool_with_tool_calls_tag)",
        f"I'll check the weather for you.[TOOL_CALLS][{R}]",
        [("Read", READ)],
        "I'll check the weather for you.",
    ),
    (
        "inside <tool_call> tags (test_xlam_tool_parser.py single_tool_with_tool_call_xml_tags)",
        f"I'll help you check the weather.<tool_call>[{R}]</tool_call>",
        [("Read", READ)],
        "I'll help you check the weather.",
    ),
    (
        "arguments as a JSON string (vllm xlam_tool_parser.py passes string arguments on)",
        json.dumps([{"name": "Read", "arguments": json.dumps(READ)}]),
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_xlam_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible)


def test_xlam_array_on_its_own_line_after_prose() -> None:
    # Not a vLLM form (it needs a fence or a tag after prose); the line form reads it.
    check(f"I'll read the file.\n[{R}]", [("Read", READ)], visible="I'll read the file.")


@pytest.mark.parametrize(
    "text",
    [
        "This is a test",
        '[{"city": "Dallas", "state": "TX"}]',
        "Results: [1, 2, 3]",
        f"The model answers with a list such as `[{R}]`.",
        f"```text\n[{R}]\n```",
        f"Here is the list: [{R}] as an example.",
    ],
    ids=["prose", "data list", "numbers", "inline code", "text fence", "mid-sentence"],
)
def test_xlam_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_xlam_unknown_tool_in_bare_list_is_prose() -> None:
    # A bare list is a weak form: with no known tool named it is data, not a call.
    no_call('[{"name": "get_current_weather", "arguments": {"city": "Seattle"}}]')


def test_xlam_unknown_tool_beside_a_known_one_is_dropped() -> None:
    check('[{"name": "Nope", "arguments": {}}, ' + R + "]", [("Read", READ)], ["unknown_tool"])


def test_xlam_truncated_array_never_runs() -> None:
    check('[{"name": "Read", "arguments": {"file_path": "/src', [], ["truncated"])


def test_xlam_call_drafted_in_reasoning_does_not_run() -> None:
    check(f"<think>[{R}]</think>The file is small.", [])


def test_xlam_call_in_reasoning_only_counts() -> None:
    check(f"<think>[{R}]</think>", [("Read", READ)])


def test_xlam_bare_list_first_in_reasoning_must_be_all_of_it() -> None:
    check(f"<think> [{R}]\n</think>\n", [("Read", READ)])
    check(f"<think>[{R}]</think>\n[{R}]", [("Read", READ)])  # the answer's call, once
    no_call(f"<think>[{R}] is what I would send.</think>")
    no_call(f"<think>[{R}]</think>The file is small.")


def test_xlam_family_adds_no_syntax() -> None:
    assert xlam.FAMILY.dialects == () and xlam.FAMILY.sections == ()
    assert "xlam_tool_parser" in xlam.FAMILY.source
