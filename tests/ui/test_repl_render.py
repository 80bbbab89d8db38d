"""The REPL's rendering, to a string: Markdown answers, tool lines, diffs, plain terminals."""

from __future__ import annotations

import io
import itertools
import os
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from fakes import checked
from nehanda.cli.repl_commands import help_sections
from nehanda.events import (
    EngineEvent,
    MessageEnd,
    ModeSwitched,
    ReasoningDelta,
    RunFinished,
    TextDelta,
    ToolExecuted,
    ToolStarted,
    TurnStarted,
)
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.overview import describe_permissions, describe_tools
from nehanda.tools.registry import builtin_specs
from nehanda.types import ToolResult, ToolUse, Usage
from nehanda.ui.live import LiveRenderer, make_console
from nehanda.ui.markdown_stream import Block, CodeLines, MarkdownBlocks, Piece

ANSWER = (
    "# Install\n\nRun **pip install widget** and then:\n\n"
    "- import it\n- call `widget.run()`\n\n```python\nimport widget\n\nwidget.run()\n```\n\nDone."
)
COLOUR = re.compile(r"\x1b\[[0-9;]*(3\d|9\d|4\d|10\d|38;|48;)[0-9;]*m")
READ = ToolUse("call_1", "Read", {"file_path": "README.md"})


def render(
    events: Iterable[EngineEvent], width: int = 80, workspace: Path = Path(), **console: Any
) -> str:
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=width, **console), workspace)
    with renderer.turn("qwen"):
        for event in events:
            renderer.handle(event)
    return out.getvalue()


def answer(text: str, piece: int = 3) -> list[EngineEvent]:
    deltas: list[EngineEvent] = [TextDelta(text[i : i + piece]) for i in range(0, len(text), piece)]
    end = RunFinished(text, 1, "end_turn", Usage(1200, 34))
    return [TurnStarted(1), *deltas, MessageEnd("end_turn", Usage(1200, 34)), end]


def tool_events(call: ToolUse, result: str, is_error: bool = False) -> list[EngineEvent]:
    facts = checked(call).facts
    return [
        ToolStarted(call, facts),
        ToolExecuted(call, ToolResult(call.id, result, is_error), 0.0042, facts),
    ]


def test_the_answer_is_rendered_as_markdown_with_tokens_and_time() -> None:
    text = render(answer(ANSWER))
    assert "Install" in text and "# Install" not in text
    assert "pip install widget" in text and "**" not in text
    assert "• import it" in text and "widget.run()" in text
    assert "import widget" in text and "```" not in text
    assert text.rstrip().splitlines()[-1].startswith("1,200 tokens in · 34 out · 1 request · ")
    assert "\x1b" not in text  # not a terminal: plain text only


def test_a_tool_call_is_one_line_with_its_outcome_and_duration() -> None:
    events = [
        TurnStarted(1),
        *tool_events(READ, "     1\ta\n     2\tb\n     3\tc"),
        *answer("ok")[1:],
    ]
    lines = render(events).splitlines()
    assert "✓ Read README.md · 3 lines · 4 ms" in lines
    failed = ToolUse("call_2", "Bash", {"command": "make test"})
    events = [*tool_events(failed, "Exit code 2\nmake: *** no rule", is_error=True), *answer("x")]
    text = render(events)
    assert "✗ Bash make test · error: Exit code 2 · 4 ms" in text.splitlines()


def test_markdown_arrives_block_by_block_whatever_the_pieces() -> None:
    whole = render(answer(ANSWER, piece=len(ANSWER)))
    for piece in (1, 2, 7):
        streamed = render(answer(ANSWER, piece=piece))
        assert streamed.rsplit("\n", 2)[0] == whole.rsplit("\n", 2)[0]


def test_no_color_leaves_colour_out_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    events = [*tool_events(READ, "x"), *answer(ANSWER)]
    coloured = render(events, force_terminal=True)
    assert COLOUR.search(coloured)
    monkeypatch.setenv("NO_COLOR", "1")
    assert make_console().no_color
    plain = render(events, force_terminal=True)
    assert not COLOUR.search(plain)
    assert "Read README.md" in plain and "pip install widget" in plain


def test_term_dumb_gets_no_escape_sequences_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    events = [ReasoningDelta("thinking"), *tool_events(READ, "x"), *answer(ANSWER)]
    text = render(events, force_terminal=True)
    assert "\x1b" not in text
    assert "Read README.md" in text and "widget.run()" in text


def test_narrow_terminals_wrap_within_the_width_and_keep_the_outcome() -> None:
    long_call = ToolUse("call_3", "Read", {"file_path": "src/widget/" + "deep/" * 12 + "mod.py"})
    events = [
        TurnStarted(1),
        *tool_events(long_call, "     1\tone\n     2\ttwo"),
        *answer(ANSWER)[1:],
    ]
    text = render(events, width=40)
    assert max(len(line) for line in text.splitlines()) <= 40
    tool_line = next(line for line in text.splitlines() if "Read" in line)
    assert tool_line.startswith("✓ Read src/widget/") and tool_line.endswith("· 2 lines · 4 ms")
    assert "…" in tool_line


def test_reasoning_collapses_to_one_line_and_reasoning_shows_it_whole() -> None:
    words = ["the", "user", "asks", "for", "two", "plus", "two"]
    thoughts = [ReasoningDelta(word + " ") for word in words]
    later: list[EngineEvent] = [ReasoningDelta("check \x1b[2J the sum"), TextDelta("Checked.")]
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=80), Path())
    with renderer.turn("qwen"):
        events: list[EngineEvent] = [TurnStarted(1), *thoughts, *answer("It is 4.")[1:-1], *later]
        for event in events:
            renderer.handle(event)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert lines[0].startswith("thought for ")
    assert lines[0].endswith("(7 words) · /reasoning shows it")
    assert lines[1] == "It is 4."
    assert "the user asks" not in out.getvalue()

    out.truncate(0)
    out.seek(0)
    renderer.show_reasoning()
    assert out.getvalue() == "the user asks for two plus two\n\ncheck \\x1b[2J the sum\n"

    with renderer.turn("qwen"):
        for event in answer("No thinking this time."):
            renderer.handle(event)
    out.truncate(0)
    out.seek(0)
    renderer.show_reasoning()
    assert out.getvalue() == "the last answer came without reasoning\n"


def test_an_edit_shows_its_diff_unless_the_approval_prompt_did(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\ny = 2\n")
    change = {"file_path": "app.py", "old_string": "y = 2", "new_string": "y = 3"}
    edit = ToolUse("call_4", "Edit", change)
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=80), tmp_path)
    with renderer.turn("qwen"):
        renderer.handle(ToolStarted(edit, checked(edit).facts))
        (tmp_path / "app.py").write_text("x = 1\ny = 3\n")  # the tool ran
        result = ToolResult(edit.id, "Edited app.py")
        renderer.handle(ToolExecuted(edit, result, 0.001, checked(edit).facts))
    lines = out.getvalue().splitlines()
    assert "✓ Edit app.py · 1 line · 1 ms" in lines
    assert "--- a/app.py" in lines and "-y = 2" in lines and "+y = 3" in lines
    renderer.diffs.asked.add("call_5")
    again = replace(edit, id="call_5")
    events: list[EngineEvent] = [
        ToolStarted(again, checked(again).facts),
        ToolExecuted(again, ToolResult("call_5", "Edited"), 0.001, checked(again).facts),
    ]
    assert "+y = 3" not in render(events, workspace=tmp_path)


def test_model_text_cannot_send_escape_sequences_or_markup() -> None:
    text = render(answer("[bold red]hi[/] \x1b[2J\x07done"), force_terminal=True)
    assert "\x1b[2J" not in text and "\x07" not in text
    assert "\\x1b[2J" in text and "[bold red]hi[/]" in text


def test_a_live_terminal_ends_with_the_whole_answer_and_notices() -> None:
    events = [ModeSwitched("rescue", "no tools"), *tool_events(READ, "x"), *answer(ANSWER)]
    text = render(events, width=60, force_terminal=True)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    assert "note: switched to rescue mode for this model (no tools)" in plain
    assert "Read README.md" in plain and "Done." in plain


@given(st.lists(st.integers(min_value=1, max_value=len(ANSWER)), max_size=8))
def test_blocks_do_not_depend_on_how_the_text_was_cut(cuts: list[int]) -> None:
    def blocks(pieces: list[str]) -> list[Piece]:
        splitter = MarkdownBlocks()
        found = [block for piece in pieces for block in splitter.feed(piece)]
        return [*found, *splitter.finish()]

    bounds = [0, *sorted(cuts), len(ANSWER)]
    pieces = [ANSWER[a:b] for a, b in itertools.pairwise(bounds)]
    assert blocks(pieces) == blocks([ANSWER])


def test_blocks_end_at_blank_lines_outside_code_and_before_unindented_text() -> None:
    splitter = MarkdownBlocks(code_lines=1)
    text = "para\n\n- item\n\n  more of the item\n\n```\na\n\nb\n```\n\nlast\n"
    assert splitter.feed(text) == [
        Block("para"),
        Block("- item\n\n  more of the item"),
        CodeLines("text", ("a", ""), top=True, bottom=False),
        CodeLines("text", ("b",), top=False, bottom=True, first=2),
    ]
    assert splitter.tail == "last"
    assert splitter.finish() == [Block("last")] and splitter.tail == ""


def test_tools_view_says_what_each_tool_may_do_under_the_rules() -> None:
    workspace = Path(os.path.realpath("."))
    default = describe_tools(builtin_specs(), PermissionRules(), workspace)
    assert "Read   in the workspace: runs; outside it: asks first" in default
    assert "Write  in the workspace or outside it: asks first" in default
    assert "Bash   commands no rule names: asks first" in default
    rules = PermissionRules.parse("plan", allow=["Bash(git status)"], deny=["Read(~/.ssh/**)"])
    plan = describe_tools(builtin_specs(), rules, workspace)
    assert "Edit   in the workspace or outside it: refused (plan mode" in plan
    assert "allow Bash(git status)" in plan and "deny Read(~/.ssh/**)" in plan
    yolo = describe_tools(builtin_specs(), PermissionRules(mode="yolo"), workspace)
    assert "Bash   commands no rule names: runs" in yolo
    shown = describe_permissions(rules)
    assert shown.startswith("Permission mode: plan (read-only tools only")
    assert "allow: Bash(git status)" in shown and "ask:   none" in shown


@pytest.mark.parametrize("width", [100, 40])
def test_help_is_a_table_that_stacks_on_narrow_terminals(width: int) -> None:
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=width), Path())
    for title, rows in help_sections():
        renderer.table(title, rows)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Commands:" and "Keys:" in lines
    assert max(len(line.rstrip()) for line in lines) <= width
    mode = next(i for i, line in enumerate(lines) if "/mode [auto|native|rescue]" in line)
    if width == 100:
        assert "how tools are called" in lines[mode]
    else:
        assert lines[mode + 1].startswith("      how tools are called")
