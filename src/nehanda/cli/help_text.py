"""The top-level command group: which of its words are a prompt (``cli.prompt_args``),
and what ``nehanda --help`` says beyond the options: each command's whole summary, a few
examples, the environment variables nehanda reads, and where the user's settings are.

Imports nothing but click until help is printed (then platformdirs, for the path).
"""

from __future__ import annotations

import click

from nehanda.cli.prompt_args import split_prompt

EXAMPLES = (
    ("nehanda", "talk with the agent in this folder"),
    ('nehanda "fix the failing test"', "the same, with a first prompt"),
    ('nehanda -p "what does this project do?"', "answer once and exit (nehanda run)"),
    ('git diff | nehanda -p "review this"', "stdin added to the prompt"),
    ("git diff | nehanda run - --output json", "the prompt from stdin, the answer as JSON"),
    ("nehanda run doctor", "a word that names a command, sent as a prompt"),
    ("nehanda --provider ollama --model qwen3:8b", "a local Ollama model"),
    (
        'nehanda run --base-url http://127.0.0.1:8000/v1 --mode rescue "fix the test"',
        "any OpenAI-compatible server; tools described in the prompt",
    ),
    ("nehanda doctor --exam", "which tool-calling mode works better for the model"),
    ("nehanda -c", "go on with this folder's latest session"),
    ("nehanda --resume", "pick one of this folder's sessions to go on with"),
)

ENVIRONMENT = (
    ("NEHANDA_PROVIDER", "the provider, as --provider"),
    ("NEHANDA_MODEL", "the model, as --model"),
    ("NEHANDA_MAX_TURNS", "as --max-turns"),
    ("OPENAI_API_KEY", "the key for provider openai"),
    ("OPENAI_BASE_URL", "its address (default https://api.openai.com/v1)"),
    ("ANTHROPIC_API_KEY", "the key for provider anthropic"),
    ("ANTHROPIC_BASE_URL", "its address (default https://api.anthropic.com)"),
    ("OLLAMA_HOST", "the Ollama server (default http://127.0.0.1:11434)"),
    ("NEHANDA_API_KEY", "the key for Nehanda Cloud (provider nehanda)"),
    ("NEHANDA_BASE_URL", "its address"),
    ("XDG_CONFIG_HOME", "where the settings folder is (nehanda/ in it)"),
    ("XDG_STATE_HOME", "where sessions and caches are (nehanda/ in it)"),
    ("NO_COLOR", "no colour"),
    ("TERM=dumb", "plain output: no colour, no live display"),
)
"""The variables nehanda reads; a provider's ``api_key_env`` setting may name others."""


PROMPT_KEY = "nehanda.prompt"
"""Where ``Nehanda.parse_args`` leaves the prompt's words in the context's ``meta``."""


class Nehanda(click.Group):
    """``nehanda [OPTIONS] [PROMPT]...`` beside ``nehanda COMMAND``, and the top-level
    help: each command's whole summary, examples, the environment, and the settings."""

    def parse_args(self, context: click.Context, args: list[str]) -> list[str]:
        options = [param for param in self.params if isinstance(param, click.Option)]
        # An option with a value that may be left out has a string flag value; others
        # have None (click 8.4) or a sentinel (click 8.5).
        optional_value = {
            spelling
            for param in options
            if not param.is_flag and isinstance(param.flag_value, str)
            for spelling in param.opts
        }
        taking_value = {
            spelling
            for param in options
            if not param.is_flag and not param.count
            for spelling in param.opts
            if spelling not in optional_value
        }
        words, rest = split_prompt(args, taking_value, self.commands, optional_value)
        if words is not None:
            context.meta[PROMPT_KEY] = " ".join(words)
        return super().parse_args(context, rest)

    def format_commands(self, context: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(context):
            command = self.get_command(context, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1000)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def format_epilog(self, context: click.Context, formatter: click.HelpFormatter) -> None:
        from nehanda.fs import config_dir  # platformdirs, loaded only to print help

        with formatter.section("Examples"):
            for command, meaning in EXAMPLES:
                formatter.write_text(command)
                with formatter.indentation():
                    formatter.write_text(meaning)
        with formatter.section("Environment"):
            formatter.write_dl(ENVIRONMENT)
            formatter.write_paragraph()
            formatter.write_text(
                "And any variable a provider's api_key_env, or an MCP server's ${VAR}, names."
            )
        with formatter.section("Settings"):
            # On a line of its own, never wrapped: click breaks lines at hyphens, and a
            # path split there cannot be copied back whole.
            formatter.write_text(f"\b\n{config_dir() / 'settings.toml'}")
            formatter.write_text(
                "for you, .nehanda/settings.toml for a project (in part until you trust its "
                "folder: nehanda trust). nehanda config shows what is in effect."
            )
