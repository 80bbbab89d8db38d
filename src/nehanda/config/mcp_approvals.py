"""Which project MCP servers and hooks the user approved, each bound to its fingerprint.

A server or hook defined in a project's files runs whatever the project's author (or a
model with write access to the workspace) wrote there, so trusting the folder is not
enough: each one is approved once, and approved again whenever what it runs changes
(a server's command, args, env, cwd, url or headers; a hook's event, matcher, command or
timeout). The approvals are a JSON object in the user's state directory, one section per
kind: ``{"servers": {"<workspace>": {"<name>": "<fingerprint>"}}, "hooks": {...}}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal, Protocol

from nehanda.config.mcp import DefinedServer, Origin
from nehanda.errors import ConfigError
from nehanda.fs import state_dir, write_atomic

Approval = Literal["approved", "new", "changed"]
Section = Literal["servers", "hooks"]


class Approvable(Protocol):
    """A project's server or hook: what its approval is kept under, and bound to."""

    @property
    def name(self) -> str: ...

    @property
    def origin(self) -> Origin: ...

    def fingerprint(self) -> str: ...


def approvals_path() -> Path:
    return state_dir() / "approved_mcp_servers.json"


def approval(workspace: Path, item: Approvable, section: Section = "servers") -> Approval:
    """Whether ``item`` may run: a user's always may; a project's once approved."""
    if item.origin == "user":
        return "approved"
    known = _read().get(section, {}).get(_key(workspace), {}).get(item.name)
    if known is None:
        return "new"
    return "approved" if known == item.fingerprint() else "changed"


def approve(workspace: Path, item: Approvable, section: Section = "servers") -> None:
    data = _read()
    data.setdefault(section, {}).setdefault(_key(workspace), {})[item.name] = item.fingerprint()
    path = approvals_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(data, indent=2, sort_keys=True) + "\n"
    write_atomic(path, body.encode(), 0o600)


def skipped_note(server: DefinedServer, state: Approval) -> str:
    what = "is new" if state == "new" else "changed since you approved it"
    return (
        f"MCP server {server.name!r} from {server.source} {what}, so it was not started; "
        f"`nehanda mcp approve {server.name}` shows what it runs and approves it"
    )


def _key(workspace: Path) -> str:
    return os.path.realpath(workspace)


def _read() -> dict[str, dict[str, dict[str, str]]]:
    path = approvals_path()
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the approvals: {exc}") from exc
    sections = data if isinstance(data, dict) else None
    if sections is None or not all(
        isinstance(section, dict) and all(isinstance(v, dict) for v in section.values())
        for section in sections.values()
    ):
        raise ConfigError(f'{path}: expected {{"servers": {{...}}}}; fix the file or delete it')
    return sections
