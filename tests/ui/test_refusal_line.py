"""The line shown for a call that did not run says who said no, and why, in full."""

from __future__ import annotations

from fakes import checked
from nehanda.events import ToolExecuted
from nehanda.types import Refusal, ToolResult, ToolUse
from nehanda.ui.summary import describe_result
from nehanda.ui.tool_lines import preview


def refused(refusal: Refusal) -> ToolResult:
    return ToolResult("c", "Permission denied: Bash was not run because …", True, refusal)


def test_the_user_said_no_with_their_words_in_full() -> None:
    words = "use `uv run pytest` instead, " + "and keep the fixtures in tests/data " * 6
    line = describe_result(refused(Refusal("user", "commands ask", words.strip())))
    assert line == f"you said no: {words.strip()}"
    assert len(line) > 200 and not line.startswith("error")


def test_a_plain_no_a_rule_and_nobody_to_ask() -> None:
    assert describe_result(refused(Refusal("user", "commands ask"))) == "you said no"
    rule = Refusal("rules", "the deny rule Bash(rm:*) matches this command")
    assert describe_result(refused(rule)) == (
        "not allowed: the deny rule Bash(rm:*) matches this command"
    )
    nobody = Refusal("nobody", "commands ask; nehanda is not running in a terminal")
    assert describe_result(refused(nobody)) == (
        "not run: it needs approval (commands ask; nehanda is not running in a terminal)"
    )


def test_other_errors_are_unchanged() -> None:
    assert describe_result(ToolResult("c", "boom\nmore", True)) == "error: boom"


def test_a_refusal_is_previewed_only_where_its_line_could_not_hold_it() -> None:
    words = "run the linter first, then " + "check the generated files " * 4
    result = refused(Refusal("user", "commands ask", words.strip()))
    use = ToolUse("c", "Bash", {"command": "make release"})
    event = ToolExecuted(use, result, 0.0, checked(use).facts)
    assert preview(event, width=300) == []
    narrow = ["".join(text for text, _ in line) for line in preview(event, width=60)]
    # Broken between words, each row under the gutter.
    assert [row.removeprefix("  │ ") for row in narrow] == [
        "you said no: run the linter first, then check the",
        "generated files check the generated files check the",
        "generated files check the generated files",
    ]
    assert not any("Permission denied" in line for line in narrow)
