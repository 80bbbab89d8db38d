"""Which project folders the user trusts, and what an untrusted project's settings may do.

A project's ``.nehanda/settings.toml`` arrives with the code, which may be anyone's.
Until the user has trusted the folder once (``nehanda trust``), that file may only
tighten permissions: its allow rules and a looser mode are ignored, and so are
providers' ``base_url`` and ``api_key_env`` (which would send the user's keys, or
the conversation, where the project's author chose). The trusted folders are a JSON
list in the user's state directory.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nehanda.config.permission_modes import MODES
from nehanda.errors import ConfigError
from nehanda.fs import state_dir, write_atomic

# Where requests go and which key they carry; an untrusted project may not choose either.
PROVIDER_ROUTING_KEYS = ("base_url", "api_key_env")


def trust_store_path() -> Path:
    return state_dir() / "trusted_folders.json"


def trusted_folders() -> frozenset[Path]:
    path = trust_store_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return frozenset()
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the trusted folders: {exc}") from exc
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, list) or not all(isinstance(item, str) for item in folders):
        raise ConfigError(f'{path}: expected {{"folders": [...]}}; fix the file or delete it')
    return frozenset(Path(item) for item in folders)


def is_trusted(folder: Path) -> bool:
    return Path(os.path.realpath(folder)) in trusted_folders()


def trust_folder(folder: Path) -> Path:
    """Remember ``folder`` (resolved) as trusted; returns it."""
    resolved = Path(os.path.realpath(folder))
    folders = sorted(str(item) for item in trusted_folders() | {resolved})
    path = trust_store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps({"folders": folders}, indent=2) + "\n").encode(), 0o600)
    return resolved


def restrain_untrusted(
    project: Mapping[str, Any], user: Mapping[str, Any]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``project`` without what an untrusted folder may not set, and the keys left out.

    Deny and ask rules and a stricter mode stay: they only tighten. A provider the user
    defines keeps the user's type too, since the type picks the default address and key.
    ``[serve]`` goes whole.
    """
    kept = copy.deepcopy(dict(project))
    dropped: list[str] = []
    permissions = kept.get("permissions", {})
    if permissions.pop("allow", None):
        dropped.append("permissions.allow")
    user_mode = user.get("permissions", {}).get("mode", "default")
    mode = permissions.get("mode")
    if mode is not None and MODES.index(mode) > MODES.index(user_mode):
        del permissions["mode"]
        dropped.append("permissions.mode")
    user_providers = user.get("providers", {})
    for name, entry in kept.get("providers", {}).items():
        for key in PROVIDER_ROUTING_KEYS:
            if entry.pop(key, None) is not None:
                dropped.append(f"providers.{name}.{key}")
        user_type = user_providers.get(name, {}).get("type")
        if user_type is not None and entry.get("type", user_type) != user_type:
            entry["type"] = user_type
            dropped.append(f"providers.{name}.type")
    # Where `nehanda serve` listens, who may call it and what it forwards to.
    if kept.pop("serve", None):
        dropped.append("serve")
    return kept, tuple(dropped)


def untrusted_note(ignored: Sequence[str]) -> str | None:
    """What an untrusted project's settings file set in vain, and how to allow it."""
    if not ignored:
        return None
    return (
        f".nehanda/settings.toml sets {', '.join(ignored)}; a project may set these only "
        "once you trust its folder, so they were ignored (run `nehanda trust` if you do)"
    )
