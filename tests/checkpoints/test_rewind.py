"""``checkpoints.rewind``: the preview of restoring the files as they were before a
turn, taken from real checkpoint records in a real folder, and the restore it previews."""

from __future__ import annotations

from pathlib import Path

import pytest

from nehanda.checkpoints.recorder import Limits, Recorder
from nehanda.checkpoints.rewind import MAX_DIFFED_BYTES, preview, restore
from nehanda.checkpoints.store import Store
from nehanda.checkpoints.undo import Refused


@pytest.fixture
def recorder(tmp_path: Path) -> Recorder:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Recorder(Store(tmp_path / "store"), "20261204-000000-abcdef", workspace, Limits())


def write(recorder: Recorder, name: str, data: bytes) -> None:
    """What Write does: the old contents handed over, the file replaced, the new ones."""
    path = recorder.workspace / name
    old = path.read_bytes() if path.exists() else None
    recorder.before_write(path, old, 0o644)
    path.write_bytes(data)
    recorder.after_write(path, data, 0o644)


def rewind_of(recorder: Recorder, first: int) -> tuple[list[str], tuple[int, ...]]:
    found = preview(recorder.store, recorder.folder, recorder.workspace, first)
    return list(found.diff), found.turns


def test_the_diff_goes_from_the_files_now_to_what_is_put_back(recorder: Recorder) -> None:
    recorder.start_turn("one")
    write(recorder, "a.txt", b"first\n")
    recorder.start_turn("two")
    write(recorder, "a.txt", b"second\n")
    write(recorder, "b.txt", b"bee\n")
    diff, turns = rewind_of(recorder, 2)
    assert turns == (2,)
    assert diff == [
        "--- a/a.txt", "+++ b/a.txt", "@@ -1 +1 @@", "-second", "+first",
        "--- a/b.txt", "+++ /dev/null", "@@ -1 +0,0 @@", "-bee",
    ]  # fmt: skip
    diff, turns = rewind_of(recorder, 1)
    assert turns == (1, 2)
    assert diff[:2] == ["--- a/a.txt", "+++ /dev/null"]
    assert (recorder.workspace / "a.txt").read_bytes() == b"second\n"  # nothing written


def test_a_file_deleted_since_is_diffed_from_nothing(recorder: Recorder) -> None:
    recorder.start_turn("one")
    write(recorder, "a.txt", b"first\n")
    recorder.start_turn("two")
    write(recorder, "a.txt", b"second\n")
    (recorder.workspace / "a.txt").unlink()
    found = preview(recorder.store, recorder.folder, recorder.workspace, 2)
    assert list(found.diff) == ["--- /dev/null", "+++ b/a.txt", "@@ -0,0 +1 @@", "+first"]
    assert found.plan.conflicts == ("a.txt changed after that turn (it was deleted since)",)


@pytest.mark.parametrize(
    ("old", "new"),
    [(b"\x00\x01binary", b"\x00\x02binary"), (b"x" * (MAX_DIFFED_BYTES + 1), b"short\n")],
)
def test_binary_and_huge_files_are_told_by_their_sizes(
    recorder: Recorder, old: bytes, new: bytes
) -> None:
    (recorder.workspace / "f").write_bytes(old)
    recorder.start_turn("one")
    write(recorder, "f", new)
    diff, _ = rewind_of(recorder, 1)
    sizes = f"@ f: {len(new):,} bytes now, {len(old):,} bytes once restored (no diff shown)"
    assert diff == ["--- a/f", "+++ b/f", sizes]


def test_restore_takes_back_exactly_the_turns_previewed_and_refuses_a_later_change(
    recorder: Recorder,
) -> None:
    recorder.start_turn("one")
    write(recorder, "a.txt", b"first\n")
    recorder.start_turn("two")
    write(recorder, "a.txt", b"second\n")
    recorder.start_turn("three")  # changed nothing
    (recorder.workspace / "a.txt").write_bytes(b"the user's\n")
    found = preview(recorder.store, recorder.folder, recorder.workspace, 2)
    with pytest.raises(Refused):
        restore(recorder.store, recorder.folder, recorder.workspace, found, force=False)
    assert (recorder.workspace / "a.txt").read_bytes() == b"the user's\n"
    done = restore(recorder.store, recorder.folder, recorder.workspace, found, force=True)
    assert done.turns == (2,)
    assert (recorder.workspace / "a.txt").read_bytes() == b"first\n"


def test_a_turn_with_no_change_since_previews_and_restores_nothing(recorder: Recorder) -> None:
    recorder.start_turn("one")
    write(recorder, "a.txt", b"first\n")
    recorder.start_turn("two")
    found = preview(recorder.store, recorder.folder, recorder.workspace, 2)
    assert found.turns == () and not found.changes_files and found.diff == ()
    done = restore(recorder.store, recorder.folder, recorder.workspace, found, force=False)
    assert done.turns == () and (recorder.workspace / "a.txt").read_bytes() == b"first\n"
