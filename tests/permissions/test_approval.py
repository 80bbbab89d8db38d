"""The approval prompt on a fake terminal, and the gate that consults it before a call runs."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path
from typing import Any

import pytest

from fakes import run_through
from nehanda.permissions.approver import Answer, NoTerminal
from nehanda.permissions.decision import Ask, PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import ToolResult, ToolUse
from nehanda.ui.approval import TerminalApprover, escape_hidden


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


def prompt(ws: Path, keys: str) -> tuple[TerminalApprover, io.StringIO]:
    shown = io.StringIO()
    return TerminalApprover(io.StringIO(keys), shown, ws), shown


def ask(approver: TerminalApprover, name: str, decision: Ask, **args: Any) -> Answer:
    return asyncio.run(approver.ask(ToolUse("call_1", name, args), decision))


def test_yes_runs_and_the_prompt_shows_the_command_and_the_reason(ws: Path) -> None:
    approver, shown = prompt(ws, "y")
    answer = ask(
        approver, "Bash", Ask("no allow rule covers make", ("Bash(make)",)), command="make"
    )
    assert answer == Answer(run=True)
    text = shown.getvalue()
    assert "nehanda wants to run Bash:\n  $ make\n" in text
    assert "It asks because no allow rule covers make." in text
    assert "a = always allow Bash(make) this session" in text


def test_no_refuses_and_other_keys_ask_again(ws: Path) -> None:
    approver, shown = prompt(ws, "x\nn")
    answer = ask(approver, "Bash", Ask("commands ask"), command="make")
    assert answer == Answer(run=False, reason="the user said no")
    assert shown.getvalue().count("Run it? (y = yes, n = no) ") == 3


def test_always_is_offered_only_with_a_rule_to_add(ws: Path) -> None:
    approver, _ = prompt(ws, "an")
    assert not ask(approver, "Edit", Ask(".git/config is protected"), file_path=".git/config").run
    approver, _ = prompt(ws, "a")
    assert ask(approver, "Bash", Ask("x", ("Bash(make)",)), command="make").always


def test_end_of_input_means_no(ws: Path) -> None:
    approver, _ = prompt(ws, "")
    assert not ask(approver, "Bash", Ask("commands ask"), command="make").run


def test_hidden_characters_in_a_command_are_shown_escaped(ws: Path) -> None:
    approver, shown = prompt(ws, "n")
    command = "echo safe\u202e; rm -rf ~ \x1b[2K\r# harmless\u200b"
    ask(approver, "Bash", Ask("commands ask"), command=command)
    text = shown.getvalue()
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert "$ echo safe\\u202e; rm -rf ~ \\x1b[2K\\r# harmless\\u200b" in text


def test_escape_hidden_keeps_ordinary_text() -> None:
    assert escape_hidden("naïve 日本 tab\tend") == "naïve 日本 tab\\tend"
    assert escape_hidden("tab\tend", keep="\t") == "tab\tend"
    assert escape_hidden("nb\u00a0sp") == "nb\\xa0sp"


def test_edit_shows_a_unified_diff(ws: Path) -> None:
    (ws / "app.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    approver, shown = prompt(ws, "n")
    args = {"file_path": "app.py", "old_string": "b = 2", "new_string": "b = 3"}
    ask(approver, "Edit", Ask("changes ask"), **args)
    assert (
        "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n" in shown.getvalue()
    )


def test_write_of_a_new_file_shows_it_whole(ws: Path) -> None:
    approver, shown = prompt(ws, "n")
    ask(approver, "Write", Ask("changes ask"), file_path="new.txt", content="one\ntwo\n")
    assert "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" in shown.getvalue()


def test_an_edit_that_would_fail_says_so_instead_of_a_diff(ws: Path) -> None:
    (ws / "app.py").write_text("a = 1\n")
    approver, shown = prompt(ws, "n")
    args = {"file_path": "app.py", "old_string": "zzz", "new_string": "b"}
    ask(approver, "Edit", Ask("changes ask"), **args)
    assert "(no diff to show: old_string was not found" in shown.getvalue()


def test_no_terminal_refuses_and_says_why() -> None:
    answer = asyncio.run(NoTerminal().ask(ToolUse("1", "Bash", {}), Ask("commands ask")))
    assert not answer.run and "not running in a terminal" in answer.reason


# -- the gate ---------------------------------------------------------------------


class Recorder:
    """An approver that answers from a script and remembers what it was asked."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, Ask]] = []

    async def ask(self, tool_use: ToolUse, decision: Ask) -> Answer:
        self.asked.append((tool_use.name, decision))
        return self.answers.pop(0)


def gate_call(gate: ToolGate, name: str, **args: Any) -> ToolResult:
    return asyncio.run(run_through(gate, ToolUse("call_7", name, args)))


def test_always_adds_the_rule_for_the_rest_of_the_session(ws: Path) -> None:
    approver = Recorder(Answer(run=True, always=True))
    gate = ToolGate(BuiltinTools(ToolContext(ws)), ws, PermissionRules(), approver)
    for _ in range(3):
        assert not gate_call(gate, "Bash", command="touch marker").is_error
    assert len(approver.asked) == 1
    assert (ws / "marker").exists()


def test_a_refusal_reaches_the_model_and_nothing_runs(ws: Path) -> None:
    gate = ToolGate(
        BuiltinTools(ToolContext(ws)),
        ws,
        PermissionRules(),
        Recorder(Answer(False, reason="no way")),
    )
    result = gate_call(gate, "Bash", command="touch marker")
    assert result.is_error and result.tool_use_id == "call_7"
    assert result.content.startswith("Permission denied: Bash was not run because it needs")
    assert "no way" in result.content
    assert not (ws / "marker").exists()


def test_invalid_calls_are_answered_without_asking(ws: Path) -> None:
    approver = Recorder()
    gate = ToolGate(BuiltinTools(ToolContext(ws)), ws, PermissionRules(), approver)
    assert "Unknown tool" in gate_call(gate, "Shell", command="x").content
    assert "missing required parameter 'command'" in gate_call(gate, "Bash").content
    assert approver.asked == []


def test_an_approved_path_outside_is_granted_for_that_call_only(ws: Path) -> None:
    inside = ws / "ws"
    inside.mkdir()
    (ws / "notes.txt").write_text("outside notes\n")
    approver = Recorder(Answer(run=True), Answer(run=False, reason="no"))
    tools = BuiltinTools(ToolContext(inside))
    gate = ToolGate(tools, inside, PermissionRules(), approver)
    assert "outside notes" in gate_call(gate, "Read", file_path="../notes.txt").content
    assert gate_call(gate, "Read", file_path="../notes.txt").is_error
    assert tools.context.granted == ()
