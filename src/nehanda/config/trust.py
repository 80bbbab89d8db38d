"""Which project folders the user trusts, and what an untrusted project's settings may do.

A project's ``.nehanda/settings.toml`` arrives with the code, which may be anyone's.
Until the user has trusted the folder once (``nehanda trust``), that file may only
tighten permissions: its allow rules and a looser mode are ignored, and so are
providers' ``base_url`` and ``api_key_env`` (which would send the user's keys, or
the conversation, where the project's author chose). Nor may it open the sandbox
(``[sandbox] enabled = false``, ``network = true``, more writable roots), nor define
MCP servers or hooks, which run code with the user's rights.

Trust is bound to what the user approved: the store keeps, beside each trusted folder,
a digest of its ``.nehanda/settings.toml`` and ``.mcp.json``. Once either changes (a
command or an edit may have planted it), the folder is untrusted until approved again.
The store is a JSON object in the user's state directory.
"""

from __future__ import annotations

import copy
import hashlib
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
# The sandbox settings an untrusted project may set only to these values (they only tighten).
SANDBOX_TIGHT: dict[str, object] = {"enabled": True, "network": False, "writable": []}


def trust_store_path() -> Path:
    return state_dir() / "trusted_folders.json"


# The project files whose content trust is bound to.
TRUST_BOUND_FILES = (".nehanda/settings.toml", ".mcp.json")


def trusted_folders() -> dict[Path, str | None]:
    """Each trusted folder with the digest of its files when it was trusted (``None``
    for a folder trusted before digests were kept)."""
    path = trust_store_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the trusted folders: {exc}") from exc
    folders = data.get("folders") if isinstance(data, dict) else None
    digests = data.get("digests", {}) if isinstance(data, dict) else None
    if (
        not isinstance(folders, list)
        or not all(isinstance(item, str) for item in folders)
        or not isinstance(digests, dict)
    ):
        raise ConfigError(f'{path}: expected {{"folders": [...]}}; fix the file or delete it')
    return {Path(item): _text_or_none(digests.get(item)) for item in folders}


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def project_digest(folder: Path) -> str:
    """A digest of the files trust is bound to, as they are now (a missing one counts)."""
    digest = hashlib.sha256()
    for name in TRUST_BOUND_FILES:
        try:
            content = (folder / name).read_bytes()
        except OSError:
            digest.update(b"\0missing\0")
            continue
        digest.update(len(content).to_bytes(8, "big") + content)
    return digest.hexdigest()


def is_trusted(folder: Path) -> bool:
    resolved = Path(os.path.realpath(folder))
    recorded = trusted_folders().get(resolved, "")
    return recorded == project_digest(resolved)


def trust_changed(folder: Path) -> bool:
    """Whether ``folder`` was trusted, but its settings or ``.mcp.json`` changed since."""
    resolved = Path(os.path.realpath(folder))
    return resolved in trusted_folders() and not is_trusted(resolved)


def trust_folder(folder: Path) -> Path:
    """Remember ``folder`` (resolved) as trusted, with its files as they are now."""
    resolved = Path(os.path.realpath(folder))
    known = trusted_folders()
    known[resolved] = project_digest(resolved)
    _write_store(known)
    return resolved


def untrust_folder(folder: Path) -> Path | None:
    """Forget ``folder`` as trusted; the folder forgotten, or ``None`` if it was not trusted.

    The folder is matched as given and resolved, so one deleted since can still go.
    """
    known = trusted_folders()
    for candidate in (Path(os.path.normpath(folder.absolute())), Path(os.path.realpath(folder))):
        if candidate in known:
            del known[candidate]
            _write_store(known)
            return candidate
    return None


def _write_store(known: Mapping[Path, str | None]) -> None:
    folders = sorted(str(item) for item in known)
    digests = {str(item): digest for item, digest in sorted(known.items()) if digest}
    path = trust_store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"folders": folders, "digests": digests}, indent=2) + "\n"
    write_atomic(path, text.encode(), 0o600)


def describe_trusted() -> str:
    """The trusted folders, one a line, each with whether its trust still holds."""
    known = trusted_folders()
    if not known:
        return f"no trusted folders (kept in {trust_store_path()})"
    lines = [f"trusted folders (kept in {trust_store_path()}):"]
    for folder in sorted(known):
        lines.append(f"  {folder}  {_trust_state(folder, known[folder])}")
    return "\n".join(lines)


def _trust_state(folder: Path, recorded: str | None) -> str:
    if not folder.is_dir():
        return "(folder gone; `nehanda trust --remove` forgets it)"
    if recorded == project_digest(folder):
        return "trusted"
    return f"(untrusted: {' or '.join(TRUST_BOUND_FILES)} changed since; `nehanda trust` again)"


def changed_trust_note(folder: Path) -> str | None:
    if not trust_changed(folder):
        return None
    return (
        f"{' or '.join(TRUST_BOUND_FILES)} changed since you trusted {folder}, so the folder "
        "is untrusted until you approve it again (`nehanda trust`)"
    )


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
    for runs_code in ("mcp_servers", "hooks"):
        if kept.pop(runs_code, None):
            dropped.append(runs_code)
    sandbox = kept.get("sandbox", {})
    for key, tight in SANDBOX_TIGHT.items():
        if key in sandbox and sandbox[key] != tight:
            del sandbox[key]
            dropped.append(f"sandbox.{key}")
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
