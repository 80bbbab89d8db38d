"""What a checkpoint costs a Bash call, and how large the store grows.

Run by hand: ``python bench/checkpoint.py``. A temporary workspace of 20,000 files
(200 folders of 100 small files, a ``.gitignore`` and an ignored folder of 1,000 more)
and a store in a temporary state folder. The first Bash checkpoint copies every file
(cold); then each of 20 rounds is one warm checkpoint: the walk before a command, a
command's change to one file, the walk after; the best and the median are printed, in
milliseconds. Then 100 turns, each changing three files with Write and one with a
command, and the store's size on disk.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from nehanda.checkpoints.recorder import Limits, Recorder
from nehanda.checkpoints.store import Store

FOLDERS, FILES = 200, 100
ROUNDS, TURNS = 20, 100


def workspace(root: Path) -> Path:
    folder = root / "ws"
    for number in range(FOLDERS):
        sub = folder / f"pkg{number:03}"
        sub.mkdir(parents=True)
        for index in range(FILES):
            (sub / f"m{index:03}.py").write_text(f"# module {number}.{index}\n" * 20)
    (folder / ".gitignore").write_text("build/\n")
    (folder / "build").mkdir()
    for index in range(1000):
        (folder / "build" / f"o{index}").write_bytes(b"x")
    return folder


def timed(recorder: Recorder, change: Path, text: str) -> float:
    started = time.perf_counter()
    recorder.before_command()
    change.write_text(text)
    recorder.after_command()
    return (time.perf_counter() - started) * 1000


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        ws = workspace(root)
        store = Store(root / "state" / "checkpoints")
        recorder = Recorder(store, "bench", ws, Limits())
        recorder.start_turn("bench")
        target = ws / "pkg000" / "m000.py"
        cold = timed(recorder, target, "cold\n")
        warm = [timed(recorder, target, f"round {n}\n") for n in range(ROUNDS)]
        start_size = size_of(store.root)
        for turn in range(TURNS):
            recorder.start_turn(f"turn {turn}")
            for index in range(3):
                path = ws / f"pkg{index:03}" / f"m{turn % FILES:03}.py"
                old = path.read_bytes()
                recorder.before_write(path, old, path.stat().st_mode)
                path.write_text(f"turn {turn}\n" * 20)
                recorder.after_write(path, path.read_bytes(), path.stat().st_mode)
            timed(recorder, ws / "pkg100" / f"m{turn % FILES:03}.py", f"cmd {turn}\n")
        rows = [
            ("files in the workspace", f"{FOLDERS * FILES:,} (+1,000 ignored)"),
            ("first Bash checkpoint (cold: copies all)", f"{cold:.0f} ms"),
            ("warm Bash checkpoint, best", f"{min(warm):.1f} ms"),
            ("warm Bash checkpoint, median", f"{statistics.median(warm):.1f} ms"),
            ("store after the first snapshot", f"{start_size / 1e6:.1f} MB"),
            (f"store after {TURNS} more turns", f"{size_of(store.root) / 1e6:.1f} MB"),
            ("growth per turn", f"{(size_of(store.root) - start_size) / TURNS / 1e3:.1f} kB"),
        ]
        width = max(len(name) for name, _ in rows)
        for name, value in rows:
            print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
