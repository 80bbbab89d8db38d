"""Choosing one item from a list (``/model``, ``/provider``, ``/resume`` with no argument).

On a terminal a small prompt_toolkit application draws the list below the prompt: Up and
Down (or k and j) move, Enter picks, a number picks that row (with more than nine rows,
the digits typed go to that row and Enter picks it), Esc or Ctrl-C cancels. The current
item is marked and the cursor starts on it; a long list scrolls. Its keys come from
``ui.key_reader.key_input``, the input every other question reads. Where no terminal is
drawn (a pipe, ``TERM=dumb``), the list is printed numbered and a number is read from
the REPL's own line reader, so that no second reader races it for stdin.

``Picker`` is the pure part (cursor, digits, what is visible); the rest draws and reads.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from nehanda.ui.shown_text import printable

HEIGHT = 10  # rows shown at once
MARK = "✔"
KEYS_HINT = "↑/↓ move · Enter picks · 1-9 · Esc cancels"


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    detail: str = ""


@dataclass
class Picker:
    """Where the cursor is among ``count`` rows, and which of them are in view."""

    count: int
    cursor: int = 0
    height: int = HEIGHT
    top: int = 0
    typed: str = ""

    def __post_init__(self) -> None:
        self.cursor = min(max(self.cursor, 0), max(self.count - 1, 0))
        self._scroll()

    def move(self, delta: int) -> None:
        self.typed = ""
        self.cursor = min(max(self.cursor + delta, 0), max(self.count - 1, 0))
        self._scroll()

    def digit(self, digit: str) -> bool:
        """Goes to the row the digits typed so far number; true when that settles it
        (nine rows or fewer: one digit is the whole answer)."""
        typed = self.typed + digit
        if not 1 <= int(typed) <= self.count:
            typed = digit
        if not 1 <= int(typed) <= self.count:
            return False
        self.typed, self.cursor = typed, int(typed) - 1
        self._scroll()
        return self.count <= 9

    def visible(self) -> range:
        return range(self.top, min(self.top + self.height, self.count))

    def _scroll(self) -> None:
        if self.cursor < self.top:
            self.top = self.cursor
        elif self.cursor >= self.top + self.height:
            self.top = self.cursor - self.height + 1


def row_text(number: int, choice: Choice, current: bool, width: int) -> str:
    """One row; a label from a server or a log may hold escape sequences, shown escaped."""
    mark = f" {MARK}" if current else ""
    detail = f"  {choice.detail}" if choice.detail else ""
    return printable(f"{number:>{width}}. {choice.label}{mark}{detail}")


def numbered(title: str, choices: Sequence[Choice], current: str | None) -> str:
    """The list as plain text, for a reader that is not a terminal."""
    width = len(str(len(choices)))
    rows = [row_text(n, c, c.value == current, width) for n, c in enumerate(choices, 1)]
    return "\n".join([printable(title), *rows])


def chosen(answer: str | None, choices: Sequence[Choice]) -> Choice | None:
    """The choice a typed line names by number; ``None`` for an empty line or the end.
    Raises ``ValueError`` saying what to type for anything else."""
    text = (answer or "").strip()
    if not text:
        return None
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1]
    raise ValueError(f"{text!r} is not on the list: type a number from 1 to {len(choices)}")


async def pick(
    title: str,
    choices: Sequence[Choice],
    current: str | None,
    read_line: Callable[[], Awaitable[str | None]] | None,
) -> Choice | None:
    """The choice the user picked, or ``None`` when they cancelled. ``read_line`` is the
    REPL's line reader where there is no terminal to draw on; ``None`` draws the list."""
    if read_line is not None:
        print(numbered(title, choices, current))
        print("Type its number (an empty line cancels): ", end="", flush=True)
        return chosen(await read_line(), choices)
    return await _pick_on_terminal(title, choices, current)


async def _pick_on_terminal(
    title: str, choices: Sequence[Choice], current: str | None
) -> Choice | None:
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    from nehanda.cli.repl_input import terminal_output
    from nehanda.ui.key_reader import key_input

    values = [choice.value for choice in choices]
    state = Picker(len(choices), values.index(current) if current in values else 0)
    width = len(str(len(choices)))

    def text() -> StyleAndTextTuples:
        lines: StyleAndTextTuples = [("bold", title + "\n")]
        for index in state.visible():
            choice = choices[index]
            row = row_text(index + 1, choice, choice.value == current, width)
            here = index == state.cursor
            lines.append(("reverse" if here else "", ("❯ " if here else "  ") + row + "\n"))
        more = f" · {state.cursor + 1} of {len(choices)}" if len(choices) > state.height else ""
        lines.append(("ansibrightblack", KEYS_HINT + more))
        return lines

    keys = KeyBindings()
    app: Application[Choice | None] = Application(
        layout=Layout(Window(FormattedTextControl(text, show_cursor=False))),
        key_bindings=keys,
        input=key_input(sys.stdin),
        output=terminal_output(sys.stdout),
        erase_when_done=True,
    )

    def bind(*names: str, handler: Callable[[KeyPressEvent], None]) -> None:
        for name in names:
            keys.add(name)(handler)

    bind("up", "k", "s-tab", handler=lambda _: state.move(-1))
    bind("down", "j", "tab", handler=lambda _: state.move(1))
    bind("pageup", handler=lambda _: state.move(-state.height))
    bind("pagedown", handler=lambda _: state.move(state.height))
    bind("enter", handler=lambda _: app.exit(result=choices[state.cursor]))
    bind("escape", "c-c", "c-d", "q", handler=lambda _: app.exit(result=None))

    def number(event: KeyPressEvent) -> None:
        if state.digit(event.data):
            app.exit(result=choices[state.cursor])

    bind(*"0123456789", handler=number)
    return await app.run_async()
