"""``nehanda providers`` and ``nehanda doctor``: what is configured, and whether it works.

``doctor`` checks one provider for real, the way a run would use it: the server
answers, the model is there, native tool support (asked of the server where it can
tell, as Ollama's ``/api/show`` does; otherwise one tiny streamed request offering
one tool), the mode nehanda will use and why, and the context length. It never
writes settings; what it learns about a model lands in the same cache a run uses.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nehanda.config.settings import (
    Flags,
    ProviderConfig,
    Settings,
    load_settings,
    resolve_named_provider,
)
from nehanda.config.trust import untrusted_note
from nehanda.errors import ConfigError, NehandaError, ToolsUnsupportedError
from nehanda.permissions.decision import PermissionRules
from nehanda.providers.base import Capabilities, ChatRequest, Provider
from nehanda.providers.discovery import ensure_model, find_provider
from nehanda.providers.factory import create_provider
from nehanda.providers.http_errors import redact_url
from nehanda.providers.mode import decide_mode
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.providers.window import choose_window
from nehanda.types import Message, ToolSpec

PROBE_TOOL = ToolSpec(
    "ping", "Answers pong. Call it only when asked to.", {"type": "object", "properties": {}}
)
PROBE_PROMPT = "Reply with the single word: ok"
PROBE_MAX_TOKENS = 32


@dataclass
class Diagnosis:
    checks: list[tuple[str, str]] = field(default_factory=list)
    problem: str | None = None

    def add(self, label: str, value: str) -> None:
        self.checks.append((label, value))

    def render(self) -> str:
        width = max((len(label) for label, _ in self.checks), default=0)
        lines = [f"  {label.ljust(width)}  {value}" for label, value in self.checks]
        return "\n".join(lines)


async def run_doctor(workspace: Path, flags: Flags) -> Diagnosis:
    """Chooses the provider as ``nehanda run`` would, then diagnoses it."""
    diagnosis = Diagnosis()
    try:
        settings = load_settings(workspace, flags)
        PermissionRules.from_settings(settings.permissions)  # a broken rule stops a run too
        trust_note = untrusted_note(settings.untrusted_ignored)
        if trust_note:
            diagnosis.add("settings", trust_note)
        if flags.provider:
            config = resolve_named_provider(settings, flags.provider)
        else:
            config = await find_provider(settings)
        diagnosis.add("provider", f"{config.name} ({config.type}) at {redact_url(config.base_url)}")
        config = await ensure_model(config)
    except NehandaError as exc:
        diagnosis.problem = str(exc)
        return diagnosis
    diagnosis.add("model", config.model or "")
    return await diagnose(config, ToolSupportCache(), diagnosis)


async def diagnose(
    config: ProviderConfig, support: ToolSupportCache, diagnosis: Diagnosis
) -> Diagnosis:
    provider = create_provider(config)
    try:
        found = await provider.capabilities(config.model or "")
        refusal = None
        if found.native_tools is None:
            refusal = await _probe(provider, config)
            diagnosis.add("server", "reachable; it answered a test request")
        else:
            diagnosis.add("server", "reachable; it described the model")
        diagnosis.add("tools", _tools_line(found, refusal, config))
        decision = decide_mode(
            config.type,
            force_manual_tools=config.force_manual_tools,
            native_tools=found.native_tools,
            tools_refused=refusal is not None or support.refused(config),
        )
        diagnosis.add("mode", f"{decision.mode}: {decision.reason}")
        diagnosis.add("context", _context_line(found, config, support))
    except NehandaError as exc:
        diagnosis.problem = str(exc)
    finally:
        await provider.aclose()
    return diagnosis


def _forced_rescue(config: ProviderConfig) -> bool:
    """Rescue whatever the model can do (force_manual_tools, the Nehanda endpoint)."""
    return decide_mode(config.type, force_manual_tools=config.force_manual_tools).mode == "rescue"


async def _probe(provider: Provider, config: ProviderConfig) -> str | None:
    """One tiny streamed request; the server's refusal of tools, or ``None``."""
    offer = () if _forced_rescue(config) else (PROBE_TOOL,)
    request = ChatRequest(
        model=config.model or "",
        messages=(Message.text_message("user", PROBE_PROMPT),),
        tools=offer,
        tool_choice="auto" if offer else None,
        max_tokens=PROBE_MAX_TOKENS,
    )
    try:
        async for _ in provider.stream(request):
            pass
    except ToolsUnsupportedError as exc:
        return str(exc)
    return None


def _tools_line(found: Capabilities, refusal: str | None, config: ProviderConfig) -> str:
    if found.native_tools is True:
        return "native: the server reports tool support for this model"
    if found.native_tools is False:
        return "none: the server reports no tool support for this model"
    if refusal is not None:
        return f"refused: {refusal}"
    if _forced_rescue(config):
        return "not tried: this provider always uses rescue mode"
    return "native: the server accepted a request offering a tool"


def _context_line(found: Capabilities, config: ProviderConfig, support: ToolSupportCache) -> str:
    window = choose_window(config, found.context_length, support.learned_window(config))
    if window.assumed:
        return (
            f"not reported; nehanda assumes {window.tokens} tokens. Set context_window in "
            "the provider's settings entry if the server was started with more"
        )
    if config.type != "ollama" or not config.context_cap:
        return f"{window.tokens} tokens ({window.source})"
    length = f"{found.context_length} tokens" if found.context_length else "not reported"
    return f"{length}; nehanda asks for {window.tokens} (num_ctx, context_cap {config.context_cap})"


def describe_providers(settings: Settings, environ: Mapping[str, str] = os.environ) -> str:
    """A table of the configured providers; key values are never shown, only their names."""
    if not settings.providers:
        return (
            "no providers configured. Add one under [providers.NAME] in settings.toml, or let "
            "nehanda run find one (nehanda doctor shows which it would use)."
        )
    rows, problems = [("NAME", "TYPE", "BASE URL", "MODEL", "KEY")], []
    for name in sorted(settings.providers):
        label = name + (" *" if name == settings.default_provider else "")
        try:
            config = resolve_named_provider(settings, name, environ)
        except ConfigError as exc:
            problems.append(f"{label}: {exc}")
            continue
        rows.append(
            (label, config.type, config.base_url, config.model or "-", _key(config, environ))
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in rows]
    lines += problems
    if settings.default_provider:
        lines.append(f"* default_provider ({settings.default_provider})")
    trust_note = untrusted_note(settings.untrusted_ignored)
    if trust_note:
        lines.append(trust_note)
    return "\n".join(line.rstrip() for line in lines)


def _key(config: ProviderConfig, environ: Mapping[str, str]) -> str:
    if not config.api_key_env:
        return "-"
    state = "set" if config.api_key(environ) else "not set"
    return f"${config.api_key_env} ({state})"
