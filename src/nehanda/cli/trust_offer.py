"""The REPL's question at start in a folder not trusted yet that holds what trust would
load: its ``AGENTS.md``, project settings that say more than an untrusted folder may,
``.mcp.json``, Claude Code's project settings (hooks), and its commands, skills and
subagent folders.

``y`` trusts it as ``nehanda trust`` does (the same record), before the session opens,
so all of it applies from this session on; ``v`` shows the files, capped and with every
control character escaped (``ui.shown_text.printable``: a file may be anyone's), and
asks again; anything else keeps the folder untrusted. Never asked without a terminal.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.text import Text

from nehanda.config.agent_files import agent_folders
from nehanda.config.extension_files import places
from nehanda.config.settings import (
    Flags,
    claude_settings_paths,
    load_settings,
    project_settings_path,
)
from nehanda.config.trust import is_trusted, trust_folder
from nehanda.engine.system_prompt import INSTRUCTIONS_FILE
from nehanda.ui.approval import read_key
from nehanda.ui.live import LiveRenderer

QUESTION = "trust this folder? [y/N/v to view AGENTS.md and settings] "
SHOWN_LINES = 40
LATER = "not trusted; to trust it later, run `nehanda trust` here and start again"


def withheld(workspace: Path, ignored: tuple[str, ...]) -> tuple[list[Path], list[Path]]:
    """What trust would load, as the files ``v`` shows and the folders it only names."""
    files = [workspace / INSTRUCTIONS_FILE, workspace / ".mcp.json"]
    files.append(claude_settings_paths(workspace)[1])
    shown = [path for path in files if path.is_file()]
    if ignored:
        shown.insert(1, project_settings_path(workspace))
    folders = [
        place.folder
        for kind in ("commands", "skills")
        for place in places(kind, workspace, trusted=True)
        if place.scope == "project"
    ]
    trusted_only = set(agent_folders(workspace, trusted=True)) - set(
        agent_folders(workspace, trusted=False)
    )
    folders += sorted(trusted_only)
    return shown, [folder for folder in folders if folder.is_dir()]


async def offer_trust(workspace: Path, flags: Flags, renderer: LiveRenderer) -> None:
    """At a terminal, asks once whether to trust ``workspace`` when it holds what trust
    would load; ``y`` trusts it before the session opens, so that all of it applies."""
    if not (sys.stdin.isatty() and renderer.console.is_terminal) or is_trusted(workspace):
        return
    ignored = load_settings(workspace, flags).untrusted_ignored
    files, folders = withheld(workspace, ignored)
    if not files and not folders:
        return
    names = [_name(path, workspace) for path in [*files, *folders]]
    sets = f" (its settings set {', '.join(ignored)})" if ignored else ""
    renderer.say(
        f"{workspace} is not trusted; it holds {', '.join(names)}{sets}, which apply only "
        "in a trusted folder. Trust it only if you trust whoever wrote them: its "
        "instructions go to the model, and its settings may let commands run without "
        "asking and send the conversation and your API keys to the servers they name.",
        "yellow",
    )
    while True:
        renderer.console.print(Text(QUESTION), end="")
        key = (await read_key(sys.stdin)).lower()
        renderer.console.print()
        if key == "v":
            _show(files, folders, workspace, renderer)
            continue
        if key == "y":
            renderer.say(f"trusted {trust_folder(workspace)}; its files apply from now on")
        else:
            renderer.say(LATER, "dim")
        return


def _show(files: list[Path], folders: list[Path], workspace: Path, renderer: LiveRenderer) -> None:
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            renderer.error(f"{path}: cannot read it: {exc.strerror}")
            continue
        renderer.say(f"── {_name(path, workspace)} ({len(lines)} lines)", "bold")
        for line in lines[:SHOWN_LINES]:
            renderer.say(line)
        if len(lines) > SHOWN_LINES:
            renderer.say(f"… {len(lines) - SHOWN_LINES} more lines in {path}", "dim")
    for folder in folders:
        count = sum(1 for _ in folder.rglob("*.md"))
        renderer.say(f"── {_name(folder, workspace)}/ ({count} Markdown files)", "bold")


def _name(path: Path, workspace: Path) -> str:
    return str(path.relative_to(workspace)) if path.is_relative_to(workspace) else str(path)
