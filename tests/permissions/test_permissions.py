"""decide(checked()): modes, rules and their order, paths resolved and compared by components."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from fakes import checked
from nehanda.config.permission_modes import MODES, Mode
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.rules import parse_rule
from nehanda.types import ToolUse
from nehanda.verdicts import Allow, Ask, Decision, Deny


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "proj"
    (workspace / "src").mkdir(parents=True)
    (tmp_path / "proj-evil").mkdir()
    (tmp_path / "outside").mkdir()
    (workspace / "out-link").symlink_to(tmp_path / "outside")
    (workspace / "in-link").symlink_to(workspace / "src")
    return Path(os.path.realpath(workspace))


def judge(ws: Path, name: str, mode: Mode = "default", rules: Any = None, **args: Any) -> Decision:
    rules = PermissionRules.parse(mode, **(rules or {}))
    return decide(checked(ToolUse("call_1", name, args)), rules, ws)


def kind(decision: Decision) -> str:
    return type(decision).__name__


Call = tuple[str, dict[str, Any]]
READ: Call = ("Read", {"file_path": "src/a.py"})
WRITE: Call = ("Write", {"file_path": "src/a.py", "content": "x"})
EDIT: Call = ("Edit", {"file_path": "src/a.py", "old_string": "a", "new_string": "b"})
BASH: Call = ("Bash", {"command": "ls"})


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("default", ["Allow", "Ask", "Ask", "Ask"]),
        ("accept-edits", ["Allow", "Allow", "Allow", "Ask"]),
        ("plan", ["Allow", "Deny", "Deny", "Deny"]),
        ("yolo", ["Allow", "Allow", "Allow", "Allow"]),
    ],
)
def test_modes(ws: Path, mode: Mode, expected: list[str]) -> None:
    got = [kind(judge(ws, name, mode, **args)) for name, args in (READ, WRITE, EDIT, BASH)]
    assert got == expected


@pytest.mark.parametrize("name", ["LS", "Glob", "Grep"])
def test_every_read_only_tool_runs_inside_and_asks_outside(ws: Path, name: str) -> None:
    extra: dict[str, Any] = {"pattern": "*"} if name != "LS" else {}
    assert isinstance(judge(ws, name, path="src", **extra), Allow)
    assert isinstance(judge(ws, name, path="..", **extra), Ask)


@pytest.mark.parametrize(
    "raw",
    [
        "../../etc/passwd",
        "../proj-evil/secret",
        "src/../../proj-evil/x",
        "out-link/secret",
        "/etc/passwd",
        "~/anything",
    ],
)
def test_paths_that_leave_the_workspace_ask_even_in_accept_edits(ws: Path, raw: str) -> None:
    cases: tuple[tuple[str, Mode], ...] = (("Read", "default"), ("Write", "accept-edits"))
    for name, mode in cases:
        decision = judge(ws, name, mode, file_path=raw, content="")
        assert isinstance(decision, Ask), decision
        resolved = Path(os.path.realpath(ws / Path(raw).expanduser()))
        assert decision.outside == (resolved,)
        assert "outside the workspace" in decision.reason


def test_glob_patterns_that_climb_out_ask(ws: Path) -> None:
    decision = judge(ws, "Glob", pattern="../../**/*.key")
    assert isinstance(decision, Ask) and decision.outside == (ws.parent.parent,)


def test_a_symlink_that_stays_inside_is_inside(ws: Path) -> None:
    assert isinstance(judge(ws, "Write", "accept-edits", file_path="in-link/x", content=""), Allow)


@pytest.mark.parametrize(
    "raw",
    [".git/config", "sub/.git/hooks/pre-commit", ".nehanda/settings.toml", ".GIT/config", ".envrc"],
)
def test_protected_paths_ask_even_in_accept_edits_and_with_an_allow_rule(
    ws: Path, raw: str
) -> None:
    rules = {"allow": ["Edit", "Edit(**)"]}
    decision = judge(ws, "Write", "accept-edits", rules, file_path=raw, content="")
    assert isinstance(decision, Ask) and "protected" in decision.reason
    assert decision.suggestions == ()
    assert isinstance(judge(ws, "Read", file_path=raw), Allow)


def test_a_symlink_into_a_protected_directory_is_protected(ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / "hooks").symlink_to(ws / ".git")
    decision = judge(ws, "Edit", "accept-edits", file_path="hooks/config", old_string="a")
    assert isinstance(decision, Ask) and "protected" in decision.reason


def test_extra_protected_paths(ws: Path) -> None:
    rules = PermissionRules(mode="accept-edits", protected=(ws / "state",))
    decision = decide(checked(ToolUse("1", "Write", {"file_path": "state/trust.json"})), rules, ws)
    assert isinstance(decision, Ask)


def test_deny_wins_then_ask_then_allow(ws: Path) -> None:
    rules = {"allow": ["Edit(src/**)"], "ask": ["Edit(src/gen/**)"], "deny": ["Edit(src/gen/x*)"]}
    cases = {"src/a.py": "Allow", "src/gen/a.py": "Ask", "src/gen/x.py": "Deny", "b.py": "Ask"}
    for path, expected in cases.items():
        assert kind(judge(ws, "Edit", "default", rules, file_path=path, old_string="a")) == expected
    assert (
        kind(judge(ws, "Edit", "yolo", rules, file_path="src/gen/x.py", old_string="a")) == "Deny"
    )


def test_read_rules_cover_every_read_only_tool_and_edit_rules_cover_write(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = ws.parent / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    rules = {"deny": ["Read(~/.ssh/**)"], "allow": ["Edit(src/**)"]}
    for name, args in [
        ("Read", {"file_path": "~/.ssh/id_rsa"}),
        ("LS", {"path": str(home / ".ssh")}),
        ("Grep", {"pattern": "x", "path": "~/.ssh"}),
    ]:
        assert isinstance(judge(ws, name, "yolo", rules, **args), Deny)
    assert isinstance(judge(ws, "Write", rules=rules, file_path="src/x", content=""), Allow)


def test_a_deny_rule_is_not_led_around_by_a_symlink(ws: Path) -> None:
    (ws / "secrets").mkdir()
    (ws / "innocent").symlink_to(ws / "secrets")
    rules = {"deny": ["Read(secrets/**)"]}
    assert isinstance(judge(ws, "Read", rules=rules, file_path="innocent/key"), Deny)
    via_link = {"deny": ["Read(innocent/**)"]}
    assert isinstance(judge(ws, "Read", rules=via_link, file_path="secrets/key"), Deny)


def test_an_allow_rule_judges_the_resolved_path(ws: Path) -> None:
    rules = {"allow": [f"Edit({ws.parent}/outside/**)"]}
    decision = judge(ws, "Write", rules=rules, file_path="out-link/x", content="")
    assert isinstance(decision, Allow)
    assert decision.outside == (ws.parent / "outside/x",)
    assert isinstance(judge(ws, "Write", rules=rules, file_path="../outside/x", content=""), Allow)


def test_a_deny_rule_for_a_linked_folder_covers_its_real_place_too(ws: Path) -> None:
    rules = {"deny": ["Read(out-link/**)", "Edit(out-link/**)"]}
    real = str(ws.parent / "outside" / "key")
    assert isinstance(judge(ws, "Read", "yolo", rules, file_path=real), Deny)
    assert isinstance(judge(ws, "Write", "yolo", rules, file_path=real, content=""), Deny)
    assert isinstance(judge(ws, "Read", "yolo", rules, file_path="out-link/key"), Deny)


def test_a_rule_naming_a_sibling_folder_may_allow_it(ws: Path) -> None:
    rules = {"allow": ["Edit(../outside/**)"]}
    assert isinstance(judge(ws, "Write", rules=rules, file_path="out-link/x", content=""), Allow)


def test_a_workspace_allow_rule_does_not_follow_a_symlink_out_of_the_workspace(ws: Path) -> None:
    rules = {"allow": ["Edit(out-link/**)", "Read(out-link/**)"]}
    wrote = judge(ws, "Write", rules=rules, file_path="out-link/x", content="")
    assert isinstance(wrote, Ask) and "outside the workspace" in wrote.reason
    assert isinstance(judge(ws, "Read", rules=rules, file_path="out-link/x"), Ask)
    inside = {"allow": ["Edit(in-link/**)"]}
    assert isinstance(judge(ws, "Write", rules=inside, file_path="in-link/x", content=""), Allow)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", "Allow"),
        ("git   status", "Allow"),
        ("git status --short", "Ask"),
        ("npm run test", "Allow"),
        ("npm run test -- --watch", "Allow"),
        ("npm run testing", "Ask"),
        ("npm run test:unit", "Ask"),
        ("git status && npm run test", "Allow"),
        ("git status && touch m", "Ask"),
        ("git status; touch m", "Ask"),
        ("git status | touch m", "Ask"),
        ("git status\ntouch m", "Ask"),
        ("npm run test $(touch m)", "Ask"),
        ("npm run test > m", "Ask"),
        ("npm run test 2>/dev/null", "Allow"),
        ("timeout 5 npm run test", "Ask"),
        ("rm -rf build", "Deny"),
        ("git status && sudo rm -rf /", "Deny"),
        ("echo $(rm -rf /)", "Deny"),
        ("bash -c 'rm -rf /'", "Deny"),
    ],
)
def test_commands_against_rules(ws: Path, command: str, expected: str) -> None:
    rules = {"allow": ["Bash(git status)", "Bash(npm run test:*)"], "deny": ["Bash(rm:*)"]}
    assert kind(judge(ws, "Bash", rules=rules, command=command)) == expected


def test_a_risky_command_is_allowed_only_by_a_rule_naming_it_whole(ws: Path) -> None:
    command = "make > build.log"
    decision = judge(ws, "Bash", rules={"allow": ["Bash(make:*)"]}, command=command)
    assert isinstance(decision, Ask)
    assert "redirects output to a file" in decision.reason
    assert decision.suggestions == ("Bash(make > build.log)",)
    assert isinstance(
        judge(ws, "Bash", rules={"allow": list(decision.suggestions)}, command=command), Allow
    )


def test_suggestions_name_each_part_that_asked(ws: Path) -> None:
    rules = {"allow": ["Bash(git status)"]}
    decision = judge(ws, "Bash", rules=rules, command="git status && make && make test")
    assert isinstance(decision, Ask)
    assert decision.suggestions == ("Bash(make)", "Bash(make test)")
    odd_name = judge(ws, "Edit", file_path="a[1].py", old_string="x")
    assert isinstance(odd_name, Ask) and odd_name.suggestions == ("Edit(a\\[1].py)",)


def test_an_ask_rule_asks_in_accept_edits(ws: Path) -> None:
    decision = judge(ws, "Write", "accept-edits", {"ask": ["Write(src/**)"]}, **WRITE[1])
    assert isinstance(decision, Ask) and "Write(src/**)" in decision.reason


def test_unknown_tools_and_nul_paths_are_denied(ws: Path) -> None:
    assert isinstance(judge(ws, "Shell", "yolo", command="ls"), Deny)
    assert isinstance(judge(ws, "Read", file_path="a\0b"), Deny)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Bash(git status", "is not a rule"),
        ("Shell(ls)", "names no tool"),
        ("Bash()", "empty specifier"),
        ("Bash(git status && rm:*)", "not one command"),
        ("Bash(a\nb:*)", "not one command"),
        ("Edit({a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r})", "not a valid path pattern"),
    ],
)
def test_malformed_rules_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says.replace("(", r"\(")):
        parse_rule(text)


def test_allowing_adds_rules_for_the_session(ws: Path) -> None:
    rules = PermissionRules().allowing(["Bash(make)"])
    assert isinstance(decide(checked(ToolUse("1", "Bash", {"command": "make"})), rules, ws), Allow)


def test_the_cli_offers_exactly_the_modes() -> None:
    import click

    from nehanda.cli.main import cli

    option = next(param for param in cli.params if param.name == "permission_mode")
    assert isinstance(option.type, click.Choice)
    assert set(option.type.choices) == set(MODES)


@pytest.mark.parametrize(
    ("mode", "rules", "call", "expected"),
    [
        ("default", None, READ, "Ask"),
        ("accept-edits", None, WRITE, "Ask"),
        ("default", {"allow": ["Bash(ls)"]}, BASH, "Ask"),
        ("default", {"deny": ["Bash(ls)"]}, BASH, "Deny"),
        ("plan", None, WRITE, "Deny"),
        ("yolo", None, BASH, "Allow"),
    ],
)
def test_a_call_copied_from_tool_output_asks_where_it_would_have_run(
    ws: Path, mode: Mode, rules: Any, call: tuple[str, dict[str, Any]], expected: str
) -> None:
    name, args = call
    copied = ToolUse("call_1", name, args, copied_from="the output of an earlier Read call")
    decision = decide(checked(copied), PermissionRules.parse(mode, **(rules or {})), ws)
    assert kind(decision) == expected
    if isinstance(decision, Ask):
        assert decision.reason.startswith("the same call is written in the output of an earlier")
        assert not decision.suggestions
