"""Opening a resolved path below its root: a symlink met on the way is refused, each time.

Each test puts the file system in the state a racing process leaves it in at the
moment of the open (a folder of the resolved path now a symlink, the file itself a
symlink, the root's own folder swapped), with ``openat2`` and with the walk.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from nehanda.errors import ToolError
from nehanda.tools import beneath, edit, write
from nehanda.tools.beneath import SymlinkMet, open_beneath, open_folder
from nehanda.tools.paths import Placed


@pytest.fixture(params=["openat2", "walk"], autouse=True)
def opener(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if request.param == "walk":
        monkeypatch.setattr(beneath, "use_openat2", lambda: False)
    elif not beneath.use_openat2():
        pytest.skip("this kernel has no openat2")
    yield


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace holding ``d/f.txt``, and a folder outside it holding a secret."""
    root = Path(os.path.realpath(tmp_path))
    workspace, outside = root / "ws", root / "outside"
    (workspace / "d").mkdir(parents=True)
    (workspace / "d" / "f.txt").write_text("inside\n")
    outside.mkdir()
    (outside / "f.txt").write_text("secret\n")
    return workspace, outside


def swap_for_symlink(folder: Path, target: Path) -> None:
    folder.rename(folder.with_name(folder.name + ".moved"))
    folder.symlink_to(target)


def read(placed: Placed) -> bytes:
    with os.fdopen(open_beneath(placed, os.O_RDONLY), "rb") as stream:
        return stream.read()


def test_the_resolved_path_is_opened(places: tuple[Path, Path]) -> None:
    workspace, _ = places
    assert read(Placed(workspace / "d" / "f.txt", workspace)) == b"inside\n"


def test_a_folder_swapped_for_a_symlink_is_refused(places: tuple[Path, Path]) -> None:
    workspace, outside = places
    placed = Placed(workspace / "d" / "f.txt", workspace)
    swap_for_symlink(workspace / "d", outside)
    with pytest.raises(SymlinkMet):
        read(placed)
    with pytest.raises(SymlinkMet):
        open_folder(placed)
    with pytest.raises(SymlinkMet):
        open_folder(Placed(workspace / "d" / "new" / "f.txt", workspace), create=True)
    assert [path.name for path in outside.iterdir()] == ["f.txt"]


def test_the_file_itself_swapped_for_a_symlink_is_refused(places: tuple[Path, Path]) -> None:
    workspace, outside = places
    (workspace / "d" / "f.txt").unlink()
    (workspace / "d" / "f.txt").symlink_to(outside / "f.txt")
    with pytest.raises(SymlinkMet):
        read(Placed(workspace / "d" / "f.txt", workspace))


def test_a_swapped_folder_above_the_root_is_refused(places: tuple[Path, Path]) -> None:
    # A granted place outside the workspace sits in a folder someone else may swap.
    workspace, outside = places
    placed = Placed(workspace / "d" / "f.txt", workspace / "d")
    swap_for_symlink(workspace / "d", outside)
    with pytest.raises(SymlinkMet):
        read(placed)


def test_missing_folders_are_made_one_below_the_other(places: tuple[Path, Path]) -> None:
    workspace, _ = places
    placed = Placed(workspace / "d" / "a" / "b" / "f.txt", workspace)
    with pytest.raises(FileNotFoundError):
        open_folder(placed)
    folder = open_folder(placed, create=True)
    try:
        assert os.path.samestat(os.fstat(folder), (workspace / "d" / "a" / "b").stat())
    finally:
        os.close(folder)


def test_a_file_where_a_folder_should_be_is_not_a_directory(places: tuple[Path, Path]) -> None:
    workspace, _ = places
    with pytest.raises(NotADirectoryError):
        open_folder(Placed(workspace / "d" / "f.txt" / "x" / "g.txt", workspace), create=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.timeout(10)  # opening a FIFO to read it by name waits for a writer forever
def test_the_approval_diff_of_a_fifo_does_not_wait_for_a_writer(
    places: tuple[Path, Path],
) -> None:
    workspace, _ = places
    os.mkfifo(workspace / "pipe")
    lines = write.change_diff({"file_path": "pipe", "content": "x\n"}, workspace)
    assert lines[-1] == "+x"
    with pytest.raises(ToolError, match="Cannot read pipe: not a regular file"):
        edit.change_diff({"file_path": "pipe", "old_string": "a", "new_string": "b"}, workspace)
