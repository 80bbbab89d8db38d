"""SKILL.md front matter as the Agent Skills specification has it, and where skills are found."""

from __future__ import annotations

from pathlib import Path

import pytest

from nehanda.config.front_matter import FrontMatterError
from nehanda.config.skills import load_skills, read_skill


def skill(root: Path, folder: str, front: str, body: str = "Do it.") -> Path:
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(f"---\n{front}\n---\n{body}\n")
    return path


def test_every_field_of_the_specification_is_read(tmp_path: Path) -> None:
    front = (
        "name: pdf-tools\ndescription: Handle PDFs.\nlicense: Apache-2.0\n"
        "compatibility: needs poppler\nmetadata:\n  author: me\n  version: 1.0\n"
        "allowed-tools: Bash(pdftotext:*) Read"
    )
    read = read_skill(skill(tmp_path, "pdf-tools", front), "user")
    assert (read.name, read.description, read.license) == (
        "pdf-tools",
        "Handle PDFs.",
        "Apache-2.0",
    )
    assert read.compatibility == "needs poppler" and read.body == "Do it."
    assert read.metadata == {"author": "me", "version": "1.0"}
    assert read.allowed_tools == ("Bash(pdftotext:*)", "Read")


@pytest.mark.parametrize(
    ("folder", "front", "reason"),
    [
        ("a", "description: x", "name is missing"),
        ("Big", "name: Big\ndescription: x", "lowercase letters"),
        ("a--b", "name: a--b\ndescription: x", "single hyphens"),
        ("-a", "name: -a\ndescription: x", "not starting or ending"),
        ("x" * 65, f"name: {'x' * 65}\ndescription: x", "1-64"),
        ("b", "name: a\ndescription: x", "must be the folder's name, 'b'"),
        ("a", "name: a", "description is missing"),
        ("a", "name: a\ndescription: '   '", "description is missing"),
        ("a", f"name: a\ndescription: {'d' * 1025}", "description is longer than 1024"),
        ("a", f"name: a\ndescription: x\ncompatibility: {'c' * 501}", "longer than 500"),
        ("a", "name: a\ndescription: x\nmetadata: [1]", "metadata must be a map"),
        ("a", "name: a\ndescription: [x]", "description must be text"),
    ],
)
def test_front_matter_breaking_a_rule_is_refused_with_the_reason(
    tmp_path: Path, folder: str, front: str, reason: str
) -> None:
    with pytest.raises(FrontMatterError, match=reason.replace("(", r"\(")):
        read_skill(skill(tmp_path, folder, front), "user")


def test_a_skill_without_front_matter_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text("# just text\n")
    with pytest.raises(FrontMatterError, match="no front matter"):
        read_skill(tmp_path / "a", "user")


def test_the_users_skill_wins_a_clash_and_a_bad_one_is_named_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "work"
    monkeypatch.setenv("HOME", str(home))
    skill(home / ".agents" / "skills", "lint", "name: lint\ndescription: user's")
    skill(workspace / ".claude" / "skills", "lint", "name: lint\ndescription: project's")
    skill(workspace / ".claude" / "skills", "bad", "name: good\ndescription: x")
    (workspace / ".claude" / "skills" / "no-skill-file").mkdir()
    shelf = load_skills(workspace, trusted=True)
    assert [(s.name, s.description, s.scope) for s in shelf.skills.values()] == [
        ("lint", "user's", "user")
    ]
    assert len(shelf.notes) == 2
    assert "skill bad (" in shelf.notes[0] and "must be the folder's name" in shelf.notes[0]
    assert "skill lint: " in shelf.notes[1] and "is not used" in shelf.notes[1]
    assert set(load_skills(workspace, trusted=False).skills) == {"lint"}
