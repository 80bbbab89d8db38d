"""``nehanda serve``: resolve what to serve, check the bind, start uvicorn.

The resolved ``ServeConfig`` goes to the workers through the environment, so one
worker and ``--workers N`` run the same factory, ``nehanda.serve.app:create_app``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from nehanda.config.settings import Flags, load_settings
from nehanda.errors import ConfigError
from nehanda.providers.http_errors import redact_url
from nehanda.serve.config import ENV_VAR, check_bind, resolve_config

MISSING_EXTRA = (
    "nehanda serve needs its extra: pip install 'nehanda[serve]' (starlette and uvicorn)"
)


@dataclass(frozen=True)
class ServeOptions:
    flags: Flags
    host: str | None = None
    port: int | None = None
    workers: int = 1


def serve_command(options: ServeOptions) -> int:
    try:
        import uvicorn
    except ImportError:
        print(f"error: {MISSING_EXTRA}", file=sys.stderr)
        return 1
    try:
        settings = load_settings(Path.cwd().resolve(), options.flags)
        config = asyncio.run(resolve_config(settings, options.flags))
        host = options.host or settings.serve.host
        port = settings.serve.port if options.port is None else options.port
        check_bind(host, config.token_env)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    os.environ[ENV_VAR] = config.to_env()
    served = ", ".join(sorted(config.aliases)) or "any model name"
    where = (
        f"{config.default.name} at {redact_url(config.default.base_url)}"
        if config.default
        else "aliases"
    )
    print(f"nehanda serve: http://{host}:{port} -> {where} ({served})", file=sys.stderr)
    uvicorn.run(
        "nehanda.serve.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=options.workers,
        log_level="warning",
    )
    return 0
