"""Microsoft Phi-4-mini: ``functools[...]``, and the ``<|tool_call|>`` token it shares.

Sources: vllm-project/vllm vllm/tool_parsers/phi4mini_tool_parser.py (``functools\\[``
searched anywhere), tests/tool_parsers/test_phi4mini_tool_parser.py,
examples/tool_chat_template_phi4_mini.jinja ("prefix function calls with functools
marker (no closing marker required)"); vLLM issue #14682 (the ``<|tool_calls|>`` template
variant); ggml-org/llama.cpp PR #12288 (Phi-4's ``<|tool_call|>`` token).
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import phi
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


@pytest.mark.xfail(
    strict=True,
    reason="scanner: StartForms are tried only at the message start; vLLM reads "
    "functools[ anywhere, so it needs a line-start form (like the LINE dialect's)",
)
def test_phi_functools_after_a_line_of_prose() -> None:
    # vllm test_phi4mini_tool_parser.py surrounding_text_output: vLLM finds the marker
    # anywhere. Needs the scanner's line-start form to know ``functools[``.
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
    ],
    ids=[
        "prose",
        "empty list (vllm malformed)",
        "not JSON (vllm malformed)",
        "no list (vllm malformed)",
        "inline code",
        "text fence",
        "python",
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


# -- the decoder on its own ---------------------------------------------------


def test_decode_functools_reads_the_list() -> None:
    found = phi.decode_functools(body(f"functools[{R}, {B}]"))
    assert found_calls(found) == [("Read", READ), ("Bash", LS)]


def test_decode_functools_not_a_marker_is_none() -> None:
    assert phi.decode_functools(body("functools is a module")) is None
    assert phi.decode_functools(body("functools[]")) is None
    assert phi.decode_functools(body("functools[1, 2]")) is None


def test_decode_functools_cut_off_is_truncated() -> None:
    found = phi.decode_functools(body('functools[{"name": "Read", "arguments": {"fi', closed=False))
    assert found_kinds(found) == ["truncated"]
    assert found is not None and found[0].name == "Read"


def test_decode_functools_missing_final_bracket_keeps_complete_calls() -> None:
    found = phi.decode_functools(body(f"functools[{R}, {B}", closed=False))
    assert found_calls(found) == [("Read", READ), ("Bash", LS)]
    assert found is not None and found[0].repaired == ("a missing closing bracket",)


def test_decode_functools_single_quotes_are_repaired() -> None:
    found = phi.decode_functools(
        body("functools[{'name': 'Read', 'arguments': {'file_path': '/src/app.py'}}]")
    )
    assert found_calls(found) == [("Read", READ)]


def test_decode_functools_duplicate_key_is_a_problem() -> None:
    found = phi.decode_functools(body('functools[{"name": "Read", "arguments": {"a": 1, "a": 2}}]'))
    assert found_kinds(found) == ["duplicate_key"]


def test_decode_functools_unknown_names_are_checked() -> None:
    found = phi.decode_functools(body('functools[{"name": "Nope", "arguments": {}}]'))
    assert found_kinds(found) == ["unknown_tool"]
    found = phi.decode_functools(body('functools[{"name": "Nope", "arguments": {}}]', known=None))
    assert found_calls(found) == [("Nope", {})]


def test_decode_functools_is_linear_on_hostile_text() -> None:
    # An unclosed list of many open objects: one structural pass, then one decode.
    text = "functools[" + '{"a": [' * 20000
    found = phi.decode_functools(body(text, closed=False))
    assert found_kinds(found) == ["truncated"]
    deep = "functools[" + "[" * 100000 + "]" * 100000 + "]"
    assert phi.decode_functools(body(deep)) is not None  # a problem, not an exception
