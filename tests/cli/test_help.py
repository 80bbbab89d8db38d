"""``nehanda --help`` as a user reads it: every command summed up whole, examples, the
environment variables nehanda reads, and where the user's settings are."""

from __future__ import annotations

import os
from pathlib import Path

from cli_process import nehanda
from nehanda.cli.config_command import ENV_LAYER
from nehanda.config.profiles import PROFILES


def help_text(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = nehanda(*args, "--help", cwd=tmp_path, env={"COLUMNS": "100", **(env or {})})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_command_is_summed_up_whole(tmp_path: Path) -> None:
    text = help_text(tmp_path)
    commands = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    assert "..." not in commands
    flat = " ".join(commands.split())
    for says in (
        "config Show the settings files in effect (present or not) and the merged settings.",
        "run Run the agent on PROMPT until it answers (PROMPT '-' or absent: read stdin; a "
        "pipe on stdin beside a PROMPT is added to it).",
        "sessions List saved sessions (newest first): id, start, turns, folder, first prompt.",
    ):
        assert says in flat


def test_examples_environment_and_the_settings_path(tmp_path: Path) -> None:
    text = help_text(tmp_path)
    assert 'nehanda -p "what does this project do?"' in text
    assert "nehanda doctor --exam" in text
    environment = text.split("Environment:\n", 1)[1].split("Settings:\n", 1)[0]
    read = {profile.api_key_env for profile in PROFILES.values()}
    read |= {profile.base_url_env for profile in PROFILES.values()}
    for name in sorted(n for n in read | set(ENV_LAYER) | {"NO_COLOR"} if n):
        assert f"\n  {name} " in f"\n{environment}", name
    user_settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    settings = " ".join(text.split("Settings:\n", 1)[1].split())
    assert settings.startswith(f"{user_settings} for you, .nehanda/settings.toml for a project")


def test_subcommand_help_names_the_new_flags(tmp_path: Path) -> None:
    text = help_text(tmp_path, "run")
    assert "--mode [auto|native|rescue]" in text
    assert "-v, --verbose" in text and "even when stderr is not a terminal" in " ".join(
        text.split()
    )


def test_the_settings_path_is_never_broken_across_lines(tmp_path: Path) -> None:
    """click wraps at hyphens; a path cut there could not be copied back."""
    folder = tmp_path / "a-long-folder-name-with-hyphens-in-it-to-force-a-wrap-somewhere-in-it"
    text = help_text(tmp_path, env={"XDG_CONFIG_HOME": str(folder)})
    assert f"  {folder / 'nehanda' / 'settings.toml'}\n" in text
