"""Asking the user whether a tool call may run: a one-key prompt on the terminal.

The prompt shows exactly what would run: a command as written, the file and a unified
diff of the change for Edit and Write, or an MCP tool's arguments (``ui.approval_view``
builds it), all of it through ``ui.shown_text``: hidden characters written escaped, and
padding (a run of blank lines, of spaces, of one character) collapsed into a marker that
counts it, so that nothing can push the rest out of view. A call still taller or wider
than the terminal (``ui.screen_fit``) says so in its first line and shows its first and
last rows, with a line naming the lines left out between them; ``v`` pages through all
of it (Space for the next page, any other key back to the question, which never counts
as an answer), in the terminal itself rather than through ``$PAGER``: nothing to start
or set up, the same in the REPL and in ``nehanda run``, and every key stays the
prompt's. ``y`` runs the call, ``n`` refuses it, ``t`` refuses it and reads a line the
model gets as the user's reason ("no, use uv run pytest instead"; Esc or an empty line
makes it a plain no), ``a`` runs it and adds rules. A key pressed before the question
was on screen never answers it: each key is read (through ``ui.key_reader``) with what
was typed before it dropped, and ``typed_ahead`` takes such keys before (the REPL keeps
them as typed). On a terminal, each time the call and its question show, they are preceded by a
reset of what could hide or garble them (attributes, scroll region, character set): the
model's text is escaped before it reaches the terminal, but nothing else that wrote to it
(the answer piped through ``tee``, say) may change what the call looks like.
``TerminalApprover`` implements ``verdicts.Approver``.

"Always" offers the rules the decision suggests, each shown in full (but for one longer
than about the terminal's width, whose middle is cut, saying how much: an exact rule
holds the whole command, shown above): the prefix rules (``Ask.broader``:
``Bash(npm run test:*)``) where a part of the command has one, and the exact ones. Then
where to keep those picked: for this session only, in the user's settings file, or in
the project's, offered only while the workspace is trusted (trust is bound to that
file's content, so it is renewed for the rule the user just added). A rule is saved
through ``config.writer``, which keeps the file's comments and layout; one that cannot
be saved still holds for the session, and the prompt says why. Esc at either question
goes back to the prompt.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from nehanda.config.rule_text import split_rule
from nehanda.config.settings import project_settings_path
from nehanda.config.trust import is_trusted, trust_folder
from nehanda.config.writer import add_permission_rule
from nehanda.errors import ConfigError
from nehanda.types import CheckedCall, ToolFacts
from nehanda.ui.approval_view import ShownRequest, fitted_request, shown_request
from nehanda.ui.screen_fit import pages, prose_rows
from nehanda.ui.shown_text import abbreviated, hidden, printable, shown_line
from nehanda.verdicts import Answer, Ask

if TYPE_CHECKING:
    from nehanda.ui.key_reader import KeyReader

_SAID_NO = "the user said no"
# Ends concealed, reversed or recoloured text (SGR 0), a scroll region that would scroll
# the call out of view (DECSTBM), the line-drawing character set (SI, G0 as ASCII). The
# margins' reset homes the cursor, so DECSC and DECRC keep it where it was; DECRC also
# restores the attributes DECSC saved, hence SGR 0 after it.
_SANE = "\x1b7\x1b[r\x1b8\x1b[0m\x0f\x1b(B"


@dataclass
class TerminalApprover:
    """Asks on ``output`` and reads keys from ``input`` (a terminal, or a test's fake).

    ``user_settings``: the settings file "always" may keep a rule in; ``project``: the
    project's settings file is offered too, while the workspace is trusted; ``size``: the
    terminal's columns and rows, measured on ``output`` at each question when None.
    """

    input: IO[str]
    output: IO[str]
    workspace: Path
    user_settings: Path | None = None
    project: bool = False
    size: tuple[int, int] | None = None
    # Takes the keys typed but not read yet, once the question is on screen; those left
    # are dropped as the answer is read.
    typed_ahead: Callable[[], None] | None = None
    # Raises ValueError for a rule that may not be saved. The rule language lives in the
    # permission layer, which the session passes in (``permissions.rules.parse_rule``);
    # on its own the prompt checks the form.
    check_rule: Callable[[str], object] = split_rule

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        shown = shown_request(call, decision, self.workspace)
        sane = _SANE if _is_terminal(self.output) and os.environ.get("TERM") != "dumb" else ""
        columns, rows = self.screen()
        choices = "y = yes, n = no, t = no, and tell the model what to do instead"
        choices += _always_choice(self, decision, columns, call.facts)
        question = f"Run it? ({choices}, v = view it all)"
        view = fitted_request(shown, columns, rows, question)
        if view.whole:
            question = f"Run it? ({choices})"
        question = "\n".join(prose_rows(question, columns)) + " "
        shown_before = False
        # Made before the question shows, not as its key is read: what the user types once
        # it is on screen must not fall into the time prompt_toolkit takes to load.
        reader = _reader(self.input) if _is_terminal(self.input) else None
        while True:
            # Shown again after each key that does not answer, so that what came between
            # (the pages, the rules offered) leaves no part of the call scrolled away.
            self.output.write(sane + view.text + question)
            self.output.flush()
            if not shown_before and self.typed_ahead is not None:
                self.typed_ahead()  # pressed while the call was laid out: kept, not an answer
            shown_before = True
            key = (await read_key(self.input, reader)).lower()
            if (answer := await self._answer(key, decision, call.facts)) is not None:
                return answer
            if key == "v" and not view.whole:
                self.output.write("view all\n")
                await self._page(shown, columns, rows)
            elif key != "a" or not decision.suggestions:
                self.output.write("\n")

    async def _answer(self, key: str, decision: Ask, facts: ToolFacts) -> Answer | None:
        """The answer ``key`` gives, or None for one that goes back to the question."""
        if key == "y":
            self.output.write("yes\n")
            return Answer(run=True)
        if key == "a" and decision.suggestions:
            self.output.write("always\n")
            rules = await self._always(decision, facts)
            return None if rules is None else Answer(run=True, always=True, rules=rules)
        if key == "t":
            return await self._no_with_words()
        if key in ("n", "\x1b", "\x04", ""):
            # Ctrl-D leaves the REPL at its prompt; here it is a no, and is said to be.
            said = "no (Ctrl-D answers no here; at the prompt it leaves)" if key == "\x04" else "no"
            self.output.write(said + "\n")
            return Answer(run=False, reason=_SAID_NO)
        return None

    async def _page(self, shown: ShownRequest, columns: int, rows: int) -> None:
        screenfuls = pages(shown.body, columns, rows, prose_rows(shown.reason, columns))
        await page_through(self.input, self.output, screenfuls)

    def screen(self) -> tuple[int, int]:
        """The terminal's columns and rows (``size`` when set; 80 by 24 if unknown)."""
        if self.size is not None:
            return self.size
        try:
            measured = os.get_terminal_size(self.output.fileno())
        except (AttributeError, OSError, ValueError):
            return 80, 24
        return measured.columns or 80, measured.lines or 24

    async def _no_with_words(self) -> Answer:
        self.output.write("no; tell the model (Enter sends, Esc for a plain no): ")
        self.output.flush()
        words = await read_line(self.input, self.output)
        if not words or not words.strip():
            self.output.write("no\n")
            return Answer(run=False, reason=_SAID_NO)
        return Answer(run=False, reason=_SAID_NO, words=words.strip())

    async def _always(self, decision: Ask, facts: ToolFacts) -> tuple[str, ...] | None:
        return await choose_rules(self, decision, facts)


# -- "always": which rules, kept where ---------------------------------------------


_BACK = ("\x1b", "\x04", "")


async def choose_rules(
    prompt: TerminalApprover, decision: Ask, facts: ToolFacts
) -> tuple[str, ...] | None:
    """The rules picked (kept where the user said), or None to go back to the prompt;
    ``facts`` are the asking call's, whose tool the rules name."""
    offered = [decision.broader, decision.suggestions] if decision.broader else []
    rules = decision.suggestions
    columns = prompt.screen()[0]
    if offered:
        lines = ["Always allow:"]
        notes = ("  (commands that start so)", "  (this command only)")
        for number, (rule_set, note) in enumerate(zip(offered, notes, strict=True), 1):
            lines.append(f"  {number} = {_rules(rule_set, 2 * columns)}{note}")
        prompt.output.write("\n".join(row for line in lines for row in prose_rows(line, columns)))
        prompt.output.write("\n")
        picked = await _key(prompt, "Which? (1, 2; Esc = back) ", {"1": "1", "2": "2"})
        if picked is None:
            return None
        rules = offered[int(picked) - 1]
    places = _places(prompt, rules, facts)
    if len(places) > 1:
        keys = {key: key for key in places}
        choices = ", ".join(f"{key} = {where}" for key, (where, _) in places.items())
        keep = f"Keep {_rules(rules, 2 * columns)}: {choices}"
        prompt.output.write("\n".join(prose_rows(keep, columns)) + "\n")
        where = await _key(prompt, f"Where? ({', '.join(keys)}; Esc = back) ", keys)
        if where is None:
            return None
        _save(prompt, rules, places[where][1])
    return rules


def _always_choice(prompt: TerminalApprover, decision: Ask, columns: int, facts: ToolFacts) -> str:
    if not decision.suggestions:
        return ""
    if decision.broader:
        return ", a = always allow (pick the rule)"
    places = _places(prompt, decision.suggestions, facts)
    session = "" if len(places) > 1 else " this session"
    return f", a = always allow {_rules(decision.suggestions, columns)}{session}"


def _rules(rules: tuple[str, ...], limit: int) -> str:
    """Rules as the prompt names them: escaped, collapsed, and cut short (saying so) when
    longer than ``limit``: an exact rule holds a whole command, shown above it in full."""
    return abbreviated(shown_line(" and ".join(rules)), limit)


def _places(
    prompt: TerminalApprover, rules: tuple[str, ...], facts: ToolFacts
) -> dict[str, tuple[str, Path | None]]:
    """Where ``rules`` may be kept. Not in the user's settings, which every project reads,
    if one names a path inside this workspace (``Edit(src/a.py)``)."""
    places: dict[str, tuple[str, Path | None]] = {"s": ("for this session only", None)}
    local = any(names_a_workspace_path(rule, facts) for rule in rules)
    if prompt.user_settings is not None and not local:
        places["u"] = (f"in your settings ({prompt.user_settings})", prompt.user_settings)
    if prompt.project and _trusted(prompt.workspace):
        project = project_settings_path(prompt.workspace)
        places["p"] = (f"in this project's settings ({project})", project)
    return places


def names_a_workspace_path(text: str, facts: ToolFacts) -> bool:
    """Whether the rule ``text``, offered for a call with ``facts``, names a relative path:
    the rules offered name the call's tool or its family, so its specifier is a path
    where the tool works on one."""
    try:
        _, specifier = split_rule(text)
    except ValueError:
        return True
    if specifier is None or facts.path_argument is None:
        return False
    return not specifier.startswith(("/", "~"))


def _trusted(workspace: Path) -> bool:
    try:
        return is_trusted(workspace)
    except ConfigError:
        return False  # an unreadable trust store trusts nothing


async def _key(prompt: TerminalApprover, question: str, keys: dict[str, str]) -> str | None:
    while True:
        prompt.output.write(question)
        prompt.output.flush()
        key = (await read_key(prompt.input)).lower()
        if key in keys:
            prompt.output.write(f"{key}\n")
            return keys[key]
        prompt.output.write("back\n" if key in _BACK else "\n")
        if key in _BACK:
            return None


def _save(prompt: TerminalApprover, rules: tuple[str, ...], path: Path | None) -> None:
    if path is None:
        return
    project = path == project_settings_path(prompt.workspace)
    try:
        if project and not is_trusted(prompt.workspace):
            raise ConfigError(f"{prompt.workspace} is no longer trusted, so {path} stays as it is")
        for rule in rules:
            prompt.check_rule(rule)
            add_permission_rule(rule, path=path)
        if project:
            trust_folder(prompt.workspace)
    except (ConfigError, ValueError, OSError) as error:
        prompt.output.write(f"not saved ({printable(str(error))}); it holds for this session\n")
        return
    prompt.output.write(f"saved in {path}\n")


# -- the terminal ---------------------------------------------------------------------


async def page_through(keys: IO[str], output: IO[str], screenfuls: list[list[str]]) -> None:
    """``screenfuls`` one after another, the next on Space (or Enter, j); any other key
    goes back to the question."""
    for page in screenfuls:
        output.write("\n".join(page))
        output.flush()
        key = await read_key(keys)
        output.write("\n")
        if key not in (" ", "\r", "\n", "j"):
            return


async def read_key(stream: IO[str], reader: KeyReader | None = None) -> str:
    """One key from a terminal, without waiting for Enter; one character elsewhere.
    What came in one read is returned whole (an arrow key's or Shift-Tab's escape
    sequence, a paste): it is none of the keys a question takes, Esc included. What was
    typed before the call is dropped, so that it never answers; ``""`` once the terminal
    has gone."""
    if not _is_terminal(stream):
        return stream.read(1)
    reader = reader or _reader(stream)
    with reader.keys_mode():
        reader.drop_pending()
        while (text := await reader.next_text()) == "":
            pass  # half a character
        return text or ""


async def read_line(stream: IO[str], echo: IO[str]) -> str | None:
    """A line typed at a terminal (echoed on ``echo``, Backspace and Ctrl-U edit it);
    None for Esc or Ctrl-D on an empty line. Elsewhere, the stream's next line."""
    if not _is_terminal(stream):
        return _plain_line(stream)
    reader = _reader(stream)
    typed: list[str] = []
    with reader.keys_mode():
        reader.drop_pending()
        while (text := await reader.next_text()) is not None:
            if text == "\x1b" or (text == "\x04" and not typed):
                break
            if text.startswith("\x1b"):
                continue  # an arrow or function key
            for char in text:
                if char in "\r\n":
                    echo.write("\n")
                    return "".join(typed)
                _edit(typed, char, echo)
            echo.flush()
    echo.write("\n")
    return None


def _plain_line(stream: IO[str]) -> str | None:
    typed: list[str] = []
    while (char := stream.read(1)) not in ("", "\n", "\r"):
        if char == "\x1b":
            return None
        typed.append(char)
    return "".join(typed) if typed or char else None


def _edit(typed: list[str], char: str, echo: IO[str]) -> None:
    if char in "\x7f\x08":
        if typed:
            typed.pop()
            echo.write("\b \b")
    elif char == "\x15":
        echo.write("\b \b" * len(typed))
        typed.clear()
    elif not hidden(char) or char == " ":
        typed.append(char)
        echo.write(char)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return os.isatty(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def _reader(stream: IO[str]) -> KeyReader:
    # Loaded at the first question: prompt_toolkit stays off nehanda run's way to its
    # first request.
    from nehanda.ui.key_reader import KeyReader

    return KeyReader(stream)
