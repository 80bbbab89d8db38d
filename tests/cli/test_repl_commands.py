"""Slash commands: which lines are commands, what they take, and what the REPL says."""

from __future__ import annotations

import pytest

from nehanda.cli.repl_commands import (
    COMMANDS,
    Command,
    Invalid,
    command_words,
    help_sections,
    parse,
)

PERMISSIONS_USAGE = "/permissions [mode plan|default|accept-edits|yolo]"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("how do I install it?", None),
        ("", None),
        ("/usr/bin/env is what?", None),
        ("/ alone", None),
        ("/help", Command("help")),
        ("  /HELP  ", Command("help")),
        ("/?", Command("help")),
        ("/model", Command("model")),
        ("/model qwen3:8b", Command("model", ("qwen3:8b",))),
        ("/provider ollama", Command("provider", ("ollama",))),
        ("/provider ollama qwen3", Command("provider", ("ollama", "qwen3"))),
        ("/mode", Command("mode")),
        ("/mode auto", Command("mode", ("auto",))),
        ("/mode native", Command("mode", ("native",))),
        ("/mode rescue", Command("mode", ("rescue",))),
        ("/tools", Command("tools")),
        ("/permissions", Command("permissions")),
        ("/permissions mode plan", Command("permissions", ("mode", "plan"))),
        ("/permissions mode yolo", Command("permissions", ("mode", "yolo"))),
        ("/permissions mode", Invalid(f"usage: {PERMISSIONS_USAGE}")),
        ("/permissions mode fast", Invalid(f"usage: {PERMISSIONS_USAGE}")),
        ("/permissions plan", Invalid(f"usage: {PERMISSIONS_USAGE}")),
        ("/clear", Command("clear")),
        ("/resume", Command("resume")),
        ("/resume 20250101-120000-abcdef", Command("resume", ("20250101-120000-abcdef",))),
        ("/cost", Command("cost")),
        ("/exit", Command("exit")),
        ("/quit", Command("exit")),
        ("/mode fast", Invalid("usage: /mode [auto|native|rescue]")),
        ("/model a b", Invalid("usage: /model [NAME]")),
        ("/provider a b c", Invalid("usage: /provider [NAME [MODEL]]")),
        ("/clear now", Invalid("usage: /clear")),
        ("/exit please", Invalid("usage: /exit")),
    ],
)
def test_parse(line: str, expected: Command | Invalid | None) -> None:
    assert parse(line) == expected


def test_an_unknown_command_says_what_exists_and_suggests_the_closest() -> None:
    unknown = parse("/mdoe rescue")
    assert isinstance(unknown, Invalid)
    assert unknown.message.startswith("unknown command /mdoe (did you mean /mode?).")
    for spec in COMMANDS:
        assert f"/{spec.name}" in unknown.message
    plain = parse("/frobnicate")
    assert isinstance(plain, Invalid)
    assert "did you mean" not in plain.message and "/help" in plain.message


def test_help_lists_every_command_and_the_keys() -> None:
    (commands_title, commands), (keys_title, keys) = help_sections()
    assert (commands_title, keys_title) == ("Commands", "Keys")
    assert [usage for usage, _ in commands] == [spec.usage for spec in COMMANDS]
    assert {"Enter", "Esc", "Ctrl-C", "Ctrl-D", "Shift-Tab", "Ctrl-O"} <= {key for key, _ in keys}
    assert any("Esc Enter" in key for key, _ in keys)
    assert command_words() == [f"/{spec.name}" for spec in COMMANDS]
