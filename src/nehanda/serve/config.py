"""What a ``nehanda serve`` process serves: providers resolved once, passed to workers.

The command resolves settings and flags into a ``ServeConfig`` (the default provider,
the ``[serve] models`` aliases, the token's variable, the bind and the hosts and origins
it answers) and hands it, with the values of the variables it names (the token, the
upstream keys), to every worker it starts (``serve.workers``): never through the
environment, which children of nehanda do not get those values in (``secret_env.seal``).
``to_env``/``from_env`` carry the config alone, variable names and never a key, for a
``uvicorn --factory nehanda.serve.app:create_app`` started by hand, which reads the values
from its own environment.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from nehanda.config.settings import (
    Flags,
    ProviderConfig,
    ServeTable,
    Settings,
    resolve_named_provider,
)
from nehanda.errors import ConfigError
from nehanda.providers.discovery import NoProviderFound, find_provider

ENV_VAR = "NEHANDA_SERVE_CONFIG"
PER_UPSTREAM = ServeTable.model_fields["max_concurrency"].default


class UnknownModel(ConfigError):
    """A client asked for a model name nehanda serve has no provider for."""


@dataclass(frozen=True)
class ServeConfig:
    default: ProviderConfig | None
    aliases: Mapping[str, ProviderConfig] = field(default_factory=dict)
    # --model was given: every name not in aliases goes to that model.
    pin_model: bool = False
    token_env: str | None = None
    # The most requests one upstream answers at once (per worker); past it, a 429.
    max_concurrency: int = PER_UPSTREAM
    recover_leaks: bool = True
    # Seconds of silence on a stream before a keepalive (an Anthropic ping, an SSE comment).
    ping_every: float = 10.0
    # The address listened on: on a loopback one only this machine's names reach it.
    host: str = "127.0.0.1"
    allowed_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()

    def route(self, client_model: str) -> ProviderConfig:
        """The provider entry, with its model, that answers requests for ``client_model``."""
        if client_model in self.aliases:
            return self.aliases[client_model]
        if self.default is None:
            known = ", ".join(sorted(self.aliases))
            raise UnknownModel(f"model {client_model!r} is not served here; use one of: {known}")
        if self.pin_model and self.default.model:
            return self.default
        return self.default.model_copy(update={"model": client_model})

    def variables(self) -> tuple[str, ...]:
        """The environment variables whose values serve needs: the token's, the keys'."""
        configs = [*self.aliases.values(), *([self.default] if self.default else [])]
        names = [config.api_key_env for config in configs] + [self.token_env]
        return tuple(dict.fromkeys(name for name in names if name))

    def secrets(self, environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
        """The upstream keys and the clients' token, to mask in every byte that leaves
        (a server may echo a key into its stream, its errors, its model list)."""
        return tuple({environ[name] for name in self.variables() if environ.get(name)})

    def to_env(self) -> str:
        return json.dumps(
            {
                "default": self.default.model_dump() if self.default else None,
                "aliases": {name: c.model_dump() for name, c in self.aliases.items()},
                "pin_model": self.pin_model,
                "token_env": self.token_env,
                "max_concurrency": self.max_concurrency,
                "recover_leaks": self.recover_leaks,
                "ping_every": self.ping_every,
                "host": self.host,
                "allowed_hosts": self.allowed_hosts,
                "cors_origins": self.cors_origins,
            }
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> ServeConfig:
        raw = environ.get(ENV_VAR)
        if not raw:
            raise ConfigError(f"{ENV_VAR} is not set: start the server with `nehanda serve`")
        data = json.loads(raw)
        default = data.get("default")
        return cls(
            default=ProviderConfig.model_validate(default) if default else None,
            aliases={k: ProviderConfig.model_validate(v) for k, v in data["aliases"].items()},
            pin_model=data["pin_model"],
            token_env=data["token_env"],
            max_concurrency=data["max_concurrency"],
            recover_leaks=data["recover_leaks"],
            ping_every=data["ping_every"],
            host=data.get("host", "127.0.0.1"),
            allowed_hosts=tuple(data.get("allowed_hosts", ())),
            cors_origins=tuple(data.get("cors_origins", ())),
        )


async def resolve_config(
    settings: Settings, flags: Flags, environ: Mapping[str, str] = os.environ
) -> ServeConfig:
    """The providers settings and flags name; the default one found as ``nehanda run``
    finds it, and none needed when ``[serve] models`` lists every name served."""
    table = settings.serve
    aliases = {}
    for alias, entry in table.models.items():
        config = resolve_named_provider(settings, entry.provider, environ)
        aliases[alias] = config.model_copy(update={"model": entry.model or config.model or alias})
    try:
        if flags.provider:
            default: ProviderConfig | None = resolve_named_provider(
                settings, flags.provider, environ
            )
        else:
            default = await find_provider(settings, environ)
    except NoProviderFound:
        if not aliases:
            raise
        default = None
    return ServeConfig(
        default=default,
        aliases=aliases,
        pin_model=bool(flags.model),
        token_env=table.api_key_env,
        max_concurrency=table.max_concurrency,
        recover_leaks=settings.recover_leaked_calls,
        host=table.host,
        allowed_hosts=tuple(table.allowed_hosts),
        cors_origins=tuple(table.cors_origins),
    )


def check_bind(host: str, token_env: str | None, environ: Mapping[str, str] = os.environ) -> None:
    """A server others can reach must ask them for a token; ``ConfigError`` says how."""
    if token_env and not environ.get(token_env):
        raise ConfigError(
            f"[serve] api_key_env names {token_env}, which is not set: set it to the token "
            "clients must send"
        )
    if is_loopback(host) or (token_env and environ.get(token_env)):
        return
    raise ConfigError(
        f"--host {host} lets other machines reach this server: set [serve] api_key_env to "
        "the variable holding the token clients must send, or bind 127.0.0.1"
    )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
