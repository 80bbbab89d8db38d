"""The start line (``nehanda run`` at a terminal or with --verbose, the REPL's header)."""

from __future__ import annotations

import io

from nehanda.ui.summary import Chosen
from nehanda.ui.terminal import TerminalOutput


def test_the_line_names_each_choice() -> None:
    chosen = Chosen("box", "http://gpu-box:8000/v1", "qwen", "native", "the profile", "plan")
    assert str(chosen) == (
        "box · qwen · native tool calls (the profile) · permission mode plan · "
        "http://gpu-box:8000/v1"
    )


def test_credentials_in_the_address_are_not_shown() -> None:
    chosen = Chosen("box", "http://me:s3cret@gpu-box:8000/v1?key=k3y", "q", "native", "", "default")
    line = str(chosen)
    assert line.endswith("· http://gpu-box:8000/v1")
    assert "s3cret" not in line and "k3y" not in line


def test_a_model_name_from_the_server_cannot_drive_the_terminal() -> None:
    """The model may be the first one a (hostile) server lists."""
    chosen = Chosen("box", "", "q\x1b]0;owned\x07\x1b[2J", "rescue", "why\r\n", "default")
    out, err = io.StringIO(), io.StringIO()
    TerminalOutput(out, err).chosen(chosen)
    assert "\x1b" not in err.getvalue() and "\x07" not in err.getvalue()
    assert err.getvalue() == (
        "nehanda: box · q?]0;owned??[2J · rescue tool calls (why??) · permission mode default\n"
    )
