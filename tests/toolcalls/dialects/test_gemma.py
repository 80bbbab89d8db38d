"""Gemma: Gemma 3's ``tool_code`` fence, Gemma 4's ``call:NAME{...}``, FunctionGemma.

Sources:
- vllm-project/vllm vllm/tool_parsers/gemma4_tool_parser.py (``<|tool_call>`` /
  ``<tool_call|>``, ``<|"|>`` string marks, bare keys, nested objects and arrays, bare
  numbers and booleans, hyphenated and dotted names),
  vllm/frontend/processing/parser/gemma4.py (``<|channel>`` ... ``<channel|>`` reasoning),
  vllm/frontend/processing/tool_parsers/gemma4_utils.py (``<turn|>`` as a closer, a bare
  ``call:NAME{...}``), tests/tool_parsers/test_gemma4_tool_parser.py and
  tests/tool_parsers/test_gemma4_regex_and_bare_calls.py;
- ggml-org/llama.cpp models/templates/gemma4.jinja (how calls, declarations and tool
  responses are written: ``<|tool>declaration:...<tool|>``,
  ``<|tool_response>response:NAME{...}<tool_response|>``);
- vllm-project/vllm vllm/tool_parsers/functiongemma_tool_parser.py and
  tests/tool_parsers/test_functiongemma_tool_parser.py (``<start_function_call>`` /
  ``<end_function_call>``, ``<escape>`` marks, quoted numbers and booleans);
- Gemma 3 prompted function calling: ai.google.dev/gemma/docs/capabilities/function-calling
  (a call written as Python) and the ```` ```tool_code ```` fence with ``print(...)`` that
  Gemma 3 / Gemini print (e.g. LM Studio's gemma-3-4b-it log quoted in public issues:
  ```` ```tool_code\\nprint(get_current_temperature(location='Paris'))\\n``` ````;
  ``print(default_api.NAME(...))`` from Gemini's code-execution style).
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.families import gemma
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
from toolcalls.linear import assert_linear
from toolcalls.toolcall_render import calls_of, kinds

Q = '<|"|>'
R4 = f"call:Read{{file_path:{Q}/src/app.py{Q}}}"
B4 = f"call:Bash{{command:{Q}ls{Q}}}"
RF = "call:Read{file_path:<escape>/src/app.py<escape>}"

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "Gemma 4 canonical (vllm tests/tool_parsers/test_gemma4_tool_parser.py single_tool_call)",
        f"<|tool_call>{R4}<tool_call|>",
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 4 two blocks (test_gemma4_tool_parser.py multiple_tool_calls)",
        f"<|tool_call>{R4}<tool_call|><|tool_call>{B4}<tool_call|>",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "Gemma 4 text before the call (test_gemma4_tool_parser.py text_before_tool_call)",
        f"Let me look at the file. <|tool_call>{R4}<tool_call|>",
        [("Read", READ)],
        "Let me look at the file.",
    ),
    (
        "Gemma 4 nested values, numbers, booleans (test_gemma4_tool_parser.py nested_arguments, "
        "number_and_boolean; gemma4.jinja format_argument)",
        f"<|tool_call>call:Bash{{command:{Q}ls, -la{Q},timeout:2.5,background:false,"
        f"env:{{PATH:{Q}/bin{Q},{Q}3{Q}:{Q}x{Q}}},args:[{Q}a]b{Q},1,true,null,[]]}}<tool_call|>",
        [
            (
                "Bash",
                {
                    "command": "ls, -la",
                    "timeout": 2.5,
                    "background": False,
                    "env": {"PATH": "/bin", "3": "x"},
                    "args": ["a]b", 1, True, None, []],
                },
            )
        ],
        "",
    ),
    (
        "Gemma 4 string holding quotes, braces and the closer (gemma4_tool_parser.py: strings "
        "are raw between the marks)",
        f'<|tool_call>call:Write{{file_path:{Q}a.py{Q},content:{Q}x = "{{}}" # <tool_call|>\n'
        f"y = '\\n'{Q}}}<tool_call|>",
        [("Write", {"file_path": "a.py", "content": "x = \"{}\" # <tool_call|>\ny = '\\n'"})],
        "",
    ),
    (
        "Gemma 4 closed by <turn|> (test_gemma4_regex_and_bare_calls.py turn_end_closure)",
        f"<|tool_call>{R4}<turn|>",
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 4 stray colon after the opener (test_gemma4_regex_and_bare_calls.py "
        "colon_prefixed_tool_call)",
        f"<|tool_call>:{R4}<tool_call|>",
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 4 bare call, no opener (test_gemma4_regex_and_bare_calls.py fallback tier)",
        R4,
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 4 bare call after the thought channel (test_gemma4_regex_and_bare_calls.py "
        "bare_call_after_thought_channel)",
        f"<|channel>thought\nI need the file.\n<channel|>{R4}",
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 4 reasoning then a call (vllm parser/gemma4.py)",
        f"<|channel>thought\nRead it first.<channel|><|tool_call>{R4}<tool_call|>",
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 4 call then <|tool_response> (gemma4_utils.py has_tool_response_tag)",
        f"<|tool_call>{R4}<tool_call|><|tool_response>",
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 4 dotted, hyphenated name (test_gemma4_tool_parser.py dotted_function_name)",
        "<|tool_call>call:mcp__git.log-v2{n:3}<tool_call|>",
        [("mcp__git.log-v2", {"n": 3})],
        "",
    ),
    (
        "Gemma 4 no arguments (test_gemma4_tool_parser.py no_arguments)",
        "<|tool_call>call:Bash{}<tool_call|>",
        [("Bash", {})],
        "",
    ),
    (
        "FunctionGemma (vllm tests/tool_parsers/test_functiongemma_tool_parser.py "
        "single_tool_call)",
        f"<start_function_call>{RF}<end_function_call>",
        [("Read", READ)],
        "",
    ),
    (
        "FunctionGemma two calls after prose (test_functiongemma_tool_parser.py)",
        f"Let me check. <start_function_call>{RF}<end_function_call>"
        "<start_function_call>call:Bash{command:<escape>ls<escape>}<end_function_call>",
        [("Read", READ), ("Bash", LS)],
        "Let me check.",
    ),
    (
        "FunctionGemma quoted numbers typed by the schema (test_functiongemma_tool_parser.py "
        "numeric_argument, boolean_argument)",
        "<start_function_call>call:Bash{command:<escape>ls<escape>,timeout:<escape>42<escape>,"
        "background:<escape>true<escape>}<end_function_call>",
        [("Bash", {"command": "ls", "timeout": 42, "background": True})],
        "",
    ),
    (
        "Gemma 3 tool_code fence (ai.google.dev function calling; gemma-3 print form)",
        '```tool_code\nprint(Read(file_path="/src/app.py"))\n```',
        [("Read", READ)],
        "",
    ),
    (
        "Gemma 3 tool_code, bare call and default_api (Gemini code-execution style)",
        "I'll check.\n```tool_code\nRead(file_path='/src/app.py')\n"
        "print(default_api.Bash(command='ls'))\n```\n",
        [("Read", READ), ("Bash", LS)],
        "I'll check.",
    ),
    (
        "Gemma 3 tool_code holding a JSON call",
        '```tool_code\n{"name": "Read", "args": {"file_path": "/src/app.py"}}\n```',
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_gemma_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(
        text,
        expected,
        visible=visible,
        hidden=("<|tool_call>", "<tool_call|>", "<turn|>", "function_call>", "tool_code", Q),
    )


@pytest.mark.parametrize(
    "text",
    [
        "Gemma 4 writes <|tool_call>call:NAME{...}<tool_call|> to call a tool.",
        "The <|tool_call> token opens a call.",
        f"Use `<|tool_call>{R4}<tool_call|>` to read.",
        f"```text\n<|tool_call>{R4}<tool_call|>\n```",
        '```python\nprint(Read(file_path="/src/app.py"))\n```',
        "```tool_code\nprint(1 + 1)\n```",
        "```tool_code\nx = Read(file_path='a')\n```",
        f"<|tool>declaration:Read{{description:{Q}Reads a file{Q},parameters:{{properties:"
        f"{{file_path:{{type:{Q}STRING{Q}}}}},type:{Q}OBJECT{Q}}}}}<tool|>",
        f"<|tool_response>response:Read{{value:{Q}print(1){Q}}}<tool_response|>",
        "The call: Read{path} notation is pseudo-code.",
        f"Call it like this: {R4}",
        "<start_function_call> is FunctionGemma's marker.",
    ],
    ids=[
        "prose naming the format",
        "prose naming the token",
        "inline code",
        "text fence",
        "python fence",
        "tool_code fence holding code",
        "tool_code fence assigning",
        "declaration echo (gemma4.jinja format_function_declaration)",
        "tool response echo (gemma4.jinja tool_responses)",
        "prose with call:",
        "bare call after prose",
        "prose naming FunctionGemma's token",
    ],
)
def test_gemma_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_gemma4_opener_is_not_granites() -> None:
    # <|tool_call> (Gemma 4) and <|tool_call|> (Granite 3) are different openers.
    no_call("<|tool_call|> is a token.")
    check(f"<|tool_call>{R4}<tool_call|>", [("Read", READ)])


def test_unknown_tool_is_dropped_others_kept() -> None:
    check(
        f"<|tool_call>call:Nope{{}}<tool_call|><|tool_call>{R4}<tool_call|>",
        [("Read", READ)],
        ["unknown_tool"],
    )
    check(
        "```tool_code\nNope(a=1)\nRead(file_path='/src/app.py')\n```",
        [("Read", READ)],
        ["unknown_tool"],
    )


def test_names_match_exactly() -> None:
    check(f"<|tool_call>call:read{{file_path:{Q}a{Q}}}<tool_call|>", [], ["unknown_tool"])


def test_duplicate_key_is_a_problem() -> None:
    check("<|tool_call>call:Read{a:1,a:2}<tool_call|>", [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        f"<|tool_call>call:Read{{file_path:{Q}/src",
        f"<|tool_call>call:Read{{file_path:{Q}/src/app.py{Q}",
        "<|tool_call>call:Read{file_path:",
        f"call:Read{{file_path:{Q}/src",
        "<start_function_call>call:Read{file_path:<escape>/src",
        "```tool_code\nprint(Read(file_path='/src",
    ],
)
def test_truncated_call_never_runs(text: str) -> None:
    check(text, [], ["truncated"])


def test_call_drafted_in_reasoning_does_not_run() -> None:
    check(
        f"<|channel>thought\nMaybe <|tool_call>{R4}<tool_call|><channel|>The answer is 4.",
        [],
    )


def test_call_in_reasoning_only_counts() -> None:
    check(f"<|channel>thought\n<|tool_call>{R4}<tool_call|><channel|>", [("Read", READ)])


# -- the decoders on their own ------------------------------------------------


def test_decode_gemma4_values() -> None:
    text = (
        f"call:Bash{{command:{Q}ls{Q},timeout:3,background:true,env:null,"
        f"args:[{Q}-l{Q},{{k:{Q}v{Q}}}],cwd:None,empty:,name:plain text}}"
    )
    assert found_calls(gemma.decode_gemma4(body(text))) == [
        (
            "Bash",
            {
                "command": "ls",
                "timeout": 3,
                "background": True,
                "env": None,
                "args": ["-l", {"k": "v"}],
                "cwd": None,
                "empty": "",
                "name": "plain text",
            },
        )
    ]


def test_decode_gemma4_types_by_schema() -> None:
    # Read.limit is an integer: a quoted 5 is 5; a bare word for it stays text.
    found = gemma.decode_gemma4(body(f"call:Read{{file_path:{Q}7{Q},limit:{Q}5{Q}}}"))
    assert found_calls(found) == [("Read", {"file_path": "7", "limit": 5})]
    found = gemma.decode_gemma4(body("call:Read{file_path:007,limit:five}"))
    assert found_calls(found) == [("Read", {"file_path": "007", "limit": "five"})]


def test_decode_gemma4_problems() -> None:
    assert found_kinds(gemma.decode_gemma4(body("call:Read{a:1,a:2}"))) == ["duplicate_key"]
    assert found_kinds(gemma.decode_gemma4(body("call:Read{a 1}"))) == ["invalid_json"]
    assert found_kinds(gemma.decode_gemma4(body("call:Read{a:[1,,2]}"))) == ["invalid_json"]
    assert found_kinds(gemma.decode_gemma4(body(f"call:Read{{a:{Q}x", closed=False))) == [
        "truncated"
    ]
    assert found_kinds(gemma.decode_gemma4(body(f"call:Read{{a:{Q}x"))) == ["invalid_json"]
    assert found_kinds(gemma.decode_gemma4(body("call:Read", closed=False))) == ["truncated"]
    assert gemma.decode_gemma4(body("declaration:Read{}")) is None
    assert gemma.decode_gemma4(body("call:Read then prose")) is None


def test_decode_gemma4_reads_calls_in_a_row() -> None:
    text = f"{R4}\n{B4}<tool_call|><|tool_call>{R4} trailing words"
    decoded = gemma.decode_gemma4_bare(body(text, closed=False))
    assert decoded is not None
    assert found_calls(decoded.found) == [("Read", READ), ("Bash", LS), ("Read", READ)]
    assert text[decoded.end :] == " trailing words"


def test_gemma4_bare_call_keeps_the_text_after_it() -> None:
    # vLLM and sglang drop it; the model's words after its call are the answer's.
    check(f"{R4}\nI will read it now.", [("Read", READ)], visible="I will read it now.")
    check(f"{R4}<turn|>\nDone.", [("Read", READ)], visible="Done.", hidden=("<turn|>",))
    text = f'{R4}\n<tool_call>{{"name": "Bash", "arguments": {{"command": "ls"}}}}</tool_call>'
    check(text, [("Read", READ), ("Bash", LS)], visible="")
    # Where a malformed call ends is unknown: nothing after it is shown or read.
    check("call:Read{a 1} then <tool_call>{}</tool_call>", [], ["invalid_json"], visible="")


def test_decode_functiongemma() -> None:
    found = gemma.decode_functiongemma(
        body("call:Read{file_path:<escape>/src/app.py<escape>,limit:<escape>10<escape>}")
    )
    assert found_calls(found) == [("Read", {"file_path": "/src/app.py", "limit": 10})]
    found = gemma.decode_functiongemma(body("call:get_weather{city:<escape>Tokyo<escape>}"))
    assert found_kinds(found) == ["unknown_tool"]
    found = gemma.decode_functiongemma(
        body("call:get_weather{city:<escape>Tokyo<escape>}", known=None)
    )
    assert found_calls(found) == [("get_weather", {"city": "Tokyo"})]


def test_decode_tool_code() -> None:
    found = gemma.decode_tool_code(body("tool_code\nprint(default_api.Read(file_path='a'))\n"))
    assert found_calls(found) == [("Read", {"file_path": "a"})]
    assert gemma.decode_tool_code(body("tool_code\nprint('hello')\n")) is None
    assert gemma.decode_tool_code(body("tool_code\nimport os\n")) is None
    assert found_kinds(
        gemma.decode_tool_code(body("tool_code\nRead(file_path='a", closed=False))
    ) == ["truncated"]


def test_heads_and_start_pattern() -> None:
    assert gemma.HEAD_GEMMA4.match(":call:Read{")
    assert gemma.HEAD_GEMMA4.match("\ncall:Read {")
    assert not gemma.HEAD_GEMMA4.match(" token opens")
    assert gemma.HEAD_FUNCTIONGEMMA.match("call:Read{")
    assert gemma.BARE_CALL.match("call:Read{")
    assert not gemma.BARE_CALL.match("call: me maybe")


def test_deep_hostile_bodies_never_raise() -> None:
    deep = "call:Read{a:" + "[" * 100_000 + "]" * 100_000 + "}"
    assert found_kinds(gemma.decode_gemma4(body(deep))) == ["invalid_json"]
    deep_obj = "call:Read{a:" + "{b:" * 100_000
    assert found_kinds(gemma.decode_gemma4(body(deep_obj, closed=False))) == ["invalid_json"]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: f"call:Read{{a:{Q}" + "x" * n,
        lambda n: "call:Read{a:" + "x" * n,
        lambda n: "call:Read{" + "k:1," * (n // 4) + "}",
        lambda n: "call:Read{a:[" + f"{Q}x{Q}," * (n // 8) + "]}",
        lambda n: "call:Read{" + "<|" * (n // 2),
        lambda n: (R4 + "\n") * (n // 40),
    ],
)
def test_hostile_bodies_take_linear_time(make: Any) -> None:
    def run(text: str) -> None:
        gemma.decode_gemma4(body(text))
        gemma.decode_gemma4(body(text, closed=False))
        gemma.decode_functiongemma(body(text))

    assert_linear(run, make, 4_000)


# ---------------------------------------------------------------- <tool_call>NAME({json})

TAG_READ = '<tool_call>Read({"file_path": "/src/app.py"})</tool_call>'


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        (TAG_READ, ""),
        (
            'I will read it.\n<tool_call>\nRead ( {"file_path": "/src/app.py"} )\n</tool_call>',
            "I will read it.",
        ),
        ('<tool_call>Read({"file_path": "/src/app.py"})', ""),
    ],
    ids=["vllm#39172", "after prose, spaced", "closer never came"],
)
def test_tool_call_tag_with_a_json_object_in_parentheses(text: str, visible: str) -> None:
    check(text, [("Read", READ)], visible=visible, hidden=("<tool_call>", "Read("))


def test_tool_call_tag_closer_inside_a_json_string_is_content() -> None:
    text = '<tool_call>Bash({"command": "echo </tool_call>"})</tool_call>'
    check(text, [("Bash", {"command": "echo </tool_call>"})])


def test_tool_call_tag_leaves_hermes_and_glm_their_forms() -> None:
    check(
        '<tool_call>{"name": "Read", "arguments": {"file_path": "/src/app.py"}}</tool_call>',
        [("Read", READ)],
    )
    check('<tool_call>Read\n{"file_path": "/src/app.py"}</tool_call>', [("Read", READ)])
    check(
        "<tool_call>Read<arg_key>file_path</arg_key><arg_value>/src/app.py</arg_value></tool_call>",
        [("Read", READ)],
    )


@pytest.mark.parametrize(
    "text",
    [
        f"Gemma may write `{TAG_READ}` instead.",
        f"```text\n{TAG_READ}\n```",
        # The PR's own elision (vllm-project/vllm#39172).
        "It also emits <tool_call>function({...})</tool_call> in practice.",
        '<tool_call>Nope({"a": 1})</tool_call>',
        '<tool_call>Read({"file_path": "/src/app.py"}, {"limit": 3})</tool_call>',
        '<tool_call>Read(["/src/app.py"])</tool_call>',
        '<tool_call>Read({"file_path": "/src/app.py"}) and more</tool_call>',
        "Write <tool_call>Read(path) around a call.",
    ],
    ids=[
        "inline code",
        "text fence",
        "elided object mid-sentence",
        "unknown tool",
        "two arguments",
        "not an object",
        "text after the call",
        "no object",
    ],
)
def test_tool_call_tag_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>Read({"file_path": "/src/a',
        '<tool_call>Read({"file_path": "/src/app.py"}',
        "<tool_call>Read({",
    ],
    ids=["inside a string", "before the parenthesis", "just opened"],
)
def test_tool_call_tag_cut_off_is_truncated(text: str) -> None:
    check(text, [], ["truncated"])


def test_decode_tag_call() -> None:
    assert found_calls(gemma.decode_tag_call(body('Read({"file_path": "/src/app.py"})'))) == [
        ("Read", READ)
    ]
    assert found_calls(gemma.decode_tag_call(body("Write({})", known=None))) == [("Write", {})]
    assert gemma.decode_tag_call(body('Read({"file_path": "a", "file_path": "b"})')) is None
    assert gemma.decode_tag_call(body("Read({" + "[" * 100_000)) is None
    assert gemma.HEAD_TAG.match(' Read ( {"')
    assert not gemma.REFUSE_TAG.match(' Read ( {"')
    for refused in ('{"name"', "Read\n{", "<function=Read>", "Read<arg_key>", "Read(path)", "2x("):
        assert gemma.REFUSE_TAG.match(refused), refused


HERMES_LS = '<tool_call>\n{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>'


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        (f'<tool_call>Read({{"file_path": "a}})</tool_call>\n{HERMES_LS}', None),
        (f'<tool_call>Nope({{"x": "a}})</tool_call>\n{HERMES_LS}', None),
        (f'<tool_call>Bash({{"command": "a\\"}})</tool_call>\n{HERMES_LS}', None),
        (
            f'<tool_call>Read({{"file_path": "a}})</tool_call>\nI said "hi".\n{HERMES_LS}',
            None,
        ),
        ('<tool_call>Read({"file_path": "a})</tool_call>\nDone.', "Done."),
    ],
    ids=[
        "known tool",
        "unknown tool",
        "an escaped closing quote",
        "quotes in the prose between",
        "prose after it",
    ],
)
def test_tool_call_tag_with_a_stray_quote_ends_at_its_closer(
    text: str, visible: str | None
) -> None:
    """A stray quote runs the JSON string past the closer to the end; the first closer
    after the value then ends it (as Hermes' block does), and what follows is read
    again: a later call still runs, prose stays prose."""
    expected = [("Bash", LS)] if HERMES_LS in text else []
    for result in outcomes(text):
        assert calls_of(result) == expected
        assert kinds(result) == []
        if visible is not None:
            assert result.text.strip().endswith(visible)
