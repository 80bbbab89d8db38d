"""Start-up time of ``nehanda --help`` and ``--version`` against a bare interpreter.

Run by hand: ``python bench/startup.py [runs]``. Prints median and best wall time per
command and the ratio to ``python -c pass``. Target: median under 150 ms.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def timings(command: list[str]) -> list[float]:
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    nehanda = shutil.which("nehanda") or sys.exit("nehanda is not on PATH: pip install -e .")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "nehanda --help": [nehanda, "--help"],
        "nehanda --version": [nehanda, "--version"],
        "python -m nehanda --help": [sys.executable, "-m", "nehanda", "--help"],
    }
    results = {name: timings(command) for name, command in commands.items()}
    base = statistics.median(results["python -c pass"])
    print(f"{'command':28} {'median ms':>10} {'best ms':>8} {'x bare':>7}")
    for name, samples in results.items():
        median = statistics.median(samples)
        print(f"{name:28} {median * 1000:10.1f} {min(samples) * 1000:8.1f} {median / base:7.2f}")


if __name__ == "__main__":
    main()
