"""How a call that ran looks, the same in the REPL and in ``nehanda run``: its line, and
what shows under it.

``✓ Bash ls · 9 lines · 12 ms``, then a preview: the output's first and last lines with
a count of those left out between them; an error's lines in full (capped when huge);
or, in the REPL, the diff a Write or Edit made, which stands in for their output. Lines
are spans of text and a style name, with no rich and no escape codes in them: the REPL
(``ui.live``) makes rich ``Text`` of them, ``ui.terminal`` ANSI codes or plain text, so
``nehanda run`` need not import rich. Everything from the model or a tool goes through
``ui.shown_text.printable`` first: none of it can move the cursor or restyle the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from nehanda.events import ToolExecuted
from nehanda.tools.output import cap_lines
from nehanda.ui.screen_fit import prose_rows
from nehanda.ui.shown_text import printable, shown_diff
from nehanda.ui.summary import describe_call, describe_result

Span = tuple[str, str]  # text, and a style: "", "bold", "dim", "green", "red", "cyan"
Line = tuple[Span, ...]

PREVIEW_HEAD, PREVIEW_TAIL = 3, 2
ERROR_HEAD, ERROR_TAIL = 30, 10
MAX_DIFF_LINES = 40
MAX_LINE_CHARS = 400  # a preview line is cut here even where nothing narrower is known
MIN_CALL = 12  # the fewest characters of the call a tool line keeps
_DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}


def duration(seconds: float) -> str:
    return f"{round(seconds * 1000)} ms" if seconds < 1 else f"{seconds:.1f} s"


def tool_spans(event: ToolExecuted, *, ascii_only: bool = False) -> Line:
    """The mark, the call, the outcome and the time: ``✓ ``, ``Read README.md``,
    `` · 3 lines``, `` · 4 ms``; apart, so that a line can be cut to fit (``fitted``)."""
    ok = not event.result.is_error
    mark = ("✓" if ok else "✗") if not ascii_only else ("+" if ok else "x")
    outcome = describe_result(event.result, event.tool_use, event.facts)
    return (
        (f"{mark} ", "green" if ok else "red"),
        (printable(describe_call(event.tool_use, event.facts)), "bold"),
        (f" · {printable(outcome)}", "dim"),
        (f" · {duration(event.seconds)}", "dim"),
    )


def fitted(spans: Line, width: int) -> Line:
    """A tool line cut to ``width``: its call first (to ``MIN_CALL``), then its outcome;
    the mark and the time stay whole. Spans of one style are joined."""
    mark, (call, call_style), (outcome, outcome_style), took = spans
    fixed = len(mark[0]) + len(took[0])
    call = _cut(call, max(width - fixed - len(outcome), MIN_CALL))
    outcome = _cut(outcome, max(width - fixed - len(call), 4))
    line: list[Span] = []
    for text, style in (mark, (call, call_style), (outcome, outcome_style), took):
        if line and line[-1][1] == style:
            line[-1] = (line[-1][0] + text, style)
        else:
            line.append((text, style))
    return tuple(line)


def preview(
    event: ToolExecuted,
    hint: str = "",
    diff: Sequence[str] | None = None,
    *,
    width: int = MAX_LINE_CHARS,
    ascii_only: bool = False,
) -> list[Line]:
    """What shows under the tool line: an error's lines the tool line left out, the
    ``diff`` the call made, or its output collapsed to its ends; ``hint`` follows the
    count of lines left out (how to see them)."""
    gutter = _gutter(ascii_only)
    room = max(width - len(gutter), 12)
    result = event.result
    if result.is_error:
        errors = _error_lines(event, width)
        shown = _collapsed(errors, ERROR_HEAD, ERROR_TAIL, hint, gutter, MAX_LINE_CHARS, "red")
        # An error is read whole: its lines break between words, under the gutter.
        return [row for line in shown for row in _wrapped(line, room)]
    if diff is not None:
        return diff_rows(diff, width)
    if event.facts.diff is not None:
        return []  # a Write or an Edit: its diff is its preview (here, or in the approval)
    # Output is a glimpse, each line cut at the edge (it may be code); /output shows it.
    lines = output_lines(event)
    return _collapsed(lines, PREVIEW_HEAD, PREVIEW_TAIL, hint, gutter, room, "")


def diff_rows(diff: Sequence[str], width: int, most: int = MAX_DIFF_LINES) -> list[Line]:
    """A unified diff as shown, coloured, at most ``most`` lines of it."""
    # A diff is cut at the edge, never broken: a break put into it changes what it says.
    capped = cap_lines(shown_diff(diff), most).split("\n")
    return [((_cut(printable(text), width), _DIFF_STYLES.get(text[:1], "")),) for text in capped]


def full_output(event: ToolExecuted, *, ascii_only: bool = False) -> list[Line]:
    """Every line of the call's output (of its error), under the gutter."""
    gutter = _gutter(ascii_only)
    lines = output_lines(event) or ["(no output)"]
    style = "red" if event.result.is_error else ""
    return [((gutter, "dim"), (printable(text), style)) for text in lines]


def output_lines(event: ToolExecuted) -> list[str]:
    """The output as a person reads it (the tool's plain output; an error as it came)."""
    result = event.result
    text = result.content if result.is_error else event.facts.shown_output(result.content)
    text = text.strip("\n")
    return text.split("\n") if text.strip() else []


def _error_lines(event: ToolExecuted, width: int) -> list[str]:
    """An error's lines less its first when the tool line holds that whole; all of them
    when the tool line had to cut it short (to say it in a few words, or to fit)."""
    lines = output_lines(event)
    spans = tool_spans(event)
    outcome = describe_result(event.result, event.tool_use, event.facts)
    if event.result.refusal is not None:
        # The model's copy says more than the user needs: the line says who refused, and
        # the preview repeats that only where the line could not hold it whole.
        return [] if printable(outcome) in _text(fitted(spans, width)) else [outcome]
    cut = outcome.endswith("…")
    if lines and not cut and _text(fitted(spans, width)) == _text(spans):
        lines = lines[1:]
        while lines and not lines[0].strip():
            lines.pop(0)
    return lines


def _collapsed(
    lines: list[str], head: int, tail: int, hint: str, gutter: str, room: int, style: str
) -> list[Line]:
    shown: list[Line] = [((gutter, "dim"), (_cut(printable(text), room), style)) for text in lines]
    if len(lines) <= head + tail + 1:
        return shown
    left_out = len(lines) - head - tail
    note = f"… +{left_out} lines" + (f" ({hint})" if hint else "")
    return [*shown[:head], ((gutter, "dim"), (note, "dim")), *shown[-tail:]]


def _wrapped(line: Line, room: int) -> list[Line]:
    """A gutter's line as rows of ``room`` columns after the gutter, broken between words."""
    (gutter, gutter_style), *rest = line
    text = _text(tuple(rest))
    style = rest[0][1] if rest else ""
    indent = " " * (len(text) - len(text.lstrip(" ")))
    return [((gutter, gutter_style), (row, style)) for row in prose_rows(text, room, indent)]


def _text(line: Line) -> str:
    return "".join(text for text, _ in line)


def _gutter(ascii_only: bool) -> str:
    return "  | " if ascii_only else "  │ "


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
