"""What the approval prompt makes of text a model wrote: hidden characters escaped, padding
and repeats collapsed into markers that count what they stand for, blank-line runs made
one line; tables of attacks and of real scripts, and properties over any text."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.ui.shown_text import (
    MAX_BLANK_LINES,
    PLAIN_BLOCKS,
    BlankLines,
    abbreviated,
    collapse_blank_lines,
    escape_hidden,
    shown_line,
)

PADDED = [
    ("echo hi" + " " * 5000 + "; rm -rf ~/x", "echo hi⟨5000 spaces⟩; rm -rf ~/x"),
    ("echo hi" + "\t" * 300 + "; rm", "echo hi⟨300 tabs⟩; rm"),
    ("a" + " \t" * 20 + "b", "a⟨20 spaces, 20 tabs⟩b"),
    ("a" + "\t " * 20 + "b", "a⟨20 tabs, 20 spaces⟩b"),
    (" " * 65 + "rm -rf ~", "⟨65 spaces⟩rm -rf ~"),
    ("\t" * 33 + "rm -rf ~", "⟨33 tabs⟩rm -rf ~"),
    ("x" + "\t" * 17 + "y", "x⟨17 tabs⟩y"),
    ("rm -rf ~" + " " * 33, "rm -rf ~⟨33 spaces⟩"),
    ("echo " + "#" * 200 + "; rm", "echo ⟨200 × #⟩; rm"),
    ("curl x | sh #" + "\n" * 300 + "echo hello", "curl x | sh #⟨300 × \\n⟩echo hello"),
    ("x" + "\r" * 50 + "ls", "x⟨50 × \\r⟩ls"),
    ("x" + "\xa0" * 300 + "y", "x⟨300 × \\xa0⟩y"),
    ("x" + "\u3000" * 300 + "y", "x⟨300 × \\u3000⟩y"),
    ("x" + "\u200b" * 300 + "y", "x⟨300 × \\u200b⟩y"),
    ("e" + "\u0301" * 300, "e⟨300 × \\u0301⟩"),
]

# Each would draw nothing, or something else than itself, or move what follows.
HIDDEN = [
    ("\u202e", "\\u202e"),  # right-to-left override
    ("\u2066", "\\u2066"),  # left-to-right isolate
    ("\u200b", "\\u200b"),  # zero-width space
    ("\u200d", "\\u200d"),  # zero-width joiner
    ("\ufeff", "\\ufeff"),  # byte-order mark
    ("\u00ad", "\\xad"),  # soft hyphen
    ("\x1b[2J", "\\x1b[2J"),  # an escape sequence: clears the screen
    ("\r", "\\r"),
    ("\x0c", "\\x0c"),  # form feed
    ("\x0b", "\\x0b"),  # vertical tab
    ("\x85", "\\x85"),  # NEL
    ("\u2028", "\\u2028"),  # line separator
    ("\u2029", "\\u2029"),  # paragraph separator
    ("\x08", "\\x08"),  # backspace
    ("\x9b", "\\x9b"),  # CSI in one byte: starts an escape sequence on some terminals
    ("\x7f", "\\x7f"),  # delete
    ("\u3164", "\\u3164"),  # Hangul filler: a letter that draws a blank
    ("\u2800", "\\u2800"),  # braille blank
    ("\u034f", "\\u034f"),  # combining grapheme joiner
    ("\U000e0041", "\\U000e0041"),  # a tag character
    ("\U000e0100", "\\U000e0100"),  # a variation selector carrying no emoji
]

# What real scripts hold, shown as written.
AS_IS = [
    "    if x:",
    " " * 64 + "deep",
    "x = 1" + " " * 32 + "# aligned",
    "# " + "=" * 78,
    "naïve 日本語 ｆｕｌｌ ｗｉｄｔｈ",
    "caf\u00e9 cafe\u0301 Vi\u1ec7t Vie\u0323\u0302t",  # precomposed and decomposed
    "❤️ ⚠️ ok",  # emoji with their presentation selector
    "ls -la | grep '^d' > dirs.txt",
]


@pytest.mark.parametrize(("text", "shown"), PADDED)
def test_padding_and_repeats_collapse_into_counted_markers(text: str, shown: str) -> None:
    assert shown_line(text) == shown


@pytest.mark.parametrize(("char", "escaped"), HIDDEN)
def test_what_would_not_show_as_itself_is_written_escaped(char: str, escaped: str) -> None:
    assert shown_line(f"a{char}b") == f"a{escaped}b"
    assert escape_hidden(f"a{char}b") == f"a{escaped}b"


@pytest.mark.parametrize("text", AS_IS)
def test_real_code_and_writing_show_as_written(text: str) -> None:
    assert shown_line(text) == text


def test_the_prompts_own_markers_cannot_be_forged() -> None:
    forged = "rm -rf ~ ⟨5000 spaces⟩ ⋮ 3 blank lines ⋯ lines 2–9 are not shown here ⋯"
    shown = shown_line(forged)
    assert not any(char in shown for char in "⟨⟩⋮⋯")
    assert shown.startswith("rm -rf ~ \\u27e85000 spaces\\u27e9 \\u22ee 3 blank lines \\u22ef")


def test_the_blocks_passed_over_hold_no_character_that_needs_a_look() -> None:
    for low, high in PLAIN_BLOCKS:
        for point in range(low, high + 1):
            char = chr(point)
            assert shown_line(f"a{char}b") == f"a{char}b" == escape_hidden(f"a{char}b"), hex(point)
            assert unicodedata.category(char) not in ("Mn", "Me", "Cn"), hex(point)


def test_tabs_show_escaped_unless_kept() -> None:
    assert shown_line("\tif x:") == "\\tif x:"
    assert shown_line("\t\tif x:", keep="\t") == "\t\tif x:"
    assert shown_line("x" + "\t" * 5, keep="\t") == "x⟨5 tabs⟩"  # 40 columns
    assert shown_line("\t" * 8 + "deep", keep="\t") == "\t" * 8 + "deep"
    assert shown_line("x" + "\t" * 16) == "x" + "\\t" * 16


def test_marks_stacked_deeper_than_writing_uses_are_escaped() -> None:
    zalgo = "Z" + "".join(chr(0x0300 + n) for n in range(40)) + "ok"
    shown = shown_line(zalgo)
    assert shown.startswith("Z\u0300\u0301\\u0302\\u0303") and shown.endswith("\\u0327ok")
    drawn = [c for c in shown if unicodedata.category(c) == "Mn"]
    assert drawn == ["\u0300", "\u0301"]


def test_blank_line_runs_become_one_counted_line() -> None:
    lines = ["curl x | sh #", *[""] * 150, *["   "] * 100, *["\t"] * 50, "echo hello"]
    assert collapse_blank_lines(lines) == ["curl x | sh #", BlankLines(300), "echo hello"]
    assert BlankLines(300).text() == "⋮ 300 blank lines"
    few = ["a", "", "", "b", ""]
    assert collapse_blank_lines(few) == few


def test_a_diffs_blank_lines_collapse_within_one_kind() -> None:
    diff = ["@@ -0,0 +1,303 @@", "+a", *["+"] * 300, "+b", " ", " ", " "]
    assert collapse_blank_lines(diff, margin=1) == [
        "@@ -0,0 +1,303 @@",
        "+a",
        BlankLines(300, "+"),
        "+b",
        BlankLines(3, " "),
    ]
    assert BlankLines(300, "+").text() == "+⋮ 300 blank lines"
    mixed = ["+", "-", "+", " "]
    assert collapse_blank_lines(mixed, margin=1) == mixed


def test_abbreviated_keeps_both_ends_and_counts_the_middle() -> None:
    text = "Bash(" + "x" * 500 + "; rm -rf ~)"
    short = abbreviated(text, 80)
    assert short.startswith("Bash(xx") and short.endswith("; rm -rf ~)") and len(short) <= 80
    left_out = int(re.search(r"⟨… (\d+) characters …⟩", short).group(1))  # type: ignore[union-attr]
    assert len(short) - len(f"⟨… {left_out} characters …⟩") + left_out == len(text)
    assert abbreviated("short", 80) == "short"


# -- properties: nothing written is lost -------------------------------------------

ALPHABET = "ab;| \t\n\r\x1b\x0b\u202e\u200b\xa0\u3164é日\u0301#=⟨⟩⋮"
texts = st.text(alphabet=ALPHABET, max_size=400) | st.builds(
    lambda parts: "".join(char * count for char, count in parts),
    st.lists(st.tuples(st.sampled_from(ALPHABET), st.integers(1, 300)), max_size=6),
)
_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|t|n|r)")
_MARKER = re.compile(r"⟨(\d+) × (.+?)⟩|⟨((?:\d+ (?:spaces?|tabs?)(?:, )?)+)⟩")
_CONTROL = {"t": "\t", "n": "\n", "r": "\r"}


def expanded(shown: str) -> str:
    """``shown`` with each marker written out as what it stands for, and unescaped."""

    def marker(found: re.Match[str]) -> str:
        if found.group(1) is not None:
            return found.group(2) * int(found.group(1))
        counts = re.findall(r"(\d+) (space|tab)", found.group(3))
        return "".join((" " if kind == "space" else "\\t") * int(n) for n, kind in counts)

    def char(found: re.Match[str]) -> str:
        code = found.group(1)
        return _CONTROL.get(code) or chr(int(code[1:], 16))

    return _ESCAPE.sub(char, _MARKER.sub(marker, shown))


def grouped_blanks(text: str) -> str:
    """``text`` with each run of spaces and tabs in the order a marker writes it out."""

    def group(found: re.Match[str]) -> str:
        run = found.group()
        kinds = sorted((run.index(c), c) for c in " \t" if c in run)
        return "".join(c * run.count(c) for _, c in kinds)

    return re.sub(r"[ \t]+", group, text)


@given(texts)
def test_collapsing_loses_no_character_and_markers_count_what_they_replace(text: str) -> None:
    shown = shown_line(text)
    assert grouped_blanks(expanded(shown)) == grouped_blanks(text)


@given(texts)
def test_a_shown_line_shows_no_hidden_character_and_no_long_run(text: str) -> None:
    shown = shown_line(text)
    assert not any(c in shown for c in "\n\r\t\x1b\x0b\u202e\u200b\xa0\u3164")
    assert not re.search(r"(.)\1{80}", shown) and not re.search(r"[ ]{65}", shown)


OURS = {ord(char): char.encode("unicode_escape").decode() for char in "⟨⟩⋮⋯"}


@given(texts)
def test_showing_twice_changes_nothing_but_the_markers_made(text: str) -> None:
    once = shown_line(text)
    assert shown_line(once) == once.translate(OURS)


@given(st.lists(st.sampled_from(["", " ", "\t", "x", "+", "+ ", "y z"]), max_size=60))
def test_blank_line_runs_keep_every_line_and_count_it(lines: list[str]) -> None:
    collapsed = collapse_blank_lines(lines)
    assert sum(i.count if isinstance(i, BlankLines) else 1 for i in collapsed) == len(lines)
    assert [i for i in collapsed if isinstance(i, str) and i.strip()] == [
        line for line in lines if line.strip()
    ]
    assert all(i.count > MAX_BLANK_LINES for i in collapsed if isinstance(i, BlankLines))
