"""The ``nehanda`` command: parses flags and hands over to the app; nothing more.

Heavy modules are imported inside the commands so that ``nehanda --help`` is instant.
Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from nehanda import __version__

if TYPE_CHECKING:
    from nehanda.permissions import Mode

OUTPUT_FORMATS = ("text", "json", "stream-json")
# The same as permissions.MODES, written out: importing that module would slow --help.
PERMISSION_MODES = ("default", "accept-edits", "plan", "yolo")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="nehanda")
def cli() -> None:
    """An agentic assistant whose tool calls work on any model."""


@cli.command()
@click.argument("prompt", required=False)
@click.option(
    "--provider",
    help="A provider name from settings, or a type: "
    "openai, lmstudio, vllm, ollama, anthropic, nehanda.",
)
@click.option("--model", help="Model name to ask for.")
@click.option("--base-url", help="Server address, e.g. http://127.0.0.1:8000/v1.")
@click.option(
    "--max-turns",
    type=click.IntRange(min=1),
    help="Stop after this many model requests (default 50).",
)
@click.option(
    "--yes", "-y", is_flag=True, help="Run every tool call without asking (--permission-mode yolo)."
)
@click.option(
    "--permission-mode",
    type=click.Choice(PERMISSION_MODES),
    help="default: read-only tools run, the rest asks; accept-edits: file edits in the "
    "workspace run too; plan: read-only tools only; yolo: everything runs.",
)
@click.option(
    "--force-manual-tools",
    is_flag=True,
    help="Use rescue mode: tools described in the prompt, calls parsed from text.",
)
@click.option(
    "--output",
    "output_format",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="text for people; json or stream-json for programs.",
)
def run(
    prompt: str | None,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    max_turns: int | None,
    yes: bool,
    permission_mode: str | None,
    force_manual_tools: bool,
    output_format: str,
) -> int:
    """Run the agent on PROMPT until it answers (PROMPT '-' or absent: read stdin)."""
    from nehanda.app import RunOptions, run_once
    from nehanda.settings import Flags

    if yes and permission_mode not in (None, "yolo"):
        raise click.UsageError(f"--yes means --permission-mode yolo, not {permission_mode}")
    options = RunOptions(
        prompt=_read_prompt(prompt),
        flags=Flags(provider, model, base_url, max_turns, force_manual_tools),
        output_format=output_format,
        approve_all=yes,
        workspace=Path.cwd().resolve(),
        permission_mode=cast("Mode | None", permission_mode),
    )
    return run_once(options)


@cli.command()
def providers() -> int:
    """List the configured providers (never their keys)."""
    from nehanda.doctor import describe_providers
    from nehanda.errors import ConfigError
    from nehanda.settings import load_settings

    try:
        settings = load_settings(Path.cwd().resolve())
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 1
    click.echo(describe_providers(settings))
    return 0


@cli.command()
@click.option("--provider", help="A provider name from settings, or a type (default: as run).")
@click.option("--model", help="Model name to check.")
@click.option("--base-url", help="Server address to check.")
def doctor(provider: str | None, model: str | None, base_url: str | None) -> int:
    """Check that a provider works: server, model, tools, mode, context."""
    import asyncio

    from nehanda.doctor import run_doctor
    from nehanda.settings import Flags

    flags = Flags(provider=provider, model=model, base_url=base_url)
    diagnosis = asyncio.run(run_doctor(Path.cwd().resolve(), flags))
    click.echo("nehanda doctor")
    if diagnosis.checks:
        click.echo(diagnosis.render())
    if diagnosis.problem:
        click.echo(f"error: {diagnosis.problem}", err=True)
        return 1
    click.echo("ok: nehanda can use this provider")
    return 0


@cli.command()
@click.argument(
    "folder", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
def trust(folder: Path | None) -> int:
    """Trust FOLDER (default: here): its .nehanda/settings.toml may then loosen permissions
    and choose providers' addresses and keys."""
    from nehanda.trust import trust_folder

    click.echo(f"trusted {trust_folder(folder or Path.cwd())}")
    return 0


def _read_prompt(prompt: str | None) -> str:
    if prompt is not None and prompt != "-":
        text = prompt
    elif prompt == "-" or not sys.stdin.isatty():
        text = sys.stdin.read()
    else:
        raise click.UsageError("give a prompt, e.g. nehanda run 'what does this project do?'")
    if not text.strip():
        raise click.UsageError("the prompt is empty")
    return text


def main(argv: list[str] | None = None) -> None:
    try:
        code = cli.main(args=argv, prog_name="nehanda", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        sys.stderr.write("\ninterrupted\n")
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
