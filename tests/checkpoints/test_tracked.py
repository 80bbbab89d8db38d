"""``Tracked`` against the real kernel's inotify: after any sequence of changes a command
could make, what it says changed is exactly what a whole walk (``scan``) tells apart,
while it lists again only the folders something happened in."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nehanda.checkpoints import scan as scan_module
from nehanda.checkpoints import tracked as tracked_module
from nehanda.checkpoints.scan import IGNORED_FOLDER, Seen, scan
from nehanda.checkpoints.tracked import Delta, Tracked

NAMES = ("a", "b", "c")
FOLDERS = ("", "d/", "d/e/", "f/", "build/")
Step = tuple[str, str, str]
ACTIONS = ("write", "delete", "chmod", "rmtree", "move", "replace", "ignore", "unignore")


def apply(root: Path, step: Step) -> None:
    """One change as a command makes it; a change that cannot be made is skipped."""
    action, folder, name = step
    where = root / folder
    target = where / name
    try:
        if action == "write":
            where.mkdir(parents=True, exist_ok=True)
            target.write_text(f"{name} {os.urandom(2).hex()}")
        elif action == "delete":
            target.unlink()
        elif action == "chmod":
            target.chmod(0o600)
        elif action == "rmtree" and folder:
            shutil.rmtree(where)
        elif action == "move" and folder:
            # A folder moved elsewhere in the workspace, its watches with it.
            where.rename(root / "moved" / folder.replace("/", "_"))
        elif action == "replace":
            # Another folder under the same name: a new inode the old watch does not see.
            if folder and where.is_dir():
                fresh = root / "fresh"
                fresh.mkdir()
                (fresh / name).write_text("new")
                shutil.rmtree(where)
                fresh.rename(where)
        elif action == "ignore":
            where.mkdir(parents=True, exist_ok=True)
            (where / ".gitignore").write_text(f"{name}\n")
        elif action == "unignore":
            (where / ".gitignore").unlink()
    except OSError:
        pass


steps = st.tuples(
    st.sampled_from(ACTIONS),
    st.sampled_from(FOLDERS),
    st.sampled_from(NAMES),
)


def seed(root: Path) -> None:
    (root / ".gitignore").write_text("build/\n")
    (root / "moved").mkdir()
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in NAMES:
            (root / folder / name).write_text(name)


def follows(tracked: Tracked, before: dict[str, Seen], root: Path) -> Delta:
    delta = tracked.refresh()
    now = scan(root)
    assert tracked.files == now
    assert delta.changed == {rel: s for rel, s in now.items() if before.get(rel) != s}
    assert sorted(delta.gone) == sorted(rel for rel in before if rel not in now)
    return delta


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rounds=st.lists(st.lists(steps, min_size=1, max_size=4), min_size=1, max_size=4))
def test_after_any_changes_tracked_tells_what_a_whole_walk_tells(
    tmp_path_factory: pytest.TempPathFactory, rounds: list[list[Step]]
) -> None:
    root = tmp_path_factory.mktemp("ws")
    seed(root)
    tracked = Tracked(root, lambda path: False)
    try:
        first = tracked.refresh()
        assert first.changed == scan(root) and first.gone == []
        for round_ in rounds:
            before = dict(tracked.files)
            for step in round_:
                apply(root, step)
            follows(tracked, before, root)
    finally:
        tracked.close()


def counted_listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    listed: list[str] = []
    real = scan_module.list_folder

    def counting(folder: str, rel: str, *rest: object) -> object:
        listed.append(rel)
        return real(folder, rel, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(tracked_module, "list_folder", counting)
    return listed


def test_a_change_in_one_folder_lists_only_that_folder_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(tmp_path)
    listed = counted_listings(monkeypatch)
    tracked = Tracked(tmp_path, lambda path: False)
    tracked.refresh()
    assert sorted(listed) == ["", "d/", "d/e/", "f/", "moved/"]  # build/ is never entered
    listed.clear()
    assert tracked.refresh() == Delta({}, [])
    assert listed == []  # nothing happened: nothing is listed
    (tmp_path / "d" / "e" / "a").write_text("changed")
    delta = tracked.refresh()
    assert list(delta.changed) == ["d/e/a"] and listed == ["d/e/"]
    tracked.close()


def test_an_ignored_folder_is_one_entry_whose_change_is_seen(tmp_path: Path) -> None:
    seed(tmp_path)
    tracked = Tracked(tmp_path, lambda path: False)
    tracked.refresh()
    assert tracked.files["build"].kept == IGNORED_FOLDER
    before = dict(tracked.files)
    (tmp_path / "build" / "out.o").write_bytes(b"\0")
    delta = follows(tracked, before, tmp_path)
    assert list(delta.changed) == ["build"]
    tracked.close()


def test_without_inotify_every_refresh_is_a_whole_walk_with_the_same_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable() -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(tracked_module, "Inotify", unavailable)
    seed(tmp_path)
    tracked = Tracked(tmp_path, lambda path: False)
    tracked.refresh()
    before = dict(tracked.files)
    (tmp_path / "f" / "new").write_text("x")
    (tmp_path / "a").unlink()
    delta = follows(tracked, before, tmp_path)
    assert list(delta.changed) == ["f/new"] and delta.gone == ["a"]
