"""gpt-oss Harmony: ``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}``.

Sources: vllm-project/vllm vllm/tool_parsers/openai_tool_parser.py and
tests/tool_parsers/test_openai_tool_parser.py; ggml-org/llama.cpp common/chat.cpp
(common_chat_parse_gpt_oss: tool_call1_regex / tool_call2_regex, the recipient
before or after the channel, ``<|constrain|>`` optional) and tests/test-chat.cpp
(the gpt-oss cases); sgl-project/sglang python/sglang/srt/harmony_parser.py
(CanonicalStrategy, and TextStrategy for the form left when special tokens are
stripped) and python/sglang/srt/function_call/gpt_oss_detector.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.families import harmony
from nehanda.toolcalls.families.harmony import Header, classify_header, parse_stripped
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
from toolcalls.toolcall_render import KNOWN, calls_of, kinds

R = '{"file_path": "/src/app.py"}'
B = '{"command": "ls"}'
THINK = "<|channel|>analysis<|message|>I'm\nthinking<|end|>"
CALL = "<|start|>assistant<|channel|>commentary to=functions.Read <|constrain|>json<|message|>"
TOKENS = ("<|channel|>", "<|message|>", "<|start|>", "<|end|>", "<|call|>", "<|constrain|>")

TABLE: list[tuple[str, str, Calls, str]] = [
    (
        "canonical call (sglang function_call/gpt_oss_detector.py docstring)",
        f"{CALL}{R}<|call|>",
        [("Read", READ)],
        "",
    ),
    (
        "analysis then call (llama.cpp tests/test-chat.cpp gpt-oss, <|constrain|>json)",
        f"{THINK}{CALL}{R}",
        [("Read", READ)],
        "",
    ),
    (
        "no <|constrain|> (llama.cpp tests/test-chat.cpp gpt-oss, recipient in channel)",
        f"{THINK}<|start|>assistant<|channel|>commentary to=functions.Read<|message|>{R}",
        [("Read", READ)],
        "",
    ),
    (
        "output starts at <|channel|> (llama.cpp tests/test-chat.cpp recipient-in-channel)",
        f"<|channel|>commentary to=functions.Read<|message|>{R}",
        [("Read", READ)],
        "",
    ),
    (
        "call on the analysis channel (llama.cpp tests/test-chat.cpp, chat.cpp "
        "tool_call2_regex (analysis|commentary))",
        f"{THINK}<|start|>assistant<|channel|>analysis to=functions.Read "
        f"<|constrain|>json<|message|>{R}",
        [("Read", READ)],
        "",
    ),
    (
        "recipient before the channel (llama.cpp common/chat.cpp tool_call1_regex, "
        "tests/test-chat.cpp 'tool calling in role header')",
        f"{THINK}<|start|>assistant to=functions.Read<|channel|>commentary json<|message|>{R}",
        [("Read", READ)],
        "",
    ),
    (
        "recipient at the message start (llama.cpp tests/test-chat.cpp ' to=functions.')",
        f" to=functions.Read<|channel|>commentary <|constrain|>json<|message|>{R}",
        [("Read", READ)],
        "",
    ),
    (
        "preamble then call (llama.cpp tests/test-chat.cpp commentary content + call)",
        f"{THINK}<|start|>assistant<|channel|>commentary<|message|>Hello, world!\nWhat's up?"
        f"<|end|>{CALL}{R}",
        [("Read", READ)],
        "Hello, world!\nWhat's up?",
    ),
    (
        "several calls, empty and missing arguments (vllm tests/tool_parsers/"
        "test_openai_tool_parser.py test_extract_tool_calls_multiple_tools)",
        f"{CALL}{R}<|call|>"
        f"<|start|>assistant<|channel|>commentary to=functions.Bash <|constrain|>json"
        f"<|message|>{B}<|call|>"
        "<|start|>assistant<|channel|>commentary to=functions.mcp__git.log-v2 "
        "<|constrain|>json<|message|>{}<|call|>"
        "<|start|>assistant<|channel|>commentary to=functions.Write <|constrain|>json"
        "<|message|><|call|>",
        [("Read", READ), ("Bash", LS), ("mcp__git.log-v2", {}), ("Write", {})],
        "",
    ),
    (
        "arguments over several lines (vllm test_openai_tool_parser.py single_tool)",
        f'{CALL}{{\n"file_path": "/src/app.py"\n}}<|call|>',
        [("Read", READ)],
        "",
    ),
    (
        "call then final answer (vllm test_openai_tool_parser.py "
        "test_extract_tool_calls_with_content)",
        f"{THINK}{CALL}{R}<|call|><|start|>assistant<|channel|>final<|message|>"
        "This tool call will get the file.<|return|>",
        [("Read", READ)],
        "This tool call will get the file.",
    ),
    (
        "special tokens stripped (sglang harmony_parser.py TextStrategy: analysis... "
        "assistantcommentary to=functions.NAME json{...})",
        f"analysisWe need to read the file.assistantcommentary to=functions.Read json{R}",
        [("Read", READ)],
        "",
    ),
    (
        "stripped, json glued to the name (public gpt-oss outputs: to=functions.NAMEjson{)",
        f"analysisLet's call it.assistantcommentary to=functions.Readjson{R}",
        [("Read", READ)],
        "",
    ),
    (
        "stripped channel, <|start|> kept (hosted gpt-oss: assistantcommentary to=... <|call|>)",
        f"analysis: need to read file.<|end|><|start|>assistantcommentary to=functions.Read "
        f"{R}<|call|>",
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), TABLE, ids=[row[0] for row in TABLE]
)
def test_harmony_table(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=TOKENS)


@pytest.mark.xfail(
    strict=True,
    reason="stripped Harmony after prose: nothing before 'assistantcommentary' is a "
    "trigger, so finding it needs a literal search plus holding back every chunk end "
    "that could start the word (a cost on all prose), and prose quoting the format "
    "would run",
)
def test_stripped_call_after_prose() -> None:
    check(f"Let me look. assistantcommentary to=functions.Read json{R}", [("Read", READ)])


def test_reasoning_and_answer_without_a_call() -> None:
    # llama.cpp tests/test-chat.cpp gpt-oss: analysis then final, content only.
    text = f"{THINK}<|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?"
    check(text, [], visible="Hello, world!\nWhat's up?", hidden=(*TOKENS, "thinking"))


@pytest.mark.parametrize(
    "text",
    [
        "Harmony calls look like <|channel|>commentary to=functions.NAME, then JSON.",
        f"Use `<|channel|>commentary to=functions.Read<|message|>{R}<|call|>` to read.",
        f"Use `{CALL}{R}<|call|>` to read.",
        f"```text\n{CALL}{R}<|call|>\n```",
        # The schema echo: how the developer message declares the tools.
        "namespace functions {\n// Reads a file\ntype Read = (_: {\nfile_path: string,\n"
        "}) => any;\n} // namespace functions",
        "analysis of the heap shows a leak",
        "<|channel|>commentary<|message|>Reading the file next.<|end|>",
        # A tool's reply echoed by the model: not a call.
        '<|start|>functions.Read to=assistant<|channel|>commentary<|message|>{"content": "x"}'
        "<|end|>",
    ],
    ids=[
        "prose",
        "inline code",
        "inline code after markup",
        "text fence",
        "schema echo",
        "analysis prose",
        "preamble",
        "tool result echo",
    ],
)
def test_harmony_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = (
        f"<|channel|>commentary to=functions.Nope <|constrain|>json<|message|>{{}}<|call|>"
        f"{CALL}{R}<|call|>"
    )
    check(text, [("Read", READ)], ["unknown_tool"])


def test_names_match_exactly() -> None:
    check(f"<|channel|>commentary to=functions.read<|message|>{R}", [], ["unknown_tool"])


def test_a_closer_inside_a_json_string_is_content() -> None:
    # The body's JSON strings are read as strings: a closer there does not end it.
    check(f'{CALL}{{"file_path": "a<|end|>b"}}<|call|>', [("Read", {"file_path": "a<|end|>b"})])


def test_no_space_before_constrain() -> None:
    # sglang gpt_oss_detector.py tool_extract_pattern: to=NAME\s*<|constrain|>json
    check(
        f"<|channel|>commentary to=functions.Read<|constrain|>json<|message|>{R}<|call|>",
        [("Read", READ)],
    )


def test_duplicate_key_is_a_problem() -> None:
    check(f'{CALL}{{"file_path": "a", "file_path": "b"}}<|call|>', [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        f'{CALL}{{"file_path": "/src/ap',
        f"{CALL}",
        f"{THINK}{CALL}{{",
        'analysisWe need it.assistantcommentary to=functions.Read json{"file_path": "/sr',
    ],
    ids=["inside a string", "no body yet", "after reasoning", "stripped form"],
)
def test_cut_off_call_is_truncated(text: str) -> None:
    check(text, [], ["truncated"])


def test_call_drafted_in_analysis_does_not_run_when_an_answer_follows() -> None:
    draft = f'<tool_call>{{"name": "Read", "arguments": {R}}}</tool_call>'
    text = (
        f"<|channel|>analysis<|message|>Maybe {draft}<|end|>"
        "<|start|>assistant<|channel|>final<|message|>No need to read it."
    )
    check(text, [], visible="No need to read it.")


def test_call_in_analysis_only_counts() -> None:
    draft = f'<tool_call>{{"name": "Read", "arguments": {R}}}</tool_call>'
    check(f"<|channel|>analysis<|message|>Reading: {draft}<|end|>", [("Read", READ)])


def test_streamed_results_match_the_whole_text() -> None:
    for _label, text, expected, _visible in TABLE:
        results = outcomes(text)
        assert [calls_of(r) for r in results] == [expected] * 3
        assert [kinds(r) for r in results] == [[]] * 3


# ---------------------------------------------------------------- the header reader

HEADERS: list[tuple[str, Header | None]] = [
    (
        "assistant<|channel|>commentary to=functions.Read <|constrain|>json<|message|>",
        Header("call", "Read", "commentary", "json"),
    ),
    (
        "commentary to=functions.Read <|constrain|>json<|message|>",
        Header("call", "Read", "commentary", "json"),
    ),
    ("commentary to=functions.Read<|message|>", Header("call", "Read", "commentary")),
    (
        "assistant to=functions.Read<|channel|>commentary json<|message|>",
        Header("call", "Read", "commentary", "json"),
    ),
    (
        "assistant to=functions.Read<|channel|>analysis <|constrain|>json<|message|>",
        Header("call", "Read", "analysis", "json"),
    ),
    (
        "analysis to=functions.mcp__git.log-v2<|message|>",
        Header("call", "mcp__git.log-v2", "analysis"),
    ),
    ("commentary to=browser.search<|message|>", Header("call", "browser.search", "commentary")),
    ("analysis<|message|>", Header("reasoning", None, "analysis")),
    ("assistant<|channel|>analysis<|message|>", Header("reasoning", None, "analysis")),
    ("final<|message|>", Header("answer", None, "final")),
    (
        "assistant<|channel|>final <|constrain|>json<|message|>",
        Header("answer", None, "final", "json"),
    ),
    ("commentary<|message|>", Header("answer", None, "commentary")),
    ("assistant<|message|>", Header("answer")),
    (
        "functions.Read to=assistant<|channel|>commentary<|message|>",
        Header("markup", None, "commentary"),
    ),
    ("user<|message|>", Header("markup")),
    ("assistant<|channel|>secret<|message|>", Header("markup", None, "secret")),
    ("commentary to=functions.Read", None),
    ("commentary<|end|>to=functions.Read<|message|>", None),
    ("assistant<|channel|>commentary<|channel|>final<|message|>", None),
    ("commentary to=functions.Read some words here<|message|>", None),
    ("x" * 600 + "<|message|>", None),
]


@pytest.mark.parametrize(("text", "expected"), HEADERS, ids=[h[0][:50] for h in HEADERS])
def test_classify_header(text: str, expected: Header | None) -> None:
    assert classify_header(text) == expected


def test_resolve_name_unglues_json_only_for_a_known_tool() -> None:
    assert harmony.resolve_name("Readjson", KNOWN) == "Read"
    assert harmony.resolve_name("Read", KNOWN) == "Read"
    assert harmony.resolve_name("Nopejson", KNOWN) == "Nopejson"
    assert harmony.resolve_name("Readjson", None) == "Readjson"


def test_decode_channel_on_bodies() -> None:
    head = "commentary to=functions.Read <|constrain|>json<|message|>"
    assert found_calls(harmony.decode_channel(body(head + R))) == [("Read", READ)]
    # No <|call|>: the stop token was dropped, the JSON is complete, the call runs.
    assert found_calls(harmony.decode_channel(body(head + R, closed=False))) == [("Read", READ)]
    assert found_kinds(harmony.decode_channel(body(head + '{"a', closed=False))) == ["truncated"]
    assert found_kinds(harmony.decode_channel(body(head + "not json"))) == ["invalid_json"]
    assert harmony.decode_channel(body("final<|message|>Hello")) is None
    assert harmony.decode_channel(body("analysis<|message|>thinking")) is None


def test_decode_channel_repairs_slightly_broken_json() -> None:
    head = "commentary to=functions.Read<|message|>"
    found = harmony.decode_channel(body(head + "{'file_path': '/src/app.py',}"))
    assert found_calls(found) == [("Read", READ)]
    assert found is not None and found[0].repaired


def test_decode_start_recipient_on_a_body() -> None:
    text = "functions.Read<|channel|>commentary json<|message|>" + R
    assert found_calls(harmony.decode_start_recipient(body(text))) == [("Read", READ)]


def test_parse_stripped_splits_reasoning_calls_and_answer() -> None:
    # sglang harmony_parser.py TextStrategy: analysis ... assistantfinal ...
    text = (
        'analysisWe need it.assistantcommentary to=functions.Read json{"file_path": '
        '"a assistantfinal b"}assistantanalysisNow list.assistantcommentary '
        f"to=functions.Bash <|constrain|>json{B}assistantfinalDone."
    )
    parsed = parse_stripped(text, KNOWN)
    assert parsed is not None
    assert found_calls(parsed.calls) == [
        ("Read", {"file_path": "a assistantfinal b"}),
        ("Bash", LS),
    ]
    assert parsed.reasoning == ["We need it.", "Now list."]
    assert parsed.answer == ["Done."]


def test_parse_stripped_leaves_plain_prose_alone() -> None:
    assert parse_stripped("The assistant wrote a final analysis.", KNOWN) is None


def test_parse_stripped_without_a_call() -> None:
    parsed = parse_stripped("analysisThinking.assistantfinalThe answer.", KNOWN)
    assert parsed is not None and parsed.calls == []
    assert parsed.reasoning == ["Thinking."] and parsed.answer == ["The answer."]
    assert harmony.decode_stripped(body("analysisThinking.assistantfinalThe answer.")) is None


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "assistantcommentary to=functions.Read json{" * (n // 46),
        lambda n: 'assistantcommentary to=functions.Read json{"a' + "x" * n,
        lambda n: "analysis" + "assistantanalysis" * (n // 17),
        lambda n: "commentary to=functions.Read<|message|>" + "{" * n,
    ],
)
def test_decoders_take_linear_time(make: Any) -> None:
    def run(text: str) -> None:
        parse_stripped(text, KNOWN)
        harmony.decode_channel(body(text, closed=False))

    assert_linear(run, make, 4_000)


def test_hostile_headers_never_raise() -> None:
    for text in [
        "<|message|>",
        "to=<|message|>",
        "assistant to=functions.<|message|>",
        "commentary to=functions." + "x" * 300 + "<|message|>",
        "\ud800<|message|>",
        "<|constrain|><|constrain|><|message|>",
    ]:
        classify_header(text)
        harmony.decode_channel(body(text))
        parse_stripped("assistantcommentary " + text, KNOWN)
