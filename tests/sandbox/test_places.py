"""Where nehanda finds its helper programs, and what the sandbox keeps read-only.

The helper search runs on real folders and real executables; the carving around a
place kept read-only is checked as granted, and against the real kernel where a
``[sandbox] writable`` entry holds uv's cache.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from nehanda.config.settings import SandboxTable
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.sandboxing import kept_notes, session_sandbox
from nehanda.sandbox.confine import probe_support
from nehanda.sandbox.places import default_writable, enclosed, expand, writable_around
from nehanda.sandbox.programs import Programs, find_program, find_programs


def executable(path: Path, text: str = "#!/bin/sh\necho planted\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder for the test; the system temp folder, a writable root, lies inside it."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return Path(os.path.realpath(tmp_path))


def test_a_helper_comes_only_from_a_path_entry_no_command_can_write(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = root / "ws"
    planted = executable(workspace / ".venv" / "bin" / "rg")
    executable(workspace / "rg")
    (root / "linked").symlink_to(workspace / ".venv" / "bin")  # a folder outside, inside
    (root / "shims").mkdir()
    (root / "shims" / "rg").symlink_to(planted)  # a program outside, resolving inside
    executable(root / "bin" / "not-rg")
    real = executable(root / "tools" / "rg")
    (root / "bin" / "rg").symlink_to(real)
    monkeypatch.chdir(workspace)
    entries = ["", ".", "bin-relative", str(workspace / ".venv" / "bin"), str(root / "linked")]
    entries += [str(root / "shims"), str(root / "bin")]
    found = find_program("rg", [str(workspace)], os.pathsep.join(entries))
    assert found == (str(real), str(planted))


def test_a_helper_found_only_where_commands_write_is_not_used_and_the_start_says_so(
    root: Path,
) -> None:
    planted = executable(root / "ws" / ".venv" / "bin" / "rg")
    programs = find_programs([str(root / "ws")], str(planted.parent))
    assert programs == Programs(ripgrep=None, git=None, skipped=(("rg", str(planted)),))
    (note,) = programs.notes()
    assert note.startswith(f"Grep searches without ripgrep: the only rg on PATH is {planted}")
    assert find_programs([str(root / "ws")], "").notes() == []


def test_a_root_holding_a_kept_place_is_granted_around_it(root: Path) -> None:
    workspace = root / "ws"
    for folder in (".venv/bin", "src", "tools/env/bin", "tools/other"):
        (workspace / folder).mkdir(parents=True)
    (workspace / "README.md").write_text("x")
    (workspace / "shortcut").symlink_to(workspace / ".venv")
    kept = [str(workspace / ".venv"), str(workspace / "tools" / "env"), str(root / "elsewhere")]
    granted = writable_around([str(workspace), str(root / "tmp")], kept, root)
    entries = ("README.md", "src", "tools/other")
    assert sorted(granted) == sorted([str(root / "tmp"), *(str(workspace / e) for e in entries)])
    resolved = {p for path in granted for p in expand(path, root)}
    assert not any(Path(p).is_relative_to(workspace / ".venv") for p in resolved)


def test_the_default_caches_are_named_ones_and_never_all_of_the_cache(root: Path) -> None:
    home = root / "home"
    for cache in (".cache/pip", ".cache/uv", ".cache/go-build", ".npm/_cacache", ".npm/_npx"):
        (home / cache).mkdir(parents=True)
    roots = default_writable(root / "ws", home)
    assert str(home / ".cache" / "pip") in roots and str(home / ".npm" / "_cacache") in roots
    assert not enclosed(roots, [str(home / ".cache"), str(home / ".npm")])
    for code in (".cache/uv", ".cache/go-build", ".npm/_npx"):
        assert not any(Path(r).is_relative_to(home / code) for r in roots), code


@pytest.mark.skipif(probe_support().landlock_abi == 0, reason="this kernel has no Landlock")
def test_an_extra_writable_cache_still_keeps_uvs_cache_read_only(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, workspace = root / "home", root / "ws"
    for folder in (home / ".cache" / "uv" / "archive-v0", home / ".cache" / "tool", workspace):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    table = SandboxTable(writable=["~/.cache"])
    box = session_sandbox(table, PermissionRules.parse(), workspace)
    assert box is not None
    command = "echo x > ~/.cache/tool/c; echo x > ~/.cache/uv/archive-v0/planted"
    with box.spawn() as steps:
        done = subprocess.run(
            ["sh", "-c", command], preexec_fn=steps, cwd=workspace, capture_output=True, text=True
        )
    assert (home / ".cache" / "tool" / "c").exists()
    assert not (home / ".cache" / "uv" / "archive-v0" / "planted").exists(), done.stderr
    (note,) = kept_notes(table, workspace, home)
    assert note.startswith(f"the sandbox keeps {home / '.cache' / 'uv'} read-only")
    assert f"entries directly in {home / '.cache'} (" in note
