"""A session's first steps, up to its first request in flight: ``start_session``.

It reads the settings, picks the provider and model, and asks the provider its
capabilities (the window a server reports, Ollama's tool support), returning as soon
as that question has been sent whole; with MCP servers configured, the SDK then begins
to load on a worker thread (``tools.mcp.sdk``, the one module of the tools it loads).
``open_session`` then loads the engine, the tools and the permissions, parses the rules
and launches the MCP servers while the server answers, instead of before asking it.
This module imports only what those first steps need.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from nehanda.config.permission_modes import Mode as PermissionMode
from nehanda.config.settings import (
    Flags,
    ProviderConfig,
    Settings,
    load_settings,
    resolve_named_provider,
)
from nehanda.config.trust import untrusted_note
from nehanda.errors import NehandaError, with_hint
from nehanda.events import Retrying
from nehanda.fs import check_folders
from nehanda.providers.base import Capabilities, Provider
from nehanda.providers.factory import create_provider
from nehanda.providers.http import HTTPProvider

if TYPE_CHECKING:
    from nehanda.engine.transcript import Session
    from nehanda.providers.mode import Mode
    from nehanda.tools.base import EditorFiles
    from nehanda.tools.mcp.sdk import SdkLoad


@dataclass(frozen=True)
class SessionOptions:
    flags: Flags
    workspace: Path
    approve_all: bool = False
    permission_mode: PermissionMode | None = None
    resume: Session | None = None
    mode_override: Mode | None = None
    # Hears of each retry of the start's own requests (Ollama's probes), as it happens.
    on_retry: Callable[[Retrying], None] | None = None
    # The editor's files, which Read, Write and Edit use instead of the disk (nehanda acp).
    editor: EditorFiles | None = None
    # The REPL: the MCP SDK's import waits until the prompt is drawn
    # (``ChatSession.prompt_shown``), so as not to slow the start-up before it.
    mcp_after_prompt: bool = False


@dataclass
class SessionStart:
    """The settings, the chosen provider, and its capabilities question, sent; ``sdk``
    is the MCP SDK loading, when servers are configured."""

    settings: Settings
    config: ProviderConfig
    provider: Provider
    asked: asyncio.Task[Capabilities]
    trust_note: str | None
    sdk: SdkLoad | None = None

    async def capabilities(self) -> Capabilities:
        """The provider's answer; its error says so when the address or key the user meant
        may be one an untrusted project's settings set in vain."""
        try:
            return await self.asked
        except NehandaError as exc:
            _raise_with_trust_hint(exc, self.settings, self.trust_note)

    async def abandon(self) -> None:
        """Stops waiting for the answer and closes the provider (the session did not open)."""
        self.asked.cancel()
        try:
            await asyncio.wait({self.asked})
            if not self.asked.cancelled():
                self.asked.exception()  # read, so that asyncio does not report it unread
        finally:
            await self.provider.aclose()


async def start_session(options: SessionOptions) -> SessionStart:
    """Settings read, provider chosen, its capabilities asked (and the question sent)."""
    check_folders()
    settings = load_settings(options.workspace, options.flags)
    trust_note = untrusted_note(settings.untrusted_ignored)
    try:
        config = await choose_provider(options.flags, settings)
        provider = create_provider(config)
    except NehandaError as exc:
        _raise_with_trust_hint(exc, settings, trust_note)
    if isinstance(provider, HTTPProvider):
        provider.on_retry = options.on_retry
    asked = asyncio.create_task(provider.capabilities(config.model or ""))
    try:
        await _until_sent(provider, asked)
    except BaseException:
        await SessionStart(settings, config, provider, asked, trust_note).abandon()
        raise
    return SessionStart(settings, config, provider, asked, trust_note, _sdk(settings, options))


async def choose_provider(flags: Flags, settings: Settings) -> ProviderConfig:
    """The provider ``flags`` and ``settings`` name, with a model; servers are asked only
    when neither says which (discovery is loaded only then)."""
    if flags.provider:
        config = resolve_named_provider(settings, flags.provider)
    else:
        from nehanda.providers.discovery import find_provider

        config = await find_provider(settings)
    if config.model:
        return config
    from nehanda.providers.discovery import ensure_model

    return await ensure_model(config)


async def _until_sent(provider: Provider, asked: asyncio.Task[Capabilities]) -> None:
    """Returns once ``asked`` has sent its first request whole, or has ended (some
    providers know their capabilities without asking)."""
    if not isinstance(provider, HTTPProvider):
        await asyncio.wait({asked})
        return
    sent = asyncio.ensure_future(provider.request_sent.wait())
    try:
        await asyncio.wait({asked, sent}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sent.cancel()


def _sdk(settings: Settings, options: SessionOptions) -> SdkLoad | None:
    """The MCP SDK begun loading (or held back, ``mcp_after_prompt``), when a server may
    start (approvals are checked later: a server left out then only cost the load)."""
    if not any(server.entry.enabled for server in settings.mcp_servers):
        return None
    from nehanda.tools.mcp.sdk import SdkLoad

    return SdkLoad(begun=not options.mcp_after_prompt)


def _raise_with_trust_hint(exc: NehandaError, settings: Settings, note: str | None) -> NoReturn:
    if note and any(key.startswith("providers.") for key in settings.untrusted_ignored):
        # The address or key the user meant may be the one that was ignored.
        raise with_hint(exc, f"\n{note}") from exc
    raise exc
