"""``nehanda config``: the settings files in effect, where they are, and what they add up to.

Settings only name the variables that hold keys, but a file may still carry a secret (an
MCP server's ``env`` or ``headers``, a token in ``args``, a password in a URL): anything
that looks like one is masked, and so is any value of a secret variable in the environment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from nehanda.config.environ import startup_environ
from nehanda.config.mcp import mcp_json_path
from nehanda.config.settings import Settings, project_settings_path, user_settings_path
from nehanda.config.trust import is_trusted
from nehanda.providers.http_errors import redact_url
from nehanda.secret_env import redact, secret_values

MASK = "****"
ENV_LAYER = ("NEHANDA_PROVIDER", "NEHANDA_MODEL", "NEHANDA_MAX_TURNS")
SECRET_KEY = re.compile(r"key|token|secret|passw|auth|credential|cookie", re.IGNORECASE)
# Known key shapes, and long runs of letters mixed with digits, wherever they stand.
SECRET_VALUE = re.compile(
    r"(?:sk-|ghp_|gho_|github_pat_|xox[abprs]-|AKIA|hf_|glpat-)[A-Za-z0-9_\-]{8,}"
    r"|(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{32,}"
)
REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}|\b(?:Bearer|Basic|Token)\b")


def describe_config(workspace: Path, settings: Settings) -> str:
    """The files (present or not), the environment's part, and the merged settings."""
    project = project_settings_path(workspace)
    trust = "trusted" if is_trusted(workspace) else "not trusted: may only tighten"
    lines = ["settings files (a later one wins):"]
    lines.append(f"  user     {user_settings_path()}  ({_presence(user_settings_path())})")
    lines.append(f"  project  {project}  ({_presence(project, trust)})")
    lines.append(f"  mcp      {mcp_json_path(workspace)}  ({_presence(mcp_json_path(workspace))})")
    if settings.untrusted_ignored:
        lines.append(f"  ignored from the project: {', '.join(settings.untrusted_ignored)}")
    environ = startup_environ()
    set_here = [f"{name}={environ[name]}" for name in ENV_LAYER if environ.get(name)]
    if set_here:
        lines.append(f"environment: {', '.join(set_here)}")
    lines += ["", "merged settings (secrets masked):", *render_toml(masked(merged(settings)))]
    return redact("\n".join(lines), secret_values(environ))


def _presence(path: Path, detail: str = "") -> str:
    if not path.is_file():
        return "not present"
    return f"present; folder {detail}" if detail else "present"


def merged(settings: Settings) -> dict[str, Any]:
    """``settings`` as the tables a settings file would hold."""
    permissions = settings.permissions
    return {
        "default_provider": settings.default_provider,
        "max_turns": settings.max_turns,
        "recover_leaked_calls": settings.recover_leaked_calls,
        "auto_compact": settings.auto_compact,
        "model": settings.model,
        "providers": {
            name: entry.model_dump(exclude_none=True)
            for name, entry in sorted(settings.providers.items())
        },
        "permissions": {
            "mode": permissions.mode,
            **{
                kind: [rule.text for rule in getattr(permissions, kind)]
                for kind in ("allow", "ask", "deny")
            },
        },
        "sandbox": settings.sandbox.model_dump(),
        "mcp": settings.mcp.model_dump(exclude_none=True),
        "mcp_servers": {
            server.name: server.entry.model_dump(exclude_none=True)
            for server in settings.mcp_servers
        },
        "serve": settings.serve.model_dump(exclude_none=True),
    }


def masked(value: Any, key: str = "") -> Any:
    """``value`` with every secret-looking string replaced by a mask; ``key`` names it."""
    if isinstance(value, Mapping):
        return {name: masked(item, str(name)) for name, item in value.items()}
    if isinstance(value, list):
        # The item after a flag such as ``--password`` is that flag's value.
        flags = [key] + [str(item) if str(item).startswith("-") else key for item in value]
        return [masked(item, flag) for item, flag in zip(value, flags, strict=False)]
    if not isinstance(value, str):
        return value
    if SECRET_KEY.search(key) and not key.endswith("_env") and REFERENCE.sub("", value).strip():
        return MASK
    flag, equals, _ = value.partition("=")
    if flag.startswith("-") and equals and SECRET_KEY.search(flag):
        return f"{flag}={MASK}"
    if "://" in value and _has_credentials(value):
        value = f"{redact_url(value)} (user info and query hidden)"
    return SECRET_VALUE.sub(MASK, value)


def _has_credentials(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return True
    return bool(parts.password or parts.username or parts.query)


def render_toml(table: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``table`` as TOML lines: its own values first, then its sub-tables; ``None`` left out."""
    lines = [
        f"{_key(name)} = {_value(value)}"
        for name, value in table.items()
        if value is not None and not isinstance(value, Mapping)
    ]
    for name, value in table.items():
        if isinstance(value, Mapping):
            dotted = f"{prefix}{_key(name)}"
            scalars = any(not isinstance(item, Mapping) for item in value.values())
            body = render_toml(value, dotted + ".")
            if scalars or not value:
                lines += ["", f"[{dotted}]"]
            lines += body
    return lines


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)
