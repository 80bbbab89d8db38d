"""What keys mean while a REPL turn runs (``TypeAhead``): tables and properties."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys

from nehanda.cli.turn_keys import TypeAhead


def typed(*keys: str | Keys, paste: str | None = None) -> TypeAhead:
    ahead = TypeAhead()
    for key in keys:
        ahead.key(KeyPress(key))
    if paste is not None:
        ahead.key(KeyPress(Keys.BracketedPaste, paste))
    return ahead


def test_shift_tab_and_esc_ask_the_turn_and_type_nothing() -> None:
    ahead = TypeAhead()
    assert ahead.key(KeyPress(Keys.BackTab)) == "cycle"
    assert ahead.key(KeyPress(Keys.Escape)) == "stop"
    assert (ahead.queued, ahead.line) == ([], "")


def test_enter_queues_the_line_and_blank_lines_queue_nothing() -> None:
    ahead = typed(*"run the tests", Keys.ControlM, Keys.ControlM, *"  ", Keys.ControlJ, *"and")
    assert ahead.queued == ["run the tests"] and ahead.line == "and"


def test_backspace_and_ctrl_u_edit_the_line() -> None:
    assert typed(*"tesst", Keys.ControlH, Keys.ControlH, "t").line == "test"
    assert typed(*"oops", Keys.ControlU, *"ok").line == "ok"
    assert typed(Keys.ControlH).line == ""


def test_a_paste_keeps_its_newlines_and_queues_nothing() -> None:
    ahead = typed(*"look: ", paste="line one\r\nline two\rthree")
    assert ahead.queued == [] and ahead.line == "look: line one\nline two\nthree"


def test_keys_that_type_nothing_are_ignored() -> None:
    assert typed(Keys.Up, Keys.ControlA, Keys.Tab, "\x07").line == ""


def test_take_back_returns_everything_typed_and_empties_the_queue() -> None:
    ahead = typed(*"first", Keys.ControlM, *"second")
    assert ahead.take_back() == "first\nsecond"
    assert (ahead.queued, ahead.line) == ([], "")
    assert typed(*"only", Keys.ControlM).take_back() == "only"


@given(st.text(alphabet=st.characters(categories=("L", "N", "P", "S", "Zs")), max_size=40))
def test_what_is_typed_then_entered_is_queued_as_typed(text: str) -> None:
    ahead = typed(*text, Keys.ControlM)
    assert ahead.queued == ([text] if text.strip() else []) and ahead.line == ""
