"""WebFetch's rules (``WebFetch(domain:HOST)``) and decisions, and the background shells'
tools; a table each, from the call's facts as ``decide`` reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fakes import checked
from nehanda.config.permission_modes import Mode
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.overview import describe_tools
from nehanda.permissions.rules import named_hosts, parse_rule
from nehanda.tools.registry import builtin_specs
from nehanda.types import ToolUse
from nehanda.verdicts import Allow, Ask, Decision, Deny


def judge(url: str, mode: Mode = "default", **rules: Any) -> Decision:
    call = checked(ToolUse("c", "WebFetch", {"url": url, "prompt": "p"}))
    return decide(call, PermissionRules.parse(mode, **rules), Path("/tmp"))


@pytest.mark.parametrize(
    ("url", "mode", "rules", "expected"),
    [
        ("https://example.com/a", "default", {}, Ask),
        ("https://example.com/a", "plan", {}, Ask),  # kept in plan mode, still asked about
        ("https://example.com/a", "accept-edits", {}, Ask),
        ("https://example.com/a", "yolo", {}, Allow),
        ("https://example.com/a", "default", {"allow": ["WebFetch(domain:example.com)"]}, Allow),
        ("https://EXAMPLE.com./a", "default", {"allow": ["WebFetch(domain:example.com)"]}, Allow),
        ("http://127.0.0.1:8123/", "default", {"allow": ["WebFetch(domain:127.0.0.1)"]}, Allow),
        ("http://[::1]:9/", "default", {"allow": ["WebFetch(domain:[::1])"]}, Allow),
        (
            "https://example.com.evil.net/",
            "default",
            {"allow": ["WebFetch(domain:example.com)"]},
            Ask,
        ),
        ("https://sub.example.com/", "default", {"allow": ["WebFetch(domain:example.com)"]}, Ask),
        ("https://example.com/", "default", {"allow": ["WebFetch"]}, Allow),
        ("https://example.com/", "yolo", {"deny": ["WebFetch(domain:example.com)"]}, Deny),
        (
            "https://example.com/",
            "default",
            {"allow": ["WebFetch"], "ask": ["WebFetch(domain:example.com)"]},
            Ask,
        ),
        ("not a url", "default", {"allow": ["WebFetch"]}, Ask),
    ],
)
def test_a_fetch_asks_unless_a_rule_names_its_host(
    url: str, mode: Mode, rules: dict[str, list[str]], expected: type
) -> None:
    assert isinstance(judge(url, mode, **rules), expected)


def test_asking_offers_the_rule_for_the_host() -> None:
    decision = judge("https://docs.python.org:443/3/")
    assert isinstance(decision, Ask)
    assert decision.suggestions == ("WebFetch(domain:docs.python.org)",)
    assert parse_rule(decision.suggestions[0]).specifier == "domain:docs.python.org"


@pytest.mark.parametrize(
    "written",
    [
        "WebFetch(example.com)",
        "WebFetch(domain:)",
        "WebFetch(domain:https://example.com)",
        "WebFetch(domain:example.com:8080)",
        "WebFetch(domain:example.com/path)",
        "WebFetch(domain:*.example.com)",
    ],
)
def test_a_rule_that_names_no_host_is_refused_saying_how_to_write_one(written: str) -> None:
    with pytest.raises(ValueError, match="WebFetch\\(domain:"):
        parse_rule(written)


def test_the_hosts_named_by_rules_are_those_of_fetch_rules_only() -> None:
    written = ["WebFetch(domain:127.0.0.1)", "WebFetch(domain:[::1])", "WebFetch"]
    written += ["Bash(curl localhost)", "Read(domain:x)"]
    rules = [parse_rule(text) for text in written]
    assert named_hosts(rules) == {"127.0.0.1", "::1"}


@pytest.mark.parametrize(
    ("name", "arguments", "mode", "expected"),
    [
        ("BashOutput", {"bash_id": "bash_1"}, "default", Allow),
        ("BashOutput", {"bash_id": "bash_1"}, "plan", Allow),
        ("KillShell", {"shell_id": "bash_1"}, "default", Allow),
        ("KillShell", {"shell_id": "bash_1"}, "plan", Deny),
        ("Bash", {"command": "npm run dev", "run_in_background": True}, "default", Ask),
        ("Bash", {"command": "npm run dev", "run_in_background": True}, "plan", Deny),
    ],
)
def test_background_shells_are_judged_as_their_facts_say(
    name: str, arguments: dict[str, Any], mode: Mode, expected: type
) -> None:
    decision = decide(checked(ToolUse("c", name, arguments)), PermissionRules(mode=mode), Path("/"))
    assert isinstance(decision, expected), decision


def test_a_deny_rule_stops_the_shell_tools_too() -> None:
    rules = PermissionRules.parse("yolo", deny=["KillShell", "BashOutput"])
    for name, key in (("KillShell", "shell_id"), ("BashOutput", "bash_id")):
        call = checked(ToolUse("c", name, {key: "bash_1"}))
        assert isinstance(decide(call, rules, Path("/")), Deny)


def test_tools_says_what_the_new_tools_do_without_a_rule(tmp_path: Path) -> None:
    shown = describe_tools(builtin_specs(), PermissionRules(), tmp_path).splitlines()
    assert "  WebFetch hosts no rule names: asks first" in shown
    assert "  BashOutput runs" in shown and "  KillShell runs" in shown
    allowed = PermissionRules.parse(allow=["WebFetch(domain:127.0.0.1)"])
    shown = describe_tools(builtin_specs(), allowed, tmp_path).splitlines()
    assert "         allow WebFetch(domain:127.0.0.1)" in shown
