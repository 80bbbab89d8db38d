"""The rescue scanner's CPU on the text models write most, this tree against another.

Run by hand: ``python bench/toolcalls.py --ab BASE`` (or this file with ``BASE``),
where ``BASE`` is another checkout of nehanda, for example
``git worktree add --detach /tmp/base99 99ba674``. Each tree's code is imported in
a subprocess of its own (``PYTHONPATH=TREE/src``); the two take turns run by run,
and the best CPU time of each (``time.process_time``) is kept. Eight rows:

- four kinds of text, 1 MB each, streamed in 8-character deltas through
  ``ToolCallScanner``: plain prose; markdown (headings, backticks, bold, links,
  lists, quotes); prose with ``<…>``, ``{…}`` and ``[…]``; prose with code fences;
- the same four texts read whole by ``parse_tool_calls``.

None of the texts holds a call. The table gives each tree's time and their ratio;
"same text" says whether both trees showed the same visible text and no call.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve()
TREE = HERE.parents[1]
SIZE = 1_000_000
DELTA = 8
KNOWN = frozenset({"Read", "Write", "Bash", "Edit", "Grep"})
VOCABULARY = (
    "the scanner reads text once and keeps only what might still be a delimiter while "
    "prose goes to the user as it arrives so that a model which writes long answers "
    "never waits for its own output config module loads settings from the project "
    "folder before any request is sent tests cover every parser shape"
)
WORDS = VOCABULARY.split()

# -- the texts --------------------------------------------------------------------


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _sentence(rng: random.Random, dress: Callable[[random.Random, str], str]) -> str:
    words = [dress(rng, w) for w in _words(rng, rng.randint(6, 16)).split()]
    return " ".join(words).capitalize() + ". "


def _plain(rng: random.Random, word: str) -> str:
    return word


def _markdown_word(rng: random.Random, word: str) -> str:
    roll = rng.random()
    if roll < 0.05:
        return f"`{word}()`"
    if roll < 0.08:
        return f"**{word}**"
    if roll < 0.10:
        return f"*{word}*"
    if roll < 0.12:
        return f"[{word}](https://example.com/docs/{word}.html)"
    return word


def _bracket_word(rng: random.Random, word: str) -> str:
    roll = rng.random()
    if roll < 0.03:
        return f"<{word}>"
    if roll < 0.05:
        return f"{word} < {rng.randint(1, 99)}"
    if roll < 0.07:
        return f"{{{word}: {rng.randint(1, 9)}}}"
    if roll < 0.09:
        return f"{word}[{rng.randint(0, 9)}]"
    if roll < 0.10:
        return f"[{word}]"
    if roll < 0.11:
        return f"{word} -> {rng.choice(WORDS)}"
    if roll < 0.12:
        return f"Vec<{word.capitalize()}>"
    return word


def _paragraph(rng: random.Random, dress: Callable[[random.Random, str], str]) -> str:
    return "".join(_sentence(rng, dress) for _ in range(rng.randint(2, 5))).rstrip() + "\n\n"


def plain_prose(rng: random.Random) -> str:
    return _paragraph(rng, _plain)


def markdown(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.15:
        return f"## {_words(rng, 4).capitalize()}\n\n"
    if roll < 0.35:
        items = (f"- {_sentence(rng, _markdown_word).strip()}\n" for _ in range(rng.randint(2, 5)))
        return "".join(items) + "\n"
    if roll < 0.45:
        items = (
            f"{k}. {_sentence(rng, _markdown_word).strip()}\n" for k in range(1, rng.randint(3, 6))
        )
        return "".join(items) + "\n"
    if roll < 0.50:
        return f"> {_sentence(rng, _markdown_word).strip()}\n\n"
    return _paragraph(rng, _markdown_word)


def brackets(rng: random.Random) -> str:
    return _paragraph(rng, _bracket_word)


CODE = (
    "def load(path: str) -> dict[str, int]:\n",
    "    if len(items) < 3 and items[0] > 1:\n",
    '    return {"name": name, "size": sizes[i]}\n',
    "for key, value in table.items():\n",
    '    print(f"{key} = {value}")\n',
    "x = [a * 2 for a in range(10)]\n",
    "#include <stdio.h>\n",
    "fn main() -> Result<(), Error> { Ok(()) }\n",
)


def code_fences(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return _paragraph(rng, _plain)
    lang = rng.choice(("python", "rust", "c", "", "bash"))
    body = "".join(rng.choice(CODE) for _ in range(rng.randint(3, 12)))
    return f"```{lang}\n{body}```\n\n"


KINDS: dict[str, Callable[[random.Random], str]] = {
    "plain prose": plain_prose,
    "markdown": markdown,
    "brackets <…> {…} […]": brackets,
    "code fences": code_fences,
}


def text_of(kind: str, size: int = SIZE) -> str:
    """``size`` characters of one kind, the same on every run."""
    rng = random.Random(kind)
    parts, total = [], 0
    while total < size:
        part = KINDS[kind](rng)
        parts.append(part)
        total += len(part)
    return "".join(parts)[:size]


# -- one tree's side (a subprocess with PYTHONPATH=TREE/src) -------------------------


def _rows() -> dict[str, Callable[[], list[object]]]:
    """Each row's run, which answers whether the text came out whole and its calls."""
    from nehanda.events import TextDelta
    from nehanda.toolcalls.parse import parse_tool_calls
    from nehanda.toolcalls.scanner import ToolCallScanner

    def stream(text: str) -> list[object]:
        # Only the text is kept (strings, which the garbage collector never visits),
        # as a consumer that passes the events on keeps none of them.
        scanner = ToolCallScanner(KNOWN)
        shown: list[str] = []
        others = 0
        for i in range(0, len(text) + DELTA, DELTA):
            events = scanner.feed(text[i : i + DELTA]) if i < len(text) else scanner.finish()
            for event in events:
                if isinstance(event, TextDelta):
                    shown.append(event.text)
                else:
                    others += 1
        return ["".join(shown) == text, others]

    def whole(text: str) -> list[object]:
        parsed = parse_tool_calls(text, KNOWN)
        return [parsed.text == text, len(parsed.calls)]

    rows: dict[str, Callable[[], list[object]]] = {}
    for kind in KINDS:
        rows[f"{kind}, streamed"] = functools.partial(stream, text_of(kind))
    for kind in KINDS:
        rows[f"{kind}, whole"] = functools.partial(whole, text_of(kind))
    return rows


def worker() -> None:
    """Run the row each line of stdin names; answer its CPU time and its digest."""
    rows = _rows()
    for line in sys.stdin:
        started = time.process_time()
        digest = rows[line.strip()]()
        took = time.process_time() - started
        print(json.dumps([took, *digest]), flush=True)


def _start(tree: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    code = (
        "import sys, nehanda; "
        f"assert nehanda.__file__.startswith({str(tree)!r}), nehanda.__file__; "
        f"sys.path.insert(0, {str(HERE.parent)!r}); "
        "from toolcalls_ab import worker; worker()"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _ask(proc: subprocess.Popen[str], label: str) -> list[object]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(label + "\n")
    proc.stdin.flush()
    answer = proc.stdout.readline()
    if not answer:
        sys.exit(f"the worker for {label!r} failed (see its error above)")
    out: list[object] = json.loads(answer)
    return out


def compare(base: Path, rounds: int = 5, only: str = "") -> None:
    """Print each row's best CPU time in both trees, and this tree's as a multiple.

    The two trees take turns run by run, so that a busy machine slows both alike.
    """
    trees = {"this": TREE, "base": base.resolve()}
    procs = {name: _start(tree) for name, tree in trees.items()}
    labels = [f"{kind}, {how}" for how in ("streamed", "whole") for kind in KINDS]
    labels = [label for label in labels if only in label]
    best = {(name, label): float("inf") for name in trees for label in labels}
    digests: dict[str, set[str]] = {label: set() for label in labels}
    try:
        for _ in range(rounds):
            for label in labels:
                for name, proc in procs.items():
                    took, *digest = _ask(proc, label)
                    best[name, label] = min(best[name, label], float(took))  # type: ignore[arg-type]
                    digests[label].add(json.dumps(digest))
    finally:
        for proc in procs.values():
            proc.communicate("")
    print(f"\nA/B: {TREE} against {trees['base']}")
    print(f"best CPU of {rounds} runs each; {SIZE // 1000} KB, {DELTA}-char deltas")
    print(f"{'':32}{'this':>10}{'base':>10}{'this / base':>13}  same text, no call")
    for label in labels:
        new, old = best["this", label], best["base", label]
        ok = "yes" if digests[label] == {"[true, 0]"} else f"NO {sorted(digests[label])}"
        print(f"{label:32}{new * 1000:8.1f}ms{old * 1000:8.1f}ms{new / old:12.2f}x  {ok}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the other tree (a nehanda checkout)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each row in each tree")
    parser.add_argument("-k", dest="only", default="", help="only the rows whose name has this")
    args = parser.parse_args()
    compare(args.base, args.rounds, args.only)


if __name__ == "__main__":
    main()
