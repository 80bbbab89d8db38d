"""Permission rules as written in settings: ``Tool`` or ``Tool(specifier)``.

- ``Bash(git status)`` matches that command word for word (quotes removed, spacing
  ignored); ``Bash(npm run test:*)`` matches any command whose words begin with
  ``npm run test``. A prefix rule must be one plain command; an exact rule may be any
  command, and is then compared with the whole command as written.
- ``Read(~/.ssh/**)``, ``Edit(src/**)``: path globs in the dialect of
  ``tools.patterns``, anchored at the workspace, or at the home directory or ``/`` when
  they start with ``~/`` or ``/``. A pattern that names a directory covers everything
  below it, like a .gitignore line. The pattern's leading directories are resolved
  (symlinks followed) just as the paths compared with them are.
- ``Read(…)`` rules cover every read-only file tool (Read, LS, Glob, Grep) and
  ``Edit(…)`` rules every file tool that writes (Edit, Write); other names cover their
  own tool. Which tools these are, and which one runs commands, the tools say: a rule
  is read against the facts of the tools it may name (``parse_rule``'s ``tools``, the
  built-ins by default), once, and a call is judged against it by the call's own facts
  (``Rule.covers``). A bare name (``Bash``, ``Edit``) matches every call of those
  tools, as does ``Bash(*)``.
- ``WebFetch(domain:example.com)``, ``WebFetch(domain:127.0.0.1)``: a tool that fetches
  URLs (``ToolFacts.url_argument``) is named with the host it may reach, a name or an IP
  literal, on any port (``fetch_address.rule_host``); a rule naming a host also lets a
  fetch reach it when it is a private or loopback one (``named_hosts``).
- MCP tools are named as offered, without a specifier: ``mcp__github__create_issue``;
  ``mcp__github__*`` (or ``mcp__github``) covers every tool of the server ``github``,
  ``mcp__*`` every MCP tool.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from nehanda.config.rule_text import split_rule
from nehanda.permissions.shell import SimpleCommand, analyse
from nehanda.tools.fetch_address import rule_host
from nehanda.tools.glob import split_literal_prefix
from nehanda.tools.mcp.names import PREFIX as MCP_PREFIX
from nehanda.tools.paths import is_inside
from nehanda.tools.patterns import MAGIC_CHARS, compile_glob
from nehanda.tools.registry import builtin_facts
from nehanda.types import ToolFacts


def family(facts: ToolFacts) -> str | None:
    """The rule name covering a file tool besides its own: Read for one that only
    reads, Edit for one that writes; ``None`` for a tool that is not a file tool (an MCP
    tool never is: no server says which argument is a path)."""
    if facts.path_argument is None or facts.source != "builtin":
        return None
    return "Read" if facts.read_only else "Edit"


@dataclass(frozen=True)
class Rule:
    """``paths``: the rule names a file tool, so its specifier is a path pattern."""

    text: str
    tool: str
    specifier: str | None
    paths: bool = False

    def covers(self, tool_name: str, facts: ToolFacts | None = None) -> bool:
        """Whether the rule names the tool ``tool_name``, whose ``facts`` (if given) may
        put it in the rule's family (``Read(…)`` for LS)."""
        if tool_name == self.tool:
            return True
        if self.tool.startswith(MCP_PREFIX):
            return _mcp_covers(self.tool, tool_name)
        return facts is not None and family(facts) == self.tool


def parse_rule(text: str, tools: Mapping[str, ToolFacts] | None = None) -> Rule:
    """The rule ``text`` stands for, naming one of ``tools`` (the built-ins by default)
    or MCP tools; ``ValueError`` saying what is wrong with it."""
    known = builtin_facts() if tools is None else tools
    tool, specifier = split_rule(text)
    if tool.startswith(MCP_PREFIX):
        return Rule(tool, tool, None)
    facts = known.get(tool)
    if facts is None:
        raise ValueError(f"{text!r} names no tool; the tools are {', '.join(known)}")
    if specifier == "":
        raise ValueError(f"{text!r} has an empty specifier; write {tool} to match every call")
    if specifier is not None:
        _check_specifier(tool, facts, specifier)
    return Rule(text.strip(), tool, specifier, paths=facts.path_argument is not None)


def _mcp_covers(rule: str, tool_name: str) -> bool:
    """Server names never hold ``__`` (``tools.mcp.names``), so ``mcp__a__*`` and
    ``mcp__a`` reach the tools of server ``a`` only."""
    if rule == MCP_PREFIX + "*":
        return tool_name.startswith(MCP_PREFIX)
    if rule.endswith("__*"):
        server_prefix = rule.removesuffix("*")
    elif "__" not in rule.removeprefix(MCP_PREFIX):
        server_prefix = rule + "__"
    else:
        return False  # a rule naming one tool covers that tool only
    return tool_name.startswith(server_prefix)


def _check_specifier(tool: str, facts: ToolFacts, specifier: str) -> None:
    if facts.url_argument is not None:
        rule_host(specifier)
        return
    if facts.command_argument is not None:
        if specifier.endswith(":*"):
            _command_prefix(specifier)
        return
    try:
        compile_glob(specifier)
    except (ValueError, re.error) as error:
        raise ValueError(f"{tool}({specifier}) is not a valid path pattern: {error}") from None


def escape_glob(path: str) -> str:
    """``path`` as a pattern that matches exactly it (for suggested rules)."""
    return "".join("\\" + char if char in MAGIC_CHARS else char for char in path)


# -- hosts ------------------------------------------------------------------------


def host_rule_matches(rule: Rule, host: str) -> bool:
    """Whether ``rule`` (one naming a fetching tool) covers fetches from ``host``, a
    host in ``fetch_address.normal_host``'s form."""
    return rule.specifier is None or rule.specifier == "*" or rule_host(rule.specifier) == host


def named_hosts(
    rules: Iterable[Rule], facts: Mapping[str, ToolFacts] | None = None
) -> frozenset[str]:
    """The hosts that ``rules`` (allow and ask rules) name for a fetching tool."""
    known = builtin_facts() if facts is None else facts
    return frozenset(
        rule_host(rule.specifier)
        for rule in rules
        if rule.specifier not in (None, "*")
        and (tool := known.get(rule.tool)) is not None
        and tool.url_argument is not None
    )


# -- commands -----------------------------------------------------------------


def command_rule_matches(rule: Rule, command: str, part: SimpleCommand) -> bool:
    """Whether ``rule`` matches ``part`` of ``command`` (the whole command as written)."""
    spec = rule.specifier
    if spec is None or spec == "*" or spec == command.strip():
        return True
    if spec.endswith(":*"):
        prefix = _command_prefix(spec)
        return part.words[: len(prefix)] == prefix
    return _exact_words(spec) == part.words


@lru_cache(maxsize=256)
def _command_prefix(spec: str) -> tuple[str, ...]:
    # A prefix naming a wrapper (Bash(sudo:*)) is valid but allows nothing: every command
    # it could match has a risk, and a command with a risk is never allowed by a prefix.
    found = analyse(spec.removesuffix(":*"))
    if len(found.parts) != 1:
        raise ValueError(
            f"Bash({spec}) is not one command: a prefix rule (ending in :*) names the "
            "start of a single command, without &&, ||, ;, | or newlines"
        )
    return found.parts[0].words


@lru_cache(maxsize=256)
def _exact_words(spec: str) -> tuple[str, ...] | None:
    found = analyse(spec)
    if len(found.parts) != 1 or found.risks:
        return None  # such a rule matches only the very same whole command
    return found.parts[0].words


# -- paths --------------------------------------------------------------------


@dataclass(frozen=True)
class _PathPattern:
    lexical: Path  # the literal leading directories, normalised
    resolved: Path  # the same, symlinks followed
    rest: re.Pattern[str] | None  # the remaining glob, relative to the base


def path_rule_matches(rule: Rule, path: Path, workspace: Path, *, lexical: bool) -> bool:
    """Whether ``rule`` covers ``path`` (resolved, or only normalised when ``lexical``)."""
    if rule.specifier is None:
        return True
    pattern = _path_pattern(rule.specifier, workspace)
    return _matches(pattern, path, pattern.lexical if lexical else pattern.resolved)


def path_rule_matcher(rule: Rule, workspace: Path) -> Callable[[Path], bool]:
    """``path_rule_matches`` for many paths, lexical or resolved: the pattern is read,
    and its base resolved, once, now."""
    if rule.specifier is None:
        return lambda path: True
    pattern = _path_pattern(rule.specifier, workspace)
    bases = {pattern.lexical, pattern.resolved}
    return lambda path: any(_matches(pattern, path, base) for base in bases)


def _matches(pattern: _PathPattern, path: Path, base: Path) -> bool:
    if not is_inside(path, base):
        return False
    if pattern.rest is None:
        return True
    below = path.parts[len(base.parts) :]
    candidates = ("/".join(below[:end]) for end in range(len(below), -1, -1))
    return any(pattern.rest.fullmatch(candidate) for candidate in candidates)


def names_a_place_in(rule: Rule, workspace: Path) -> bool:
    """Whether ``rule``'s path, as written, lies inside ``workspace`` (``Edit(src/**)``)
    rather than naming a place outside it (``Read(~/notes/**)``, ``Read(../lib/**)``)."""
    if rule.specifier is None:
        return True
    return is_inside(_path_pattern(rule.specifier, workspace).lexical, workspace)


def path_rule_reaches(rule: Rule, folder: Path) -> bool:
    """Whether ``rule`` may cover something inside ``folder``: its base lies inside it, or
    it lies inside the base (``Read(**/.env)``, ``Read(~/**)`` for a folder in home)."""
    if rule.specifier is None:
        return True
    pattern = _path_pattern(rule.specifier, folder)
    return any(
        is_inside(base, folder) or is_inside(folder, base)
        for base in (pattern.lexical, pattern.resolved)
    )


def _path_pattern(spec: str, workspace: Path) -> _PathPattern:
    if spec == "~" or spec.startswith("~/"):
        root, relative = Path.home(), spec[1:].lstrip("/")
    elif spec.startswith("/"):
        root, relative = Path("/"), spec.lstrip("/")
    else:
        root, relative = workspace, spec.removeprefix("./")
    base, rest = split_literal_prefix("" if relative == "." else relative)
    lexical = Path(os.path.normpath(root / base))
    rest_regex = compile_glob(rest) if rest else None
    return _PathPattern(lexical, Path(os.path.realpath(lexical)), rest_regex)
