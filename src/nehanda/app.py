"""Wires one ``nehanda run``: settings, provider, mode, tools, engine and output."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from nehanda.engine.loop import Agent, ModeSwitched, RunFinished
from nehanda.engine.mode import decide_mode
from nehanda.engine.system_prompt import build_system_prompt
from nehanda.errors import NehandaError
from nehanda.model_config import PROFILES
from nehanda.permissions import Mode
from nehanda.providers.discovery import ensure_model, find_provider
from nehanda.providers.factory import create_provider
from nehanda.providers.rescue import RescueProvider
from nehanda.settings import (
    Flags,
    ProviderConfig,
    Settings,
    load_settings,
    project_settings_path,
    resolve_named_provider,
    user_settings_path,
)
from nehanda.tool_gate import ToolGate
from nehanda.tool_support import ToolSupportCache
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import builtin_specs
from nehanda.trust import trust_store_path
from nehanda.types import Message
from nehanda.ui.approval import Approver, NoTerminal, TerminalApprover
from nehanda.ui.json_output import JsonOutput, RunDescription
from nehanda.ui.terminal import TerminalOutput


@dataclass(frozen=True)
class RunOptions:
    prompt: str
    flags: Flags
    output_format: str
    approve_all: bool
    workspace: Path
    permission_mode: Mode | None = None


def run_once(options: RunOptions) -> int:
    """Runs the agent to its final answer; returns the process exit code."""
    description = RunDescription(provider="", model="", mode="")
    output: JsonOutput | TerminalOutput
    if options.output_format == "text":
        output = TerminalOutput(sys.stdout, sys.stderr)
    else:
        output = JsonOutput(
            sys.stdout, sys.stderr, description, stream=options.output_format == "stream-json"
        )
    try:
        finished = asyncio.run(_run(options, description, output))
    except NehandaError as exc:
        output.error(str(exc))
        if not isinstance(output, TerminalOutput):
            sys.stderr.write(f"error: {exc}\n")
        return 1
    if finished.problem and not isinstance(output, TerminalOutput):
        sys.stderr.write(f"error: {finished.problem}\n")
    return 1 if finished.problem else 0


async def _run(
    options: RunOptions, description: RunDescription, output: JsonOutput | TerminalOutput
) -> RunFinished:
    settings = _load_settings(options)
    config = await _choose_provider(options.flags, settings)
    support = ToolSupportCache()
    description.provider, description.model = config.name, config.model or ""
    provider = create_provider(config)
    try:
        capabilities = await provider.capabilities(description.model)
    except BaseException:
        await provider.aclose()
        raise
    decision = decide_mode(
        config.type,
        force_manual_tools=config.force_manual_tools,
        native_tools=capabilities.native_tools,
        tools_refused=support.refused(config),
    )
    description.mode = decision.mode
    agent = Agent(
        provider=RescueProvider(provider) if decision.mode == "rescue" else provider,
        model=description.model,
        tools=builtin_specs(),
        run_tool=_tool_gate(options, settings, config),
        max_turns=settings.max_turns,
        mode=decision.mode,
        recover_leaks=settings.recover_leaked_calls,
        messages=[Message.text_message("system", build_system_prompt(options.workspace))],
    )
    output.start()
    try:
        async for event in agent.run(options.prompt):
            if isinstance(event, ModeSwitched):
                support.remember_refusal(config, event.reason)
                description.mode = event.mode
            output.handle(event)
            if isinstance(event, RunFinished):
                return event
    finally:
        await agent.provider.aclose()
    raise AssertionError("the engine always ends a run with RunFinished")


async def _choose_provider(flags: Flags, settings: Settings) -> ProviderConfig:
    if flags.provider:
        config = resolve_named_provider(settings, flags.provider)
    else:
        config = await find_provider(settings)
    return await ensure_model(config)


def _load_settings(options: RunOptions) -> Settings:
    settings = load_settings(options.workspace, options.flags)
    if settings.untrusted_ignored:
        sys.stderr.write(
            f"note: {project_settings_path(options.workspace)} sets "
            f"{', '.join(settings.untrusted_ignored)}; a project may set these only once "
            "you trust its folder, so they were ignored (run `nehanda trust` if you do)\n"
        )
    return settings


def _tool_gate(options: RunOptions, settings: Settings, config: ProviderConfig) -> ToolGate:
    """Permissions as settings and flags say (--yes is yolo mode), asking on the terminal."""
    mode = "yolo" if options.approve_all else options.permission_mode
    rules = replace(
        settings.permissions,
        mode=mode or settings.permissions.mode,
        protected=(user_settings_path().parent, trust_store_path().parent),
    )
    key_names = {profile.api_key_env for profile in PROFILES.values()}
    key_names |= {entry.api_key_env for entry in settings.providers.values()}
    key_names.add(config.api_key_env)
    context = ToolContext(
        options.workspace, secret_env=frozenset(name for name in key_names if name)
    )
    approver: Approver = NoTerminal()
    if sys.stdin.isatty() and sys.stderr.isatty():
        approver = TerminalApprover(sys.stdin, sys.stderr, options.workspace)
    return ToolGate(context, rules, approver)
