"""The kernel sandbox a session's Bash commands run in, made from settings and rules.

``session_sandbox`` turns ``[sandbox]`` and the Read deny rules into a
``nehanda.sandbox.Sandbox`` (``None`` when the user turned it off). A deny rule the
kernel can hold is a path, or a folder with everything below it (``Read(~/.ssh/**)``);
a rule with wildcards before its end (``Read(**/.env)``) stays with the matcher and the
file tools, and ``report`` says so, as it says what else the kernel enforces.

``session_programs`` finds nehanda's helper programs once at start outside every place
a command may write (``[sandbox] writable`` included, and so even with the sandbox off);
``unconfined_program`` does the same for the bare command of an MCP server that runs
unconfined; ``start_notes`` says once what the sandbox holds back, and what it keeps read-only
inside a writable root (nehanda's own environment in the workspace's ``.venv``).
"""

from __future__ import annotations

import os
from pathlib import Path

from nehanda.config.settings import SandboxTable
from nehanda.fs import cache_dir, config_dir, state_dir
from nehanda.permissions.decision import PermissionRules
from nehanda.sandbox.confine import Policy, Sandbox, probe_support
from nehanda.sandbox.places import (
    code_caches,
    default_roots,
    enclosed,
    expand,
    own_environment,
    read_only_places,
    writable_around,
)
from nehanda.sandbox.programs import Programs, find_program, find_programs
from nehanda.sandbox.tree import carve
from nehanda.tools.glob import split_literal_prefix
from nehanda.tools.patterns import MAGIC_CHARS

_WHOLE_FOLDER = ("**", "**/*", "*")


def session_sandbox(table: SandboxTable, rules: PermissionRules, workspace: Path) -> Sandbox | None:
    if not table.enabled:
        return None
    kernel, _ = deny_rule_paths(rules)
    home = Path.home()
    policy = Policy(
        workspace=workspace,
        home=home,
        writable=_extra_writable(table, workspace, home),
        deny_read=tuple(_anchored(path, workspace) for path in [*table.deny_read, *kernel]),
        private=(str(config_dir()), str(state_dir()), str(cache_dir())),
        network=table.network,
    )
    return Sandbox(policy, probe_support())


def _extra_writable(table: SandboxTable, workspace: Path, home: Path) -> tuple[str, ...]:
    """``[sandbox] writable`` anchored at the workspace; an entry holding code nehanda
    runs is granted around it, as its entries are at start (the defaults are carved
    again for each command)."""
    written = [_anchored(path, workspace) for path in table.writable]
    kept = read_only_places(home)
    if not enclosed(_resolved(written, home), kept):
        return tuple(written)
    return tuple(writable_around(written, kept, home))


def session_programs(table: SandboxTable, workspace: Path) -> Programs:
    """nehanda's helpers from ``PATH``, none from a place a sandboxed command may write."""
    roots = _uncarved_roots(table, workspace, Path.home())
    return find_programs(roots, os.environ.get("PATH", os.defpath))


def unconfined_program(
    name: str, table: SandboxTable, workspace: Path, search_path: str
) -> tuple[str | None, str | None]:
    """A program nehanda starts outside the sandbox (an MCP server's ``npx``), found on
    ``search_path`` outside every place a command may write: (its path, or ``None``;
    the first one found inside such a place, which must not run)."""
    roots = _uncarved_roots(table, workspace, Path.home())
    return find_program(name, roots, search_path)


def _uncarved_roots(table: SandboxTable, workspace: Path, home: Path) -> list[str]:
    written = [*default_roots(workspace, home), *(_anchored(p, workspace) for p in table.writable)]
    return _resolved(written, home)


def _resolved(written: list[str], home: Path) -> list[str]:
    return sorted({os.path.realpath(path) for w in written for path in expand(w, home)})


def deny_rule_paths(rules: PermissionRules) -> tuple[list[str], list[str]]:
    """The Read deny rules as paths the kernel can close, and the rules it cannot hold."""
    kernel: list[str] = []
    matcher_only: list[str] = []
    for rule in rules.deny:
        if rule.tool != "Read":
            continue
        path = _rule_path(rule.specifier) if rule.specifier else None
        if path is None:
            matcher_only.append(rule.text)
        else:
            kernel.append(path)
    return kernel, matcher_only


def _rule_path(specifier: str) -> str | None:
    written = specifier.removeprefix("./")
    base, rest = split_literal_prefix(written)
    if not MAGIC_CHARS.intersection(rest):
        return written
    return (base or ".") if rest in _WHOLE_FOLDER else None


def _anchored(path: str, workspace: Path) -> str:
    if path.startswith(("/", "~")):
        return path
    return str((workspace / path).resolve()) if path not in ("", ".") else str(workspace)


def report(sandbox: Sandbox | None, rules: PermissionRules) -> list[tuple[str, str]]:
    """(part, what holds it) for ``nehanda doctor`` and ``/permissions``."""
    if sandbox is None:
        return [("sandbox", "off ([sandbox] enabled = false): Bash commands run with your rights")]
    lines = sandbox.report()
    _, matcher_only = deny_rule_paths(rules)
    if matcher_only:
        rules_text = ", ".join(matcher_only)
        lines.append(("rules", f"only nehanda's matcher holds {rules_text} (wildcards)"))
    return lines


def start_notes(sandbox: Sandbox | None, table: SandboxTable, programs: Programs) -> list[str]:
    """Everything to say once at start about the sandbox and nehanda's helpers."""
    notes = [note for note in (start_note(sandbox),) if note]
    if sandbox is not None and sandbox.filesystem:
        notes += kept_notes(table, sandbox.policy.workspace, sandbox.policy.home)
    return notes + programs.notes()


def kept_notes(table: SandboxTable, workspace: Path, home: Path) -> list[str]:
    """The places of code nehanda runs that lie in a writable root all the same (kept
    read-only by granting the root around them), and what that costs."""
    roots = _uncarved_roots(table, workspace, home)
    # Said only of the workspace, where the cost falls on the project and the remedy is
    # the user's; elsewhere (a CI runner's venv in the temp folder) it is kept read-only
    # without a word.
    exposed = exposed_environment(table, workspace, home)
    own = [str(place) for place in exposed if place.is_relative_to(workspace)]
    caches = _outermost(enclosed(roots, code_caches(home)))
    if not own and not caches:
        return []
    kept = [*own, *caches]
    folders = sorted({f for root in roots if enclosed([root], kept) for f in carve(root, kept)[0]})
    cost = (
        f"so commands cannot add, remove or rename entries directly in {', '.join(folders)} "
        "(the kernel grants a folder with everything beneath it)"
    )
    notes = []
    if own:
        notes.append(
            f"nehanda runs from {', '.join(own)}, inside a folder Bash commands may write: "
            f"the sandbox keeps it read-only, {cost}; install nehanda outside the workspace "
            "(uv tool install, pipx) to lift this"
        )
    if caches:
        notes.append(
            f"the sandbox keeps {', '.join(caches)} read-only inside a writable root: programs "
            f"run from there{'' if own else ', ' + cost}"
        )
    return notes


def exposed_environment(table: SandboxTable, workspace: Path, home: Path) -> list[Path]:
    """nehanda's own Python environment where it lies in a place commands may write (the
    workspace's ``.venv``): the sandbox keeps it read-only, the file tools ask first."""
    roots = _uncarved_roots(table, workspace, home)
    return [Path(place) for place in _outermost(enclosed(roots, own_environment()))]


def _outermost(paths: list[str]) -> list[str]:
    return [p for p in paths if not any(Path(p).is_relative_to(o) and p != o for o in paths)]


def start_note(sandbox: Sandbox | None) -> str | None:
    """What to say once at start when Bash commands are not confined by the kernel."""
    if sandbox is None:
        return (
            "the sandbox is off ([sandbox] enabled = false): Bash commands run with your "
            "full rights, held only by the permission rules"
        )
    if not sandbox.filesystem:
        return (
            "the sandbox is off: this system has no Landlock (Linux 5.13 or later), so Bash "
            "commands run with your rights, held only by the permission rules; under --yes a "
            "command with risks still asks"
        )
    if not sandbox.policy.network and not sandbox.network_closable:
        return (
            "the network stays open to Bash commands: this system allows neither a network "
            "namespace nor Landlock's TCP rules (Linux 6.7 or later)"
        )
    return None
