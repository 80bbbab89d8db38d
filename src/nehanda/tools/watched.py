"""Project files that steer a later run, watched across each Bash command.

A command may write anywhere in the workspace, so it can plant configuration that a
later run obeys: nehanda's project settings, ``.mcp.json`` (servers nehanda starts),
``.envrc``, editor tasks, the hook managers' files (husky's ``.husky/``, pre-commit's
and lefthook's configuration), and whatever git runs programs from on the user's next
git command (``git_files.obeyed``: hooks, the folder ``core.hooksPath`` names, a
planted ``commondir``, the configuration and what it includes or names, the drivers
the attributes files pick). ``snapshot`` takes their digests before and after;
``changes`` says what differs, and the note starts with ``NOTE_PREFIX`` so that the
renderer can show it to the user too. ``digests`` is the same digest for any paths.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from nehanda.tools.git_files import obeyed, read_limited
from nehanda.tools.paths import is_inside, workspace_relative

WATCHED = (
    *(".nehanda", ".mcp.json", ".envrc", ".vscode", ".husky", ".pre-commit-config.yaml"),
    *("lefthook.yml", ".lefthook.yml", "lefthook-local.yml", ".lefthook"),
)
# A folder full of files is not configuration: bounds on the work.
MAX_FILES = 500
MAX_ENTRIES = 5000
MAX_DIGESTED = 1 << 22
NOTE_PREFIX = "nehanda: this command changed files that steer later runs:"
# The attributes that make git run a driver its configuration defines.
_DRIVERS = (b"filter=", b"diff=", b"merge=")


def snapshot(workspace: Path) -> dict[str, str]:
    """Each watched file (under a watched folder too) and a digest of its content."""
    git = obeyed(workspace, Path.home())
    places = [workspace / name for name in WATCHED] + list(git.whole)
    found: dict[str, str] = {}
    for place in dict.fromkeys(places):
        shown = _shown(place, workspace)
        for file in _files(place):
            key = shown if file == place else f"{shown}/{file.relative_to(place).as_posix()}"
            found[key] = _digest(file)
    for file in git.attributes:
        if (drivers := _driver_lines(file)) is not None:
            found[_shown(file, workspace)] = drivers
    return found


def digests(paths: Iterable[Path]) -> dict[Path, str]:
    """Each of ``paths`` that is a file (or a symlink) and a digest of its content."""
    return {path: _digest(path) for path in paths if _is_file(path)}


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    added = [f"{name} (added)" for name in after if name not in before]
    removed = [f"{name} (removed)" for name in before if name not in after]
    changed = [f"{n} (changed)" for n in after if n in before and before[n] != after[n]]
    return sorted(added + changed + removed)


def note(changed: list[str]) -> str:
    return (
        f"{NOTE_PREFIX} {', '.join(changed)}. Tell the user: the programs that read them "
        "(git, a hook manager, direnv, the editor) obey them on their next run; nehanda asks "
        "before it obeys its own (a changed project settings file or .mcp.json is untrusted "
        "until approved)."
    )


def steering_note(content: str) -> str | None:
    """The note in a tool's output, if it carries one."""
    start = content.rfind(NOTE_PREFIX)
    return content[start:].split("\n", 1)[0] if start >= 0 else None


def _shown(path: Path, workspace: Path) -> str:
    return workspace_relative(path, workspace) if is_inside(path, workspace) else str(path)


def _driver_lines(path: Path) -> str | None:
    """A digest of the lines of an attributes file that name a driver; None where it
    has none (or is missing); of the whole file where it is too large to read."""
    text = read_limited(path)
    if text is None:
        return _digest(path)
    lines = [line for line in text.splitlines() if any(d in line.lower() for d in _DRIVERS)]
    return hashlib.sha256(b"\n".join(lines)).hexdigest() if lines else None


def _files(path: Path) -> list[Path]:
    """``path`` if a file or a symlink, and the files in it if a folder (a symlink to one
    too: ``.git/hooks`` may point elsewhere)."""
    try:
        found = [path] if path.is_symlink() or path.is_file() else []
        if not path.is_dir():
            return found
    except OSError:
        return []
    seen = 0
    # A walk in order, cut short: core.hooksPath may name / itself.
    for folder, folders, names in os.walk(path):
        folders.sort()
        # Symlinks to folders are not walked into, but count as links.
        links = [name for name in folders if Path(folder, name).is_symlink()]
        for name in sorted(names + links):
            seen += 1
            file = Path(folder, name)
            # git never runs a hook's .sample, and `git init` writes a dozen of them.
            if file.suffix != ".sample" and _is_file(file):
                found.append(file)
            if len(found) >= MAX_FILES or seen >= MAX_ENTRIES:
                return found
    return found


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISLNK(mode := path.lstat().st_mode) or stat.S_ISREG(mode)
    except OSError:
        return False


def _digest(path: Path) -> str:
    try:
        if path.is_symlink():
            return "link:" + str(path.readlink())
        # Not blocking: a FIFO put in the file's place while it was looked at.
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as error:
        return f"unreadable:{error.errno}"
    with os.fdopen(handle, "rb") as stream:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            return f"special:{stat.S_IFMT(status.st_mode):o}"
        try:
            head = hashlib.sha256(stream.read(MAX_DIGESTED)).hexdigest()
        except OSError as error:
            return f"unreadable:{error.errno}"
    # Past its first bytes a large file counts by its size and time of change.
    tail = f":{status.st_size}:{status.st_mtime_ns}" if status.st_size > MAX_DIGESTED else ""
    return f"{head}:{status.st_mode & 0o111:o}{tail}"
