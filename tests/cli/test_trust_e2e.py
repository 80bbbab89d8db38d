"""``nehanda trust --list`` and ``--remove`` through the real CLI: what the user sees, and
that a folder no longer trusted loses what its settings could loosen."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

from cli_process import nehanda

PROJECT = '[providers.theirs]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'


def store() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "trusted_folders.json"


def project(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text(PROJECT)
    return folder


def test_list_shows_each_trusted_folder_and_whether_its_trust_still_holds(
    tmp_path: Path,
) -> None:
    empty = nehanda("trust", "--list", cwd=tmp_path)
    assert empty.returncode == 0 and empty.stdout.startswith("no trusted folders")
    kept, edited = project(tmp_path / "kept"), project(tmp_path / "edited")
    nehanda("trust", cwd=kept)
    nehanda("trust", str(edited), cwd=tmp_path)
    (edited / ".mcp.json").write_text('{"mcpServers": {}}')

    listed = nehanda("trust", "--list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert str(store()) in listed.stdout
    lines = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert lines[str(kept)].endswith("  trusted")
    assert "changed since" in lines[str(edited)] and "untrusted" in lines[str(edited)]


def test_remove_untrusts_the_folder_so_its_settings_are_restrained_again(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path / "proj")
    nehanda("trust", cwd=folder)
    assert "providers.theirs.base_url" not in nehanda("providers", cwd=folder).stdout

    removed = nehanda("trust", "--remove", cwd=folder)
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout == f"no longer trusted: {folder}\n"
    assert json.loads(store().read_text())["folders"] == []
    assert stat.S_IMODE(store().stat().st_mode) == 0o600
    assert [p.name for p in store().parent.iterdir()] == ["trusted_folders.json"]
    assert "providers.theirs.base_url" in nehanda("providers", cwd=folder).stdout
    assert nehanda("trust", "--list", cwd=tmp_path).stdout.startswith("no trusted folders")


def test_remove_forgets_a_folder_deleted_since_and_keeps_the_others(tmp_path: Path) -> None:
    gone, other = project(tmp_path / "gone"), project(tmp_path / "other")
    nehanda("trust", str(gone), cwd=tmp_path)
    nehanda("trust", str(other), cwd=tmp_path)
    shutil.rmtree(gone)
    assert "folder gone" in nehanda("trust", "--list", cwd=tmp_path).stdout

    removed = nehanda("trust", "--remove", str(gone), cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(store().read_text())["folders"] == [str(other)]


def test_removing_a_folder_that_is_not_trusted_says_so_and_changes_nothing(
    tmp_path: Path,
) -> None:
    trusted = project(tmp_path / "trusted")
    nehanda("trust", cwd=trusted)
    before = store().read_bytes()
    refused = nehanda("trust", "--remove", str(tmp_path), cwd=tmp_path)
    assert refused.returncode == 1
    assert refused.stderr == f"error: {tmp_path} is not trusted (nehanda trust --list)\n"
    assert store().read_bytes() == before
    both = nehanda("trust", "--list", "--remove", cwd=tmp_path)
    assert both.returncode == 2 and "--list takes no FOLDER" in both.stderr
    missing = nehanda("trust", str(tmp_path / "nope"), cwd=tmp_path)
    assert missing.returncode == 2 and "is not a folder" in missing.stderr
