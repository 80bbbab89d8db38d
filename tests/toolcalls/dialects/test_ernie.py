"""Baidu ERNIE 4.5: Hermes ``<tool_call>`` JSON after ``</think>``, ``<response>`` markup.

Source: vllm-project/vllm vllm/tool_parsers/ernie45_tool_parser.py (format
"abc\\n</think>\\n\\n\\n<tool_call>\\ndef\\n</tool_call>\\n", ``<response>``/``</response>``
removed from content) and tests/tool_parsers/test_ernie45_moe_tool_parser.py.
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import ernie
from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call

R = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
B = '{"name": "Bash", "arguments": {"command": "ls"}}'

TABLE: list[tuple[str, str, Calls]] = [
    (
        "one call (vllm tests/tool_parsers/test_ernie45_moe_tool_parser.py single_tool_call)",
        f"<tool_call>\n{R}\n</tool_call>\n",
        [("Read", READ)],
    ),
    (
        "two calls (test_ernie45_moe_tool_parser.py multiple_tool_calls)",
        f"<tool_call>\n{R}\n</tool_call>\n<tool_call>\n{B}\n</tool_call>\n",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "after the template-opened reasoning (test_ernie45_moe_tool_parser.py "
        "tool_call_with_content_before)",
        f"I need to call two tools.\n</think>\n\n<tool_call>\n{R}\n</tool_call>\n"
        f"<tool_call>\n{B}\n</tool_call>\n",
        [("Read", READ), ("Bash", LS)],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_ernie_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected, hidden=("<tool_call>", "</think>"))


def test_ernie_response_is_markup() -> None:
    # vllm ernie45_tool_parser.py: <response> and </response> are cut from content.
    check(
        "<think>Thinking about it.\n</think>\n\n<response>\nIt is 4.\n</response>\n",
        [],
        visible="It is 4.",
    )


def test_ernie_response_after_template_opened_reasoning() -> None:
    # The template opened <think>; prose before a bare </think> was already shown
    # (scanner.py docstring), the response tags are still markup.
    text = "Thinking about it.\n</think>\n\n<response>\nIt is 4.\n</response>\n"
    check(text, [], hidden=("<response>", "</response>", "</think>"))


@pytest.mark.parametrize(
    "text",
    [
        "ERNIE writes <tool_call> blocks after </think>.",
        f"Use `<tool_call>{R}</tool_call>`.",
        f"```text\n<tool_call>\n{R}\n</tool_call>\n```",
        "<response>No tools needed.</response>",
    ],
    ids=["prose", "inline code", "text fence", "response only"],
)
def test_ernie_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_ernie_unknown_tool_is_dropped_others_kept() -> None:
    nope = '{"name": "Nope", "arguments": {}}'
    text = f"<tool_call>\n{nope}\n</tool_call>\n<tool_call>\n{R}\n</tool_call>"
    check(text, [("Read", READ)], ["unknown_tool"])


def test_ernie_truncated_call_never_runs() -> None:
    check(
        '</think>\n\n<tool_call>\n{"name": "Read", "arguments": {"file_path": "/s',
        [],
        ["truncated"],
    )


def test_ernie_call_drafted_in_reasoning_does_not_run() -> None:
    check(f"Maybe <tool_call>{R}</tool_call> no.\n</think>\n\n<response>Done.</response>", [])


def test_ernie_call_in_reasoning_only_counts() -> None:
    check(f"<think><tool_call>\n{R}\n</tool_call></think>", [("Read", READ)])


def test_ernie_family_rows() -> None:
    assert set(ernie.FAMILY.markup) == {"<response>", "</response>"}
