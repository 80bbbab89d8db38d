"""Custom command files: where they are found, which wins a clash, and how a body is
filled in for one use."""

from __future__ import annotations

from pathlib import Path

import pytest

from nehanda.config.commands import CustomCommand, Shell, Text, load_commands, render
from nehanda.config.trust import trust_folder


def command(body: str) -> CustomCommand:
    return CustomCommand("c", Path("c.md"), "user", "", body)


@pytest.mark.parametrize(
    ("body", "arguments", "pieces"),
    [
        ("Fix $ARGUMENTS now", "issue 12", (Text("Fix issue 12 now"),)),
        ("Fix $1 in $2", "'a b' c", (Text("Fix a b in c"),)),
        ("Fix $1 and $3", "only", (Text("Fix only and "),)),
        ("Plain", "extra words", (Text("Plain\n\nARGUMENTS: extra words"),)),
        ("Plain", "", (Text("Plain"),)),
        ("Cost $10 and $1", "x", (Text("Cost $10 and x"),)),
        (
            "Status: !`git status` then !`git log -n $1`",
            "3",
            (Text("Status: "), Shell("git status"), Text(" then "), Shell("git log -n 3")),
        ),
        # What the arguments say never becomes a command to run.
        ("Say $ARGUMENTS", "!`touch x`", (Text("Say !`touch x`"),)),
        ("unclosed $1", "'a b", (Text("unclosed 'a"),)),
    ],
)
def test_render(body: str, arguments: str, pieces: tuple[Text | Shell, ...]) -> None:
    assert render(command(body), arguments) == pieces


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_nehandas_folders_win_over_claudes_and_the_users_over_the_projects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "work"
    workspace.mkdir()
    monkeypatch.setenv("HOME", str(home))
    own = isolated_home / "xdg_config_home" / "nehanda" / "commands"
    write(own, "build.md", "mine")
    write(home / ".claude" / "commands", "build.md", "claude's")
    write(home / ".claude" / "commands" / "web", "deploy.md", "---\ndescription: D\n---\nweb")
    write(workspace / ".nehanda" / "commands", "deploy.md", "project's")
    write(workspace / ".claude" / "commands", "test.md", "project test")
    write(workspace / ".claude" / "commands", "bad.md", "---\nx: [\n---\n")
    trust_folder(workspace)

    found = load_commands(workspace, trusted=True)
    assert {name: c.body for name, c in found.found.items()} == {
        "build": "mine",
        "deploy": "web",
        "test": "project test",
    }
    deploy = found.found["deploy"]
    assert (deploy.where, deploy.description) == ("user:web", "D")
    notes = "\n".join(found.notes)
    assert "/build: " in notes and "claude/commands/build.md is not used" in notes
    assert "/deploy: " in notes and ".nehanda/commands/deploy.md is not used" in notes
    assert "bad.md: left out: the front matter is not valid YAML" in notes

    untrusted = load_commands(workspace, trusted=False)
    assert set(untrusted.found) == {"build", "deploy"}
    assert any("not trusted" in note for note in untrusted.notes)


def test_a_file_whose_name_is_not_a_command_name_is_left_out_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / ".claude" / "commands", "two words.md", "x")
    found = load_commands(tmp_path / "nowhere", trusted=False)
    assert found.found == {}
    assert found.notes == (
        f"{tmp_path}/.claude/commands/two words.md: left out: /two words is not a command "
        "name (letters, digits, -, _ and : only)",
    )
