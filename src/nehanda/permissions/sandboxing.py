"""The kernel sandbox a session's Bash commands run in, made from settings and rules.

``session_sandbox`` turns ``[sandbox]`` and the Read deny rules into a
``nehanda.sandbox.Sandbox`` (``None`` when the user turned it off). A deny rule the
kernel can hold is a path, or a folder with everything below it (``Read(~/.ssh/**)``);
a rule with wildcards before its end (``Read(**/.env)``) stays with the matcher and the
file tools, and ``report`` says so, as it says what else the kernel enforces.
"""

from __future__ import annotations

from pathlib import Path

from nehanda.config.settings import SandboxTable
from nehanda.fs import cache_dir, config_dir, state_dir
from nehanda.permissions.decision import PermissionRules
from nehanda.sandbox.confine import Policy, Sandbox, probe_support
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
        writable=tuple(_anchored(path, workspace) for path in table.writable),
        deny_read=tuple(_anchored(path, workspace) for path in [*table.deny_read, *kernel]),
        private=(str(config_dir()), str(state_dir()), str(cache_dir())),
        network=table.network,
    )
    return Sandbox(policy, probe_support())


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
