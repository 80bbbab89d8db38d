"""Changes one setting in a settings file, keeping everything else as the user wrote it.

``set_provider_setting`` sets one key of one ``[providers.NAME]`` table (creating the
table from a full entry when asked); ``add_permission_rule`` adds one rule to
``[permissions] allow`` (or ``ask``, ``deny``), unless the list holds it already. Both
leave the rest of the file, its comments,
order and formatting alone: the file is edited as a TOML document (tomlkit, imported
only here), not re-serialised from the settings model. The existing file is read with
the same checks ``load_settings`` applies, so a file nehanda cannot read is a one-line
``ConfigError`` and stays untouched; the edited text must pass them too before it is
written, atomically (``fs.write_atomic``), with the file's own permission bits.
"""

from __future__ import annotations

import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from nehanda.config.settings import SettingsFile, read_settings_file, user_settings_path
from nehanda.errors import ConfigError
from nehanda.fs import NEW_FILE_MODE, write_atomic


def set_provider_setting(
    name: str,
    key: str,
    value: Any,
    *,
    entry: Mapping[str, Any] | None = None,
    path: Path | None = None,
) -> Path:
    """Sets ``providers.NAME.KEY = value`` in ``path`` (default: the user settings file).

    A provider the file does not define is an error unless ``entry`` gives the fields of
    a new one (``type`` at least), which is then added with ``key`` set. Returns the path.
    """
    path = path or user_settings_path()
    existing = read_settings_file(path)
    edited = _edited(existing[1] if existing else "", name, key, value, entry, path)
    _write(path, edited, existing is not None)
    return path


def add_permission_rule(rule: str, key: str = "allow", *, path: Path | None = None) -> Path:
    """Adds ``rule`` to ``permissions.KEY`` in ``path`` (default: the user settings file),
    creating the table or the list if need be. The caller checks that the rule parses
    (the rule language lives above this layer). Returns the path."""
    import tomlkit

    if key not in ("allow", "ask", "deny"):
        raise ConfigError(f"permissions.{key} is not a list of rules; use allow, ask or deny")
    path = path or user_settings_path()
    existing = read_settings_file(path)
    document = tomlkit.parse(existing[1] if existing else "")
    if "permissions" not in document:
        document["permissions"] = tomlkit.table()
    table = document["permissions"]
    if key not in table:
        table[key] = tomlkit.array()
    if rule not in table[key]:
        table[key].append(rule)
        _write(path, tomlkit.dumps(document), existing is not None)
    return path


def _write(path: Path, edited: str, existed: bool) -> None:
    """``edited`` into ``path`` once it passes the checks, atomically, with the file's
    own permission bits (a new file gets nehanda's)."""
    _check(path, edited)
    mode = stat.S_IMODE(path.stat().st_mode) if existed else NEW_FILE_MODE
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, edited.encode("utf-8"), mode)


def _edited(
    text: str, name: str, key: str, value: Any, entry: Mapping[str, Any] | None, path: Path
) -> str:
    """``text`` with the key set in the provider's table, or with the new table added."""
    import tomlkit

    document = tomlkit.parse(text)
    if "providers" not in document:
        document["providers"] = tomlkit.table(is_super_table=True)
    providers = document["providers"]
    table = providers.get(name)
    if table is not None:
        table[key] = value
        return tomlkit.dumps(document)
    if entry is None:
        raise ConfigError(f"{path}: no provider {name!r} to change; add [providers.{name}]")
    fresh = tomlkit.table()
    for field, field_value in {**entry, key: value}.items():
        fresh[field] = field_value
    fresh.add(tomlkit.nl())  # a blank line before whatever table follows
    providers[name] = fresh
    return tomlkit.dumps(document).rstrip("\n") + "\n"


def _check(path: Path, text: str) -> None:
    """The edited file must be one ``load_settings`` reads; nothing is written otherwise."""
    try:
        SettingsFile.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"{path}: the change would leave an invalid file ({first})") from exc
