"""What hiding secret places and Read deny rules costs a walk (Grep, Glob).

Run by hand: ``python bench/walk_hidden.py``. Walks a tree of 20,000 files (200
folders of 100) plainly, with the default secret places, and with two Read deny rules
as well; prints the best of three, in milliseconds.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from nehanda.permissions.hidden import HiddenPaths
from nehanda.permissions.rules import parse_rule
from nehanda.tools.walk import walk_files


def best_ms(workspace: Path, hidden: HiddenPaths | None) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        if hidden is None:
            sum(1 for _ in walk_files(workspace, workspace, follow_symlinks=False))
        else:
            sum(1 for _ in walk_files(workspace, workspace, follow_symlinks=False, hidden=hidden))
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(os.path.realpath(folder))
        for number in range(200):
            directory = workspace / f"d{number}"
            directory.mkdir()
            for file in range(100):
                (directory / f"f{file}.txt").write_text("x")
        rules = [parse_rule("Read(**/.env)"), parse_rule("Read(~/.ssh/**)")]
        print(f"{'walk of 20,000 files':32} {'best ms':>8}")
        print(f"{'plain':32} {best_ms(workspace, None):8.1f}")
        print(f"{'secret places':32} {best_ms(workspace, HiddenPaths.build([], workspace)):8.1f}")
        hidden = HiddenPaths.build(rules, workspace)
        print(f"{'secret places and 2 deny rules':32} {best_ms(workspace, hidden):8.1f}")


if __name__ == "__main__":
    main()
