"""git's configuration as ``parse_config`` reads it, against git's own reading."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from nehanda.tools.git_config import Entry, parse_config

# Spellings a planted configuration could hide a key behind.
WRITTEN = [
    "[core] hooksPath = .husky",
    '[CORE]\n\tHooksPath = "./a b" ; comment',
    '[core]\nhookspath = "a;b"#c\n  pager = less \\\n -R',
    '[includeIf "gitdir:/x/"]\n\tpath = ../inc.cfg\n[Include]path=x',
    '[diff "Pre\\"tty"]\n textconv = sh -c \\"x\\"\\t',
    "[core.Sub]\n\tfsmonitor\n\tfsmonitor =\n",
    "\ufeff[alias]\r\n\tup = !sh ./up.sh\r\n",
    '[a]\n\tk = v1\n[b "s"] k = v2 [c] k = v3',
]


def git_reading(text: str, tmp_path: Path) -> list[Entry]:
    config = tmp_path / "config"
    config.write_text(text, newline="")
    out = subprocess.run(
        ["git", "config", "--file", str(config), "--list", "-z"], capture_output=True, check=True
    ).stdout.decode()
    entries = []
    for item in filter(None, out.split("\0")):
        name, newline, value = item.partition("\n")
        entries.append(Entry(name, value if newline else None))
    return entries


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("text", WRITTEN)
def test_entries_as_git_reads_them(text: str, tmp_path: Path) -> None:
    assert parse_config(text) == git_reading(text, tmp_path)


def test_a_line_git_rejects_hides_none_of_the_others() -> None:
    entries = parse_config('[core]\n\tbad = "\\q"\n\thooksPath = h\n[x\n[core] pager = p')
    assert [e.name for e in entries] == ["core.hookspath", "core.pager"]
