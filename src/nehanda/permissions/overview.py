"""What ``/tools`` and ``/permissions`` show: the rules in force, in words. Pure.

Each tool's verdict is what ``permissions.decision.decide`` answers for a typical call
(built from the facts its spec carries) under the rules in force right now (answers of
"always" included): a file inside the workspace and one outside it, or a command that
no rule names. Each mode is described by the mode table's words (``PERMISSION_MODES``).
A rule for one particular path or command can still change the verdict for that call;
the rules that could are listed beside the tool. It asks ``decide``, so it lives beside it: the
renderers in ``ui/`` load no rule engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from nehanda.config.permission_modes import PERMISSION_MODES
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.harmless import UNCONFINED, Confinement
from nehanda.types import CheckedCall, ToolFacts, ToolSpec, ToolUse
from nehanda.verdicts import Allow, Ask, Decision

# Names no rule is likely to name, so that the verdict is the rules' general one.
EXAMPLE_FILE = "nehanda-example.txt"
EXAMPLE_OUTSIDE = Path("/nehanda-example-elsewhere/file.txt")
EXAMPLE_COMMAND = "nehanda-example-command"
EXAMPLE_URL = "https://nehanda-example.invalid/"
# A command that only reads, inside the workspace: it may run unasked where the sandbox holds it.
EXAMPLE_READ = "ls"
Held = Callable[[CheckedCall], Confinement]


def describe_tools(
    specs: Iterable[ToolSpec],
    rules: PermissionRules,
    workspace: Path,
    held: Held = lambda _: UNCONFINED,
) -> str:
    """``held``: what holds a command besides the rules (the gate's ``confinement``)."""
    lines = [f"Tools the model can call (permission mode {rules.mode}):"]
    for spec in specs:
        lines.append(f"  {spec.name:<6} {_verdicts(spec, rules, workspace, held)}")
        lines += [f"         {kind} {text}" for kind, text in _rules_for(spec, rules)]
    lines.append(
        "Changes to .git/, .nehanda/ and shell or editor settings files ask even where "
        "edits run (except in yolo mode). /permissions shows the rules."
    )
    return "\n".join(lines)


def describe_permissions(rules: PermissionRules, sandbox: Sequence[tuple[str, str]] = ()) -> str:
    """The mode and rules in force; then ``sandbox``, the kernel sandbox's parts and
    what holds each (``permissions.sandboxing.report``)."""
    lines = [f"Permission mode: {rules.mode} ({PERMISSION_MODES[rules.mode].meaning})"]
    for kind, listed in (("deny", rules.deny), ("ask", rules.ask), ("allow", rules.allow)):
        texts = ", ".join(rule.text for rule in listed) or "none"
        lines.append(f"  {kind + ':':<6} {texts}")
    lines.append(
        "A deny rule wins, then ask, then allow. Rules come from the settings files "
        "and from answering a = always."
    )
    if sandbox:
        lines.append("Sandbox for Bash commands:")
        lines += [f"  {label + ':':<13} {value}" for label, value in sandbox]
    return "\n".join(lines)


def _verdicts(spec: ToolSpec, rules: PermissionRules, workspace: Path, held: Held) -> str:
    name, facts = spec.name, spec.facts
    if facts.command_argument is not None:
        call = _call(name, facts, {facts.command_argument: EXAMPLE_COMMAND})
        said = f"commands no rule names: {_word(decide(call, rules, workspace, held(call)))}"
        reads = _call(name, facts, {facts.command_argument: EXAMPLE_READ})
        reading = _word(decide(reads, rules, workspace, held(reads)))
        if reading != _word(decide(call, rules, workspace, held(call))):
            said += f"; those that only read in the workspace (ls, cat, grep…): {reading}"
        return said
    if facts.url_argument is not None:
        call = _call(name, facts, {facts.url_argument: EXAMPLE_URL})
        return f"hosts no rule names: {_word(decide(call, rules, workspace))}"
    if facts.path_argument is None:
        return _word(decide(_call(name, facts, {}), rules, workspace))
    key = facts.path_argument
    inside = decide(_call(name, facts, {key: str(workspace / EXAMPLE_FILE)}), rules, workspace)
    outside = decide(_call(name, facts, {key: str(EXAMPLE_OUTSIDE)}), rules, workspace)
    if _word(inside) == _word(outside):
        return f"in the workspace or outside it: {_word(inside)}"
    return f"in the workspace: {_word(inside)}; outside it: {_word(outside)}"


def _call(name: str, facts: ToolFacts, arguments: dict[str, str]) -> CheckedCall:
    return CheckedCall(ToolUse("example", name, dict(arguments)), None, facts=facts)


def _word(decision: Decision) -> str:
    if isinstance(decision, Allow):
        return "runs"
    if isinstance(decision, Ask):
        return "asks first"
    return f"refused ({decision.reason})"


def _rules_for(spec: ToolSpec, rules: PermissionRules) -> list[tuple[str, str]]:
    listed = (("deny", rules.deny), ("ask", rules.ask), ("allow", rules.allow))
    return [
        (kind, rule.text)
        for kind, group in listed
        for rule in group
        if rule.covers(spec.name, spec.facts)
    ]
