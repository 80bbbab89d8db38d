"""InternLM2 / 2.5: ``<|action_start|><|plugin|>\\n{...}<|action_end|>``.

Source: vllm-project/vllm vllm/tool_parsers/internlm2_tool_parser.py (split on
``<|action_start|><|plugin|>`` and ``<|action_end|>``, ``parameters`` or ``arguments``,
one call per action) and tests/tool_parsers/test_internlm2_tool_parser.py;
examples/tool_chat_template_internlm2_tool.jinja.
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import internlm
from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call

P = "<|action_start|><|plugin|>"
R = '{"name": "Read", "parameters": {"file_path": "/src/app.py"}}'

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "one call (vllm tests/tool_parsers/test_internlm2_tool_parser.py single_tool_call_output)",
        f"{P}{R}<|action_end|>",
        [("Read", READ)],
        "",
    ),
    (
        "newline after the plugin token (examples/tool_chat_template_internlm2_tool.jinja)",
        f"{P}\n{R}<|action_end|>\n",
        [("Read", READ)],
        "",
    ),
    (
        "prose before (test_internlm2_tool_parser.py surrounding_text_output)",
        f"Let me check the weather for you. {P}{R}<|action_end|>",
        [("Read", READ)],
        "Let me check the weather for you.",
    ),
    (
        "arguments key (vllm internlm2_tool_parser.py get_arguments)",
        f'{P}{{"name": "Bash", "arguments": {{"command": "ls"}}}}<|action_end|>',
        [("Bash", LS)],
        "",
    ),
    (
        "empty parameters (test_internlm2_tool_parser.py empty_arguments_output)",
        f'{P}{{"name": "Bash", "parameters": {{}}}}<|action_end|>',
        [("Bash", {})],
        "",
    ),
    (
        "multi-line body (test_internlm2_tool_parser.py various_data_types_output)",
        f'{P}{{\n  "name": "Read",\n  "parameters": {{\n    "file_path": "/src/app.py"\n  }}\n}}'
        "<|action_end|>",
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_internlm_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=("<|action_start|>", "<|plugin|>"))


@pytest.mark.parametrize(
    "text",
    [
        "InternLM writes <|action_start|><|plugin|> before a call.",
        f"Use `{P}{R}<|action_end|>`.",
        f"```text\n{P}{R}<|action_end|>\n```",
        f"{P}not json<|action_end|>",
        "<|action_start|><|interpreter|>\nprint(1)<|action_end|>",
    ],
    ids=[
        "prose",
        "inline code",
        "text fence",
        "not JSON (test_internlm2_tool_parser.py malformed)",
        "code interpreter",
    ],
)
def test_internlm_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_internlm_unknown_tool_is_dropped() -> None:
    # test_internlm2_tool_parser.py test_extract_unknown_tool_name_not_emitted.
    check(
        f'{P}{{"name": "delete_everything", "parameters": {{}}}}<|action_end|>',
        [],
        ["unknown_tool"],
    )


def test_internlm_two_actions_one_unknown() -> None:
    text = f'{P}{{"name": "Nope", "parameters": {{}}}}<|action_end|>{P}{R}<|action_end|>'
    check(text, [("Read", READ)], ["unknown_tool"])


def test_internlm_truncated_call_never_runs() -> None:
    # test_internlm2_tool_parser.py malformed_input_outputs[0].
    check(f'{P}{{"name": "Read", "parameters": {{', [], ["truncated"])


def test_internlm_call_drafted_in_reasoning_does_not_run() -> None:
    check(f"<think>{P}{R}<|action_end|></think>It is sunny.", [])


def test_internlm_call_in_reasoning_only_counts() -> None:
    check(f"<think>{P}{R}<|action_end|></think>", [("Read", READ)])


def test_internlm_dialect_row() -> None:
    assert internlm.INTERNLM.opener == P
    assert internlm.INTERNLM.closers == ("<|action_end|>",)
