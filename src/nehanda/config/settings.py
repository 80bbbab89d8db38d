"""Layered settings: defaults < user file < project file < environment < flags.

The user file is ``$XDG_CONFIG_HOME/nehanda/settings.toml``, the project file
``.nehanda/settings.toml`` in the workspace. A file that cannot be read is a
``ConfigError`` naming the file and line; nothing silently falls back. API key
values never live here: a provider names the environment variable that holds its key.
Permission rules add up across files (``allow``, ``ask`` and ``deny`` lists are joined);
they stay strings here, each with the file and line it was written on, and
``permissions`` reads them. The project file of a folder the user has not trusted may
only tighten permissions and cannot redirect providers (``trust``).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from nehanda.config.hooks import DefinedHook, HooksTable, claude_hooks, hooks_in_layer
from nehanda.config.mcp import (
    DefinedServer,
    McpServerEntry,
    McpTable,
    mcp_json_path,
    merge_servers,
    read_mcp_json,
    servers_in_layer,
)
from nehanda.config.mcp import Origin as McpOrigin
from nehanda.config.permission_modes import Mode
from nehanda.config.profiles import PROFILES, profile_for
from nehanda.config.rule_text import split_rule
from nehanda.config.trust import is_trusted, restrain_untrusted
from nehanda.errors import ConfigError, UnknownProviderError
from nehanda.fs import config_dir

ProviderType = Literal["openai", "lmstudio", "vllm", "ollama", "anthropic", "nehanda"]
PROVIDER_TYPES: tuple[str, ...] = tuple(PROFILES)


class ProviderConfig(BaseModel):
    """One provider entry, fully resolved: every field has its final value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    type: ProviderType
    base_url: str
    model: str | None = None
    api_key_env: str | None = None
    force_manual_tools: bool = False
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    max_retries: int = 3
    context_cap: int | None = None
    context_window: int | None = None
    vision: bool | None = None  # whether the model sees images; None: send them and see

    def api_key(self, environ: Mapping[str, str] = os.environ) -> str | None:
        """The API key from the environment variable the entry names, if any."""
        if not self.api_key_env:
            return None
        return environ.get(self.api_key_env) or None


class ProviderEntry(BaseModel):
    """A provider as written in a settings file; missing fields take the type's defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: ProviderType
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    force_manual_tools: bool = False
    connect_timeout: float = Field(default=10.0, gt=0)
    read_timeout: float = Field(default=300.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    context_cap: int | None = Field(default=None, ge=512)
    context_window: int | None = Field(default=None, ge=1024)
    vision: bool | None = None


class PermissionsTable(BaseModel):
    """``[permissions]``: the mode and rules such as ``Bash(git status)``, ``Edit(src/**)``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Mode | None = None
    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)


class SandboxTable(BaseModel):
    """``[sandbox]``: the kernel sandbox every Bash command runs in (``nehanda.sandbox``).

    ``writable`` adds roots to the default writable ones; ``deny_read`` adds paths no
    command may read. Both add up across settings files; ``~`` is the home directory, and
    a relative path is taken from the workspace.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    network: bool = False
    writable: list[str] = Field(default_factory=list)
    deny_read: list[str] = Field(default_factory=list)


class ServeModel(BaseModel):
    """A model name ``nehanda serve``'s clients use, and what it stands for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    model: str | None = None


class ServeTable(BaseModel):
    """``[serve]``: where ``nehanda serve`` listens, who may call it, what it serves."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    # The variable holding the bearer token clients must send.
    api_key_env: str | None = None
    # The most requests one upstream answers at once, per worker; past it, a 429. 256 is
    # vLLM's default max_num_seqs: past it an upstream would queue the requests itself.
    max_concurrency: int = Field(default=256, ge=1)
    models: dict[str, ServeModel] = Field(default_factory=dict)
    # Names a loopback bind answers besides localhost and loopback addresses (the Host
    # header without its port), such as a name /etc/hosts gives this machine.
    allowed_hosts: list[str] = Field(default_factory=list)
    # Web pages that may call serve from a browser (CORS), as origins.
    cors_origins: list[str] = Field(default_factory=list)

    @field_validator("allowed_hosts")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not _HOST_NAME.fullmatch(name) and not _is_address(name):
                raise ValueError(f"{name!r} is not a host name: write it without scheme or port")
        return [name.lower().rstrip(".") for name in names]

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if not _ORIGIN.fullmatch(origin.rstrip("/")):
                raise ValueError(
                    f"{origin!r} is not an origin: write scheme, host and port, such as "
                    '"http://localhost:5173" (no path, no "*")'
                )
        return [origin.rstrip("/").lower() for origin in origins]


_HOST_NAME = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_.])?")
_ORIGIN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s*@]+")


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class AgentsTable(BaseModel):
    """``[agents]``: subagents (the ``Task`` tool); ``max_parallel`` of them run at once."""

    model_config = ConfigDict(extra="forbid")
    max_parallel: int = Field(default=4, ge=1, le=32)


class NotifyTable(BaseModel):
    """``[notify]``: when the REPL tells the user a long reply ended or an approval waits.

    ``after``: a reply that took longer than this many seconds rings when it ends.
    ``command``: also run with a JSON object on stdin (only the user's file may set it:
    it runs with the user's rights)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    after: float = Field(default=30.0, ge=0)
    command: str | None = None


class CheckpointsTable(BaseModel):
    """``[checkpoints]``: what ``nehanda undo`` keeps. Sessions older than ``keep_days``
    are dropped, then the oldest while the store is over ``max_size_mb``; a file over
    ``max_file_mb`` is listed, not copied (undo cannot restore it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    keep_days: float = Field(default=30.0, gt=0)
    max_size_mb: float = Field(default=1024.0, gt=0)
    max_file_mb: float = Field(default=10.0, gt=0)


class SettingsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    default_provider: str | None = None
    max_turns: int = Field(default=50, ge=1)
    recover_leaked_calls: bool = True
    auto_compact: bool = True
    providers: dict[str, ProviderEntry] = Field(default_factory=dict)
    permissions: PermissionsTable = Field(default_factory=PermissionsTable)
    mcp_servers: dict[str, McpServerEntry] = Field(default_factory=dict)
    mcp: McpTable = Field(default_factory=McpTable)
    sandbox: SandboxTable = Field(default_factory=SandboxTable)
    serve: ServeTable = Field(default_factory=ServeTable)
    agents: AgentsTable = Field(default_factory=AgentsTable)
    hooks: HooksTable = Field(default_factory=HooksTable)
    notify: NotifyTable = Field(default_factory=NotifyTable)
    checkpoints: CheckpointsTable = Field(default_factory=CheckpointsTable)


@dataclass(frozen=True)
class Flags:
    """Command-line choices; ``None`` means the flag was not given."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    max_turns: int | None = None
    force_manual_tools: bool = False
    api_key_env: str | None = None  # --api-key-env: the variable holding this run's key


@dataclass(frozen=True)
class RuleText:
    """A permission rule as written, and where: ``source`` is ``file:line``."""

    text: str
    source: str


@dataclass(frozen=True)
class PermissionSettings:
    """``[permissions]`` of every layer merged: the last mode set, and every rule.

    ``ignored`` holds the allow rules of an untrusted project, which do not apply but
    must still be valid rules: a file with a broken rule is an error wherever it stands.
    """

    mode: Mode = "default"
    allow: tuple[RuleText, ...] = ()
    ask: tuple[RuleText, ...] = ()
    deny: tuple[RuleText, ...] = ()
    ignored: tuple[RuleText, ...] = ()


@dataclass(frozen=True)
class Settings:
    default_provider: str | None = None
    # Where default_provider was set, named when it names no provider ("PATH:LINE: ...").
    default_provider_source: str | None = None
    max_turns: int = 50
    max_turns_source: str = "--max-turns"  # where the limit was set, for the message it ends
    recover_leaked_calls: bool = True
    auto_compact: bool = True
    providers: dict[str, ProviderEntry] = field(default_factory=dict)
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    force_manual_tools: bool = False
    permissions: PermissionSettings = field(default_factory=PermissionSettings)
    sandbox: SandboxTable = field(default_factory=SandboxTable)
    # Keys of an untrusted project file that were ignored, such as "permissions.allow".
    untrusted_ignored: tuple[str, ...] = ()
    mcp: McpTable = field(default_factory=McpTable)
    # Every MCP server defined, user ones first; project ones still need approval.
    mcp_servers: tuple[DefinedServer, ...] = ()
    # Why servers were left out while reading the settings.
    mcp_notes: tuple[str, ...] = ()
    serve: ServeTable = field(default_factory=ServeTable)
    agents: AgentsTable = field(default_factory=AgentsTable)
    # Every hook defined, user ones first; project ones still need approval.
    hooks: tuple[DefinedHook, ...] = ()
    # Where hooks were read from in Claude Code's format, and what was skipped.
    hook_notes: tuple[str, ...] = ()
    notify: NotifyTable = field(default_factory=NotifyTable)
    checkpoints: CheckpointsTable = field(default_factory=CheckpointsTable)


def user_settings_path() -> Path:
    return config_dir() / "settings.toml"


def project_settings_path(workspace: Path) -> Path:
    return workspace / ".nehanda" / "settings.toml"


def load_settings(
    workspace: Path, flags: Flags = Flags(), environ: Mapping[str, str] = os.environ
) -> Settings:
    """Reads every layer and merges them; later layers win key by key."""
    merged: dict[str, Any] = {}
    permissions: list[tuple[Path, str, Mapping[str, Any]]] = []
    servers: list[DefinedServer] = []
    paths: dict[str, list[str]] = {"writable": [], "deny_read": []}
    hooks: list[DefinedHook] = []
    hook_notes: list[str] = []
    layers, ignored, ignored_rules = _file_layers(workspace)
    turns_file = next((path for path, _, layer in reversed(layers) if "max_turns" in layer), None)
    provider_source = _provider_source(flags, environ, layers)
    for path, text, layer in layers:
        permissions.append((path, text, layer.pop("permissions", {})))
        origin: McpOrigin = "project" if path == project_settings_path(workspace) else "user"
        servers += servers_in_layer(layer.pop("mcp_servers", {}), origin, path, text)
        hooks += hooks_in_layer(layer.pop("hooks", {}), origin, str(path), text)
        if origin == "project" and layer.get("notify", {}).pop("command", None):
            hook_notes.append(f"{path}: [notify] command is read from your user settings only")
        for key, listed in paths.items():
            listed += layer.get("sandbox", {}).pop(key, [])
        _deep_merge(merged, layer)
    mcp_servers, mcp_notes = _mcp_servers(workspace, servers)
    claude, claude_notes = _claude_code_hooks(workspace)
    try:
        parsed = SettingsFile.model_validate(merged)
    except ValidationError as exc:  # only reachable through a merge of valid layers
        raise ConfigError(f"settings: {exc}") from exc
    from_env = _env_int(environ, "NEHANDA_MAX_TURNS")
    max_turns = flags.max_turns or from_env or parsed.max_turns
    turns_source = (
        "--max-turns"
        if flags.max_turns
        else "NEHANDA_MAX_TURNS"
        if from_env
        else f"max_turns in {turns_file}"
        if turns_file
        else "the default limit; --max-turns raises it"
    )
    return Settings(
        default_provider=flags.provider
        or environ.get("NEHANDA_PROVIDER")
        or parsed.default_provider,
        default_provider_source=provider_source,
        max_turns=max_turns,
        max_turns_source=turns_source,
        recover_leaked_calls=parsed.recover_leaked_calls,
        auto_compact=parsed.auto_compact,
        providers=dict(parsed.providers),
        model=flags.model or environ.get("NEHANDA_MODEL") or None,
        base_url=flags.base_url,
        api_key_env=flags.api_key_env,
        force_manual_tools=flags.force_manual_tools,
        permissions=replace(_merge_permissions(permissions), ignored=ignored_rules),
        sandbox=parsed.sandbox.model_copy(update=paths),
        untrusted_ignored=ignored,
        mcp=parsed.mcp,
        mcp_servers=mcp_servers,
        mcp_notes=mcp_notes,
        serve=parsed.serve,
        agents=parsed.agents,
        hooks=(*hooks, *claude),
        hook_notes=(*hook_notes, *claude_notes),
        notify=parsed.notify,
        checkpoints=parsed.checkpoints,
    )


def claude_settings_paths(workspace: Path) -> tuple[Path, Path]:
    """Claude Code's user and project settings, whose ``hooks`` nehanda runs too."""
    return Path.home() / ".claude" / "settings.json", workspace / ".claude" / "settings.json"


def _claude_code_hooks(workspace: Path) -> tuple[list[DefinedHook], list[str]]:
    """The hooks of Claude Code's settings files, the project's only in a trusted folder,
    with a note naming each file they were read from."""
    found: list[DefinedHook] = []
    notes: list[str] = []
    origins: tuple[McpOrigin, McpOrigin] = ("user", "project")
    for path, origin in zip(claude_settings_paths(workspace), origins, strict=True):
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text)
            if not (isinstance(data, dict) and data.get("hooks")):
                continue
            if origin == "project" and not is_trusted(workspace):
                notes.append(
                    f"{path} defines hooks; a project's hooks run only once you trust its "
                    "folder, so they were skipped (run `nehanda trust` if you do)"
                )
                continue
            hooks, skipped = claude_hooks(data, origin, str(path), text)
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ConfigError(f"{path}: cannot read its hooks: {_first_line(exc)}") from None
        found += hooks
        notes += [f"hooks read from {path} (Claude Code's format)", *skipped]
    return found, notes


def _first_line(error: Exception) -> str:
    if isinstance(error, ValidationError):
        problem = error.errors()[0]
        return f"{'.'.join(str(p) for p in problem['loc'])}: {problem['msg']}"
    return str(error).splitlines()[0]


def _mcp_servers(
    workspace: Path, servers: list[DefinedServer]
) -> tuple[tuple[DefinedServer, ...], tuple[str, ...]]:
    """The settings files' servers and, in a trusted folder, ``.mcp.json``'s (an untrusted
    folder's is not even read: a broken one must not stop nehanda there)."""
    if not mcp_json_path(workspace).is_file():
        return merge_servers(servers)
    if not is_trusted(workspace):
        kept, notes = merge_servers(servers)
        note = (
            ".mcp.json defines MCP servers; a project may start servers only once you trust "
            "its folder, so they were skipped (run `nehanda trust` if you do)"
        )
        return kept, (note, *notes)
    from_json, skipped = read_mcp_json(workspace)
    kept, notes = merge_servers(servers + from_json)
    return kept, (*skipped, *notes)


_Layer = tuple[Path, str, dict[str, Any]]


def _file_layers(
    workspace: Path,
) -> tuple[list[_Layer], tuple[str, ...], tuple[RuleText, ...]]:
    """The settings files that exist, each with its text and contents; an untrusted
    project's restrained.

    Also returns the keys left out of the project file because its folder is not
    trusted, and the allow rules left out with them.
    """
    user = read_settings_file(user_settings_path())
    project = read_settings_file(project_settings_path(workspace))
    ignored: tuple[str, ...] = ()
    ignored_rules: tuple[RuleText, ...] = ()
    if project is not None and not is_trusted(workspace):
        path, text, contents = project
        ignored_rules = _rules(path, text, contents.get("permissions", {}), "allow")
        kept, ignored = restrain_untrusted(contents, user[2] if user else {})
        project = (path, text, kept)
    return [layer for layer in (user, project) if layer is not None], ignored, ignored_rules


def _provider_source(flags: Flags, environ: Mapping[str, str], layers: list[_Layer]) -> str | None:
    """Where the provider to use was named, when not on the command line."""
    if flags.provider:
        return None
    if environ.get("NEHANDA_PROVIDER"):
        return "NEHANDA_PROVIDER"
    for path, text, layer in reversed(layers):
        if "default_provider" in layer:
            line = _line_of_key(text, ["default_provider"])
            return f"{path}:{line}: default_provider" if line else f"{path}: default_provider"
    return None


def _merge_permissions(tables: list[tuple[Path, str, Mapping[str, Any]]]) -> PermissionSettings:
    mode: Mode = "default"
    rules: dict[str, tuple[RuleText, ...]] = {"allow": (), "ask": (), "deny": ()}
    for path, text, table in tables:
        mode = table.get("mode", mode)
        for key in rules:
            rules[key] += _rules(path, text, table, key)
    return PermissionSettings(mode, rules["allow"], rules["ask"], rules["deny"])


def _rules(path: Path, text: str, table: Mapping[str, Any], key: str) -> tuple[RuleText, ...]:
    """The rules ``table`` lists under ``key``, each marked with the line of that key."""
    line = _line_of_key(text, ["permissions", key])
    source = f"{path}:{line}" if line else str(path)
    for rule in table.get(key, []):
        try:
            split_rule(rule)
        except ValueError as exc:
            raise ConfigError(f"{source}: permissions.{key}: {exc}") from None
    return tuple(RuleText(rule, source) for rule in table.get(key, []))


def read_settings_file(path: Path) -> _Layer | None:
    """One settings file: its path, text and validated contents; ``None`` when it does
    not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read settings file: {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = _line_from_toml_error(str(exc))
        where = f"{path}:{line}" if line else str(path)
        raise ConfigError(f"{where}: invalid TOML: {exc}. Fix the file or move it aside.") from exc
    except RecursionError:
        raise ConfigError(
            f"{path}: its values are nested too deeply to read; fix the file or move it aside"
        ) from None
    try:
        SettingsFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe_validation_error(path, text, exc)) from exc
    return path, text, data


def _env_int(environ: Mapping[str, str], name: str) -> int | None:
    value = environ.get(name)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a whole number") from None


def _deep_merge(into: dict[str, Any], layer: Mapping[str, Any]) -> None:
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = dict(value) if isinstance(value, Mapping) else value


def _line_from_toml_error(message: str) -> int | None:
    match = re.search(r"line (\d+)", message)
    return int(match.group(1)) if match else None


def _describe_validation_error(path: Path, text: str, exc: ValidationError) -> str:
    error = exc.errors()[0]
    location = [str(part) for part in error["loc"]]
    line = _line_of_key(text, location)
    where = f"{path}:{line}" if line else str(path)
    dotted = ".".join(location)
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown setting {dotted!r}; check its spelling"
    if error["type"] == "literal_error" and location[-1] == "type":
        return f"{where}: {dotted} must be one of {', '.join(PROVIDER_TYPES)}"
    return f"{where}: {dotted}: {error['msg']}"


def _line_of_key(text: str, location: list[str]) -> int | None:
    """The line where the last key of ``location`` is written, searched after its table.

    The key may stand alone (``type = ...``), end a dotted key (``a.type = ...``) or sit
    in an inline table (``a = { type = ... }``); a line that also names the key's parent
    is preferred.
    """
    lines = text.splitlines()
    start = _table_line(lines, location[:-1])
    key = _key_pattern(location[-1], "=")
    found = [number for number in range(start, len(lines)) if key.search(lines[number])]
    parent = _key_pattern(location[-2], r"[=.]") if len(location) >= 2 else None
    named = [number for number in found if parent and parent.search(lines[number])]
    if named or found:
        return (named or found)[0] + 1
    return start + 1 if start else None


def _key_pattern(key: str, followed_by: str) -> re.Pattern[str]:
    return re.compile(r"(?:^|[\s{,.])" + re.escape(key) + r"\s*" + followed_by)


def _table_line(lines: list[str], tables: list[str]) -> int:
    """Where the deepest table header among ``tables``' prefixes is written, else 0."""
    for depth in range(len(tables), 0, -1):
        header = re.compile(
            r"^\s*\[\s*" + r"\s*\.\s*".join(map(re.escape, tables[:depth])) + r"\s*\]"
        )
        found = next((i for i, line in enumerate(lines) if header.match(line)), None)
        if found is not None:
            return found
    return 0


def resolve_named_provider(
    settings: Settings, name: str, environ: Mapping[str, str] = os.environ
) -> ProviderConfig:
    """The provider called ``name`` in settings, or a provider type with its defaults."""
    if name in settings.providers:
        return _finish(name, settings.providers[name], settings, environ)
    if name in PROFILES:
        return _finish(name, ProviderEntry(type=name), settings, environ)  # type: ignore[arg-type]
    known = sorted(settings.providers)
    configured = f" Configured: {', '.join(known)}." if known else ""
    raise UnknownProviderError(
        f"unknown provider {name!r}. Use a provider type ({', '.join(PROVIDER_TYPES)}) "
        f"or a name from your settings file.{configured}"
    )


def _finish(
    name: str, entry: ProviderEntry, settings: Settings, environ: Mapping[str, str]
) -> ProviderConfig:
    profile = profile_for(entry.type)
    base_url = settings.base_url or entry.base_url or _default_base_url(entry.type, environ)
    if not base_url:
        raise ConfigError(
            f"provider {name!r} has no base URL: set base_url in settings, "
            f"{profile.base_url_env} in the environment, or pass --base-url"
        )
    return ProviderConfig(
        name=name,
        type=entry.type,
        base_url=base_url.rstrip("/"),
        model=settings.model or entry.model or profile.default_model,
        api_key_env=settings.api_key_env or entry.api_key_env or profile.api_key_env,
        force_manual_tools=settings.force_manual_tools or entry.force_manual_tools,
        connect_timeout=entry.connect_timeout,
        read_timeout=entry.read_timeout,
        max_retries=entry.max_retries,
        context_cap=entry.context_cap or profile.context_cap,
        context_window=entry.context_window,
        vision=entry.vision,
    )


def _default_base_url(provider_type: str, environ: Mapping[str, str]) -> str | None:
    profile = PROFILES[provider_type]
    from_env = environ.get(profile.base_url_env) if profile.base_url_env else None
    if profile.wire == "ollama":
        return normalize_ollama_host(from_env or "")
    return from_env or profile.default_base_url


_LISTEN_ALL = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


def normalize_ollama_host(host: str) -> str:
    """``OLLAMA_HOST`` as a URL, read the way Ollama's own client reads it (envconfig.Host).

    Without a scheme the port defaults to 11434; ``http://`` and ``https://`` default
    to 80 and 443. A path after the host is kept. An empty host, and the listen-all
    address a server is often started with (``0.0.0.0``, ``::``), mean this machine,
    since a client cannot connect to a listen-all address everywhere.
    """
    text = host.strip().strip("\"'").strip()
    scheme, separator, hostport = text.partition("://")
    default_port = {"http": "80", "https": "443"}.get(scheme, "11434") if separator else "11434"
    if not separator:
        scheme, hostport = "http", text
    hostport, _, path = hostport.partition("/")
    split = _split_host_port(hostport)
    name, port = split if split else (_bare_host(hostport), default_port)
    if not (port.isascii() and port.isdigit() and int(port) <= 65535):
        port = default_port
    name = _LISTEN_ALL.get(name, name)
    if ":" in name:
        name = f"[{name}]"
    # callers append API paths, so a trailing slash would double up
    return f"{scheme}://{name}:{port}" + f"/{path}".rstrip("/")


def _split_host_port(hostport: str) -> tuple[str, str] | None:
    """Host and port as Go's ``net.SplitHostPort`` splits them, or ``None`` where it fails."""
    colon = hostport.rfind(":")
    if colon < 0:
        return None
    if hostport.startswith("["):
        close = hostport.find("]")
        if close + 1 != colon:
            return None
        name, after_open, after_close = hostport[1:close], 1, close + 1
    else:
        name, after_open, after_close = hostport[:colon], 0, 0
        if ":" in name:
            return None
    if "[" in hostport[after_open:] or "]" in hostport[after_close:]:
        return None
    return name, hostport[colon + 1 :]


def _bare_host(hostport: str) -> str:
    """A host without a port: an IP address in its canonical form, else as written."""
    try:
        address = ipaddress.ip_address(hostport.strip("[]"))
    except ValueError:
        return hostport
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return str(mapped or address)
