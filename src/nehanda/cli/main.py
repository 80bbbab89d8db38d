"""The ``nehanda`` command: parses flags and hands over to ``run`` or the REPL; nothing more.

Heavy modules are imported inside the commands so that ``nehanda --help`` is instant.
Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from nehanda import __version__
from nehanda.cli import collector
from nehanda.cli.error_text import show_error
from nehanda.cli.help_text import PROMPT_KEY, Nehanda
from nehanda.config.permission_modes import MODES, PERMISSION_MODES, Mode
from nehanda.errors import ConfigError, NehandaError

if TYPE_CHECKING:
    from nehanda.cli.session_start import SessionOptions
    from nehanda.providers.mode import Mode as ExamMode

OUTPUT_FORMATS = ("text", "json", "stream-json")
PICK_SESSION = ""  # --resume with no ID: the REPL's session picker
TOOL_MODES = ("auto", "native", "rescue")
VERBOSE_HELP = (
    "Say on stderr what was chosen (provider, model, tool mode and why, permission mode) "
    "even when stderr is not a terminal."
)


def _checked_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """``--base-url`` must be an address: a usage error, not a server that did not answer."""
    if value is None:
        return None
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
        _ = parts.port
    except ValueError as exc:
        raise click.BadParameter(f"not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        # The value is not repeated: it may hold a key (user:key@host without a scheme).
        raise click.BadParameter(
            "write an http:// or https:// address, e.g. http://127.0.0.1:8000/v1"
        )
    return value


def session_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options every conversation takes: which model, how tools run, what to resume."""
    options = [
        click.option(
            "--provider",
            help="A provider name from settings, or a type: "
            "openai, lmstudio, vllm, ollama, anthropic, nehanda.",
        ),
        click.option("--model", help="Model name to ask for."),
        click.option(
            "--base-url",
            callback=_checked_url,
            help="Server address, e.g. http://127.0.0.1:8000/v1.",
        ),
        click.option(
            "--api-key-env",
            metavar="NAME",
            help="Send the key held in the environment variable NAME, for this run "
            "(e.g. --api-key-env OPENAI_API_KEY for a --base-url server).",
        ),
        click.option(
            "--max-turns",
            type=click.IntRange(min=1),
            help="Stop after this many model requests per prompt (default 50).",
        ),
        click.option(
            "--yes",
            "-y",
            is_flag=True,
            help="Run every tool call without asking (--permission-mode yolo).",
        ),
        click.option(
            "--permission-mode",
            type=click.Choice(MODES),
            help=". ".join(f"{mode}: {PERMISSION_MODES[mode].meaning}" for mode in MODES) + ".",
        ),
        click.option(
            "--force-manual-tools",
            is_flag=True,
            help="Use rescue mode: tools described in the prompt, calls parsed from text.",
        ),
        click.option(
            "--mode",
            "tool_mode",
            type=click.Choice(TOOL_MODES),
            help="How tools are called: native (the server's own tool calling), rescue "
            "(described in the prompt, parsed from text) or auto (default: decided per "
            "provider and model).",
        ),
        click.option(
            "--continue",
            "-c",
            "continue_",
            is_flag=True,
            help="Resume the latest session in this folder.",
        ),
        click.option(
            "--resume",
            "resume_id",
            metavar="[ID]",
            is_flag=False,
            flag_value=PICK_SESSION,
            help="Resume the session ID (a unique start of it is enough); with no ID, "
            "pick one of this folder's sessions (interactive only).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group(
    cls=Nehanda,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=True,
)
@click.version_option(__version__, "-V", "--version", prog_name="nehanda")
@session_options
@click.option(
    "--print",
    "-p",
    "print_",
    is_flag=True,
    help="Answer the prompt and exit: the same as `nehanda run PROMPT` (with --output "
    "and --verbose).",
)
@click.option("--output", "output_format", type=click.Choice(OUTPUT_FORMATS), hidden=True)
@click.option("--verbose", "-v", is_flag=True, hidden=True)
@click.pass_context
def cli(context: click.Context, /, **options: Any) -> int | None:
    """An agentic assistant whose tool calls work on any model.

    With no command, starts an interactive session (the same as `nehanda chat`); a
    PROMPT that is no command's name is its first prompt. Without a terminal, or with
    -p, the prompt is answered once as `nehanda run PROMPT` does; `nehanda run WORD`
    sends a command's name as a prompt. A pipe on stdin is added to the prompt.
    """
    printing, output_format = options.pop("print_"), options.pop("output_format")
    verbose = options.pop("verbose")
    prompt: str | None = context.meta.get(PROMPT_KEY)
    if context.invoked_subcommand is not None:
        if printing or output_format is not None or verbose:
            raise click.UsageError(
                f"-p/--print, --output and --verbose go without a command; to send "
                f"'{context.invoked_subcommand}' as a prompt: nehanda run "
                f"{context.invoked_subcommand}"
            )
        return None
    if printing or (prompt is not None and not sys.stdin.isatty()):
        output_format = output_format or "text"
        return cast(
            "int",
            context.invoke(
                run,
                prompt=prompt,
                output_format=output_format,
                verbose=verbose,
                notify=False,
                **options,
            ),
        )
    if output_format is not None or verbose:
        raise click.UsageError("--output and --verbose go with -p or nehanda run")
    return _chat(options, prompt)


@cli.command()
@session_options
def chat(**options: Any) -> int:
    """Talk with the agent interactively."""
    return _chat(options, None)


@cli.command()
@click.argument("prompt", required=False)
@session_options
@click.option(
    "--output",
    "output_format",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="text for people; json or stream-json for programs.",
)
@click.option("--verbose", "-v", is_flag=True, help=VERBOSE_HELP)
@click.option(
    "--notify",
    is_flag=True,
    help="Ring the terminal (and run [notify] command) when an approval waits or a long run ends.",
)
@click.option(
    "--image",
    "images",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Show the model this image (PNG, JPEG, GIF or WebP) with the prompt; repeatable.",
)
def run(
    prompt: str | None,
    output_format: str,
    verbose: bool,
    notify: bool = False,
    images: tuple[Path, ...] = (),
    **options: Any,
) -> int:
    """Run the agent on PROMPT until it answers (PROMPT '-' or absent: read stdin; a
    pipe on stdin beside a PROMPT is added to it)."""
    from nehanda.cli.run import RunOptions, report_failure, run_once

    if options["resume_id"] == PICK_SESSION:
        raise click.UsageError(
            "--resume needs a session ID here: `nehanda sessions` lists them, "
            "--continue takes the latest (the picker is in the interactive nehanda --resume)"
        )
    try:
        text = _read_prompt(prompt)
    except UnicodeError as exc:
        return report_failure(output_format, _not_utf8(exc))
    try:
        session = _session_options(options)
    except NehandaError as exc:
        return report_failure(output_format, str(exc))
    return run_once(RunOptions(text, session, output_format, verbose, notify, images))


@cli.command()
@click.option("--all", "everywhere", is_flag=True, help="List sessions of every folder.")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Show at most this many sessions.",
)
def sessions(everywhere: bool, limit: int) -> int:
    """List saved sessions (newest first): id, start, turns, folder, first prompt."""
    from nehanda.cli.session_list import describe_sessions

    click.echo(describe_sessions(None if everywhere else Path.cwd().resolve(), limit=limit))
    return 0


def _chat(options: dict[str, Any], first_prompt: str | None) -> int:
    from nehanda.cli.repl import run_repl

    picking = options["resume_id"] == PICK_SESSION
    try:
        session = _session_options({**options, "resume_id": None} if picking else options)
    except NehandaError as exc:
        show_error(str(exc))
        return 1
    return run_repl(session, first_prompt, pick_session=picking)


def _session_options(options: dict[str, Any]) -> SessionOptions:
    """The parsed flags as session options; ``NehandaError`` when a session to resume is missing."""
    from nehanda.cli.session_start import SessionOptions
    from nehanda.config.settings import Flags
    from nehanda.engine.transcript import find_session, latest_session

    if options["yes"] and options["permission_mode"] not in (None, "yolo"):
        raise click.UsageError(
            f"--yes means --permission-mode yolo, not {options['permission_mode']}"
        )
    if options["tool_mode"] == "native" and options["force_manual_tools"]:
        raise click.UsageError("--mode native and --force-manual-tools disagree: use one")
    if options["continue_"] and options["resume_id"] is not None:
        raise click.UsageError("use --continue or --resume, not both")
    workspace = Path.cwd().resolve()
    resume = find_session(options["resume_id"]) if options["resume_id"] else None
    if options["continue_"]:
        resume = latest_session(workspace)
        if resume is None:
            raise ConfigError(f"no earlier session in {workspace} to continue")
    flags = Flags(
        options["provider"],
        options["model"],
        options["base_url"],
        options["max_turns"],
        options["force_manual_tools"],
        api_key_env=_key_variable(options["api_key_env"]),
    )
    return SessionOptions(
        flags=flags,
        workspace=workspace,
        approve_all=options["yes"],
        permission_mode=cast("Mode | None", options["permission_mode"]),
        resume=resume,
        mode_override=None if options["tool_mode"] in (None, "auto") else options["tool_mode"],
    )


def _key_variable(name: str | None) -> str | None:
    """``--api-key-env NAME``, once NAME is known to hold a key."""
    if name is not None and not os.environ.get(name):
        raise click.UsageError(f"--api-key-env {name}: {name} is not set in the environment")
    return name


@cli.command()
@click.option(
    "--session", "session_id", metavar="ID", help="Undo in this session (default: the latest here)."
)
@click.option(
    "--turns",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Undo this many turns.",
)
@click.option("--list", "listing", is_flag=True, help="List the turns and the files each changed.")
@click.option("--force", is_flag=True, help="Restore even files changed since by something else.")
@click.option("--redo", "again", is_flag=True, help="Take back the last undo.")
def undo(session_id: str | None, turns: int, listing: bool, force: bool, again: bool) -> int:
    """Revert the files the last prompt's turn changed (of this folder's latest session)."""
    from nehanda.cli.undo_command import listed, run_undo

    workspace = Path.cwd().resolve()
    try:
        if listing:
            click.echo(listed(workspace, session_id))
        else:
            click.echo(run_undo(workspace, session_id, turns=turns, force=force, again=again))
    except ConfigError as exc:
        show_error(str(exc))
        return 1
    return 0


@cli.command()
def providers() -> int:
    """List the configured providers (never their keys)."""
    from nehanda.cli.doctor import describe_providers
    from nehanda.config.settings import load_settings
    from nehanda.permissions.decision import PermissionRules

    try:
        settings = load_settings(Path.cwd().resolve())
        PermissionRules.from_settings(settings.permissions)  # a broken rule stops a run too
    except ConfigError as exc:
        show_error(str(exc))
        return 1
    click.echo(describe_providers(settings))
    return 0


@cli.command("config")
def config_command() -> int:
    """Show the settings files in effect (present or not) and the merged settings."""
    from nehanda.cli.config_command import describe_config
    from nehanda.config.settings import load_settings

    workspace = Path.cwd().resolve()
    click.echo(describe_config(workspace, load_settings(workspace)))
    return 0


EXAM_MODES: dict[str, tuple[ExamMode, ...]] = {
    "native": ("native",),
    "rescue": ("rescue",),
    "both": ("native", "rescue"),
}


@cli.command()
@click.option("--provider", help="A provider name from settings, or a type (default: as run).")
@click.option("--model", help="Model name to check.")
@click.option("--base-url", callback=_checked_url, help="Server address to check.")
@click.option(
    "--exam",
    is_flag=True,
    help="Measure how well the model calls tools here, native against rescue, on a short "
    "fixed set of tasks (no tool runs), and recommend a mode.",
)
@click.option(
    "--mode",
    "exam_mode",
    type=click.Choice(tuple(EXAM_MODES)),
    help="With --exam: the modes to examine (default both).",
)
@click.option(
    "--runs", type=click.IntRange(1, 20), help="With --exam: run each task N times (default 1)."
)
@click.option(
    "--save",
    is_flag=True,
    help="With --exam: write the recommended mode (force_manual_tools) for this provider "
    "into the user settings.",
)
@click.option(
    "--output",
    "output_format",
    type=click.Choice(("text", "json")),
    help="With --exam: text for people (default), json for programs.",
)
@click.option(
    "--yes",
    "-y",
    "confirmed",
    is_flag=True,
    help="With --exam: send the tasks (tens of thousands of tokens) to a paid endpoint "
    "without asking.",
)
def doctor(
    provider: str | None,
    model: str | None,
    base_url: str | None,
    exam: bool,
    exam_mode: str | None,
    runs: int | None,
    save: bool,
    output_format: str | None,
    confirmed: bool,
) -> int:
    """Check that a provider works: server, model, tools, mode, context.

    With --exam, measure which tool-calling mode works better for the model."""
    import asyncio

    from nehanda.cli.doctor import run_doctor
    from nehanda.config.settings import Flags

    flags = Flags(provider=provider, model=model, base_url=base_url)
    if exam:
        from nehanda.cli.doctor import ExamOptions, exam_command

        if save and exam_mode not in (None, "both"):
            raise click.UsageError("--save compares both modes: leave out --mode")
        options = ExamOptions(
            EXAM_MODES[exam_mode or "both"], runs or 1, save, output_format == "json", confirmed
        )
        return exam_command(Path.cwd().resolve(), flags, options)
    if exam_mode or runs or save or output_format or confirmed:
        raise click.UsageError("--mode, --runs, --save, --output and --yes go with --exam")
    diagnosis = asyncio.run(run_doctor(Path.cwd().resolve(), flags))
    click.echo("nehanda doctor")
    if diagnosis.checks:
        click.echo(diagnosis.render())
    if diagnosis.problem:
        show_error(diagnosis.problem)
        return 1
    click.echo("ok: nehanda can use this provider")
    return 0


@cli.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--list", "listing", is_flag=True, help="List the trusted folders.")
@click.option("--remove", is_flag=True, help="Stop trusting FOLDER (default: here).")
def trust(folder: Path | None, listing: bool, remove: bool) -> int:
    """Trust FOLDER (default: here): its .nehanda/settings.toml may then loosen permissions
    and choose providers' addresses and keys."""
    from nehanda.config.trust import describe_trusted, trust_folder, untrust_folder

    if listing:
        if folder is not None or remove:
            raise click.UsageError("--list takes no FOLDER and no --remove")
        click.echo(describe_trusted())
        return 0
    if remove:
        forgotten = untrust_folder(folder or Path.cwd())
        if forgotten is None:
            raise ConfigError(f"{folder or Path.cwd()} is not trusted (nehanda trust --list)")
        click.echo(f"no longer trusted: {forgotten}")
        return 0
    if folder is not None and not folder.is_dir():
        raise click.BadParameter(f"{folder} is not a folder", param_hint="FOLDER")
    click.echo(f"trusted {trust_folder(folder or Path.cwd())}")
    return 0


@cli.group(invoke_without_command=True)
@click.pass_context
def mcp(context: click.Context) -> int:
    """List the MCP servers: their state, their tools, what their schemas cost."""
    if context.invoked_subcommand is not None:
        return 0
    import asyncio

    from nehanda.cli.mcp_command import list_servers

    try:
        click.echo(asyncio.run(list_servers(Path.cwd().resolve())))
    except ConfigError as exc:
        show_error(str(exc))
        return 1
    return 0


@mcp.command("approve")
@click.argument("name")
@click.option("--yes", "-y", "confirmed", is_flag=True, help="Approve without asking.")
def mcp_approve(name: str, confirmed: bool) -> int:
    """Approve the project's MCP server NAME as it is defined now."""
    from nehanda.cli.mcp_command import approve_server

    try:
        return approve_server(Path.cwd().resolve(), name, confirmed)
    except ConfigError as exc:
        show_error(str(exc))
        return 1


@cli.group(invoke_without_command=True)
@click.pass_context
def hooks(context: click.Context) -> int:
    """List the hooks configured: event, matcher, command, and the file:line of each."""
    if context.invoked_subcommand is not None:
        return 0
    from nehanda.cli.hooks_command import list_hooks

    try:
        click.echo(list_hooks(Path.cwd().resolve()))
    except ConfigError as exc:
        show_error(str(exc))
        return 1
    return 0


@hooks.command("approve")
@click.option("--yes", "-y", "confirmed", is_flag=True, help="Approve without asking.")
def hooks_approve(confirmed: bool) -> int:
    """Approve the project's hooks as they are defined now."""
    from nehanda.cli.hooks_command import approve_hooks

    try:
        return approve_hooks(Path.cwd().resolve(), confirmed)
    except ConfigError as exc:
        show_error(str(exc))
        return 1


@cli.command()
@click.option("--provider", help="A provider name from settings, or a type (default: as run).")
@click.option("--model", help="Answer every request with this model (default: the client's).")
@click.option(
    "--base-url", callback=_checked_url, help="Server address, e.g. http://127.0.0.1:8000/v1."
)
@click.option(
    "--force-manual-tools",
    is_flag=True,
    help="Use rescue mode: tools described in the prompt, calls parsed from text.",
)
@click.option("--host", help="Address to listen on (default 127.0.0.1, or [serve] host).")
@click.option("--port", type=click.IntRange(0, 65535), help="Port (default 8765).")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Processes answering on the one port (each keeps its own upstream connections); "
    "about one per core for many clients.",
)
@click.option(
    "--log-requests",
    is_flag=True,
    help="One line on stderr per request: method, path, status, milliseconds "
    "(never bodies, headers or keys).",
)
def serve(
    provider: str | None,
    model: str | None,
    base_url: str | None,
    force_manual_tools: bool,
    host: str | None,
    port: int | None,
    workers: int,
    log_requests: bool,
) -> int:
    """Serve OpenAI Chat Completions and Anthropic Messages with working tool calls.

    Exits 1, saying what to do, when it cannot start (a port in use, say)."""
    from nehanda.config.settings import Flags
    from nehanda.serve.run import ServeOptions, serve_command

    flags = Flags(
        provider=provider, model=model, base_url=base_url, force_manual_tools=force_manual_tools
    )
    collector.settled()  # a server runs for days: its garbage must be collected
    return serve_command(ServeOptions(flags, host, port, workers, log_requests))


@cli.command()
@click.option("--provider", help="A provider name from settings, or a type (default: as run).")
@click.option("--model", help="The model to use (default: the provider's).")
@click.option("--base-url", help="Server address, e.g. http://127.0.0.1:8000/v1.")
@click.option("--max-turns", type=click.IntRange(min=1), help="Model requests per prompt.")
@click.option(
    "--force-manual-tools",
    is_flag=True,
    help="Use rescue mode: tools described in the prompt, calls parsed from text.",
)
def acp(
    provider: str | None,
    model: str | None,
    base_url: str | None,
    max_turns: int | None,
    force_manual_tools: bool,
) -> int:
    """Be an Agent Client Protocol agent on stdin/stdout, for Zed, Neovim and others."""
    from nehanda.config.settings import Flags

    try:
        from nehanda.acp.command import acp_command
    except ModuleNotFoundError as exc:
        if exc.name != "acp":
            raise
        show_error("nehanda acp needs the ACP SDK: pip install 'nehanda[acp]'")
        return 1
    collector.settled()  # an editor keeps it running: its garbage must be collected
    return acp_command(Flags(provider, model, base_url, max_turns, force_manual_tools))


def _read_prompt(prompt: str | None) -> str:
    if prompt is not None and prompt != "-":
        text = _with_stdin(prompt)
    elif prompt == "-" or not sys.stdin.isatty():
        text = sys.stdin.buffer.read().decode("utf-8")
    else:
        raise click.UsageError("give a prompt, e.g. nehanda run 'what does this project do?'")
    if not text.strip():
        raise click.UsageError("the prompt is empty")
    text.encode("utf-8")  # an argument's bytes that were not UTF-8 arrive as surrogates
    return text


def _with_stdin(prompt: str) -> str:
    from nehanda.cli.piped_stdin import GRACE_SECONDS, read_piped, with_piped

    piped = read_piped()
    if piped.waited:
        sys.stderr.write(
            f"note: nothing came on stdin within {GRACE_SECONDS:g} s, so the prompt goes "
            "without it (< /dev/null skips the wait)\n"
        )
    return with_piped(prompt, piped)


def _not_utf8(error: UnicodeError) -> str:
    where = ""
    if isinstance(error, UnicodeDecodeError):
        where = f" (byte {error.start} is 0x{error.object[error.start]:02x})"
    elif isinstance(error, UnicodeEncodeError):
        where = f" (at character {error.start})"
    return (
        f"the prompt is not UTF-8 text{where}; convert it first, "
        "e.g. iconv -f latin1 -t utf-8 prompt.txt | nehanda run"
    )


def _no_plugins() -> tuple[()]:
    return ()


# Neither httpx nor pydantic offers a supported way to skip start-up work that nehanda
# never uses, so main() puts two stand-ins in sys.modules before either is imported.
# httpx 0.29's __init__ imports its own command line (click, rich, pygments) unless that
# import fails, which a None there makes it do: without it the first request leaves about
# 30 ms later (bench/startup.py). pydantic's plugin loader imports importlib.metadata at
# its top, then reads every installed distribution's entry points as the first model is
# built; nehanda uses no plugins. Its documented switch, PYDANTIC_DISABLE_PLUGINS, skips
# only the reading (the first request still 4 ms later), and set in our environment it
# would turn off the plugins of the user's own programs that Bash and MCP servers start.
_NO_PYDANTIC_PLUGINS = types.ModuleType("pydantic.plugin._loader")
_NO_PYDANTIC_PLUGINS.get_plugins = _no_plugins  # type: ignore[attr-defined]


def _click_message(exc: click.ClickException) -> str:
    """click's error as one line, with where to read the usage."""
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        return f"{message} (see {ctx.command_path} --help)"
    return message


def main(argv: list[str] | None = None) -> None:
    collector.hold()
    try:
        _main(argv)
    finally:
        collector.exiting()


def _main(argv: list[str] | None) -> None:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    sys.modules.setdefault("pydantic.plugin._loader", _NO_PYDANTIC_PLUGINS)
    # httpcore imports trio where it is installed, for a trio event loop nehanda never
    # runs (asyncio only): some 300 ms at the first request. Absent, it imports none.
    sys.modules.setdefault("trio", None)  # type: ignore[arg-type]
    from nehanda.config.environ import capture_startup_environ
    from nehanda.secret_env import seal

    capture_startup_environ()  # what ${VAR} in MCP settings reads, before the keys go
    seal()  # before anything starts a child, and before a child could read our environ
    try:
        code = cli.main(args=argv, prog_name="nehanda", standalone_mode=False)
    except click.ClickException as exc:
        show_error(_click_message(exc))  # one form for every error: nehanda's "error: …"
        sys.exit(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        sys.stderr.write("\ninterrupted\n")
        sys.exit(130)
    except NehandaError as exc:  # a command that has no error handling of its own
        show_error(str(exc))
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
