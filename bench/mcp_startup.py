"""What MCP servers add to start-up, in this tree and another, side by side.

Run by hand: ``python bench/mcp_startup.py [--runs N] [--baseline PATH_TO_OTHER_TREE]``
(e.g. ``--baseline /work/main``, a worktree of the commit before a change).

For no server, one server that answers at once (``bench/instant_mcp_server.py``:
hand-written, no SDK to import, so all that is left is nehanda's own cost: the SDK's
import and the handshake) and one that never answers
(``tests/fixtures/mcp/silent_server.py``; ``[mcp] start_timeout = 10`` here, 30 by
default), the median wall time until a one-turn ``nehanda run`` sends its chat request,
until it exits, and until the REPL's prompt is up in a pseudo-terminal. The commands run
as ``bench/startup.py`` runs them (its ``Tree``: bytecode cached, a private home, an
instant local model server), each server a user server, so nothing asks to approve it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from startup import FirstBytes, Sample, Tree, samples

HERE = Path(__file__).resolve().parent
SERVERS = {
    "no MCP server": "",
    "one instant MCP server": f"{HERE / 'instant_mcp_server.py'}",
    "one silent MCP server": f"{HERE.parent / 'tests' / 'fixtures' / 'mcp' / 'silent_server.py'}",
}
START_TIMEOUT = 10


def settings(script: str) -> str:
    if not script:
        return ""
    return (
        f"[mcp]\nstart_timeout = {START_TIMEOUT}\n"
        f'[mcp_servers.bench]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n'
    )


def measures(src: Path, runs: int) -> dict[str, list[float]]:
    """Every row's wall seconds for one tree."""
    rows: dict[str, list[float]] = {}
    for label, script in SERVERS.items():
        tree, server = Tree(src), FirstBytes()
        path = tree.home / "config" / "nehanda" / "settings.toml"
        path.parent.mkdir(parents=True)
        path.write_text(settings(script))
        turns = [tree.requests(server) for _ in range(runs + 1)][1:]
        rows[f"{label}: run, chat request sent"] = [chat.wall for _, _, chat in turns]
        rows[f"{label}: run, exited"] = [run.wall for run, _, _ in turns]
        prompts: list[Sample] = samples(lambda: tree.prompt(server), runs)  # noqa: B023
        rows[f"{label}: REPL prompt up"] = [prompt.wall for prompt in prompts]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another tree to compare with")
    args = parser.parse_args()
    trees = {"this tree": HERE.parent}
    if args.baseline:
        trees[f"baseline {args.baseline}"] = args.baseline.resolve()
    columns = {name: measures(root / "src", args.runs) for name, root in trees.items()}
    head = f"{'median wall ms':52}" + "".join(f" | {name[-24:]:>24}" for name in columns)
    print(head + "\n" + "-" * len(head))
    for row in next(iter(columns.values())):
        cells = "".join(f" | {statistics.median(c[row]) * 1000:24.0f}" for c in columns.values())
        print(f"{row:52}" + cells)
    print(f"\n{args.runs} runs each; the silent server's start_timeout is {START_TIMEOUT} s")


if __name__ == "__main__":
    main()
