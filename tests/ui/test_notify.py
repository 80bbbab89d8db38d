"""What rings each terminal."""

from __future__ import annotations

import pytest

from nehanda.ui.notify import terminal_signal


@pytest.mark.parametrize(
    ("environ", "sent"),
    [
        ({"TERM": "xterm-256color"}, "\a"),
        ({"TERM_PROGRAM": "iTerm.app"}, "\x1b]9;done\a"),
        ({"TERM_PROGRAM": "WezTerm"}, "\x1b]9;done\a"),
        ({"WT_SESSION": "x"}, "\x1b]9;done\a"),
        ({"TERM": "foot"}, "\x1b]777;notify;nehanda;done\a"),
        ({"TERM": "xterm", "VTE_VERSION": "7200"}, "\x1b]777;notify;nehanda;done\a"),
    ],
)
def test_each_terminal_gets_what_it_shows(environ: dict[str, str], sent: str) -> None:
    assert terminal_signal(environ, "nehanda", "done") == sent


def test_text_cannot_end_the_sequence_early() -> None:
    sent = terminal_signal({"TERM": "foot"}, "a;b", "c\x07d\x1b]9;e")
    assert sent == "\x1b]777;notify;ab;cd]9e\a"
