"""The prefix rule answering "always" may add for one simple command: ``prefix_rule``.

As Claude Code does, the prefix is the command's name and, for tools built of
subcommands, the subcommand: ``git status --short`` gives ``Bash(git status:*)``, ``npm
run test -- --ci`` gives ``Bash(npm run test:*)``, ``pytest -x tests`` gives
``Bash(pytest:*)``, ``python3 -m pytest -q`` gives ``Bash(python3 -m pytest:*)``. A
runner's program counts as a subcommand only when it is a known development tool (``uv
run pytest``), since ``uv run python:*`` would run any code.

None is offered for anything else: a command the table does not know (``rm``, ``curl``,
a wrapper such as ``sudo``, ``env``, ``xargs`` or ``sh -c``, an interpreter but for
``-m`` and a known development tool), a command with risks or one the analyser cannot
judge, git with its own options before the subcommand, subcommands that change what a
tool runs (``git config``), run whatever they are given (``docker run``, ``kubectl
exec``, ``go run``, ``npm x``, ``bun x``), fetch a package and run it (``npm init foo``)
or install programs onto ``PATH`` (``cargo install``, ``go install``), or a prefix word
the shell would expand. For a subcommand that is a group (``git stash``, ``uv pip``,
every ``gh`` one) the prefix takes the action too: ``Bash(git stash list:*)``, never
``git stash:*``, which would cover ``git stash drop``. A prefix rule never allows a
command with risks (options that write or run, ``permissions.options``: ``pytest
--basetemp=src``, ``cargo test --config …``, ``make SHELL=…``), whatever it names; see
``decision``.
"""

from __future__ import annotations

import re

from nehanda.permissions.rules import parse_rule
from nehanda.permissions.shell import SimpleCommand, analyse


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Tools whose second word is a subcommand.
_SUBCOMMANDS = _names(
    "git cargo go npm pnpm yarn bun deno uv poetry pdm hatch pip pip3 docker podman "
    "kubectl helm gh dotnet mvn gradle rustup terraform make just ruff"
)
# Subcommands running a script the project names: the prefix takes the script too.
_SCRIPTS = {("npm", "run"), ("npm", "run-script"), ("pnpm", "run"), ("yarn", "run")}
_SCRIPTS |= {("bun", "run")}
# Subcommands running a program named next: the prefix takes it only for a dev tool.
_RUNNERS = {("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run")}
_RUNNERS |= {("npm", "exec"), ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "dlx")}
_DEV_TOOLS = _names(
    "pytest mypy black isort flake8 pylint pyright tox nox jest vitest eslint prettier tsc "
    "mocha rspec"
)
# Subcommands that set what the tool runs later, or run any program or code they are
# given (a container, a remote package, a cluster's shell), never offered as a prefix.
_NEVER = {("git", "config"), ("npm", "config"), ("pnpm", "config"), ("yarn", "config")}
_NEVER |= {("docker", "run"), ("docker", "exec"), ("podman", "run"), ("podman", "exec")}
_NEVER |= {("kubectl", "exec"), ("kubectl", "run"), ("go", "run"), ("deno", "run")}
_NEVER |= {("deno", "eval"), ("gh", "api"), ("gh", "extension"), ("gh", "alias")}
_NEVER |= {("npm", "x"), ("npm", "explore"), ("yarn", "exec"), ("yarn", "node"), ("bun", "x")}
_NEVER |= {("bun", "exec"), ("rustup", "run"), ("go", "tool")}
# ... or fetch a package the line names and run it (npm init foo runs create-foo), or
# install programs onto PATH, where later commands find them.
_NEVER |= {("npm", "init"), ("npm", "create"), ("pnpm", "create"), ("yarn", "create")}
_NEVER |= {("bun", "create"), ("cargo", "install"), ("go", "install")}
# Subcommands that are groups: the action is the word after them (``git stash drop``
# must not ride on ``git stash list``), so the prefix takes it too. All of gh's are.
_GROUPS = {("git", "stash"), ("git", "remote"), ("git", "worktree"), ("git", "submodule")}
_GROUPS |= {("git", "notes"), ("git", "lfs"), ("uv", "pip"), ("uv", "tool"), ("uv", "python")}
_GROUPS |= {("docker", "compose"), ("docker", "image"), ("docker", "container")}
_GROUPS |= {("docker", "volume"), ("docker", "network"), ("podman", "image")}
_GROUPS |= {("podman", "container"), ("kubectl", "config"), ("kubectl", "rollout")}
_GROUPS |= {("helm", "repo"), ("terraform", "state"), ("terraform", "workspace")}
_GROUPS |= {("rustup", "toolchain"), ("rustup", "component")}
# Actions of a group that run whatever they are given.
_NEVER_ACTIONS = _names("run exec foreach")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]*")
# An interpreter runs a dev tool's module (``python3 -m pytest``): the prefix takes both,
# and the module's options are judged by its own table (``permissions.options``).
_PYTHON = re.compile(r"python(?:3(?:\.\d+)?)?")


def prefix_rule(tool: str, part: SimpleCommand) -> str | None:
    """``TOOL(PREFIX:*)`` for ``part``, or None where no prefix may be offered."""
    prefix = _prefix(part)
    if prefix is None or any(part.built[: len(prefix)]):
        return None
    text = f"{tool}({' '.join(prefix)}:*)"
    try:
        rule = parse_rule(text)
    except ValueError:
        return None
    # The rule must read back as the very words chosen.
    return text if rule.specifier == f"{' '.join(prefix)}:*" else None


def _prefix(part: SimpleCommand) -> tuple[str, ...] | None:
    words = part.words
    shell = analyse(part.text)
    if shell.risks or shell.inner or len(shell.parts) != 1 or shell.parts[0].words != words:
        return None
    if not words or len(part.built) != len(words):
        return None
    name = words[0]
    if name in _DEV_TOOLS:
        return (name,)
    if _PYTHON.fullmatch(name) and len(words) > 2 and words[1] == "-m":
        return words[:3] if words[2] in _DEV_TOOLS else None
    if name == "npx":
        return words[:2] if len(words) > 1 and words[1] in _DEV_TOOLS else None
    if name not in _SUBCOMMANDS or len(words) < 2 or not _PLAIN_WORD.fullmatch(words[1]):
        return None
    pair = (name, words[1])
    if pair in _NEVER:
        return None
    if pair in _GROUPS or name == "gh":
        if len(words) < 3 or not _PLAIN_WORD.fullmatch(words[2]):
            return None
        return None if words[2] in _NEVER_ACTIONS else words[:3]
    if pair in _SCRIPTS or pair in _RUNNERS:
        if len(words) < 3 or not _PLAIN_WORD.fullmatch(words[2]):
            return None
        if pair in _RUNNERS and words[2] not in _DEV_TOOLS:
            return None
        return words[:3]
    return words[:2]
