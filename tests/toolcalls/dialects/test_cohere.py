"""Cohere Command: ``<|START_ACTION|>`` arrays (R7B, A) and ``Action:`` json fences (R).

Sources: ggml-org/llama.cpp common/chat.cpp common_chat_parse_command_r7b (reasoning
``<|START_THINKING|>``/``<|END_THINKING|>``, ``<|START_RESPONSE|>``/``<|END_RESPONSE|>``,
``tool_call_id``/``tool_name``/``parameters``); vllm-project/vllm
vllm/tool_parsers/cohere_command_tool_parser.py and
tests/tool_parsers/test_cohere_command_tool_parser.py (cmd3/cmd4 cases, special-token
markers); vllm examples/command_r_tool_chat_template.jinja (Command R ``Action:`` and
the ``directly-answer`` pseudo tool).
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import cohere
from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call

A_READ = '{"tool_call_id": "0", "tool_name": "Read", "parameters": {"file_path": "/src/app.py"}}'
A_BASH = '{"tool_call_id": "1", "tool_name": "Bash", "parameters": {"command": "ls"}}'
MARKERS = (
    "<|START_THINKING|>",
    "<|END_THINKING|>",
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_ACTION|>",
    "<|END_ACTION|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
)

TABLE: list[tuple[str, str, Calls]] = [
    (
        "plan then one action (vllm tests/tool_parsers/test_cohere_command_tool_parser.py "
        "cmd3-single_tool_call)",
        "<|START_THINKING|> i will read the file<|END_THINKING|><|START_ACTION|>\n[\n    "
        + A_READ
        + "\n]\n<|END_ACTION|>",
        [("Read", READ)],
    ),
    (
        "two actions (test_cohere_command_tool_parser.py cmd4-multiple_tool_calls)",
        "<|START_THINKING|>first I read<|END_THINKING|><|START_ACTION|>\n[\n    "
        + A_READ
        + ",\n    "
        + A_BASH
        + "\n]\n<|END_ACTION|>",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "action without a plan (llama.cpp common/chat.cpp common_chat_parse_command_r7b)",
        f"<|START_ACTION|>[{A_READ}]<|END_ACTION|>",
        [("Read", READ)],
    ),
    (
        "Command R Action: json fence (vllm examples/command_r_tool_chat_template.jinja)",
        'Action:\n```json\n[\n    {\n        "tool_name": "Read",\n        "parameters": '
        '{"file_path": "/src/app.py"}\n    }\n]```',
        [("Read", READ)],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_cohere_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected, hidden=MARKERS)


def test_cohere_response_tags_are_markup() -> None:
    # test_cohere_command_tool_parser.py cmd3-citations_no_tool_calls (without citations).
    text = (
        "<|START_THINKING|>This is a rainbow<|END_THINKING|>\n"
        "<|START_RESPONSE|>foo bar<|END_RESPONSE|>"
    )
    check(text, [], visible="foo bar", hidden=MARKERS)


def test_cohere_reasoning_only_yields_no_text() -> None:
    # test_cohere_command_tool_parser.py cmd3-reasoning_only.
    check("<|START_THINKING|>just think, no response<|END_THINKING|>", [], visible="")


def test_cohere_directly_answer_is_not_a_call() -> None:
    # examples/command_r_tool_chat_template.jinja: "use the `directly-answer` tool if
    # calling the other tools is unnecessary".
    no_call('Action:\n```json\n[{"tool_name": "directly-answer", "parameters": {}}]\n```')


@pytest.mark.parametrize(
    "text",
    [
        "Command A wraps calls in <|START_ACTION|> and <|END_ACTION|>.",
        "Write `<|START_ACTION|>[" + A_READ + "]<|END_ACTION|>` to act.",
        "```text\n<|START_ACTION|>[" + A_READ + "]<|END_ACTION|>\n```",
        "<|START_ACTION|> see below <|END_ACTION|>",
    ],
    ids=["prose", "inline code", "text fence", "no JSON"],
)
def test_cohere_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_cohere_unknown_tool_is_dropped_others_kept() -> None:
    text = (
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "Nope", "parameters": {}}, '
        + A_READ
        + "]<|END_ACTION|>"
    )
    check(text, [("Read", READ)], ["unknown_tool"])


def test_cohere_truncated_action_never_runs() -> None:
    check(
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "Read", "parameters": {"fi',
        [],
        ["truncated"],
    )


def test_cohere_action_drafted_in_thinking_does_not_run() -> None:
    text = (
        f"<|START_THINKING|>Maybe <|START_ACTION|>[{A_READ}]<|END_ACTION|><|END_THINKING|>"
        "<|START_RESPONSE|>No need.<|END_RESPONSE|>"
    )
    check(text, [], visible="No need.")


def test_cohere_action_in_thinking_only_counts() -> None:
    text = f"<|START_THINKING|><|START_ACTION|>[{A_READ}]<|END_ACTION|><|END_THINKING|>"
    check(text, [("Read", READ)])


def test_cohere_family_rows() -> None:
    assert cohere.COHERE_ACTION.closers == ("<|END_ACTION|>",)
    assert cohere.FAMILY.reasoning == (("<|START_THINKING|>", "<|END_THINKING|>"),)
    assert "<|START_RESPONSE|>" in cohere.FAMILY.markup
