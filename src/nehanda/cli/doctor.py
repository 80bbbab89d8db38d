"""``nehanda providers`` and ``nehanda doctor``: what is configured, and whether it works.

``doctor`` checks one provider for real, the way a run would use it: the server
answers, the model is there, native tool support (asked of the server where it can
tell, as Ollama's ``/api/show`` does; otherwise one tiny streamed request offering
one tool), the mode nehanda will use and why, and the context length; then what
the kernel sandbox enforces for Bash commands here. It never writes settings; what
it learns about a model lands in the same cache a run uses.

``doctor --exam`` (``exam_command``) runs ``nehanda.exam`` on that provider instead,
one stderr line per task as it ends, and writes the mode it found only when ``--save``
asks. Before it spends tokens on a paid endpoint (``exam.estimate.paid_endpoint``) it
asks, or with no terminal refuses, unless ``--yes``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from nehanda.cli.error_text import show_error
from nehanda.config.profiles import profile_for
from nehanda.config.settings import (
    Flags,
    ProviderConfig,
    Settings,
    load_settings,
    resolve_named_provider,
    user_settings_path,
)
from nehanda.config.trust import untrusted_note
from nehanda.errors import ConfigError, NehandaError, ToolsUnsupportedError
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.sandboxing import report, session_sandbox
from nehanda.providers.base import Capabilities, ChatRequest, Provider
from nehanda.providers.discovery import ensure_model, find_provider
from nehanda.providers.factory import create_provider
from nehanda.providers.http_errors import redact_url
from nehanda.providers.mode import decide_mode
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.providers.window import choose_window
from nehanda.types import Message, ToolSpec

if TYPE_CHECKING:
    from nehanda.exam.runner import Exam, TaskRun
    from nehanda.providers.mode import Mode

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
    sandbox: list[tuple[str, str]] = []
    try:
        settings, config = await choose_provider(workspace, flags, diagnosis)
        rules = PermissionRules.from_settings(settings.permissions)
        sandbox = report(session_sandbox(settings.sandbox, rules, workspace), rules)
    except NehandaError as exc:
        diagnosis.problem = str(exc)
        diagnosis.checks += sandbox
        return diagnosis
    diagnosis.add("model", config.model or "")
    diagnosis = await diagnose(config, ToolSupportCache(), diagnosis)
    diagnosis.checks += sandbox
    return diagnosis


async def choose_provider(
    workspace: Path, flags: Flags, diagnosis: Diagnosis
) -> tuple[Settings, ProviderConfig]:
    """The settings and the provider ``nehanda run`` would use, with a model."""
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
    return settings, await ensure_model(config)


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
    if profile_for(config.type).wire != "ollama" or not config.context_cap:
        return f"{window.tokens} tokens ({window.source})"
    length = f"{found.context_length} tokens" if found.context_length else "not reported"
    return f"{length}; nehanda asks for {window.tokens} (num_ctx, context_cap {config.context_cap})"


def describe_providers(settings: Settings, environ: Mapping[str, str] = os.environ) -> str:
    """A table of the configured providers; key values are never shown, only their names."""
    if not settings.providers:
        return (
            f"no providers configured. Add one under [providers.NAME] in {user_settings_path()}"
            ", or let nehanda run find one (nehanda doctor shows which it would use)."
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
    lines.append(f"user settings: {user_settings_path()} (nehanda config shows every file)")
    trust_note = untrusted_note(settings.untrusted_ignored)
    if trust_note:
        lines.append(trust_note)
    return "\n".join(line.rstrip() for line in lines)


def _key(config: ProviderConfig, environ: Mapping[str, str]) -> str:
    if not config.api_key_env:
        return "-"
    state = "set" if config.api_key(environ) else "not set"
    return f"${config.api_key_env} ({state})"


@dataclass(frozen=True)
class ExamOptions:
    """``doctor --exam``'s choices: which modes, how often each task, save, JSON."""

    modes: tuple[Mode, ...] = ("native", "rescue")
    runs: int = 1
    save: bool = False
    json_output: bool = False
    confirmed: bool = False  # --yes: spend tokens on a paid endpoint without asking


class SpendingDeclined(Exception):
    """The user answered no to sending the exam to a paid endpoint."""


def exam_command(workspace: Path, flags: Flags, options: ExamOptions) -> int:
    """``nehanda doctor --exam``: the exam, its tables (or JSON) and, with ``--save``, the
    mode it found written to the user settings. Exit 0 when it finished, 1 when it could
    not run or was stopped by the server, 130 after Ctrl-C (the partial table is shown)."""
    import asyncio

    from nehanda.exam.runner import Exam
    from nehanda.exam.tasks import TASKS

    exam = Exam(TASKS, options.runs)
    chosen: list[tuple[Settings, ProviderConfig]] = []
    try:
        asyncio.run(_examine(workspace, flags, options, exam, chosen))
    except KeyboardInterrupt:
        exam.interrupted = True
    except SpendingDeclined:
        click.echo("not sent; nothing was spent (--yes sends without asking)", err=True)
        return 1
    except NehandaError as exc:
        exam.error = str(exc)
    return _conclude(exam, options, chosen[0] if chosen else None)


async def _examine(
    workspace: Path,
    flags: Flags,
    options: ExamOptions,
    exam: Exam,
    chosen: list[tuple[Settings, ProviderConfig]],
) -> None:
    from nehanda.exam.estimate import paid_endpoint
    from nehanda.exam.runner import Examiner, ExamStopped, ModeRun

    settings, config = await choose_provider(workspace, flags, Diagnosis())
    chosen.append((settings, config))
    exam.provider, exam.provider_type = config.name, config.type
    exam.model, exam.base_url = config.model or "", redact_url(config.base_url)
    provider = create_provider(config)
    try:
        found = await provider.capabilities(exam.model)
        native = decide_mode(config.type, native_tools=found.native_tools)
        exam.modes = [ModeRun(mode) for mode in options.modes]
        for run in exam.modes:
            if run.mode == "native" and native.mode == "rescue":
                run.status, run.reason = "skipped", native.reason
        line, tokens = _estimate(exam)
        click.echo(line, err=options.json_output)
        if not options.confirmed and paid_endpoint(config, os.environ):
            _approve_spending(exam, tokens)
        total = sum(len(exam.tasks) * exam.runs for run in exam.modes if run.status == "not run")
        examiner = Examiner(provider, exam.model, on_task=_progress(total))
        for run in exam.modes:
            if run.status == "not run":
                await examiner.run_mode(run, exam.tasks, exam.runs)
    except ExamStopped as exc:
        exam.error = str(exc)
    finally:
        await provider.aclose()


def _estimate(exam: Exam) -> tuple[str, int]:
    """The line saying what the exam will send, and its tokens."""
    from nehanda.engine.system_prompt import build_system_prompt
    from nehanda.exam.estimate import estimate
    from nehanda.exam.report import estimate_line
    from nehanda.exam.runner import EXAM_WORKSPACE
    from nehanda.tools.registry import builtin_specs

    system = build_system_prompt(EXAM_WORKSPACE)
    modes = [run.mode for run in exam.modes if run.status == "not run"]
    found = {m: estimate(exam.tasks, m, exam.runs, system, builtin_specs()) for m in modes}
    return estimate_line(exam, found), sum(e.tokens for e in found.values())


def _approve_spending(exam: Exam, tokens: int) -> None:
    """Asks at a terminal before the exam spends ``tokens`` on a paid endpoint; refuses
    (a usage error) where nobody can be asked."""
    from nehanda.exam.report import spending_question, spending_refused

    if not sys.stdin.isatty():
        raise click.UsageError(spending_refused(exam, tokens))
    try:
        sent = click.confirm(spending_question(exam, tokens), default=False, err=True)
    except click.Abort:  # Ctrl-D or Ctrl-C at the question
        sent = False
    if not sent:
        raise SpendingDeclined


def _progress(total: int) -> Callable[[TaskRun], None]:
    """What tells, on stderr, of each task as it ends: its place among ``total``."""
    from nehanda.exam.report import progress_line

    done = 0

    def report(outcome: TaskRun) -> None:
        nonlocal done
        done += 1
        click.echo(progress_line(outcome, done, total), err=True)

    return report


def _conclude(
    exam: Exam, options: ExamOptions, chosen: tuple[Settings, ProviderConfig] | None
) -> int:
    from nehanda.exam.report import exam_json, render_text
    from nehanda.exam.save import SaveResult, save_mode
    from nehanda.exam.summary import summarize
    from nehanda.exam.verdict import recommend

    summaries = [summarize(run, exam.tasks) for run in exam.modes]
    verdict = recommend(summaries, exam.provider_type, complete=exam.complete)
    saved = None
    if options.save and chosen:
        settings, config = chosen
        unfinished = SaveResult(False, "the exam did not finish")
        saved = save_mode(verdict.mode, config, settings) if exam.complete else unfinished
    if options.json_output:
        click.echo(json.dumps(exam_json(exam, summaries, verdict, saved)))
    elif chosen:
        click.echo(render_text(exam, summaries, verdict, saved))
    if exam.error and not options.json_output:
        show_error(exam.error)
    return 130 if exam.interrupted else 1 if exam.error else 0
