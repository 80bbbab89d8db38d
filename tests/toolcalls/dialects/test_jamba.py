"""AI21 Jamba: ``<tool_calls>[{"name": ..., "arguments": {...}}]</tool_calls>``.

Source: vllm-project/vllm vllm/tool_parsers/jamba_tool_parser.py (the regex
``<tool_calls>(.*?)</tool_calls>``, content before the block kept) and
tests/tool_parsers/test_jamba_tool_parser.py.
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import jamba
from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call

R = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
B = '{"name": "Bash", "arguments": {"command": "ls"}}'

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "one call (vllm tests/tool_parsers/test_jamba_tool_parser.py single_tool)",
        f"<tool_calls>[\n    {R}\n]</tool_calls>",
        [("Read", READ)],
        "",
    ),
    (
        "parallel calls (test_jamba_tool_parser.py parallel_tools)",
        f"<tool_calls>[\n    {R},\n    {B}\n]</tool_calls>",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "content before the block (vllm jamba_tool_parser.py content = text before)",
        f" Sure! let me call the tool for you.<tool_calls>[{R}]</tool_calls>",
        [("Read", READ)],
        "Sure! let me call the tool for you.",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_jamba_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=("<tool_calls>", "</tool_calls>"))


@pytest.mark.parametrize(
    "text",
    [
        "Jamba puts its calls between <tool_calls> and </tool_calls>.",
        "Use `<tool_calls>[" + R + "]</tool_calls>`.",
        "```text\n<tool_calls>[" + R + "]</tool_calls>\n```",
        "<tool_calls> none needed </tool_calls>",
    ],
    ids=["prose", "inline code", "text fence", "no JSON"],
)
def test_jamba_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_jamba_unknown_tool_is_dropped_others_kept() -> None:
    text = '<tool_calls>[{"name": "Nope", "arguments": {}}, ' + R + "]</tool_calls>"
    check(text, [("Read", READ)], ["unknown_tool"])


def test_jamba_truncated_call_never_runs() -> None:
    check('<tool_calls>[{"name": "Read", "arguments": {"file_path": "/s', [], ["truncated"])


def test_jamba_call_drafted_in_reasoning_does_not_run() -> None:
    check(f"<think><tool_calls>[{R}]</tool_calls></think>Done already.", [])


def test_jamba_call_in_reasoning_only_counts() -> None:
    check(f"<think><tool_calls>[{R}]</tool_calls></think>", [("Read", READ)])


def test_jamba_dialect_row() -> None:
    assert (jamba.JAMBA.opener, jamba.JAMBA.closers) == ("<tool_calls>", ("</tool_calls>",))
