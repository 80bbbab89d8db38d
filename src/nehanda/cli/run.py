"""Runs one ``nehanda run``: opens a session, asks once, reports in the chosen format.

In the JSON formats every ending is a JSON line a program can read last: the result,
or an error object when the run failed, could not start, or was interrupted.

The engine, the tools and the output load only once the session's first request is
out (``cli.session_start``), so that they load while the server answers.
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from nehanda.cli.session_start import SessionOptions, start_session
from nehanda.cli.sigterm import ended_by_sigterm
from nehanda.errors import NehandaError
from nehanda.events import Retrying, RunFinished

if TYPE_CHECKING:
    from nehanda.cli.notify import Notifier
    from nehanda.cli.session import ChatSession
    from nehanda.types import ImagePart
    from nehanda.ui.json_output import JsonOutput, RunDescription
    from nehanda.ui.terminal import TerminalOutput

    Output = JsonOutput | TerminalOutput

INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class RunOptions:
    prompt: str
    session: SessionOptions
    output_format: str
    verbose: bool = False
    notify: bool = False
    images: tuple[Path, ...] = ()  # --image: shown to the model with the prompt


class _Report:
    """The run's output, built the first time it is needed: once the session has started,
    or when the run fails before that."""

    def __init__(self, output_format: str, workspace: Path) -> None:
        self.json = output_format != "text"
        self._format = output_format
        self._workspace = workspace
        self._output: Output | None = None
        self._description: RunDescription | None = None

    def output(self) -> Output:
        if self._output is None:
            self._description, self._output = self._build()
        return self._output

    @property
    def description(self) -> RunDescription:
        if self._description is None:
            self._description, self._output = self._build()
        return self._description

    def retrying(self, event: Retrying) -> None:
        """A retry while the session starts, said on stderr (in stream-json, no event may
        come before the ``init`` line)."""
        if not self.json:
            self.output().handle(event)
            return
        from nehanda.ui.shown_text import printable
        from nehanda.ui.summary import describe_retry

        sys.stderr.write(f"note: {printable(describe_retry(event))}\n")

    def _build(self) -> tuple[RunDescription, Output]:
        from nehanda.ui.json_output import JsonOutput, RunDescription

        description = RunDescription(provider="", model="", mode="", session_id="")
        if not self.json:
            from nehanda.ui.call_diffs import CallDiffs
            from nehanda.ui.terminal import TerminalOutput

            diffs = CallDiffs(self._workspace)
            return description, TerminalOutput(sys.stdout, sys.stderr, diffs)
        stream = self._format == "stream-json"
        return description, JsonOutput(sys.stdout, sys.stderr, description, stream=stream)


def run_once(options: RunOptions) -> int:
    """Runs the agent to its final answer; returns the process exit code.

    ``KeyboardInterrupt`` still escapes (the caller exits 130), once the JSON formats
    have written their last line."""
    report = _Report(options.output_format, options.session.workspace)
    try:
        finished = asyncio.run(_run(options, report))
    except NehandaError as exc:
        return _failed(report, str(exc), exc.exit_code)
    except KeyboardInterrupt:
        from nehanda.ui.terminal import TerminalOutput

        output = report.output()
        if isinstance(output, TerminalOutput):
            output.end()  # the answer so far stays on screen
        else:
            output.error(INTERRUPTED)
        raise
    if finished.problem and report.json:
        _error_line(finished.problem)
    if finished.problem:
        return 1
    from nehanda.ui.denials import REFUSED_EXIT_CODE

    return REFUSED_EXIT_CODE if report.output().denials.nothing_ran else 0


def report_failure(output_format: str, message: str) -> int:
    """Reports a run that could not start (no session to resume) as ``run_once`` reports
    a failed one; returns the exit code."""
    return _failed(_Report(output_format, Path.cwd()), message)


def _failed(report: _Report, message: str, code: int = 1) -> int:
    report.output().error(message)
    if report.json:
        _error_line(message)
    return code


def _error_line(message: str) -> None:
    """The JSON formats' error, said on stderr too, for the person who ran them (broken
    between words on a terminal)."""
    from nehanda.cli.error_text import show_error
    from nehanda.ui.shown_text import printable

    show_error(printable(message))


async def _run(options: RunOptions, report: _Report) -> RunFinished:
    if options.prompt.lstrip().startswith("/"):  # a command nobody has: nothing is sent
        from nehanda.cli.custom_commands import check_run_prompt
        from nehanda.cli.repl_commands import command_words

        repl_only = [word[1:] for word in command_words()]
        check_run_prompt(options.prompt, options.session.workspace, repl_only)
    with ended_by_sigterm():
        return await _run_session(options, report)


async def _run_session(options: RunOptions, report: _Report) -> RunFinished:
    start = await start_session(replace(options.session, on_retry=report.retrying))
    # The first request is out: the rest of nehanda loads while the server answers.
    from nehanda.cli.session import open_session
    from nehanda.ui.call_diffs import NotingApprover
    from nehanda.ui.json_output import JsonOutput

    chat = await open_session(options.session, start=start)
    output, description = report.output(), report.description
    description.provider, description.model = chat.config.name, chat.agent.model
    description.mode, description.session_id = chat.mode, chat.id
    chosen = chat.chosen()
    if isinstance(output, JsonOutput):
        output.start(chosen)
    else:
        if output.diffs:  # the approval prompt shows a diff; the preview need not repeat it
            chat.gate.approver = NotingApprover(chat.gate.approver, output.diffs)
        output.start()
        if options.verbose or sys.stderr.isatty():
            output.chosen(chosen)
    for note in chat.notes:
        output.note(note)
    if chat.hooks is not None:
        chat.hooks.warn = output.note
    notifier = _notifier(chat) if options.notify else None
    began = time.monotonic()
    try:
        await chat.started("resume" if options.session.resume else "startup")
        return await _ask(chat, options.prompt, _images(chat, options.images), report)
    except NehandaError as exc:
        chat.record_error(str(exc))
        hinted = await _with_listed_models(exc, chat)
        if hinted is exc:
            raise
        raise hinted from exc
    except (KeyboardInterrupt, asyncio.CancelledError):
        chat.record_interruption()
        raise
    finally:
        if notifier is not None:
            notifier.reply_ended(time.monotonic() - began)
            await notifier.drain()
        await chat.close()


async def _with_listed_models(exc: NehandaError, chat: ChatSession) -> NehandaError:
    """A request refused as bad or not found, for a model the server does not list:
    the error says which models it has."""
    from nehanda.errors import ProviderStatusError, with_hint
    from nehanda.providers.discovery import server_models, unlisted_model

    if not isinstance(exc, ProviderStatusError) or exc.status not in (400, 404):
        return exc
    names, _ = await server_models(chat.config)
    wrong = unlisted_model(chat.agent.model, names, chat.config.name)
    return exc if wrong is None else with_hint(exc, f" ({wrong}: pass --model NAME)")


def _notifier(chat: ChatSession) -> Notifier:
    """``--notify``: rings when an approval waits and when a run longer than
    ``[notify] after`` ends."""
    from nehanda.cli.notify import Notifier, NotifyingApprover

    notifier = Notifier(chat.notify, chat)
    if sys.stdin.isatty():
        chat.gate.approver = NotifyingApprover(chat.gate.approver, notifier)
    return notifier


def _images(chat: ChatSession, paths: tuple[Path, ...]) -> tuple[ImagePart, ...]:
    """The ``--image`` files as parts the provider takes (``ImageRefused`` if one is not)."""
    if not paths:
        return ()
    from nehanda.config.profiles import profile_for
    from nehanda.images import read_image

    limit = profile_for(chat.config.type).image_bytes
    return tuple(read_image(path, limit) for path in paths)


async def _ask(
    chat: ChatSession, prompt: str, images: tuple[ImagePart, ...], report: _Report
) -> RunFinished:
    from nehanda.cli.custom_commands import prepare_prompt

    output, description = report.output(), report.description
    prepared = await prepare_prompt(chat, prompt)
    for note in prepared.notes:
        output.note(note)
    shown = images + prepared.images
    async for event in chat.ask(prepared.text, prepared.rules, prepared.model, shown):
        description.mode = chat.mode
        output.handle(event)
        if isinstance(event, RunFinished):
            return event
    raise AssertionError("the engine always ends a run with RunFinished")
