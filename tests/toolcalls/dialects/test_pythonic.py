"""Pythonic families: Llama 3.2 / Llama 4 / BFCL bare lists, Olmo 3, LFM2.

Sources (vllm-project/vllm unless named):
- vllm/tool_parsers/pythonic_tool_parser.py and tests/tool_parsers/test_pythonic_tool_parser.py
  (Llama 3.2's ``[NAME(k=v), ...]`` as the whole message; the output is content unless it
  is a list of literal calls; meta-llama/llama-models llama3_2/text_prompt_format.md is
  the format those tests cite);
- vllm/frontend/processing/tool_parsers/llama4_pythonic_tool_parser.py and
  tests/tool_parsers/test_llama4_pythonic_tool_parser.py (``<|python_start|>`` stripped
  at the start, ``<|python_end|>`` removed);
- sgl-project/sglang python/sglang/srt/function_call/pythonic_detector.py (the list form,
  dotted names);
- vllm/frontend/processing/tool_parsers/olmo3_tool_parser.py and
  tests/tool_parsers/test_olmo3_tool_parser.py (``<function_calls>`` with one call a line,
  ``null``/``true``/``false`` values);
- vllm/tool_parsers/lfm2_tool_parser.py and tests/tool_parsers/test_lfm2_tool_parser.py
  (``<|tool_call_start|>[...]<|tool_call_end|>``, prose after the block, the echo capped
  by a second end token); ggml-org/llama.cpp models/templates/llama-cpp-lfm2.jinja (the
  same block holding a JSON list).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from nehanda.toolcalls.families import pythonic
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
from toolcalls.toolcall_render import streamed

R = 'Read(file_path="/src/app.py")'
B = "Bash(command='ls')"

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "Llama 3.2 bare list (vllm tests/tool_parsers/test_pythonic_tool_parser.py simple)",
        f"[{R}]",
        [("Read", READ)],
        "",
    ),
    (
        "Llama 3.2 parallel calls (test_pythonic_tool_parser.py parallel_calls)",
        f"[{R}, {B}]",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "more types (test_pythonic_tool_parser.py more_types)",
        "[Bash(command='ls', timeout=30, background=False, env={'A': '1'}, "
        "args=['-l', \"-a\"], cwd=None)]",
        [
            (
                "Bash",
                {
                    "command": "ls",
                    "timeout": 30,
                    "background": False,
                    "env": {"A": "1"},
                    "args": ["-l", "-a"],
                    "cwd": None,
                },
            )
        ],
        "",
    ),
    (
        "parameterless call (test_pythonic_tool_parser.py parameterless)",
        "[Bash()]",
        [("Bash", {})],
        "",
    ),
    (
        "escaped strings (test_pythonic_tool_parser.py escaped_string)",
        r"""[Bash(command='echo \'hi\' "there"\n')]""",
        [("Bash", {"command": "echo 'hi' \"there\"\n"})],
        "",
    ),
    (
        "BFCL prompt: list after leading whitespace, multi-line (sglang pythonic_detector.py)",
        f"\n\n[\n  {R},\n  {B}\n]\n",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "dotted and hyphenated names (sglang pythonic_detector.py dotted names)",
        "[mcp__git.log-v2(n=3)]",
        [("mcp__git.log-v2", {"n": 3})],
        "",
    ),
    (
        "Llama 4 python_start / python_end (llama4_pythonic_tool_parser.py)",
        f"<|python_start|>[{R}, {B}]<|python_end|>",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "Llama 4 python_start without python_end (llama4_pythonic_tool_parser.py)",
        f"<|python_start|>[{R}]",
        [("Read", READ)],
        "",
    ),
    (
        "Llama 4 bare list closed by a stray python_end (llama4_pythonic_tool_parser.py)",
        f"[{R}]<|python_end|>",
        [("Read", READ)],
        "",
    ),
    (
        "lists one after another (pythonic_tool_parser.py parses the text as a module: "
        "vLLM keeps only the first statement)",
        f"[{R}]\n[{B}]",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "Olmo 3 function_calls, one call a line (olmo3_tool_parser.py)",
        f'<function_calls>{R}\nBash(command="ls")</function_calls>',
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "Olmo 3 JSON literals (olmo3_tool_parser.py null/true/false)",
        "<function_calls>\nRead(file_path='/src/app.py', offset=null)\n"
        "Bash(command='ls', background=true, env=null)\n</function_calls>",
        [
            ("Read", {"file_path": "/src/app.py", "offset": None}),
            ("Bash", {"command": "ls", "background": True, "env": None}),
        ],
        "",
    ),
    (
        "Olmo 3 after prose (test_olmo3_tool_parser.py)",
        f"I will read it.\n<function_calls>{R}</function_calls>",
        [("Read", READ)],
        "I will read it.",
    ),
    (
        "LFM2 block then prose (lfm2_tool_parser.py docstring)",
        f"<|tool_call_start|>[{R}]<|tool_call_end|>Reading the file.",
        [("Read", READ)],
        "Reading the file.",
    ),
    (
        "LFM2 two calls after prose (test_lfm2_tool_parser.py)",
        f"Let me check.<|tool_call_start|>[{R}, {B}]<|tool_call_end|>",
        [("Read", READ), ("Bash", LS)],
        "Let me check.",
    ),
    (
        "LFM2 JSON list as llama.cpp's template writes it (llama-cpp-lfm2.jinja)",
        '<|tool_call_start|>[{"name": "Read", "arguments": {"file_path": "/src/app.py"}}]'
        "<|tool_call_end|>",
        [("Read", READ)],
        "",
    ),
    (
        "LFM2 echo after the end token capped by a second one (lfm2_tool_parser.py _strip_echo)",
        f"<|tool_call_start|>[{R}]<|tool_call_end|><|tool_call_end|>Done.",
        [("Read", READ)],
        "Done.",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_pythonic_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(
        text,
        expected,
        visible=visible,
        hidden=("<|python_start|>", "<|python_end|>", "<function_calls>", "<|tool_call_"),
    )


@pytest.mark.parametrize(
    "text",
    [
        "[Note] The list form [NAME(k=v)] is how Llama calls tools.",
        "[Read(file_path='/a')] is how you would call it.",
        "Use `[Read(file_path='/a')]` to read.",
        "Use `<function_calls>Read(file_path='/a')</function_calls>` to call.",
        "```text\n[Read(file_path='/a')]\n```",
        "```python\n<function_calls>Read(file_path='/a')</function_calls>\n```",
        "Write <function_calls> tags around calls, one call a line.",
        "The <|tool_call_start|> token opens LFM2's calls.",
        "[print(x) for x in range(3)]",
        "[f(x)]",
        "[1, 2, 3]",
        '<functions>[{"name": "Read", "description": "Reads a file", "parameters": {}}]'
        "</functions>",
        "[Read(file_path: str, limit: int = 100)]",
        '<|tool_list_start|>[{"name": "Read", "parameters": {}}]<|tool_list_end|>',
    ],
    ids=[
        "prose naming the format",
        "a list followed by prose",
        "inline code",
        "inline code, Olmo",
        "text fence",
        "python fence",
        "prose naming the tag",
        "prose naming the LFM2 token",
        "python comprehension",
        "positional, unknown name",
        "a list of numbers",
        "schema echo in Olmo's functions tag (olmo3 chat template)",
        "signature echo",
        "LFM2 tool list echo (llama-cpp-lfm2.jinja)",
    ],
)
def test_pythonic_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_unknown_tool_is_dropped_others_kept() -> None:
    check(f"[Nope(a=1), {R}]", [("Read", READ)], ["unknown_tool"])
    check(
        f"<function_calls>Nope()\n{R}</function_calls>",
        [("Read", READ)],
        ["unknown_tool"],
    )


def test_names_match_exactly() -> None:
    check("[read(file_path='/a')]", [], ["unknown_tool"])


def test_a_positional_or_non_literal_argument_in_a_block_is_a_problem() -> None:
    # vLLM drops such a call silently (utils.py handle_single_tool reads keywords only;
    # a non-literal raises); a block reserved for calls reports it to the model instead.
    check("<function_calls>Read('/src/app.py')</function_calls>", [], ["invalid_json"])
    check(
        f"<|tool_call_start|>[Read(file_path=path), {B}]<|tool_call_end|>",
        [("Bash", LS)],
        ["invalid_json"],
    )


@pytest.mark.parametrize(
    "text",
    [
        "[Read(file_path='/src",
        "<|python_start|>[Read(file_path='/src",
        "<function_calls>Read(file_path='/src",
        "<function_calls>Read(file_path='/src/app.py', limit=",
        "<|tool_call_start|>[Read(file_path='/src",
    ],
)
def test_truncated_call_never_runs(text: str) -> None:
    check(text, [], ["truncated"])


def test_calls_before_the_cut_still_run() -> None:
    check(f"<function_calls>{R}\nBash(command='l", [("Read", READ)], ["truncated"])


def test_call_drafted_in_reasoning_does_not_run() -> None:
    # Olmo 3 Think and LFM2.5 reason inside <think> ... </think>.
    check(f"<think>I could write <function_calls>{R}</function_calls></think>It is 4.", [])
    check(f"<think><|tool_call_start|>[{R}]<|tool_call_end|></think>Done.", [])


def test_call_in_reasoning_only_counts() -> None:
    check(f"<think><function_calls>{R}</function_calls></think>", [("Read", READ)])
    check(f"<think><|tool_call_start|>[{R}]<|tool_call_end|></think>", [("Read", READ)])


def test_bare_list_in_reasoning_only_counts() -> None:
    check(f"<think>\n[{R}]\n</think>", [("Read", READ)])


def test_bare_list_first_in_reasoning_is_a_draft_when_an_answer_follows() -> None:
    check(f"<think>[{R}]</think>It is 4.", [], visible="It is 4.")
    check(f"Sure.<think>[{R}]</think>", [], visible="Sure.")


def test_bare_list_in_reasoning_must_be_all_of_it() -> None:
    # Only as the section's first text, and with nothing after it but the closer.
    for text in (f"<think>Hmm.\n[{R}]</think>", f"<think>[{R}] and more</think>"):
        no_call(text)
    # A closer inside a string ends the section there: the list is cut, so no call.
    no_call("<think>[Read(file_path='</think>')]</think>")


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "</think><think>[" * n,
        lambda n: '<think>[{"name": "Read", "arguments": {"a": 1}}]</think>' * n,
        lambda n: "<think>[Read(" * n,
    ],
    ids=["reopened", "closed sections", "cut lists"],
)
def test_forms_first_in_reasoning_are_linear_on_hostile_text(make: Callable[[int], str]) -> None:
    assert_linear(lambda text: streamed(text, 8), make, 60)


def test_reasoning_then_a_bare_list() -> None:
    check(f"<think>The user wants the file.</think>\n[{R}]", [("Read", READ)])


# -- the decoders on their own ------------------------------------------------


def test_decode_block_reads_lists_and_lines() -> None:
    assert found_calls(pythonic.decode_block(body(f"[{R}, {B}]"))) == [("Read", READ), ("Bash", LS)]
    assert found_calls(pythonic.decode_block(body(f"{R}\n{B}\n"))) == [("Read", READ), ("Bash", LS)]
    assert pythonic.decode_block(body("just words")) is None


def test_decode_block_cut_off_is_truncated_and_malformed_when_closed() -> None:
    assert found_kinds(pythonic.decode_block(body("Read(file_path='/a", closed=False))) == [
        "truncated"
    ]
    assert found_kinds(pythonic.decode_block(body("Read(file_path='/a"))) == ["invalid_json"]


def test_decode_bare_list_is_strict() -> None:
    assert found_calls(pythonic.decode_bare_list(body(f"[{R}]"))) == [("Read", READ)]
    assert pythonic.decode_bare_list(body(f"[{R}] and more")) is None
    assert pythonic.decode_bare_list(body(f"{R}")) is None
    assert pythonic.decode_bare_list(body("[f(x)]")) is None
    assert pythonic.decode_bare_list(body(f"[{R}] then [{B}]")) is None
    assert found_calls(pythonic.decode_bare_list(body(f"[{R}] [{B}]"))) == [
        ("Read", READ),
        ("Bash", LS),
    ]


def test_decode_lfm2_reads_json_too() -> None:
    found = pythonic.decode_lfm2(
        body('[{"name": "Read", "arguments": {"file_path": "/src/app.py"}}, ' + '{"name": "Nope"}]')
    )
    assert found_calls(found) == [("Read", READ)]
    assert found_kinds(found) == ["unknown_tool"]
    assert found_kinds(pythonic.decode_lfm2(body('[{"name": "Read", "argu', closed=False))) == [
        "truncated"
    ]
    assert found_kinds(
        pythonic.decode_lfm2(body('[{"name": "Read", "arguments": {"a": 1, "a": 2}}]'))
    ) == ["duplicate_key"]
    assert pythonic.decode_lfm2(body("not a call")) is None


def test_unknown_names_pass_when_any_tool_is_accepted() -> None:
    assert found_calls(pythonic.decode_block(body("Nope(a=1)", known=None))) == [("Nope", {"a": 1})]


def test_heads_accept_calls_and_refuse_prose() -> None:
    assert pythonic.HEAD.match('\n[Read(file_path="a")')
    assert pythonic.HEAD.match(" Read (")
    assert not pythonic.HEAD.match(" tags around calls")
    assert pythonic.BARE_LIST.match("[Read(")
    assert not pythonic.BARE_LIST.match("[Note] hi")
    assert not pythonic.BARE_LIST.match("[1, 2]")
    assert pythonic.LFM2_HEAD.match('[{"name"')
    assert pythonic.FAMILIES == (pythonic.LLAMA4, pythonic.OLMO, pythonic.LFM2)
