"""The semantic rules: what a careful reader would extract, and what stays prose."""

from __future__ import annotations

import json

import pytest

from toolcalls.toolcall_render import calls_of, kinds, parse, streamed

CALL = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a"}}[/TOOL_CALL]'
READ_A = ("Read", {"file_path": "a"})


def test_calls_come_in_order_of_appearance_across_formats() -> None:
    text = (
        '<tool_call>{"name": "Bash", "arguments": {"command": "1"}}</tool_call> then '
        '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "2"}}[/TOOL_CALL] then '
        '[TOOL_CALLS]Bash[ARGS]{"command": "3"} and done'
    )
    assert calls_of(parse(text)) == [
        ("Bash", {"command": "1"}),
        ("Read", {"file_path": "2"}),
        ("Bash", {"command": "3"}),
    ]
    assert parse(text).text == " then  then  and done"


def test_names_match_exactly() -> None:
    result = parse('[TOOL_CALL]{"name": "read", "arguments": {}}[/TOOL_CALL]')
    assert result.calls == [] and kinds(result) == ["unknown_tool"]
    assert "'read'" in result.problems[0].message


def test_an_unknown_tool_is_dropped_and_the_rest_kept() -> None:
    text = '[TOOL_CALL]{"name": "rm_rf", "arguments": {}}[/TOOL_CALL]\n' + CALL
    result = parse(text)
    assert calls_of(result) == [READ_A]
    assert kinds(result) == ["unknown_tool"]
    assert "rm_rf" in result.problems[0].raw


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "Read", "parameters": {"file_path": "a"}}',
        '{"name": "Read", "input": {"file_path": "a"}}',
        '{"name": "Read", "args": {"file_path": "a"}}',
        '{"tool": "Read", "arguments": {"file_path": "a"}}',
        '{"function": "Read", "arguments": {"file_path": "a"}}',
        '{"tool_name": "Read", "arguments": {"file_path": "a"}}',
        '{"type": "function", "function": {"name": "Read", "arguments": {"file_path": "a"}}}',
        '{"function": {"name": "Read", "arguments": "{\\"file_path\\": \\"a\\"}"}}',
        '{"name": "Read", "arguments": "{\\"file_path\\": \\"a\\"}"}',
        '{"name": "Read", "file_path": "a"}',
        '{"Read": {"file_path": "a"}}',
        'Read{"file_path": "a"}',
        'Read[ARGS]{"file_path": "a"}',
    ],
)
def test_key_drift_is_understood(body: str) -> None:
    result = parse(f"[TOOL_CALL]{body}[/TOOL_CALL]")
    assert calls_of(result) == [READ_A]
    assert result.problems == []


def test_arguments_missing_or_empty_mean_no_arguments() -> None:
    text = (
        '[TOOL_CALL]{"name": "Read"}[/TOOL_CALL]'
        '[TOOL_CALL]{"name": "Read", "arguments": ""}[/TOOL_CALL]'
    )
    assert calls_of(parse(text)) == [("Read", {}), ("Read", {})]


@pytest.mark.parametrize(
    ("body", "note"),
    [
        ('{"name": "Read", "arguments": {"file_path": "a",},}', "trailing commas"),
        ("{'name': 'Read', 'arguments': {'file_path': 'a'}}", "single quotes"),
        ('{"name": "Read", "arguments": {"file_path": "a", "x": None, "y": True}}', "Python"),
        ('{"name": "Read", "arguments": {"file_path": "a\n\tb"}}', "raw control"),
        ('```json\n{"name": "Read", "arguments": {"file_path": "a"}}\n```', None),
        ('<tool_call>{"name": "Read", "arguments": {"file_path": "a"}}</tool_call>', None),
        ('{"name": "Read", "arguments": <arguments>{"file_path": "a"}</arguments>}', "leaked"),
        ('{"name": "Read", "arguments": {"file_path": "a"}', "missing closing"),
        ('{"name": "Read", "arguments": {"file_path": "a"}}}', None),
        ('{"Read", "arguments": {"file_path": "a"}}', "shorthand"),
    ],
)
def test_repairs_inside_a_block(body: str, note: str | None) -> None:
    result = parse(f"Sure.\n[TOOL_CALL]{body}[/TOOL_CALL]\nDone.")
    name, args = calls_of(result)[0]
    assert name == "Read" and args["file_path"] in ("a", "a\n\tb")
    assert result.text == "Sure.\n\nDone."
    if note is None:
        assert result.problems == []
    else:
        assert kinds(result) == ["repaired"]
        assert note in result.problems[0].message


def test_irreparable_json_is_reported_not_run() -> None:
    result = parse('[TOOL_CALL]{"name": "Read", "arguments": {"file_path": ??? }}[/TOOL_CALL]')
    assert result.calls == [] and kinds(result) == ["invalid_json"]
    assert result.problems[0].message.startswith("The arguments of")


def test_a_block_without_a_tool_name_is_reported() -> None:
    result = parse('[TOOL_CALL]{"file_path": "a"}[/TOOL_CALL]')
    assert result.calls == [] and kinds(result) == ["invalid_json"]


@pytest.mark.parametrize(
    "text",
    [
        'You could call Read with {"file_path": "a"} if you like.',
        'The Read tool takes {"name": "Read", "arguments": {"file_path": "a"}} as input.',
        "Use [TOOL_CALL] blocks to call tools; close them with [/TOOL_CALL].",
        "The format is [TOOL_CALL] followed by JSON.",
        'Write `[TOOL_CALL]{"name": "Read", "arguments": {}}[/TOOL_CALL]` to call.',
        "Hermes uses `<tool_call>` tags.",
        '```python\nRead(file_path="a")\nprint({"name": "Read", "arguments": {}})\n```\n',
        '```python\ns = \'[TOOL_CALL]{"name": "Read", "arguments": {}}[/TOOL_CALL]\'\n```\n',
        '```json\n{"name": "Unknown", "arguments": {}}\n```',
        '```json\n{"dependencies": {"left-pad": "1.0"}}\n```',
        '{"name": "Read", "arguments": {"file_path": "a"}} is what a call looks like.',
        '[1] see {"name": "Read"}',
        "a < b and c > d; x[0] = y[1]",
    ],
)
def test_prose_is_never_a_call(text: str) -> None:
    for result in (parse(text), streamed(text, 1), streamed(text, 5)):
        assert result.calls == []
        assert result.problems == []
        assert result.text == text


def test_a_fence_in_prose_hides_blocks_until_it_closes() -> None:
    text = "```python\nx = '[TOOL_CALL]'\n```\n" + CALL
    assert calls_of(parse(text)) == [READ_A]


def test_a_closer_inside_an_argument_string_is_content() -> None:
    content = 'x = "[/TOOL_CALL]"; y = "</tool_call>"; z = "```"'
    for opener, closer in (("[TOOL_CALL]", "[/TOOL_CALL]"), ("<tool_call>", "</tool_call>")):
        call = json.dumps({"name": "Write", "arguments": {"content": content}})
        text = f"{opener}{call}{closer} tail"
        result = parse(text)
        assert calls_of(result) == [("Write", {"content": content})]
        assert result.text == " tail"
        assert calls_of(streamed(text, 2)) == [("Write", {"content": content})]


def test_a_final_block_missing_its_closer_is_marked_unclosed() -> None:
    text = 'Reading. [TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a"}}\n'
    result = parse(text)
    assert calls_of(result) == [READ_A]
    assert result.calls[0].unclosed and result.problems == []
    closed = parse(text + "[/TOOL_CALL]")
    assert not closed.calls[0].unclosed


def test_formats_without_a_closer_are_never_unclosed() -> None:
    result = parse('[TOOL_CALLS]Read[ARGS]{"file_path": "a"}')
    assert calls_of(result) == [READ_A] and not result.calls[0].unclosed


@pytest.mark.parametrize(
    "text",
    [
        '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a',
        '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a"',
        '<tool_call>\n{"name": "Read", "arg',
        "<tool_call><function=Read><parameter=file_path>a",
        '[TOOL_CALLS]Read[ARGS]{"file_path":',
        "[TOOL_CALL]",
        "[TOOL_CALL]Read",
        '```json\n{"name": "Read", "arguments": {"file_path": "a',
    ],
)
def test_output_cut_inside_a_call_yields_a_truncated_problem(text: str) -> None:
    for result in (parse(text), streamed(text, 1)):
        assert result.calls == []
        assert kinds(result) == ["truncated"]
        assert result.text == ""


def test_output_cut_inside_a_bare_json_that_names_no_tool_stays_text() -> None:
    text = '{"config": {"a": 1'
    assert parse(text).text == text and parse(text).problems == []


@pytest.mark.parametrize(
    "text",
    [
        '[TOOL_CALL]{"name": "Read", "arguments": {"path": "a", "path": "b"}}[/TOOL_CALL]',
        '[TOOL_CALL]{"name": "Read", "name": "Bash", "arguments": {}}[/TOOL_CALL]',
        '<tool_call>{"name": "Read", "arguments": "{\\"a\\": 1, \\"a\\": 2}"}</tool_call>',
        "<tool_call><function=Read><parameter=a>1</parameter><parameter=a>2</parameter>"
        "</function></tool_call>",
        '```json\n{"name": "Read", "arguments": {"a": 1, "a": 2}}\n```',
        '{"name": "Read", "arguments": {"a": 1, "a": 2}}',
    ],
)
def test_duplicate_keys_are_a_problem_not_last_wins(text: str) -> None:
    result = parse(text)
    assert result.calls == []
    assert kinds(result) == ["duplicate_key"]


@pytest.mark.parametrize(
    "text",
    [
        '[TOOL_CALL][{"a": ' + "[" * 100_000 + "]" * 100_000 + "}][/TOOL_CALL]",
        '[TOOL_CALL]{"name": "Read", "arguments": {"a": ' + "[" * 5000 + "]" * 5000 + "}}"
        "[/TOOL_CALL]",
        '[TOOL_CALL]{"name": "Read", "arguments": {"n": ' + "9" * 10_000 + "}}[/TOOL_CALL]",
        '<tool_call>{"name": "Read", "arguments": "' + "[" * 5000 + '"}</tool_call>',
        '{"name": "Read", "arguments": {"n": ' + "1" * 10_000 + "}}",
        "<tool_call><function=Read><parameter=limit>" + "9" * 10_000 + "</parameter></function>",
    ],
    ids=["deep-array", "deep-argument", "huge-int", "deep-string-args", "bare-huge", "xml-huge"],
)
def test_deep_nesting_and_huge_numbers_are_problems_not_crashes(text: str) -> None:
    result = parse(text)
    if result.calls:  # an XML value that does not fit its integer type stays text
        assert result.calls[0].input == {"limit": "9" * 10_000}
    elif text.startswith("{"):
        assert kinds(result) == ["invalid_json"] and result.text == ""
    else:
        assert kinds(result) == ["invalid_json"]


class TestReasoning:
    def test_calls_in_reasoning_followed_by_text_are_drafts(self) -> None:
        text = f"<think>I should call {CALL} now.</think>Here is the answer."
        result = parse(text)
        assert result.calls == [] and result.problems == []
        assert result.text == "Here is the answer."

    def test_calls_in_reasoning_followed_by_a_real_call_count_once(self) -> None:
        text = f"<think>Plan: {CALL}</think>\n{CALL}"
        assert calls_of(parse(text)) == [READ_A]

    @pytest.mark.parametrize(
        ("opener", "closer"),
        [
            ("<think>", "</think>"),
            ("<thinking>", "</thinking>"),
            ("<reasoning>", "</reasoning>"),
            ("[THINK]", "[/THINK]"),
        ],
    )
    def test_when_the_output_is_only_reasoning_its_calls_count(
        self, opener: str, closer: str
    ) -> None:
        for text in (f"{opener}Let me read. {CALL}{closer}\n  ", f"{opener}Reading {CALL}"):
            result = parse(text)
            assert calls_of(result) == [READ_A]
            assert result.text.strip() == ""

    def test_a_closer_without_opener_closes_a_section_from_the_start(self) -> None:
        drafts = f"The user wants a.py. {CALL}</think>\n\nI read it for you."
        assert parse(drafts).calls == []
        only = f"The user wants a.py. {CALL}</think>\n"
        assert calls_of(parse(only)) == [READ_A]

    def test_reasoning_tags_inside_a_json_string_are_data(self) -> None:
        args = {"content": "<think>not reasoning</think> [THINK]"}
        call = json.dumps({"name": "Write", "arguments": args})
        text = f"[TOOL_CALL]{call}[/TOOL_CALL] after"
        result = parse(text)
        assert calls_of(result) == [("Write", args)] and result.text == " after"

    def test_problems_inside_drafts_are_not_reported(self) -> None:
        text = '<think>[TOOL_CALL]{"name": "Nope"}[/TOOL_CALL]</think>Answer.'
        assert parse(text).problems == []

    def test_text_before_reasoning_makes_its_calls_drafts(self) -> None:
        assert parse(f"Intro. <think>{CALL}</think>").calls == []


def test_visible_text_keeps_prose_and_drops_markup() -> None:
    text = (
        "<think>plan</think>Let me look.\n"
        + CALL
        + "\n<tool_call>\n<function=Read>\n<parameter=file_path>\nb\n</parameter>\n"
        "</function>\n</tool_call>\nDone."
    )
    result = parse(text)
    assert result.text == "Let me look.\n\n\nDone."
    assert calls_of(result) == [READ_A, ("Read", {"file_path": "b"})]


def test_problem_messages_are_fit_to_send_back() -> None:
    text = '[TOOL_CALL]{"name": "Nope", "arguments": {}}[/TOOL_CALL]'
    (problem,) = parse(text).problems
    assert problem.message == (
        "There is no tool named 'Nope'; nothing was run. "
        "Available tools: Bash, Edit, Read, Write, mcp__git.log-v2."
    )
    assert problem.raw == text


def test_the_raw_text_of_a_huge_problem_is_clipped() -> None:
    text = '[TOOL_CALL]{"name": "Nope", "arguments": {"a": "' + "x" * 100_000 + '"}}[/TOOL_CALL]'
    (problem,) = parse(text).problems
    assert len(problem.raw) < 3000 and problem.raw.startswith("[TOOL_CALL]")


def test_a_stray_quote_does_not_swallow_the_rest_of_the_output() -> None:
    text = (
        '[TOOL_CALL]{"name": "Bash", "arguments": {"command": "echo "it"s ok"}}[/TOOL_CALL]\n'
        "Running it. " + CALL + " done"
    )
    for result in (parse(text), streamed(text, 3)):
        assert calls_of(result) == [("Bash", {"command": 'echo "it"s ok'}), READ_A]
        assert kinds(result) == ["repaired"]
        assert result.text == "\nRunning it.  done"


def test_output_cut_in_a_string_holding_a_closer_is_still_truncated() -> None:
    text = '[TOOL_CALL]{"name": "Write", "arguments": {"content": "x [/TOOL_CALL] y'
    result = parse(text)
    assert result.calls == [] and kinds(result) == ["truncated"]
