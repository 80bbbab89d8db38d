"""``nehanda serve``: resolve what to serve, check the bind, bind, start uvicorn.

Exit codes: 0 once stopped (Ctrl-C, SIGTERM), 1 when it cannot start (settings, the
bind check, an address in use or not of this machine, the extra missing; one line on
stderr says what to do), 2 for a usage error.

The resolved ``ServeConfig`` and the values of the variables it names (the token, the
upstream keys) go to the one process or the N workers inside ``app.WorkerApp``, never
through the environment (``serve.workers``): the variables are sealed first, so that no
child inherits them even when their names do not look secret.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from nehanda.config.settings import Flags, load_settings
from nehanda.errors import ConfigError
from nehanda.masking import SecretMask
from nehanda.providers.http_errors import redact_url
from nehanda.secret_env import seal
from nehanda.serve.config import ServeConfig, check_bind, resolve_config
from nehanda.serve.listen import bind, client_hint, client_url

MISSING_EXTRA = (
    "nehanda serve needs its extra: pip install 'nehanda[serve]' (starlette and uvicorn)"
)


@dataclass(frozen=True)
class ServeOptions:
    flags: Flags
    host: str | None = None
    port: int | None = None
    workers: int = 1
    log_requests: bool = False


def serve_command(options: ServeOptions) -> int:
    try:
        import uvicorn

        from nehanda.serve import workers
        from nehanda.serve.app import WorkerApp
    except ImportError:
        print(f"error: {MISSING_EXTRA}", file=sys.stderr)
        return 1
    try:
        settings = load_settings(Path.cwd().resolve(), options.flags)
        config = asyncio.run(resolve_config(settings, options.flags))
        host = options.host or settings.serve.host
        port = settings.serve.port if options.port is None else options.port
        check_bind(host, config.token_env)
        sock = bind(host, port)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    port = sock.getsockname()[1]  # the one --port 0 took
    config = replace(config, host=host)
    seal(also=config.variables())
    # os.environ keeps the values seal took from children.
    app = WorkerApp(config, os.environ, log_requests=options.log_requests)
    mask = SecretMask(app.values.values())
    for line in _start_lines(config, host, port):
        print(mask.mask(line), file=sys.stderr)
    uvicorn_config = uvicorn.Config(app, factory=True, host=host, port=port, log_level="warning")
    return workers.run(uvicorn_config, options.workers, sock)


def _start_lines(config: ServeConfig, host: str, port: int) -> list[str]:
    """What is served, where, and how a client is pointed at it."""
    served = ", ".join(sorted(config.aliases)) or "any model name"
    where = (
        f"{config.default.name} at {redact_url(config.default.base_url)}"
        if config.default
        else "aliases"
    )
    said = f"nehanda serve: {client_url(host, port)} -> {where} ({served})"
    return [said, f"nehanda serve: {client_hint(host, port, config.token_env)}"]
