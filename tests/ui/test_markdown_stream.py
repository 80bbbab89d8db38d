"""Streamed Markdown: what is printed for good adds up to the answer rendered once.

The renderer prints finished blocks, a code block's complete lines and a list's items as
they arrive; the live area holds only the rest. Whatever the pieces the text came in,
the printed output must be the one-shot render, colours included, and the live area
must stay as small as the unfinished line. Outputs are compared as what the screen
shows: each character with its colours (``on_screen``), since a lexer may cut the same
colour into tokens differently when it has not seen the rest of the block yet.
"""

from __future__ import annotations

import io
import itertools
import re
import time
from pathlib import Path

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from nehanda.events import TextDelta
from nehanda.ui.live import LiveRenderer
from nehanda.ui.markdown_print import Lines, markdown
from nehanda.ui.markdown_stream import CODE_LINES, Block, CodeLines, MarkdownBlocks
from toolcalls.linear import assert_linear

CODE = '''def handler(request, retries=3):
    """Answer the request.

    Retries up to ``retries`` times."""
    # state kept in a dict
    state = {'name': "handler", 'count': 7}

    for attempt in range(retries):<spaces>
        if request.get('id') == 1:
            return state['count'] + attempt
    text = """a string
over lines"""
    return None<spaces>

'''.replace("<spaces>", "   ")  # trailing spaces, which the whole block's render drops
LONG = (
    "# Plan\n\nFirst a paragraph that runs long enough to wrap at least once on a narrow"
    " terminal, with **bold** and `code`.\nIt goes on on a second line.\n"
    f"Here is the code:\n```python\n{CODE}```\nAnd after it, at once.\n\n"
    + "".join(f"- item {n} with *some* words\n  and a second line\n" for n in range(12))
    + "  - nested under the last\n- - -\n\n"
    "1. one\n2. two\n3. three\n\n> quoted\n> more\n\n~~~unknownlang\nx <- 1\n\n\n~~~\n\n"
    "* star\n* star two\n- dash starts another list\n\nEnd.\n"
)


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def on_screen(output: str) -> list[tuple[str, str]]:
    """Each character of ``output`` with the colour codes it is drawn in."""
    shown, style, at = [], "", 0
    for match in SGR.finditer(output):
        shown += [(char, style) for char in output[at : match.start()]]
        style, at = ("" if match.group(1) == "0" else match.group(1)), match.end()
    return shown + [(char, style) for char in output[at:]]


def colour_console(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, color_system="truecolor", highlight=False), out


def streamed(pieces: list[str], width: int = 60, live: bool = False) -> list[tuple[str, str]]:
    """What the renderer prints; with ``live``, the live area is drawn after each piece."""
    console, out = colour_console(width)
    renderer = LiveRenderer(console, Path())
    with renderer.turn("qwen"):
        for piece in pieces:
            renderer.handle(TextDelta(piece))
            if live:
                console.render_lines(renderer._view, console.options)
    return on_screen(out.getvalue())


def once(text: str, width: int = 60) -> list[tuple[str, str]]:
    console, out = colour_console(width)
    console.print(Lines(markdown(text)))
    return on_screen(out.getvalue())


def cut(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def test_small_deltas_print_what_the_answer_rendered_once_shows() -> None:
    whole = once(LONG)
    assert any(style for _, style in whole)  # the comparison covers the highlighting too
    for size in (1, 3, 8, 50):
        assert streamed([LONG[i : i + size] for i in range(0, len(LONG), size)]) == whole


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(LONG)), max_size=40))
def test_the_output_does_not_depend_on_where_the_text_was_cut(cuts: list[int]) -> None:
    assert streamed(cut(LONG, cuts), width=50, live=True) == once(LONG, width=50)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(["x = 1", "", '"""', "# c", "  y", "s = '''", "'''", "   ", "`"]),
        max_size=30,
    ),
    st.sampled_from(["python", "js", "", "nosuchlang"]),
    st.booleans(),
)
def test_any_code_block_prints_as_rendered_once(lines: list[str], lang: str, closed: bool) -> None:
    """Lines are printed before the block is complete, so a token whose colour a later
    line decides (a JavaScript string over lines, a C comment) may differ: the text never
    does, and Python's colours (its strings over lines lexed as states) do not either."""
    text = f"```{lang}\n" + "\n".join(lines) + ("\n```\n" if closed else "")
    printed, whole = streamed(list(text), live=True), once(text)
    assert [char for char, _ in printed] == [char for char, _ in whole]
    if lang == "python":
        assert printed == whole


def test_a_code_block_is_printed_line_by_line_and_the_live_area_holds_only_its_end() -> None:
    console, out = colour_console(80)
    renderer = LiveRenderer(console, Path())
    lines = [f"value_{n} = compute({n})  # step {n}" for n in range(300)]
    with renderer.turn("qwen"):
        renderer.handle(TextDelta("```python\n"))
        for n, line in enumerate(lines):
            renderer.handle(TextDelta(line + "\n"))
            live = console.render_lines(renderer._view, console.options)
            # the held lines, the line being written, the padding
            assert len(live) <= CODE_LINES + 3
            if n > CODE_LINES + 1:
                assert f"step {n - CODE_LINES - 1}" in out.getvalue()
    plain = "".join(char for char, _ in on_screen(out.getvalue()))
    assert [row.strip() for row in plain.splitlines() if row.strip()] == lines


def test_a_list_goes_out_item_by_item() -> None:
    splitter = MarkdownBlocks()
    assert splitter.feed("- a\n  more a\n- b\n") == [Block("- a\n  more a")]
    assert splitter.feed("- c\n") == [Block("- b", new=False)]
    assert splitter.feed("+ other bullet\n- d\n") == []  # two lists now: never cut apart
    assert splitter.finish() == [Block("- c\n+ other bullet\n- d", new=False)]


def test_a_code_block_goes_out_a_line_behind_its_trailing_blanks_dropped() -> None:
    splitter = MarkdownBlocks(code_lines=1)
    assert splitter.feed("Look:\n```py\nx = 1\n\ny = 2\n") == [
        Block("Look:"),
        CodeLines("py", ("x = 1", ""), top=True, bottom=False),
    ]
    assert splitter.code is not None and splitter.code.lines == ("y = 2", "")
    assert splitter.feed("z  \n\n```\nafter\n") == [
        CodeLines("py", ("y = 2",), top=False, bottom=False, first=2),
        CodeLines("py", ("z",), top=False, bottom=True, first=3),
    ]
    assert splitter.code is None and splitter.tail == "after"


def test_a_fence_with_backticks_in_its_info_is_inline_code_not_a_block() -> None:
    splitter = MarkdownBlocks()
    assert splitter.feed("```a` b\nc\n") == []
    assert splitter.code is None and splitter.finish() == [Block("```a` b\nc")]


def test_one_long_line_takes_linear_time() -> None:
    def run(text: str) -> None:
        splitter = MarkdownBlocks()
        for start in range(0, len(text), 8):
            splitter.feed(text[start : start + 8])
        splitter.finish()

    assert_linear(run, lambda size: "abcdefg " * (size // 8), 4_000)


def test_the_live_area_draws_only_the_end_of_a_long_paragraph() -> None:
    console, _ = colour_console(80)
    renderer = LiveRenderer(console, Path())
    with renderer.turn("qwen"):
        renderer.handle(TextDelta("word " * 200_000))
        live = console.render_lines(renderer._view, console.options)
    assert 1 <= len(live) <= console.height
    assert all("word" in "".join(segment.text for segment in line) for line in live)


def terminal_rows(output: str, width: int, height: int) -> list[list[tuple[str, str, str]]]:
    """The rows a terminal shows after ``output``, those scrolled away included."""
    screen = pyte.HistoryScreen(width, height, history=10_000)
    pyte.Stream(screen).feed(output.replace("\n", "\r\n"))
    lines = [*screen.history.top, *(screen.buffer[y] for y in range(height))]
    rows = [[(line[x].data, line[x].fg, line[x].bg) for x in range(width)] for line in lines]
    while rows and all(cell == (" ", "default", "default") for cell in rows[-1]):
        rows.pop()
    return rows


def test_on_a_live_terminal_the_screen_ends_as_the_answer_rendered_once() -> None:
    """The real live area, redrawn by rich as it is on screen, moved and erased as the
    pieces are printed above it: no line is lost or shown twice."""
    text = LONG + "```python\n" + CODE * 12 + "```\n"
    width, height = 60, 16
    out = io.StringIO()
    console = Console(file=out, width=width, height=height, force_terminal=True)
    renderer = LiveRenderer(console, Path())
    with renderer.turn("qwen"):
        for start in range(0, len(text), 5):
            renderer.handle(TextDelta(text[start : start + 5]))
            if start % 1000 == 0:
                time.sleep(0.15)  # the live area's own redraws come in between
    once_out = io.StringIO()
    Console(file=once_out, width=width, height=height, force_terminal=True).print(
        Lines(markdown(text))
    )
    assert terminal_rows(out.getvalue(), width, height) == terminal_rows(
        once_out.getvalue(), width, height
    )


def test_escape_sequences_in_a_streamed_code_block_are_shown_escaped() -> None:
    text = "```py\x1b]0;title\x07\nrm -rf \x1b[2J /\n" + "x = 1\n" * 20 + "\x1b[1A```\n"
    console, out = colour_console(60)
    renderer = LiveRenderer(console, Path())
    with renderer.turn("qwen"):
        for char in text:
            renderer.handle(TextDelta(char))
            console.render_lines(renderer._view, console.options)
    shown = "".join(char for char, _ in on_screen(out.getvalue()))
    assert "\x1b" not in shown and "\x07" not in shown
    assert "rm -rf \\x1b[2J /" in shown and "\\x1b[1A```" in shown
