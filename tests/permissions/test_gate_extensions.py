"""The allow rules custom commands and skills add to the gate: a command's for its one
turn, a loaded skill's folder (resolved, so a symlink there leading out still asks) for
the rest of the session, never past a deny rule."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nehanda.config.skills import Skill, SkillShelf
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.permissions.rules import parse_rule
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import ToolResult, ToolUse


def gate(workspace: Path, shelf: SkillShelf | None = None, deny: tuple[str, ...] = ()) -> ToolGate:
    tools = BuiltinTools(ToolContext(workspace, skills=shelf or SkillShelf()))
    made = ToolGate(tools, workspace, PermissionRules.parse(deny=deny), NoTerminal())
    if shelf is not None:
        shelf.on_load = made.skill_loaded
    return made


def call(g: ToolGate, tool: str, **arguments: str) -> ToolResult:
    checked = g.check(ToolUse("c1", tool, arguments))
    assert not isinstance(checked, ToolResult), checked
    return asyncio.run(g.run(checked))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    folder = tmp_path / "skills" / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: d\n---\nBODY\n")
    (folder / "guide.md").write_text("GUIDE\n")
    (tmp_path / "secret.txt").write_text("SECRET\n")
    (folder / "leak.md").symlink_to(tmp_path / "secret.txt")
    return folder


def shelf_with(folder: Path, *allowed: str) -> SkillShelf:
    skill = Skill("notes", "d", folder, "user", "BODY", allowed_tools=allowed)
    return SkillShelf({"notes": skill})


def test_a_loaded_skills_files_read_unasked_and_a_symlink_out_still_asks(
    outside: Path, tmp_path: Path
) -> None:
    g = gate(tmp_path / "work", shelf_with(outside))
    guide = str(outside / "guide.md")
    assert call(g, "Read", file_path=guide).is_error  # not loaded: nobody to ask
    loaded = call(g, "Skill", name="notes")
    assert "BODY" in loaded.content and guide in loaded.content and "leak" not in loaded.content
    assert "GUIDE" in call(g, "Read", file_path=guide).content
    leak = call(g, "Read", file_path=str(outside / "leak.md"))
    assert leak.is_error and "SECRET" not in leak.content
    assert call(g, "Read", file_path=str(tmp_path / "secret.txt")).is_error


def test_a_skill_folder_that_is_a_symlink_to_home_lets_nothing_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "private.txt").write_text("PRIVATE\n")
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("HOME", str(home))
    link = tmp_path / "skills" / "notes"
    link.parent.mkdir()
    link.symlink_to(home)
    g = gate(tmp_path / "work", shelf_with(link))
    g.skill_loaded(shelf_with(link).skills["notes"])
    assert call(g, "Read", file_path=str(home / "private.txt")).is_error


def test_a_skills_allowed_tools_never_pass_a_deny_rule(outside: Path, tmp_path: Path) -> None:
    g = gate(tmp_path / "work", shelf_with(outside, "Read"), deny=(f"Read({outside}/guide.md)",))
    call(g, "Skill", name="notes")
    denied = call(g, "Read", file_path=str(outside / "guide.md"))
    assert "deny rule" in denied.content and "GUIDE" not in denied.content


def test_a_commands_rules_hold_for_its_turn_only(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    g = gate(tmp_path)
    rule = (parse_rule("Write(a.txt)"),)
    with g.for_turn(rule):
        assert [r.text for r in g.in_force.allow] == ["Write(a.txt)"]
        assert not call(g, "Write", file_path="a.txt", content="y").is_error
    assert g.in_force.allow == ()
    assert call(g, "Write", file_path="a.txt", content="z").is_error
    assert (tmp_path / "a.txt").read_text() == "y"
