"""Rescue tool-call parsing: nehanda's scanner against the peers that install here.

Run by hand: ``python bench/toolcalls.py`` (needs ``pip install jiter``; json_repair
is a dependency already). Prints six tables:

1. complete text: small outputs (MB/s) and one call with a 1 MB argument, decoded;
2. streaming in 8-character deltas: 1 KB to 1 MB per shape, with the fitted growth
   exponent (time ~ size ** exponent);
3. hostile inputs, whole and streamed;
4. correctness on the cases where naive parsers go wrong;
5. whole text as a multiple of ``str.find`` (prose, code-like, call first);
6. one row per dialect family (see ``toolcalls_dialects.py``).

``python bench/toolcalls.py --ab BASE`` prints instead the CPU of this tree's scanner
against another checkout's on 1 MB of prose, markdown, bracket-rich text and code
fences (see ``toolcalls_ab.py``).

Peers follow the common recipe: a regex extracts ``[TOOL_CALL](.*?)[/TOOL_CALL]``
blocks, then ``json.loads``, ``json_repair.loads`` or ``jiter.from_json`` (partial
mode) reads each block. Streaming peers do what such code does on each delta:
re-extract the blocks of the whole text so far (json_repair, json) or partially parse
the block still open (jiter). A peer whose run is projected past the time cap is
shown as "(est. N s)", extrapolated from its own fitted exponent.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import json_repair
from toolcalls_ab import compare
from toolcalls_dialects import table_families, table_find_ratio

from nehanda.toolcalls.parse import parse_tool_calls
from nehanda.toolcalls.scanner import ToolCallScanner
from nehanda.types import ToolUse, new_call_id

try:
    import jiter
except ImportError:  # pragma: no cover - the bench says what to install
    sys.exit("bench/toolcalls.py needs jiter: pip install jiter")

KNOWN = frozenset({"Read", "Write", "Bash", "Edit", "Grep"})
DELTA = 8
CAP_SECONDS = 10.0

# -- inputs ---------------------------------------------------------------------


def call(name: str, **args: Any) -> str:
    return "[TOOL_CALL]" + json.dumps({"name": name, "arguments": args}) + "[/TOOL_CALL]"


SMALL_OUTPUTS = [
    "I'll start by reading the configuration module to see how settings are loaded.\n"
    + call("Read", file_path="/home/dev/project/src/app/config.py")
    + "\n",
    "Let me check which tests cover the parser before changing anything.\n"
    + call("Grep", pattern="def test_parse", path="tests/")
    + "\n"
    + call("Read", file_path="tests/test_parser.py", limit=200)
    + "\n",
    "The failing assertion is in the date helper; running the focused test now.\n"
    + call("Bash", command="python -m pytest tests/test_dates.py -q -k leap_year")
    + "\nI will report back with the output.",
    "Found it: the off-by-one is on line 42. Fixing the comparison.\n"
    + call(
        "Edit",
        file_path="src/dates.py",
        old_string="if day > days_in_month:",
        new_string="if day >= days_in_month:",
    )
    + "\n",
    "Two things to do: list the package, then read its entry point.\n"
    + call("Bash", command="ls -la src/nehanda")
    + "\n"
    + call("Read", file_path="src/nehanda/__main__.py")
    + "\n",
]
PROSE = (
    "The scanner reads the text once, keeps only what might still be a delimiter, "
    "and hands prose to the user as it arrives.\n"
)


def prose_with_calls(size: int) -> str:
    unit = PROSE * 6 + call("Read", file_path="src/app.py") + "\n"
    return unit * max(1, size // len(unit))


def one_big_argument(size: int) -> str:
    return call("Write", file_path="big.txt", content="0123456789abcdef\n" * (size // 17))


def qwen_xml_argument(size: int) -> str:
    return (
        "<tool_call>\n<function=Write>\n<parameter=content>\n"
        + "if a < b:\n    x = [1, 2]\n" * (size // 26)
        + "</parameter>\n</function>\n</tool_call>"
    )


def many_calls(size: int) -> str:
    unit = call("Read", file_path="a.py") + "\n"
    return unit * max(1, size // len(unit))


STREAM_SHAPES: dict[str, Callable[[int], str]] = {
    "prose with calls": prose_with_calls,
    "one big argument": one_big_argument,
    "Qwen3-Coder XML argument": qwen_xml_argument,
    "many calls": many_calls,
}
# Each hostile input at scale 1.0 is the full size; smaller scales project slow peers.
HOSTILE: dict[str, Callable[[float], str]] = {
    "1 MB of unclosed [TOOL_CALL]": lambda k: "[TOOL_CALL]" * int(95_000 * k),
    "1 MB of unclosed <tool_call>{": lambda k: (
        '<tool_call>{"name": "Read", "a": ' * int(30_000 * k)
    ),
    "1 MB of unclosed ```json fences": lambda k: '\n```json\n{"' * int(90_000 * k),
    "200k unclosed braces": lambda k: '[TOOL_CALL]{"a": ' + "{" * int(200_000 * k),
    "5,000 calls in one output": lambda k: many_calls(1) * int(5_000 * k),
    "1 MB argument": lambda k: one_big_argument(int(1_000_000 * k)),
    "1 MB argument needing repair": lambda k: (
        "[TOOL_CALL]{'name': 'Write', 'arguments': "
        + "{'c': '"
        + "x\ny" * int(330_000 * k)
        + "',}}[/TOOL_CALL]"
    ),
}


# -- parsers ----------------------------------------------------------------------

_BLOCK = re.compile(r"\[TOOL_CALL\](.*?)\[/TOOL_CALL\]", re.S)


def _calls(values: list[Any]) -> list[tuple[str, Any]]:
    """Every parser delivers the same product: ToolUse values with fresh ids."""
    out = []
    for value in values:
        if isinstance(value, dict) and value.get("name") in KNOWN:
            use = ToolUse(new_call_id(), value["name"], value.get("arguments"), "rescue")
            out.append((use.name, use.input))
    return out


def peer_json(text: str) -> list[tuple[str, Any]]:
    values = []
    for m in _BLOCK.finditer(text):
        with contextlib.suppress(ValueError, RecursionError):
            values.append(json.loads(m.group(1)))
    return _calls(values)


def peer_json_repair(text: str) -> list[tuple[str, Any]]:
    values = []
    for m in _BLOCK.finditer(text):
        with contextlib.suppress(Exception):
            values.append(json_repair.loads(m.group(1)))
    return _calls(values)


def peer_jiter(text: str) -> list[tuple[str, Any]]:
    values = []
    for m in _BLOCK.finditer(text):
        with contextlib.suppress(ValueError):
            values.append(jiter.from_json(m.group(1).strip().encode(), partial_mode=True))
    return _calls(values)


def ours(text: str) -> list[tuple[str, Any]]:
    return [(c.name, c.input) for c in parse_tool_calls(text, KNOWN).calls]


WHOLE: dict[str, Callable[[str], list[tuple[str, Any]]]] = {
    "nehanda": ours,
    "re+json_repair": peer_json_repair,
    "re+jiter": peer_jiter,
    "re+json": peer_json,
}


def stream_ours(text: str) -> None:
    scanner = ToolCallScanner(KNOWN)
    for i in range(0, len(text), DELTA):
        scanner.feed(text[i : i + DELTA])
    scanner.finish()


def _restream(parse: Callable[[str], object]) -> Callable[[str], None]:
    def run(text: str) -> None:
        for end in range(DELTA, len(text) + DELTA, DELTA):
            parse(text[:end])

    return run


def stream_jiter(text: str) -> None:
    """Complete blocks once, and the open block partially on every delta."""
    buf, done = "", 0
    for i in range(0, len(text), DELTA):
        buf += text[i : i + DELTA]
        for m in _BLOCK.finditer(buf, done):
            jiter.from_json(m.group(1).strip().encode(), partial_mode=True)
            done = m.end()
        start = buf.find("[TOOL_CALL]", done)
        if start >= 0:
            body = buf[start + 11 :].strip().encode()
            if body:
                with contextlib.suppress(ValueError):
                    jiter.from_json(body, partial_mode="trailing-strings")


STREAMED: dict[str, Callable[[str], None]] = {
    "nehanda": stream_ours,
    "re+json_repair": _restream(peer_json_repair),
    "re+jiter": stream_jiter,
    "re+json": _restream(peer_json),
}

# -- measuring --------------------------------------------------------------------


def best_time(run: Callable[[], object], budget: float = 0.3, repeats: int = 3) -> float:
    """Best wall time of one run, repeating small runs until ``budget`` is spent."""
    best, spent, runs = math.inf, 0.0, 0
    while runs < repeats or spent < budget:
        started = time.perf_counter()
        run()
        took = time.perf_counter() - started
        best, spent, runs = min(best, took), spent + took, runs + 1
        if took > 2.0:  # a slow peer: one run says enough
            break
    return best


def exponent(sizes: list[int], times: list[float]) -> float:
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-9)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def fmt_time(seconds: float, estimated: bool = False) -> str:
    text = f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"
    return f"(est. {text})" if estimated else text


def row(label: str, cells: list[str], width: int = 34) -> None:
    print(f"{label:{width}}" + "".join(f"{cell:>18}" for cell in cells))


# -- tables -----------------------------------------------------------------------


def table_complete() -> None:
    print("\n1. Complete text")
    row("", list(WHOLE))
    total = sum(len(t) for t in SMALL_OUTPUTS)
    cells = []
    for parse in WHOLE.values():
        took = best_time(lambda p=parse: [p(t) for t in SMALL_OUTPUTS], budget=0.5, repeats=200)
        cells.append(f"{total / took / 1e6:.1f} MB/s")
    sizes = sorted(len(t) for t in SMALL_OUTPUTS)
    row(f"small outputs ({sizes[0]}-{sizes[-1]} B, 1-2 calls)", cells)
    big = one_big_argument(1_000_000)
    cells = []
    for parse in WHOLE.values():
        took = best_time(lambda p=parse: p(big), budget=0.5, repeats=5)
        cells.append(f"{len(big) / took / 1e6:.0f} MB/s")
    row("one call, 1 MB argument, decoded", cells)


def _project(run: Callable[[str], None], shape: Callable[[int], str]) -> list[str]:
    sizes = [1_000, 10_000, 100_000, 1_000_000]
    times: list[float] = []
    cells: list[str] = []
    for size in sizes:
        if len(times) >= 2:
            slope = exponent(sizes[: len(times)], times)
            projected = times[-1] * (size / sizes[len(times) - 1]) ** slope
            if projected > CAP_SECONDS:
                times.append(projected)
                cells.append(fmt_time(projected, estimated=True))
                continue
        text = shape(size)
        times.append(best_time(lambda t=text: run(t), budget=0.2, repeats=5))
        cells.append(fmt_time(times[-1]))
    cells.append(f"n^{exponent(sizes, times):.2f}")
    return cells


def table_streaming() -> None:
    print(f"\n2. Streamed in {DELTA}-character deltas (time for the whole output)")
    for shape_name, shape in STREAM_SHAPES.items():
        print(f"  {shape_name}")
        row("", ["1 KB", "10 KB", "100 KB", "1 MB", "growth"])
        for name, run in STREAMED.items():
            if shape_name.startswith("Qwen") and name != "nehanda":
                continue  # the peers read only [TOOL_CALL] blocks
            row(f"    {name}", _project(run, shape))


def _hostile_cell(run: Callable[[str], object], make: Callable[[float], str]) -> str:
    scales = [0.01, 0.1, 1.0]
    times: list[float] = []
    for scale in scales:
        if len(times) >= 2:
            slope = exponent([int(s * 1e6) for s in scales[:2]], times)
            projected = times[-1] * 10**slope
            if projected > CAP_SECONDS:
                return fmt_time(projected, estimated=True)
        text = make(scale)
        times.append(best_time(lambda t=text: run(t), budget=0.1))
    return fmt_time(times[-1])


def table_hostile() -> None:
    print("\n3. Hostile inputs, whole text (nehanda also streamed)")
    row("", ["nehanda", f"nehanda {DELTA}-char", *list(WHOLE)[1:]])
    for label, make in HOSTILE.items():
        cells = [_hostile_cell(ours, make), _hostile_cell(stream_ours, make)]
        cells += [_hostile_cell(parse, make) for parse in list(WHOLE.values())[1:]]
        row(label, cells)


R = {"file_path": "a.py"}
CORRECTNESS: list[tuple[str, str, list[tuple[str, Any]]]] = [
    ("plain call", call("Read", **R), [("Read", R)]),
    (
        "closer inside an argument",
        call("Write", content="x [/TOOL_CALL] y"),
        [("Write", {"content": "x [/TOOL_CALL] y"})],
    ),
    ("unclosed final block", call("Read", **R)[: -len("[/TOOL_CALL]")], [("Read", R)]),
    ("cut inside the value", call("Read", **R)[:30], []),
    ("syntax mentioned in prose", "Wrap calls in [TOOL_CALL] and [/TOOL_CALL].", []),
    ("call in a python fence", "```python\nx = '" + call("Read", **R) + "'\n```", []),
    ("draft in reasoning", "<think>" + call("Read", **R) + "</think>Answer: 42.", []),
    (
        "duplicate keys",
        '[TOOL_CALL]{"name": "Bash", "arguments": {"command": "ls", "command": "rm -rf ~"}}'
        "[/TOOL_CALL]",
        [],
    ),
    ("unknown tool", call("Delete", **R), []),
    (
        "single quotes, trailing comma",
        "[TOOL_CALL]{'name': 'Read', 'arguments': {'file_path': 'a.py',}}[/TOOL_CALL]",
        [("Read", R)],
    ),
    (
        "Hermes <tool_call>",
        '<tool_call>\n{"name": "Read", "arguments": {"file_path": "a.py"}}\n</tool_call>',
        [("Read", R)],
    ),
    (
        "Qwen3-Coder XML",
        "<tool_call>\n<function=Read>\n<parameter=file_path>\na.py\n</parameter>\n"
        "</function>\n</tool_call>",
        [("Read", R)],
    ),
]


def table_correctness() -> None:
    print("\n4. Correctness (expected calls found exactly)")
    row("", list(WHOLE))
    score = dict.fromkeys(WHOLE, 0)
    for label, text, expected in CORRECTNESS:
        cells = []
        for name, parse in WHOLE.items():
            try:
                ok = parse(text) == expected
            except Exception:
                ok = False
            score[name] += ok
            cells.append("yes" if ok else "NO")
        row(label, cells)
    row("total", [f"{score[name]}/{len(CORRECTNESS)}" for name in WHOLE])


def main() -> None:
    parser = argparse.ArgumentParser(description="nehanda's rescue parser against its peers")
    parser.add_argument(
        "--ab", type=Path, metavar="BASE", help="only CPU side by side with another tree"
    )
    parser.add_argument("--rounds", type=int, default=5, help="runs of each row in each tree")
    args = parser.parse_args()
    if args.ab is not None:
        compare(args.ab, args.rounds)
        return
    print(f"python {sys.version.split()[0]}, jiter {jiter.__version__}")
    table_complete()
    table_streaming()
    table_hostile()
    table_correctness()
    table_find_ratio(best_time, row)
    table_families(best_time, row)


if __name__ == "__main__":
    main()
