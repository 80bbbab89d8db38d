"""Whether a tool call may run: ``decide(checked, rules, workspace) -> Allow | Ask | Deny``.

What the call's tool is comes from the call itself (``CheckedCall.facts``): the command
or path arguments it has, whether it only reads, whether it is an MCP server's.
Pure: no prompts and no settings files; the file system is consulted only to resolve
paths (``realpath``) as the tools will, and to expand a command's globs as bash will;
what the gate knows of the sandbox comes in as ``Confinement``. Paths are compared by
components. In order:

1. a matching ``deny`` rule denies; for Bash, a Read or Edit deny rule also denies a
   command naming a path it covers (``permissions.command_paths``), and where any Bash
   deny or ask rule exists, a command the analyser cannot judge (``ShellCommand.unjudged``)
   is denied in a mode that settles commands itself (yolo, plan) and asks in the others.
   git's own options are taken away before ``git SUB`` rules are matched (``git -C .
   push`` is ``git push``);
2. a mode that settles the call's kind (``config.permission_modes.PERMISSION_MODES``)
   answers for it: ``yolo`` (``--yes``) runs everything else, ``plan`` refuses every
   call that could change something (Write, Edit, Bash, an MCP tool its server does not
   call read-only; one it does still asks);
3. a matching ``ask`` rule asks;
4. a change to a protected path (``.git/``, ``.nehanda/``, editor and shell settings
   files, nehanda's own settings and state) asks, whatever the allow rules say;
5. a matching ``allow`` rule allows; a Bash command only when every one of its parts
   is allowed, and a command with risks (``permissions.shell``) only by a rule naming it whole;
6. otherwise the mode's table decides: read-only tools run inside the workspace, and in
   ``accept-edits`` mode so do Edit and Write; anything else asks. A path outside the
   workspace asks. A Bash command that only reads (``permissions.harmless``: ``ls``,
   ``cat``, ``grep``, ``git log``…) runs too, but only where the facts passed in
   (``Confinement``) say the kernel sandbox holds it, every path it may name resolves
   inside the workspace and outside the secret places, a folder it walks holds no
   secret place and no Read deny rule reaches into the workspace, no Read ask rule
   covers one of its paths, ``git`` finds the workspace's own repository and its
   configuration names no program (``permissions.repository``), and no program in
   ``PATH`` lies in the workspace;
   A fetch (``WebFetch``) asks unless an allow rule names its host
   (``WebFetch(domain:HOST)``); deny and ask rules name hosts the same way;
7. outside ``yolo`` mode, a call allowed so far asks all the same when it repeats one
   written in an earlier tool's output, judged by its command or path
   (``ToolUse.copied_from``): the model may have repeated what it read rather than
   meant it;
8. outside ``yolo`` mode, a command allowed so far asks all the same, and one that asks
   says why too, when a program it runs reads a file that says what that program runs
   (``permissions.build_files``: ``package.json`` for ``npm run test``) which the session
   changed since the user last approved a command reading it (``edited``, passed in by
   the gate): the rule was written for the command, not for what an edit made it run.
   ``Ask.edited`` names those files, which the user's approval covers. Under ``--yes``
   every call runs anyway, so nothing asks.

``Allow`` and ``Ask`` carry the resolved paths outside the workspace the call uses, so
that the runner can grant exactly those to the tool once the call may run. An ``Ask``
for a command offers the exact rules (``suggestions``) and, where a part has one, the
prefix rules (``broader``, ``permissions.prefixes``) that answering "always" may add.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from nehanda.config.permission_modes import PERMISSION_MODES, Mode
from nehanda.config.settings import PermissionSettings, RuleText
from nehanda.errors import ConfigError
from nehanda.permissions.build_files import read_by
from nehanda.permissions.command_paths import denied_path, path_deny_rules
from nehanda.permissions.harmless import UNCONFINED, Confinement, runs_unasked
from nehanda.permissions.options import git_global_end
from nehanda.permissions.prefixes import prefix_rule
from nehanda.permissions.rules import (
    Rule,
    command_rule_matches,
    escape_glob,
    host_rule_matches,
    names_a_place_in,
    parse_rule,
    path_rule_matches,
)
from nehanda.permissions.rules import (
    family as rule_family,
)
from nehanda.permissions.shell import SimpleCommand, analyse
from nehanda.tools.fetch_address import url_host
from nehanda.tools.paths import is_inside, workspace_relative
from nehanda.types import CheckedCall, ToolFacts, ToolUse
from nehanda.verdicts import Allow, Ask, Decision, Deny

PROTECTED_DIRS = frozenset({".git", ".nehanda", ".vscode", ".idea"})
PROTECTED_FILES = frozenset(
    {".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".bash_login", ".zshrc"}
    | {".zprofile", ".zshenv", ".profile", ".envrc", ".npmrc", ".pypirc", ".ripgreprc"}
    | {".mcp.json"}
)


@dataclass(frozen=True)
class PermissionRules:
    """The mode and rules in force; ``protected`` adds paths that always ask before a change."""

    mode: Mode = "default"
    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    protected: tuple[Path, ...] = ()

    @classmethod
    def parse(
        cls,
        mode: Mode = "default",
        allow: Iterable[str] = (),
        ask: Iterable[str] = (),
        deny: Iterable[str] = (),
    ) -> PermissionRules:
        def rules(texts: Iterable[str]) -> tuple[Rule, ...]:
            return tuple(parse_rule(text) for text in texts)

        return cls(mode, rules(allow), rules(ask), rules(deny))

    @classmethod
    def from_settings(cls, settings: PermissionSettings) -> PermissionRules:
        """The rules the settings files wrote; ``ConfigError`` naming the file and line of
        one that does not parse."""
        _read_rules(settings.ignored, "allow")
        return cls(
            settings.mode,
            _read_rules(settings.allow, "allow"),
            _read_rules(settings.ask, "ask"),
            _read_rules(settings.deny, "deny"),
        )

    def allowing(self, texts: Iterable[str]) -> PermissionRules:
        return replace(self, allow=self.allow + tuple(parse_rule(text) for text in texts))


def _read_rules(written: Iterable[RuleText], key: str) -> tuple[Rule, ...]:
    rules = []
    for rule in written:
        try:
            rules.append(parse_rule(rule.text))
        except ValueError as error:
            raise ConfigError(f"{rule.source}: permissions.{key}: {error}") from None
    return tuple(rules)


def decide(
    checked: CheckedCall,
    rules: PermissionRules,
    workspace: Path,
    held: Confinement = UNCONFINED,
    edited: frozenset[str] = frozenset(),
) -> Decision:
    """``edited``: the files that say what a command runs which the session changed and
    no approval has covered since."""
    tool_use, facts = checked.use, checked.facts
    decision = _decide_tool(tool_use, facts, rules, workspace, held)
    if PERMISSION_MODES[rules.mode].settles(facts.kind) == "run" or isinstance(decision, Deny):
        return decision
    if isinstance(decision, Allow) and tool_use.copied_from:
        decision = Ask(
            f"the same call is written in {tool_use.copied_from}, so the model may have "
            "copied it rather than meant it",
            outside=decision.outside,
        )
    return _after_edits(tool_use, facts, decision, edited) if edited else decision


def _after_edits(
    tool_use: ToolUse, facts: ToolFacts, decision: Allow | Ask, edited: frozenset[str]
) -> Decision:
    """Ask before a command whose programs read an edited file, saying which."""
    command = facts.command(tool_use.input)
    if command is None:
        return decision
    found = read_by(analyse(command), edited)
    if not found:
        return decision
    why = "; ".join(
        f"{file} was edited in this session (it defines what `{part}` runs)" for file, part in found
    )
    files = tuple(file for file, _ in found)
    if isinstance(decision, Ask):
        return replace(decision, reason=f"{decision.reason}; and {why}", edited=files)
    return Ask(why, outside=decision.outside, edited=files)


def _decide_tool(
    tool_use: ToolUse, facts: ToolFacts, rules: PermissionRules, workspace: Path, held: Confinement
) -> Decision:
    # A server's tool first: nothing it says of itself makes it a command or a file tool.
    if facts.source == "mcp":
        return _decide_mcp(tool_use, facts, rules)
    if facts.command_argument is not None:
        return _decide_command(facts, tool_use, rules, workspace, held)
    if facts.path_argument is not None:
        return _decide_paths(facts, tool_use, rules, workspace)
    if facts.url_argument is not None:
        return _decide_fetch(tool_use, facts, rules)
    if facts.source in ("builtin", "subagent") and facts.read_only:
        return _decide_own(tool_use, facts, rules)
    return Deny(f"{tool_use.name} is not a tool nehanda has")


# -- commands -------------------------------------------------------------------


def _decide_command(
    facts: ToolFacts, tool_use: ToolUse, rules: PermissionRules, workspace: Path, held: Confinement
) -> Decision:
    command = facts.command(tool_use.input)
    if command is None:
        return Ask("the call gives no command")
    name, shell = tool_use.name, analyse(command)
    if rule := _command_rule(rules.deny, name, command, _matchable(shell.everywhere())):
        return Deny(f"the deny rule {rule.text} matches this command")
    if found := denied_path(shell, path_deny_rules(rules.deny), workspace):
        return Deny(f"the deny rule {found[0].text} covers {found[1]}, which this command names")
    guarded = shell.unjudged and any(r.covers(name) for r in (*rules.deny, *rules.ask))
    unjudged = f"deny or ask rules are in force, and {'; '.join(shell.unjudged)}"
    settled = PERMISSION_MODES[rules.mode].settles(facts.kind)
    if guarded and settled is not None:
        return Deny(f"nehanda cannot tell what this command runs: {unjudged}")
    if settled is not None:
        return _mode_verdict(rules.mode, name, settled)
    if rule := _command_rule(rules.ask, name, command, _matchable(shell.everywhere())):
        return Ask(f"the ask rule {rule.text} matches this command")
    whole = command.strip()
    if any(rule.covers(name) and rule.specifier == whole for rule in rules.allow):
        return Allow(f"the allow rule {name}({whole}) names this command")
    if guarded:
        return Ask(f"nehanda cannot tell what this command runs: {unjudged}", (f"{name}({whole})",))
    if shell.risks:
        risks = "; ".join(shell.risks)
        return Ask(f"no prefix rule may allow this command ({risks})", (f"{name}({whole})",))
    if not shell.parts:
        return Ask("the command is empty")
    unmatched = [
        p for p in shell.parts if not _command_rule(rules.allow, name, command, _git_forms([p]))
    ]
    if not unmatched:
        return Allow("allow rules cover every part of the command")
    if runs_unasked(shell, rules.deny, rules.ask, workspace, held):
        return Allow("it only reads inside the workspace, and the kernel sandbox holds it")
    listed = ", ".join(part.text for part in unmatched)
    exact = tuple(f"{name}({part.text})" for part in unmatched)
    broader = tuple(prefix_rule(name, p) or rule for p, rule in zip(unmatched, exact, strict=True))
    return Ask(
        f"no allow rule covers {listed}; commands ask before they run",
        exact,
        broader=broader if broader != exact else (),
    )


def _matchable(parts: Iterable[SimpleCommand]) -> list[SimpleCommand]:
    """Each part and, for one run by its path (``/usr/bin/git push``), the same part with
    the bare name, so that spelling out the path leads around no deny or ask rule; each
    git command also without git's own options."""
    found = list(parts)
    for part in list(found):
        if part.words and "/" in part.words[0]:
            bare = PurePosixPath(part.words[0]).name
            found.append(replace(part, words=(bare, *part.words[1:])))
    return _git_forms(found)


def _git_forms(parts: list[SimpleCommand]) -> list[SimpleCommand]:
    """``parts``, and each ``git [options] SUB …`` among them as ``git SUB …``."""
    found = list(parts)
    for part in parts:
        if part.words[:1] == ("git",) and (end := git_global_end(part.words[1:])):
            found.append(replace(part, words=("git", *part.words[1 + end :])))
    return found


def _command_rule(
    rules: Iterable[Rule], name: str, command: str, parts: Iterable[SimpleCommand]
) -> Rule | None:
    bash_rules = [rule for rule in rules if rule.covers(name)]
    for part in parts:
        for rule in bash_rules:
            if command_rule_matches(rule, command, part):
                return rule
    return None


def _mode_verdict(mode: Mode, name: str, settled: str) -> Decision:
    """The verdict of a mode that settles a call itself (``PERMISSION_MODES``)."""
    meaning = PERMISSION_MODES[mode].meaning
    if settled == "run":
        return Allow(f"{mode} mode: {meaning}")
    return Deny(f"{mode} mode: {meaning}, and {name} can change things")


# -- file tools -------------------------------------------------------------------


@dataclass(frozen=True)
class _Target:
    raw: str
    lexical: Path  # normalised, symlinks not followed
    resolved: Path


def _decide_paths(
    facts: ToolFacts, tool_use: ToolUse, rules: PermissionRules, workspace: Path
) -> Decision:
    raws = facts.paths(tool_use.input)
    if raws is None:
        return Ask("the call gives no path")
    if any("\0" in raw for raw in raws):
        return Deny("the path contains a NUL character")
    targets = [_target(raw, workspace) for raw in raws]
    name, read_only = tool_use.name, facts.read_only
    outside = tuple(t.resolved for t in targets if not is_inside(t.resolved, workspace))
    if rule := _path_rule(rules.deny, name, facts, targets, workspace, every=False):
        return Deny(f"the deny rule {rule.text} matches {_shown(targets)}")
    if settled := PERMISSION_MODES[rules.mode].settles(facts.kind):
        verdict = _mode_verdict(rules.mode, name, settled)
        return replace(verdict, outside=outside) if isinstance(verdict, Allow) else verdict
    if rule := _path_rule(rules.ask, name, facts, targets, workspace, every=False):
        return Ask(f"the ask rule {rule.text} matches {_shown(targets)}", (), outside)
    if not read_only and (hit := _protected(targets, workspace, rules.protected)):
        return Ask(f"{hit} is protected: nehanda always asks before changing it", (), outside)
    if rule := _path_rule(rules.allow, name, facts, targets, workspace, every=True):
        return Allow(f"the allow rule {rule.text} matches", outside)
    return _path_default(name, facts, rules.mode, targets, workspace)


def _path_default(
    name: str, facts: ToolFacts, mode: Mode, targets: list[_Target], workspace: Path
) -> Decision:
    read_only = facts.read_only
    outside = tuple(t.resolved for t in targets if not is_inside(t.resolved, workspace))
    family = rule_family(facts)
    if outside:
        where = ", ".join(_where(t) for t in targets if t.resolved in outside)
        suggestions = tuple(f"{family}({escape_glob(str(path))})" for path in outside)
        return Ask(f"{where} is outside the workspace {workspace}", suggestions, outside)
    if facts.kind in PERMISSION_MODES[mode].unasked:
        if read_only:
            return Allow("a read-only tool inside the workspace")
        return Allow(f"{mode} mode: {PERMISSION_MODES[mode].meaning}")
    relative = [escape_glob(workspace_relative(t.resolved, workspace)) for t in targets]
    return Ask(
        f"{name} changes {_shown(targets)}; changes ask before they run",
        tuple(f"{family}({path})" for path in relative),
    )


def _target(raw: str, workspace: Path) -> _Target:
    candidate = workspace / Path(raw).expanduser()
    return _Target(raw, Path(os.path.normpath(candidate)), Path(os.path.realpath(candidate)))


def _path_rule(
    rules: Iterable[Rule],
    name: str,
    facts: ToolFacts,
    targets: list[_Target],
    workspace: Path,
    *,
    every: bool,
) -> Rule | None:
    """A rule for ``name`` covering every target (``every``) or any one of them, else None.

    Allow rules (``every``) see resolved paths only; deny and ask rules also see each
    path as written, so that no symlink leads around them.
    """
    matched: Rule | None = None
    for target in targets:
        rule = next(
            (r for r in rules if r.covers(name, facts) and _covers(r, target, workspace, every)),
            None,
        )
        if rule is None and every:
            return None
        if rule is not None and not every:
            return rule
        matched = matched or rule
    return matched


def _covers(rule: Rule, target: _Target, workspace: Path, resolved_only: bool) -> bool:
    outside = not is_inside(target.resolved, workspace)
    if resolved_only and outside and names_a_place_in(rule, workspace):
        # An allow rule written for the workspace allows nothing outside it, whichever
        # of the project's symlinks leads there: "Edit(src/**)" with src -> ~.
        return False
    if path_rule_matches(rule, target.resolved, workspace, lexical=False):
        return True
    return not resolved_only and path_rule_matches(rule, target.lexical, workspace, lexical=True)


def _protected(targets: list[_Target], workspace: Path, extra: tuple[Path, ...]) -> str | None:
    for target in targets:
        for path in (target.resolved, target.lexical):
            below = path.parts[len(workspace.parts) :] if is_inside(path, workspace) else path.parts
            # Case-folded: on a case-insensitive file system .GIT is .git.
            names = [part.casefold() for part in below]
            if PROTECTED_DIRS.intersection(names) or (names and names[-1] in PROTECTED_FILES):
                return target.raw
            if any(is_inside(path, root) for root in extra):
                return target.raw
    return None


def _where(target: _Target) -> str:
    if target.lexical == target.resolved:
        return str(target.resolved)
    return f"{target.raw} (it resolves to {target.resolved})"


def _shown(targets: list[_Target]) -> str:
    return targets[0].raw if len(targets) == 1 else ", ".join(t.raw for t in targets)


# -- MCP tools, and nehanda's own -------------------------------------------------


def _decide_own(tool_use: ToolUse, facts: ToolFacts, rules: PermissionRules) -> Decision:
    """A built-in that names no path, command or URL and changes nothing beyond nehanda's
    own state (ToolSearch reads its list of tools, TodoWrite keeps the plan, BashOutput
    reads a shell the session started, KillShell stops one), or a subagent (``Task``),
    whose calls are judged each: it runs unless a deny rule names it or the mode refuses
    its kind (plan mode refuses KillShell's, ``execute``)."""
    if rule := next((r for r in rules.deny if r.covers(tool_use.name, facts)), None):
        return Deny(f"the deny rule {rule.text} matches")
    if PERMISSION_MODES[rules.mode].settles(facts.kind) == "refuse":
        return _mode_verdict(rules.mode, tool_use.name, "refuse")
    return Allow(f"{tool_use.name} only works on nehanda's own state")


def _decide_fetch(tool_use: ToolUse, facts: ToolFacts, rules: PermissionRules) -> Decision:
    """A fetch asks unless an allow rule names its host (``WebFetch(domain:HOST)``); what
    it may reach beyond the public addresses is the tool's to refuse."""
    url, name = facts.url(tool_use.input), tool_use.name
    host = url_host(url) if url is not None else None
    if host is None:
        return Ask("the call gives no URL with a host")

    def rule_for(found: Iterable[Rule]) -> Rule | None:
        return next((r for r in found if r.covers(name) and host_rule_matches(r, host)), None)

    if rule := rule_for(rules.deny):
        return Deny(f"the deny rule {rule.text} matches {host}")
    if settled := PERMISSION_MODES[rules.mode].settles(facts.kind):
        return _mode_verdict(rules.mode, name, settled)
    if rule := rule_for(rules.ask):
        return Ask(f"the ask rule {rule.text} matches {host}")
    if rule := rule_for(rules.allow):
        return Allow(f"the allow rule {rule.text} matches {host}")
    return Ask(
        f"{name} fetches from {host}; fetches ask before they run", (f"{name}(domain:{host})",)
    )


def _decide_mcp(tool_use: ToolUse, facts: ToolFacts, rules: PermissionRules) -> Decision:
    """An MCP tool asks unless a rule allows it or ``--yes`` was given; nehanda cannot see
    what it does. In plan mode the tools offered are those their server calls read-only,
    and they still ask: the claim is the server's; any other is refused."""
    name, mode = tool_use.name, PERMISSION_MODES[rules.mode]
    if rule := next((r for r in rules.deny if r.covers(name)), None):
        return Deny(f"the deny rule {rule.text} matches")
    if settled := mode.settles(facts.kind):
        return _mode_verdict(rules.mode, name, settled)
    if mode.refuses_changes:
        return Ask(
            f"{rules.mode} mode: its server says this tool only reads, which nehanda cannot check"
        )
    if rule := next((r for r in rules.ask if r.covers(name)), None):
        return Ask(f"the ask rule {rule.text} matches")
    if rule := next((r for r in rules.allow if r.covers(name)), None):
        return Allow(f"the allow rule {rule.text} matches")
    return Ask(
        f"{name} is a tool of the MCP server {facts.server!r}; MCP tools ask before they run",
        (name,),
    )
