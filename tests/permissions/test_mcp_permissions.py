"""Permission rules and decisions for MCP tools and ToolSearch."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes import checked
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.rules import parse_rule
from nehanda.types import ToolUse
from nehanda.verdicts import Allow, Ask, Deny


@pytest.mark.parametrize(
    ("rule", "tool", "covered"),
    [
        ("mcp__github__create_issue", "mcp__github__create_issue", True),
        ("mcp__github__create_issue", "mcp__github__delete_repo", False),
        ("mcp__github__*", "mcp__github__delete_repo", True),
        ("mcp__github", "mcp__github__delete_repo", True),
        ("mcp__github__*", "mcp__github_evil__x", False),
        ("mcp__github", "mcp__githubx__y", False),
        ("mcp__*", "mcp__anything__y", True),
        ("mcp__*", "Bash", False),
        ("mcp__github__*", "Read", False),
    ],
)
def test_mcp_rules_cover(rule: str, tool: str, covered: bool) -> None:
    assert parse_rule(rule).covers(tool) is covered


@pytest.mark.parametrize("text", ["mcp__", "mcp__x(y)", "mcp__a b", "mcp__x*", "mcp__a__b*"])
def test_malformed_mcp_rules_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="MCP tool rule"):
        parse_rule(text)


def use(name: str) -> ToolUse:
    return ToolUse("call_1", name, {"text": "x"})


def verdict(name: str, **rules: object) -> Allow | Ask | Deny:
    return decide(checked(use(name)), PermissionRules.parse(**rules), Path("/w"))  # type: ignore[arg-type]


def test_mcp_tools_ask_by_default_and_offer_the_tool_rule() -> None:
    decision = verdict("mcp__github__create_issue")
    assert isinstance(decision, Ask)
    assert decision.suggestions == ("mcp__github__create_issue",)


def test_mcp_rules_decide() -> None:
    assert isinstance(verdict("mcp__gh__a", allow=["mcp__gh__*"]), Allow)
    assert isinstance(verdict("mcp__gh__a", allow=["mcp__gh__*"], ask=["mcp__gh__a"]), Ask)
    assert isinstance(verdict("mcp__gh__a", mode="yolo"), Allow)
    assert isinstance(verdict("mcp__gh__a", mode="yolo", deny=["mcp__gh"]), Deny)
    assert isinstance(verdict("mcp__gh__a", mode="plan", allow=["mcp__*"]), Ask)
    assert isinstance(verdict("mcp__gh__a", allow=["mcp__other__*"]), Ask)


def test_tool_search_only_reads() -> None:
    assert isinstance(verdict("ToolSearch"), Allow)
    assert isinstance(verdict("ToolSearch", mode="plan"), Allow)


def test_a_model_writing_mcp_json_asks_even_in_accept_edits_mode() -> None:
    call = ToolUse("c", "Write", {"file_path": ".mcp.json", "content": "{}"})
    decision = decide(checked(call), PermissionRules.parse(mode="accept-edits"), Path("/w"))
    assert isinstance(decision, Ask) and "protected" in decision.reason
