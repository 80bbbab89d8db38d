"""The real-world corpus: model outputs quoted in public bug reports, one file per thread.

Each file under ``threads/`` cites its thread (repository, number, URL; a recorded output
kept in a repository's file cites the file instead) and lists the
tools the model was offered (names and minimal schemas) and its cases: the text, where
it comes from (``verbatim``, or how it was reconstructed or derived from the thread),
and the calls a careful reader would see in it, an empty list meaning no call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

THREADS = Path(__file__).parent / "threads"


@dataclass(frozen=True)
class Case:
    """One output and the calls it holds, with the tools offered beside it."""

    thread: str
    id: str
    text: str
    tools: dict[str, dict[str, Any]]
    calls: list[tuple[str, dict[str, Any]]]

    @property
    def key(self) -> str:
        return f"{self.thread}:{self.id}"


def _cases_of(path: Path) -> Iterator[Case]:
    data = json.loads(path.read_text(encoding="utf-8"))
    source = data["thread"]
    thread = f"{source['repo']}#{source['number']}" if source["number"] else source["url"]
    for case in data["cases"]:
        calls = [(call["name"], call["arguments"]) for call in case["calls"]]
        yield Case(thread, case["id"], case["text"], data["tools"], calls)


def load() -> list[Case]:
    """Every case of every thread file, in file order."""
    return [case for path in sorted(THREADS.glob("*.json")) for case in _cases_of(path)]


def threads() -> list[dict[str, Any]]:
    """Each file's ``thread`` table."""
    files = sorted(THREADS.glob("*.json"))
    return [json.loads(path.read_text(encoding="utf-8"))["thread"] for path in files]
