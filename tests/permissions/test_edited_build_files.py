"""Red team: an edit to a file that says what an allowed command runs (``package.json``'s
scripts, a Makefile, ``conftest.py``…) makes the next command reading it ask, naming
the file; the attack runs for real through the gate, in the kernel sandbox."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from fakes import checked, run_through
from nehanda.config.permission_modes import Mode
from nehanda.config.settings import SandboxTable
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.gate import ToolGate
from nehanda.permissions.sandboxing import session_sandbox
from nehanda.sandbox.confine import probe_support
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import CheckedCall, ToolResult, ToolUse
from nehanda.ui.approval_view import shown_request
from nehanda.verdicts import Allow, Answer, Ask

RULE = "Bash(npm run test:*)"


class Recorder:
    """An approver answering from a list, keeping what the prompt showed."""

    def __init__(self, ws: Path, *answers: bool) -> None:
        self.ws = ws
        self.answers = list(answers)
        self.shown: list[str] = []

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        self.shown.append("\n".join(shown_request(call, decision, self.ws).lines()))
        return Answer(self.answers.pop(0), reason="the user said no")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = Path(os.path.realpath(tmp_path)) / "proj"
    workspace.mkdir()
    return workspace


def package(test: str) -> str:
    return json.dumps({"name": "p", "version": "1.0.0", "scripts": {"test": test}})


def gate_for(ws: Path, approver: Recorder, mode: Mode = "accept-edits") -> ToolGate:
    rules = PermissionRules.parse(mode, allow=[RULE, "Bash(sed:*)"])
    box = session_sandbox(SandboxTable(enabled=True), rules, ws)
    tools = BuiltinTools(ToolContext(ws, sandbox=box))
    return ToolGate(tools, ws, rules, approver, box is not None, box)


def call(gate: ToolGate, name: str, **args: str) -> ToolResult:
    return asyncio.run(run_through(gate, ToolUse("call_1", name, dict(args))))


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
@pytest.mark.skipif(probe_support().landlock_abi == 0, reason="needs Landlock")
def test_npm_run_test_asks_after_package_json_is_written(ws: Path) -> None:
    (ws / "package.json").write_text(package("echo tested"))
    approver = Recorder(ws, False, True)
    gate = gate_for(ws, approver)
    written = call(gate, "Write", file_path="package.json", content=package("touch PWNED"))
    assert not written.is_error and approver.shown == []  # accept-edits: the write runs
    refused = call(gate, "Bash", command="npm run test")
    assert refused.refusal is not None and not (ws / "PWNED").exists()
    assert "package.json was edited in this session" in approver.shown[0]
    assert "`npm run test`" in approver.shown[0]

    # Once the user approves it, the edit is seen: the next run is the rule's again.
    assert call(gate, "Bash", command="npm run test").refusal is None
    assert (ws / "PWNED").exists()
    assert "PWNED" in call(gate, "Bash", command="npm run test").content
    assert len(approver.shown) == 2


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
@pytest.mark.skipif(probe_support().landlock_abi == 0, reason="needs Landlock")
def test_a_command_that_changed_package_json_makes_the_next_run_ask(ws: Path) -> None:
    (ws / "package.json").write_text(package("echo tested"))
    (ws / "notes.json").symlink_to("package.json")
    approver = Recorder(ws, True, False, True, False)
    gate = gate_for(ws, approver)
    # A command the user approved (a sed here, a script of theirs) rewrites the script.
    sed = "sed -i.bak 's/echo tested/touch PWNED/' package.json"
    assert call(gate, "Bash", command=sed).refusal is None
    assert call(gate, "Bash", command="npm run test").refusal is not None
    assert not (ws / "PWNED").exists() and "package.json was edited" in approver.shown[1]
    assert call(gate, "Bash", command="npm run test").refusal is None  # approved: seen
    (ws / "PWNED").unlink()
    # Written through a symlink, package.json is what changes.
    edit = call(gate, "Edit", file_path="notes.json", old_string="1.0.0", new_string="1.0.1")
    assert not edit.is_error and len(approver.shown) == 3
    assert call(gate, "Bash", command="timeout 60 npm run test").refusal is not None
    assert "package.json was edited" in approver.shown[3] and not (ws / "PWNED").exists()


# -- which commands read which edited files (decide, pure) ----------------------------


def judge(command: str, edited: set[str], mode: Mode = "default") -> object:
    rules = PermissionRules.parse(mode, allow=[f"Bash({command})"])
    use = ToolUse("call_1", "Bash", {"command": command})
    return decide(checked(use), rules, Path("/ws"), edited=frozenset(edited))


@pytest.mark.parametrize(
    ("command", "edited"),
    [
        ("npm test", "package.json"),
        ("yarn test", "web/package.json"),
        ("pnpm run build", ".npmrc"),
        ("make test", "Makefile"),
        ("make", "GNUmakefile"),
        ("pytest -q", "tests/conftest.py"),
        ("python3 -m pytest", "pyproject.toml"),
        ("uv run pytest", "conftest.py"),
        ("tox -e py", "tox.ini"),
        ("nox", "noxfile.py"),
        ("pip install -e .", "setup.py"),
        ("cargo test", "build.rs"),
        ("cargo build", ".cargo/config.toml"),
        ("just test", "justfile"),
        ("env CI=1 npm test", "package.json"),
        ("bash -c 'make check'", "makefile"),
    ],
)
def test_a_command_reading_an_edited_file_asks(command: str, edited: str) -> None:
    decision = judge(command, {edited})
    assert isinstance(decision, Ask) and decision.edited == (edited,)
    assert decision.reason.startswith(f"{edited} was edited in this session")
    assert isinstance(judge(command, set()), Allow)


@pytest.mark.parametrize(
    ("command", "edited"),
    [("npm test", "Makefile"), ("make", "package.json"), ("ls", "package.json")],
)
def test_a_command_reading_none_of_them_runs_as_its_rule_says(command: str, edited: str) -> None:
    assert isinstance(judge(command, {edited}), Allow)


def test_yolo_runs_it_all_the_same() -> None:
    assert isinstance(judge("npm test", {"package.json"}, mode="yolo"), Allow)


def test_a_command_that_asks_anyway_says_which_file_too() -> None:
    use = ToolUse("call_1", "Bash", {"command": "make deploy"})
    decision = decide(checked(use), PermissionRules(), Path("/ws"), edited=frozenset({"Makefile"}))
    assert isinstance(decision, Ask) and decision.edited == ("Makefile",)
    assert "no allow rule covers make deploy" in decision.reason
    assert "Makefile was edited in this session" in decision.reason
