"""How "everything readable but these paths" becomes Landlock grants, and the places."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nehanda.sandbox.landlock import READ, READ_DIR, Grant
from nehanda.sandbox.places import expand, git_folders
from nehanda.sandbox.tree import readable_grants


def grants_below(root: Path, denied: list[Path]) -> dict[str, int]:
    """The grants at or under ``root``, by path relative to it."""
    found = readable_grants([str(path) for path in denied])
    return {
        str(Path(g.path).relative_to(root)): g.rights
        for g in found
        if Path(g.path).is_relative_to(root)
    }


def test_a_denied_folder_is_carved_out_and_its_siblings_stay_readable(tmp_path: Path) -> None:
    for name in ("home/.ssh/id", "home/notes", "home/.config/gh/hosts", "home/.config/app/x"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    home = tmp_path / "home"
    shape = grants_below(tmp_path, [home / ".ssh", home / ".config/gh"])
    assert shape["home"] == READ_DIR  # listed, not read whole
    assert shape["home/.config"] == READ_DIR
    assert shape["home/notes"] == READ and shape["home/.config/app"] == READ
    assert not any(path.startswith(("home/.ssh", "home/.config/gh")) for path in shape)


def test_a_symlink_beside_a_denied_path_is_granted_as_a_link_only(tmp_path: Path) -> None:
    (tmp_path / ".ssh").mkdir()
    (tmp_path / "shortcut").symlink_to(tmp_path / ".ssh")
    grants = readable_grants([str(tmp_path / ".ssh")])
    assert Grant(str(tmp_path / "shortcut"), READ) in grants  # opened with O_NOFOLLOW
    assert not any(g.path.startswith(str(tmp_path / ".ssh")) for g in grants)


def test_nothing_denied_reads_everything() -> None:
    assert readable_grants([]) == [Grant("/", READ)]


def test_a_final_star_expands_to_the_entries_that_exist(tmp_path: Path) -> None:
    cargo = tmp_path / ".cargo"
    cargo.mkdir()
    for name in ("credentials", "credentials.toml", "config.toml"):
        (cargo / name).write_text("x")
    assert expand("~/.cargo/credentials*", tmp_path) == [
        str(cargo / "credentials"),
        str(cargo / "credentials.toml"),
    ]
    assert expand("~", tmp_path) == [str(tmp_path)]


def test_a_worktrees_git_folders_outside_it_are_found(tmp_path: Path) -> None:
    main, tree = tmp_path / "main", tmp_path / "tree"
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "i"], check=True)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(tree)], check=True)
    common = (main / ".git").resolve()
    assert git_folders(tree) == [common / "worktrees" / "tree", common]
    assert git_folders(tree / "sub") == [common / "worktrees" / "tree", common]
    assert git_folders(main) == []  # inside the workspace already


@pytest.mark.parametrize("content", ["", "not a gitdir line", "gitdir"])
def test_a_git_file_that_names_no_folder_gives_none(tmp_path: Path, content: str) -> None:
    (tmp_path / ".git").write_text(content)
    assert git_folders(tmp_path / "sub") == []
