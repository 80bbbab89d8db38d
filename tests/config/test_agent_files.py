"""Subagent definitions read as Claude Code writes them, and the files refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.config.agent_files import GENERAL_PURPOSE, load_definitions, parse_definition
from nehanda.config.front_matter import FrontMatterError

PATH = Path("agents/x.md")


@pytest.mark.parametrize(
    ("front", "tools", "model"),
    [
        ("tools: Read, Grep, Glob", ("Read", "Grep", "Glob"), None),
        ("tools:\n  - Read\n  - 'Bash'", ("Read", "Bash"), None),
        ("tools: [Read, Grep]", ("Read", "Grep"), None),
        ("model: inherit", None, None),
        ('model: "qwen3:8b"', None, "qwen3:8b"),
        ("tools: Read  # only reading", ("Read",), None),
    ],
)
def test_claude_code_front_matter_is_read(
    front: str, tools: tuple[str, ...] | None, model: str | None
) -> None:
    text = f"---\nname: helper\ndescription: Helps out\n{front}\n---\nYou help.\n"
    definition = parse_definition(text, PATH)
    assert (definition.name, definition.description, definition.prompt) == (
        "helper",
        "Helps out",
        "You help.",
    )
    assert definition.tools == tools and definition.model == model


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("---\nname: a\ndescription: b\nYou help.\n", "never closed"),
        ("---\nname: a\n---\nYou help.\n", "description"),
        ("---\nname: a\ndescription: b\n---\n\n", "body"),
        ("---\nname: a\njust words\n---\nbody\n", "not valid YAML"),
        ("---\nname: [a, b]\ndescription: b\n---\nbody\n", "name must be text"),
    ],
)
def test_a_file_that_is_not_a_definition_says_why(text: str, why: str) -> None:
    with pytest.raises(FrontMatterError, match=why):
        parse_definition(text, PATH)


def test_a_broken_file_is_skipped_with_a_note_and_the_later_folder_wins(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    user.mkdir()
    project.mkdir()
    (user / "helper.md").write_text("---\ndescription: the user's\n---\nUser prompt.\n")
    (project / "helper.md").write_text("---\ndescription: the project's\n---\nProject.\n")
    (project / "broken.md").write_text("---\nname: broken\n")
    found, notes = load_definitions([user, project, tmp_path / "missing"])
    assert list(found) == [GENERAL_PURPOSE, "helper"]
    assert found["helper"].description == "the project's"
    assert len(notes) == 1 and "broken.md: skipped" in notes[0] and "never closed" in notes[0]


@given(st.text())
def test_any_text_is_read_or_refused_with_a_front_matter_error(text: str) -> None:
    try:
        definition = parse_definition(text, PATH)
    except FrontMatterError:
        return
    assert definition.prompt and definition.description
