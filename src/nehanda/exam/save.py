"""``doctor --exam --save``: the recommended mode written as the provider's
``force_manual_tools`` in the user settings (``config.writer``).

Rescue winning sets it to true; native winning sets it back to false only where the
user's file had set it. The key goes into the provider's own ``[providers.NAME]`` table
when the user's file defines it and it points at the server examined. A provider that
is not an entry there (``--base-url`` alone, a provider type, a discovered local server)
gets a new entry named after its host (``host-port`` when that name is taken), holding
the type, address and model examined. A provider the project file defines is left for
the user to change there: nehanda never writes a project's settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from nehanda.config.profiles import PROFILES
from nehanda.config.settings import (
    ProviderConfig,
    Settings,
    read_settings_file,
    user_settings_path,
)
from nehanda.errors import ConfigError
from nehanda.providers.mode import Mode

KEY = "force_manual_tools"


@dataclass(frozen=True)
class SaveResult:
    written: bool
    message: str
    path: Path | None = None
    provider: str | None = None
    value: bool | None = None


def save_mode(mode: Mode | None, config: ProviderConfig, settings: Settings) -> SaveResult:
    """Writes ``mode`` for the examined provider; a ``SaveResult`` saying what happened."""
    if mode is None:
        return SaveResult(False, "no mode was recommended")
    from nehanda.config.writer import set_provider_setting

    value = mode == "rescue"
    try:
        user = _user_entries()
        name, entry = _target(config, settings, user, value)
        if name is None:
            return SaveResult(False, _nothing_to_do(config, value))
        if entry is None and user.get(name, {}).get(KEY, False) == value:
            return SaveResult(False, f"{KEY} is already {str(value).lower()} for {name!r}")
        path = set_provider_setting(name, KEY, value, entry=entry)
    except ConfigError as exc:
        return SaveResult(False, str(exc))
    use = f"; use it with --provider {name}" if entry is not None else ""
    return SaveResult(
        True, f"{KEY} = {str(value).lower()} for {name!r} in {path}{use}", path, name, value
    )


def _user_entries() -> dict[str, dict[str, Any]]:
    found = read_settings_file(user_settings_path())
    providers = found[2].get("providers", {}) if found else {}
    return {name: dict(entry) for name, entry in providers.items()}


def _target(
    config: ProviderConfig, settings: Settings, user: dict[str, dict[str, Any]], value: bool
) -> tuple[str | None, dict[str, Any] | None]:
    """The entry to change and, for a new one, its fields; no name when there is none."""
    if value and PROFILES[config.type].forces_rescue:
        return None, None
    if config.name in user and _same_server(user[config.name], config):
        return config.name, None
    if config.name in settings.providers and config.name not in user:
        raise ConfigError(
            f"provider {config.name!r} is defined in the project's .nehanda/settings.toml: "
            f"set {KEY} = {str(value).lower()} there"
        )
    if not value:
        return None, None
    for name in _host_names(config.base_url):
        if name in PROFILES or (name in settings.providers and name not in user):
            continue
        if name not in user:
            return name, _new_entry(config)
        if _same_server(user[name], config):
            return name, None
    raise ConfigError(
        f"the names {' and '.join(map(repr, _host_names(config.base_url)))} are taken by "
        f"other providers in {user_settings_path()}: add {KEY} = true to an entry by hand"
    )


def _same_server(entry: dict[str, Any], config: ProviderConfig) -> bool:
    written = entry.get("base_url")
    return written is None or str(written).rstrip("/") == config.base_url.rstrip("/")


def _host_names(base_url: str) -> list[str]:
    parts = urlsplit(base_url)
    host = parts.hostname or "server"
    port = parts.port
    return [host, f"{host}-{port}"] if port else [host, f"{host}-{parts.scheme or 'http'}"]


def _new_entry(config: ProviderConfig) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": config.type, "base_url": config.base_url}
    if config.model:
        entry["model"] = config.model
    return entry


def _nothing_to_do(config: ProviderConfig, value: bool) -> str:
    if value:
        return f"{config.name!r} always uses rescue mode; nothing to change"
    return f"native mode is already what nehanda uses for {config.name!r}"
