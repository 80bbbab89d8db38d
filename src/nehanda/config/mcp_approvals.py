"""Which project MCP servers the user approved, each bound to its fingerprint.

A server defined in a project's files runs whatever the project's author (or a model
with write access to the workspace) wrote there, so trusting the folder is not enough:
each project server is approved once, and approved again whenever its command, args,
env, cwd, url or headers change. The approvals are a JSON object in the user's state
directory: ``{"servers": {"<workspace>": {"<name>": "<fingerprint>"}}}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

from nehanda.config.mcp import DefinedServer
from nehanda.errors import ConfigError
from nehanda.fs import state_dir, write_atomic

Approval = Literal["approved", "new", "changed"]


def approvals_path() -> Path:
    return state_dir() / "approved_mcp_servers.json"


def approval(workspace: Path, server: DefinedServer) -> Approval:
    """Whether ``server`` may start: user servers always may; project ones once approved."""
    if server.origin == "user":
        return "approved"
    known = _read().get(_key(workspace), {}).get(server.name)
    if known is None:
        return "new"
    return "approved" if known == server.fingerprint() else "changed"


def approve(workspace: Path, server: DefinedServer) -> None:
    data = _read()
    data.setdefault(_key(workspace), {})[server.name] = server.fingerprint()
    path = approvals_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"servers": data}, indent=2, sort_keys=True) + "\n"
    write_atomic(path, body.encode(), 0o600)


def skipped_note(server: DefinedServer, state: Approval) -> str:
    what = "is new" if state == "new" else "changed since you approved it"
    return (
        f"MCP server {server.name!r} from {server.source} {what}, so it was not started; "
        f"`nehanda mcp approve {server.name}` shows what it runs and approves it"
    )


def _key(workspace: Path) -> str:
    return os.path.realpath(workspace)


def _read() -> dict[str, dict[str, str]]:
    path = approvals_path()
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the MCP server approvals: {exc}") from exc
    servers = data.get("servers") if isinstance(data, dict) else None
    if not isinstance(servers, dict) or not all(isinstance(v, dict) for v in servers.values()):
        raise ConfigError(f'{path}: expected {{"servers": {{...}}}}; fix the file or delete it')
    return servers
