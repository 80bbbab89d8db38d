"""Project files that steer a later run, watched across each Bash command.

A command may write anywhere in the workspace, so it can plant configuration that a
later run obeys: nehanda's project settings, ``.mcp.json`` (servers nehanda starts),
git hooks and config (run by the next ``git commit``), ``.envrc``, editor tasks.
``snapshot`` takes their digests before and after; ``changes`` says what differs, and
the note starts with ``NOTE_PREFIX`` so that the renderer can show it to the user too.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from nehanda.sandbox.places import git_folders

WATCHED = (".nehanda", ".mcp.json", ".git/hooks", ".git/config", ".envrc", ".vscode")
GIT_WATCHED = ("hooks", "config")
# A folder full of files is not configuration: a bound on the work.
MAX_FILES = 500
NOTE_PREFIX = "nehanda: this command changed files that steer later runs:"


def snapshot(workspace: Path) -> dict[str, str]:
    """Each watched file (under a watched folder too) and a digest of its content."""
    places = [(name, workspace / name) for name in WATCHED]
    for folder in git_folders(workspace):
        places += [(str(folder / name), folder / name) for name in GIT_WATCHED]
    found: dict[str, str] = {}
    for shown, path in places:
        for file in _files(path):
            key = shown if file == path else f"{shown}/{file.relative_to(path)}"
            found[key] = _digest(file)
    return found


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    added = [f"{name} (added)" for name in after if name not in before]
    removed = [f"{name} (removed)" for name in before if name not in after]
    changed = [f"{n} (changed)" for n in after if n in before and before[n] != after[n]]
    return sorted(added + changed + removed)


def note(changed: list[str]) -> str:
    return (
        f"{NOTE_PREFIX} {', '.join(changed)}. Tell the user; nehanda asks before it obeys "
        "them (a changed project settings file or .mcp.json is untrusted until approved)."
    )


def steering_note(content: str) -> str | None:
    """The note in a tool's output, if it carries one."""
    start = content.rfind(NOTE_PREFIX)
    return content[start:].split("\n", 1)[0] if start >= 0 else None


def _files(path: Path) -> list[Path]:
    if path.is_symlink() or path.is_file():
        return [path]
    if not path.is_dir():
        return []
    found: list[Path] = []
    for file in sorted(path.rglob("*")):
        if len(found) >= MAX_FILES:
            break
        # git never runs a hook's .sample, and `git init` writes a dozen of them.
        if (file.is_symlink() or file.is_file()) and file.suffix != ".sample":
            found.append(file)
    return found


def _digest(path: Path) -> str:
    if path.is_symlink():
        return "link:" + str(path.readlink())
    try:
        executable = path.stat().st_mode & 0o111
        return f"{hashlib.sha256(path.read_bytes()).hexdigest()}:{executable:o}"
    except OSError as error:
        return f"unreadable:{error.errno}"
