"""What a test can tell of a process by its pid, from /proc."""

from __future__ import annotations

from pathlib import Path


def gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs; a zombie nobody has reaped yet is gone too."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"
