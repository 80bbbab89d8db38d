"""MCP servers as settings define them: ``[mcp_servers.NAME]``, ``[mcp]`` and ``.mcp.json``.

A server is a command (stdio) or a URL (streamable HTTP). Servers come from the user's
settings file, and from the project's ``.nehanda/settings.toml`` and ``.mcp.json`` (Claude
Code's format) only once the folder is trusted; a project server also needs its own
approval (``config.mcp_approvals``). Values may name environment variables
(``${VAR}``, ``${VAR:-default}``), read from the environment as it was when nehanda started,
since the sandbox later takes provider keys out of the live one. Pure apart from
reading ``.mcp.json``; nothing here starts a server.

A server's tools are named ``mcp__PART__TOOL`` and a rule ``mcp__PART__*`` covers them
all, so two servers whose names give the same ``PART`` (``gh`` and ``gh.``; ``gh`` and
``GH`` too, which read the same) would share every rule: the later one is left out, and
a project's server always comes after the user's.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from nehanda.errors import ConfigError

Origin = Literal["user", "project"]
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_-]")
_RUNS_OF_UNDERSCORES = re.compile(r"_{2,}")
# At most 48 characters, so that ``mcp__PART__`` stays whole in every 64-character tool
# name, with room left for the tool's own part.
MAX_SERVER_PART = 48
# How long a session's first request waits for MCP servers still starting; the rest join
# from a later request on.
START_GRACE = 1.0


class McpServerEntry(BaseModel):
    """One ``[mcp_servers.NAME]`` table: ``command`` (stdio) or ``url`` (streamable HTTP)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=60.0, gt=0)
    enabled: bool = True
    sandbox: bool = False

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerEntry:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (streamable HTTP)")
        if self.url is not None and (self.args or self.env or self.cwd or self.sandbox):
            raise ValueError(
                "args, env, cwd and sandbox belong to a command; a url server takes headers"
            )
        return self


class McpTable(BaseModel):
    """``[mcp]``: when tools are deferred behind ToolSearch, and how long servers may take.

    ``tool_search``: ``auto`` defers the MCP tools when their schemas would cost more than
    ``tool_budget_percent`` of the context window, or when there are more than
    ``max_tools`` of them; ``always`` and ``never`` decide regardless. ``start_grace``:
    how long the first request waits for servers still starting.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_search: Literal["auto", "always", "never"] = "auto"
    tool_budget_percent: int = Field(default=10, ge=1, le=100)
    max_tools: int | None = Field(default=None, ge=0)
    start_timeout: float = Field(default=30.0, gt=0)
    start_grace: float = Field(default=START_GRACE, ge=0)


def server_part(server: str) -> str:
    """A server's name as its tools' names show it: NFKC-normalised (full-width letters
    read as the letters they look like), every other character than a letter, digit,
    ``_`` or ``-`` made ``_``, never ``__`` and never ``_`` at an end, at most
    ``MAX_SERVER_PART`` characters."""
    plain = _NOT_IN_NAMES.sub("_", unicodedata.normalize("NFKC", server))
    cleaned = _RUNS_OF_UNDERSCORES.sub("_", plain).strip("_")
    return cleaned[:MAX_SERVER_PART].rstrip("_") or "server"


def _prefix_key(server: str) -> str:
    return server_part(server).lower()


@dataclass(frozen=True)
class DefinedServer:
    """A server as one settings file defines it; ``source`` is that file, ``line`` where
    in it the server's name is written (when found)."""

    name: str
    entry: McpServerEntry
    origin: Origin
    source: str
    line: int | None = None

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source

    def fingerprint(self) -> str:
        """What a project server's approval is bound to: everything that says what runs
        or where requests go, as written (before ``${VAR}`` expansion), and whether it runs
        in the sandbox (only when it does, so older approvals stay valid)."""
        entry = self.entry
        what: list[object] = [entry.command, entry.args, entry.env, entry.cwd, entry.url]
        what += [entry.headers, *(["sandbox"] if entry.sandbox else [])]
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


def expand(entry: McpServerEntry, environ: Mapping[str, str]) -> McpServerEntry:
    """``entry`` with ``${VAR}`` replaced in every value; ``ValueError`` naming an unset one."""

    def one(text: str) -> str:
        def value(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in environ:
                return environ[name]
            if default is not None:
                return default
            raise ValueError(f"it names ${{{name}}}, which is not set in the environment")

        return _VARIABLE.sub(value, text)

    return entry.model_copy(
        update={
            "command": one(entry.command) if entry.command else None,
            "args": [one(arg) for arg in entry.args],
            "env": {key: one(val) for key, val in entry.env.items()},
            "cwd": one(entry.cwd) if entry.cwd else None,
            "url": one(entry.url) if entry.url else None,
            "headers": {key: one(val) for key, val in entry.headers.items()},
        }
    )


def variables_named(entry: McpServerEntry) -> list[str]:
    """The environment variables ``entry``'s values name, in order, each once (a project
    server that names ``${OPENAI_API_KEY}`` would receive the key: the approval says so)."""
    values = [entry.command or "", *entry.args, *entry.env.values(), entry.cwd or ""]
    values += [entry.url or "", *entry.headers.values()]
    found = [match.group(1) for value in values for match in _VARIABLE.finditer(value)]
    return list(dict.fromkeys(found))


def servers_in_layer(
    table: Mapping[str, Any], origin: Origin, source: Path, text: str = ""
) -> list[DefinedServer]:
    """The ``[mcp_servers]`` of one settings file (already validated with it), whose
    ``text`` tells the line each is defined on."""
    return [
        DefinedServer(
            name,
            McpServerEntry.model_validate(raw),
            origin,
            str(source),
            _line_naming(text, "mcp_servers", [name, json.dumps(name), f"'{name}'"], r"[\].=]"),
        )
        for name, raw in table.items()
    ]


def _line_naming(text: str, after: str, forms: Iterable[str], then: str) -> int | None:
    """The first line, from the one naming ``after`` on, where one of ``forms`` is written
    as a key (followed by ``then``)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if after in line), len(lines))
    written = "|".join(re.escape(form) for form in forms)
    key = re.compile(r"(?:^|[\s\[{,.])(?:" + written + r")\s*" + then)
    return next((i + 1 for i in range(start, len(lines)) if key.search(lines[i])), None)


def mcp_json_path(workspace: Path) -> Path:
    return workspace / ".mcp.json"


def read_mcp_json(workspace: Path) -> tuple[list[DefinedServer], list[str]]:
    """The servers a project's ``.mcp.json`` defines, and a note for each one of a kind
    nehanda does not speak (``sse``); ``ConfigError`` for a broken file."""
    path = mcp_json_path(workspace)
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except FileNotFoundError:
        return [], []
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read it as JSON: {exc}") from exc
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError(f'{path}: expected {{"mcpServers": {{NAME: {{...}}}}}}')
    found, notes = [], []
    for name, raw in servers.items():
        kind = (
            raw.get("type", "stdio" if "command" in raw else "http")
            if isinstance(raw, dict)
            else ""
        )
        if kind in ("stdio", "http", "streamable-http"):
            line = _line_naming(text, '"mcpServers"', [json.dumps(name)], ":")
            found.append(_from_claude_format(path, name, raw, line))
        else:
            notes.append(
                f"MCP server {name!r} in {path} was skipped: type {kind!r} is not supported "
                '(nehanda speaks stdio and streamable HTTP, type "http")'
            )
    return found, notes


def _from_claude_format(
    path: Path, name: str, raw: dict[str, Any], line: int | None
) -> DefinedServer:
    fields = {key: value for key, value in raw.items() if key != "type"}
    try:
        entry = McpServerEntry.model_validate(fields)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ConfigError(
            f"{path}: mcpServers.{name}{'.' + where if where else ''}: {problem['msg']}"
        ) from None
    return DefinedServer(name, entry, "project", str(path), line)


def merge_servers(
    servers: list[DefinedServer],
) -> tuple[tuple[DefinedServer, ...], tuple[str, ...]]:
    """Every server once, user ones first; a later one whose name, or whose tools' prefix,
    is an earlier one's is left out, with a note: a project must not take over the tools
    of a user's server, which the user's rules name, and one rule must not cover two."""
    kept: dict[str, DefinedServer] = {}
    notes: list[str] = []
    for server in sorted(servers, key=lambda s: s.origin != "user"):
        first = kept.setdefault(_prefix_key(server.name), server)
        if first is server:
            continue
        if first.name == server.name:
            why = f"{first.where} already defines a server of that name"
        else:
            mine, theirs = (f"mcp__{server_part(s.name)}__*" for s in (server, first))
            alike = "as" if mine == theirs else f"which reads as {theirs}, the prefix of"
            why = (
                f"its tools would be named {mine}, {alike} the tools of {first.name!r} "
                f"from {first.where}; rename one of them"
            )
        notes.append(f"MCP server {server.name!r} in {server.where} was skipped: {why}")
    return tuple(kept.values()), tuple(notes)
