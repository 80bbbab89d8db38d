"""Microsoft Phi-4-mini: ``functools[...]``, and the ``<|tool_call|>`` token it shares.

Sources: vllm-project/vllm vllm/tool_parsers/phi4mini_tool_parser.py (``functools\\[``
searched anywhere), tests/tool_parsers/test_phi4mini_tool_parser.py,
examples/tool_chat_template_phi4_mini.jinja ("prefix function calls with functools
marker (no closing marker required)"); vLLM issue #14682 (the ``<|tool_calls|>`` template
variant); ggml-org/llama.cpp PR #12288 (Phi-4's ``<|tool_call|>`` token);
sgl-project/sglang python/sglang/srt/function_call/phi4mini_detector.py (text before
and after the list kept).
"""

from __future__ import annotations

import pytest

from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call, outcomes
from toolcalls.linear import assert_linear
from toolcalls.toolcall_render import streamed

R = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
B = '{"name": "Bash", "arguments": {"command": "ls"}}'

TABLE: list[tuple[str, str, Calls]] = [
    (
        "functools, one call (vllm tests/tool_parsers/test_phi4mini_tool_parser.py "
        "single_tool_call_output)",
        f"functools[{R}]",
        [("Read", READ)],
    ),
    (
        "functools, parallel calls over lines (test_phi4mini_tool_parser.py "
        "parallel_tool_calls_output)",
        f"functools[\n  {R},\n  {B}\n]",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "functools with parameters (vllm phi4mini_tool_parser.py accepts parameters)",
        'functools[{"name": "Read", "parameters": {"file_path": "/src/app.py"}}]',
        [("Read", READ)],
    ),
    (
        "functools, nested arrays in arguments (test_phi4mini_tool_parser.py "
        "various_data_types_output, xfail in vLLM)",
        'functools[{"name": "Bash", "arguments": {"command": "ls", "args": [["a"], []], '
        '"env": {"A": "1"}}}]',
        [("Bash", {"command": "ls", "args": [["a"], []], "env": {"A": "1"}})],
    ),
    (
        "functools after leading whitespace (examples/tool_chat_template_phi4_mini.jinja)",
        f"\n functools[{R}]\n",
        [("Read", READ)],
    ),
    (
        "<|tool_call|> token with its closer (llama.cpp PR #12288)",
        f"<|tool_call|>[{R}]<|/tool_call|>",
        [("Read", READ)],
    ),
    (
        "<|tool_calls|> template variant (vLLM issue #14682)",
        f"<|tool_calls|>[{R}, {B}]<|/tool_calls|>",
        [("Read", READ), ("Bash", LS)],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_phi_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected, visible="", hidden=("functools", "<|tool_call"))


def test_phi_functools_after_a_line_of_prose() -> None:
    # vllm test_phi4mini_tool_parser.py surrounding_text_output: vLLM finds the marker
    # anywhere; here it opens a call at a line start.
    text = f"Let me check the weather for you.\nfunctools[{R}]"
    check(text, [("Read", READ)], visible="Let me check the weather for you.")


@pytest.mark.parametrize(
    "text",
    [
        "The model writes functools[...] to call a tool.",
        "functools[] This is just text",
        "functools[ This is just text ]",
        'functools{"name": "Read"}',
        "Use `functools[" + R + "]` for a call.",
        "```text\nfunctools[" + R + "]\n```",
        "import functools\nfunctools.reduce(f, [1, 2])",
        "Like so:\n```\nfunctools[" + R + "]\n```\n",
        "Like so:\n> functools[" + R + "]\n",
        "Steps:\n- functools[" + R + "]\n",
        "x = functools[" + R + "]",
        'Quote: "functools[' + R + ']"',
        "Like so:\nfunctools [" + R + "]",
    ],
    ids=[
        "prose",
        "empty list (vllm malformed)",
        "not JSON (vllm malformed)",
        "no list (vllm malformed)",
        "inline code",
        "text fence",
        "python",
        "plain fence",
        "blockquote",
        "list item",
        "assignment",
        "quoted",
        "space before the bracket",
    ],
)
def test_phi_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_phi_unknown_tool_is_dropped_others_kept() -> None:
    check(
        'functools[{"name": "Nope", "arguments": {}}, ' + R + "]",
        [("Read", READ)],
        ["unknown_tool"],
    )


def test_phi_truncated_call_never_runs() -> None:
    check('functools[{"name": "Read", "arguments": {"file_path": "/src', [], ["truncated"])


def test_phi_call_drafted_in_reasoning_does_not_run() -> None:
    check(f"<think><|tool_call|>[{R}]<|/tool_call|></think>It is 4.", [])


def test_phi_call_in_reasoning_only_counts() -> None:
    check(f"<think><|tool_call|>[{R}]<|/tool_call|></think>", [("Read", READ)])


# -- the line opener: how the list is read ----------------------------------------


def test_functools_text_after_the_list_stays_visible() -> None:
    # sglang phi4mini_detector.py keeps the text after the list (vLLM drops it).
    check(f"functools[{R}]\nThe file is next.", [("Read", READ)], visible="The file is next.")
    check(f"functools[{R}] and then some", [("Read", READ)], visible="and then some")


def test_functools_after_prose_must_end_its_line() -> None:
    check(f"Let me look.\nfunctools[{R}]\nDone.", [("Read", READ)])
    check(f"Let me look.\n  functools[{R}]  \r\nDone.", [("Read", READ)])
    for text in (f"Let me look.\nfunctools[{R}] is the syntax.", f"So: functools[{R}]"):
        no_call(text)
        assert outcomes(text)[0].text == text


def test_functools_first_after_reasoning_or_in_reasoning_only() -> None:
    check(f"<think>The user wants the file.</think>functools[{R}]", [("Read", READ)])
    check(f"<think>functools[{R}]</think>", [("Read", READ)])
    check(f"<think>functools[{R}]</think>Never mind.", [], visible="Never mind.")


def test_functools_missing_final_bracket_keeps_complete_calls() -> None:
    for text in (f"functools[{R}, {B}", f"Sure.\nfunctools[{R}, {B}"):
        check(text, [("Read", READ), ("Bash", LS)], ["repaired", "repaired"])


def test_functools_single_quotes_are_repaired() -> None:
    text = "functools[{'name': 'Read', 'arguments': {'file_path': '/src/app.py'}}]"
    check(text, [("Read", READ)], ["repaired"])


def test_functools_problems_are_reported() -> None:
    check('functools[{"name": "Read", "arguments": {"a": 1, "a": 2}}]', [], ["duplicate_key"])
    check('functools[{"name": "Nope", "arguments": {}}]', [], ["unknown_tool"])
    check('functools[{"a": 1}]', [], ["invalid_json"])
    check('functools[{"name": "Read", "arguments": {"fi', [], ["truncated"])


def test_functools_is_linear_on_hostile_text() -> None:
    check("functools[" + '{"a": [' * 20000, [], ["truncated"])
    no_call("functools[" + "[" * 100000 + "]" * 100000 + "]")
    # Every line a held "functools", or one list open to the end: linear in 8-char deltas.
    assert_linear(lambda text: streamed(text, 8), lambda n: "\nfunctools" * n, 250)
    assert_linear(lambda text: streamed(text, 8), lambda n: "functools[" + '{"a": [' * n, 250)
