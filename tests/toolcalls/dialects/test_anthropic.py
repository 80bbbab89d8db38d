"""Claude's ``<invoke>`` leaked as text, in its ``function_calls`` wrapper or with it eaten.

Sources: anthropics/claude-code#77061 (a lone ``count`` line, then the invoke), #69529
and #64922 (``court``), NousResearch/hermes-agent#35706 (``call``, then the invoke) and
#74723 (the rule: a complete trailing invoke naming an exposed tool).
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.families import anthropic
from nehanda.toolcalls.scanner import ToolCallScanner
from toolcalls.dialects.family_checks import (
    LS,
    READ,
    Calls,
    body,
    check,
    found_calls,
    no_call,
    outcomes,
)
from toolcalls.linear import assert_linear
from toolcalls.toolcall_render import calls_of

R = '<invoke name="Read">\n<parameter name="file_path">/src/app.py</parameter>\n</invoke>'
B = '<invoke name="Bash">\n<parameter name="command">ls</parameter>\n</invoke>'


@pytest.mark.parametrize(
    ("text", "expected", "visible"),
    [
        (f"...normal prose...\n\ncount\n{R}", [("Read", READ)], "...normal prose...\n\ncount"),
        (f"call\n{R}\n", [("Read", READ)], "call"),
        (R, [("Read", READ)], ""),
        (f"Reading.\n  {R}\n{B}\n\n", [("Read", READ), ("Bash", LS)], "Reading."),
        (f"court\n{R}\n</function_calls>\n", [("Read", READ)], "court"),
        (
            '<invoke name="Bash">\n<parameter name="command">echo </invoke></parameter>\n</invoke>',
            [("Bash", {"command": "echo </invoke>"})],
            "",
        ),
    ],
    ids=[
        "claude-code#77061",
        "hermes-agent#35706",
        "alone",
        "two, indented",
        "claude-code#69529, the wrapper's closer after it",
        "a closer inside a value",
    ],
)
def test_trailing_bare_invoke_is_a_call(text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=("<invoke", "</invoke>"))


@pytest.mark.parametrize(
    "text",
    [
        f"Use `{R.replace(chr(10), '')}` to read.",
        f"The model wrote `\n{R}\n` instead of a tool_use block.",
        f"Quoted: `<function_calls>\n{R}\n</function_calls>`",
        f"```xml\n{R}\n```",
        f"Claude writes {R}",
        f"{R}\nThat is the format Claude uses.",
        f"{R}\n{B}\nThose two would run.",
        '<invoke name="Nope">\n<parameter name="a">1</parameter>\n</invoke>',
        '<invoke name="Read">\n<parameter name="file_path">a</parameter>\n'
        '<parameter name="file_path">b</parameter>\n</invoke>',
        "<invoked the tool>\n</invoke>",
        '<invoke name="tool-name-1">\n<parameter name="param-key-1">value</parameter>\n</invoke>',
    ],
    ids=[
        "inline code",
        "inline code over lines",
        "a wrapper in inline code over lines",
        "xml fence",
        "mid-line",
        "prose after it",
        "prose after two",
        "unknown tool",
        "a key twice",
        "not an invoke",
        "the format's placeholders",
    ],
)
def test_bare_invoke_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


@pytest.mark.parametrize(
    "text",
    [
        'call\n<invoke name="Read">\n<parameter name="file_path">/src/ap',
        'call\n<invoke name="Read">\n<parameter name="file_path">/src/app.py</parameter>\n',
        'call\n<invoke name="Rea',
        f"{R}\n{B[:30]}",
    ],
    ids=["inside a value", "before </invoke>", "inside the name", "the second one cut"],
)
def test_cut_off_bare_invoke_is_prose(text: str) -> None:
    no_call(text)


@pytest.mark.parametrize(
    ("text", "expected", "visible"),
    [
        (f"<function_calls>\n{R}\n</function_calls>", [("Read", READ)], ""),
        (
            f"Let me look.\n<function_calls>\n{R}\n{B}\n</function_calls>\nThen I fix it.",
            [("Read", READ), ("Bash", LS)],
            "Let me look.\n\nThen I fix it.",
        ),
        (f"Reading <function_calls>{R}</function_calls> now", [("Read", READ)], "Reading  now"),
        (f"<function_calls>\n{R}", [("Read", READ)], ""),  # the closer dropped
        (f"<function_calls>\n{R}\nThen I fix it.", [("Read", READ)], "Then I fix it."),
    ],
    ids=["alone", "two, prose around", "mid-line", "no closer", "no closer, prose after"],
)
def test_function_calls_block_is_a_call(text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=("<function_calls>", "<invoke"))


def test_olmo_keeps_its_pythonic_function_calls() -> None:
    text = '<function_calls>\nRead(file_path="/src/app.py")\n</function_calls>'
    check(text, [("Read", READ)], visible="")


@pytest.mark.parametrize(
    "text",
    [
        f"Use `<function_calls>{R.replace(chr(10), '')}</function_calls>` to read.",
        f"```xml\n<function_calls>\n{R}\n</function_calls>\n```",
        "<function_calls> is the wrapper Claude's format uses.",
    ],
    ids=["inline code", "xml fence", "the opener named in prose"],
)
def test_function_calls_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_a_function_calls_block_cut_inside_a_value_is_truncated() -> None:
    check(f"<function_calls>\n{R[:45]}", [], ["truncated"])


def test_decode_bare_invoke() -> None:
    inner = R[len("<invoke") : -len("</invoke>")]
    assert found_calls(anthropic.decode_bare_invoke(body(inner))) == [("Read", READ)]
    assert anthropic.decode_bare_invoke(body(inner, closed=False)) is None
    # An invoke inside an invoke: two calls in one body, not the leaked form.
    assert anthropic.decode_bare_invoke(body(' name="Read">\n' + B[: -len("</invoke>")])) is None
    assert anthropic.HEAD.match(' name="Read">')
    for refused in (">", "d the", " the"):
        assert anthropic.REFUSE.match(refused), refused
    assert not anthropic.REFUSE.match(" ")


HERMES_LS = '<tool_call>\n{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>'
KIMI_LS = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.Bash:0"
    '<|tool_call_argument_begin|>{"command": "ls"}<|tool_call_end|><|tool_calls_section_end|>'
)


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        (f'<invoke name="Read"> starts a Claude call.\nNow:\n{HERMES_LS}', "Now:"),
        (f'<invoke name="Read"> opens.\n{HERMES_LS}\nand </invoke> closes it.', "closes it."),
        (f'<invoke name="Nope">\n{HERMES_LS}', '<invoke name="Nope">'),
        (f'<invoke name="Read">\n{KIMI_LS}', '<invoke name="Read">'),
        (f'{R}\n<invoke name="Read"> again\n{HERMES_LS}', "again"),
        (f'<invoke name="Read">\n<parameter name="file_path">a\n{HERMES_LS}', "file_path"),
    ],
    ids=[
        "a mention",
        "a mention, its closer after the call",
        "unknown tool, never closed",
        "a Kimi call after it",
        "a second one mentioned",
        "a value never closed",
    ],
)
def test_a_bare_invoke_that_is_no_call_leaves_later_calls_alone(text: str, visible: str) -> None:
    """A line-start <invoke name=KNOWN> that is a mention ran to the end of the output
    looking for its </invoke>, and every call after it was prose."""
    check(text, [("Bash", LS)], hidden=("<tool_call>", "<|tool_call_begin|>"))
    for result in outcomes(text):
        assert visible in result.text


def test_a_bare_invoke_mention_does_not_hide_reasoning_markup() -> None:
    text = '<invoke name="Read"> opens\n<think>draft</think>\nanswer'
    for result in outcomes(text):
        assert calls_of(result) == []
        assert "draft" not in result.text and "<think>" not in result.text


@pytest.mark.parametrize(
    "text",
    [
        '<invoke name="Read">\njunk\n<parameter name="file_path">a</parameter>\n</invoke>',
        '<invoke name="Read"><parameter name="file_path">a</parameter>x</invoke>',
    ],
    ids=["text before a parameter", "text after one"],
)
def test_a_bare_invoke_holds_only_parameters(text: str) -> None:
    no_call(text)


@pytest.mark.parametrize(
    "make",
    [
        lambda n: '\n<invoke name="Read"> is a mention' * (n // 33),
        lambda n: '\n<invoke name="Read">\n<parameter name="file_path">x' * (n // 50),
        lambda n: f"{R}\n" * (n // 80) + '<invoke name="Read">\n<parameter name="a">' * (n // 40),
    ],
    ids=["mentions", "values never closed", "calls, then values never closed"],
)
def test_bare_invokes_take_linear_time(make: Any) -> None:
    def run(text: str) -> None:
        scanner = ToolCallScanner(frozenset({"Read"}), {})
        for i in range(0, len(text), 8):
            scanner.feed(text[i : i + 8])
        scanner.finish()

    assert_linear(run, make, 2_000)
