"""Commands that only read run unasked in default mode, only inside the kernel sandbox and
only on paths inside the workspace; every attack on that asks (or a rule denies it)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes import checked, run_through
from nehanda.config.permission_modes import Mode
from nehanda.config.settings import SandboxTable
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.gate import ToolGate
from nehanda.permissions.harmless import Confinement, reads
from nehanda.permissions.sandboxing import session_sandbox
from nehanda.permissions.secrets import secret_paths
from nehanda.permissions.shell import analyse
from nehanda.sandbox.confine import probe_support
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import CheckedCall, ToolResult, ToolUse
from nehanda.verdicts import Allow, Answer, Ask, Decision


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for secret in (".ssh", ".aws"):
        (home / secret).mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".aws" / "credentials").write_text("aws_secret_access_key=x\n")
    (home / ".npmrc").write_text("//registry.npmjs.org/:_authToken=npm_x\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def ws(home: Path, tmp_path: Path) -> Path:
    workspace = tmp_path / "proj"
    (workspace / ".git").mkdir(parents=True)
    (workspace / "src").mkdir()
    (workspace / "README.md").write_text("# proj\n")
    (workspace / "src" / "app.py").write_text("print(1)\n")
    (tmp_path / "secret").write_text("outside\n")
    (workspace / "a").symlink_to(home / ".aws")  # ln -s ~/.aws a
    (workspace / "up").symlink_to(tmp_path)
    return Path(os.path.realpath(workspace))


def held(sandboxed: bool = True, **changes: Any) -> Confinement:
    secrets = tuple(Path(os.path.realpath(p)) for p in secret_paths())
    facts = Confinement(sandboxed, secrets, repository=True, search_path_outside=True)
    return replace(facts, **changes)


def judge(
    ws: Path,
    command: str,
    facts: Confinement | None = None,
    mode: Mode = "default",
    **rules: list[str],
) -> Decision:
    use = ToolUse("call_1", "Bash", {"command": command})
    return decide(checked(use), PermissionRules.parse(mode, **rules), ws, facts or held())


HARMLESS = [
    "ls",
    "ls -la src",
    "ls -R",
    "cat README.md",
    "cat -n src/app.py",
    "head -n 5 README.md",
    "head -5 README.md",
    "tail -n 20 src/app.py",
    "tail -n +2 src/app.py",
    "wc -l README.md src/app.py",
    "pwd",
    "grep -rn print src",
    "grep -r --include=*.py print .",
    "grep -e '^import' -- src/app.py",
    "rg print",
    "rg -n -g '*.py' print src",
    "find . -name '*.py'",
    "find src -type f -maxdepth 2 -print",
    "git status",
    "git status --short",
    "git log --oneline -n 5",
    "git diff HEAD~1 -- src",
    "git show HEAD:README.md",
    "git --no-pager log -p",
    "cat src/*.py",
    "ls src/*",
    "cat README.md | grep proj | wc -l",
    "ls && git status",
    "cat README.md 2>/dev/null",
    "git log 2>&1 | head",
]


@pytest.mark.parametrize("command", HARMLESS)
def test_a_command_that_only_reads_runs_unasked_in_the_sandbox(ws: Path, command: str) -> None:
    assert isinstance(judge(ws, command), Allow), command


@pytest.mark.parametrize("command", HARMLESS)
def test_without_the_kernel_sandbox_it_asks(ws: Path, command: str) -> None:
    assert isinstance(judge(ws, command, held(sandboxed=False)), Ask), command


ATTACKS = [
    "cat ~/.ssh/id_rsa",
    "cat /etc/shadow",
    "cat ../../secret",
    "cat ../secret",
    "cat up/secret",
    "cat a/credentials",  # a -> ~/.aws
    "ls a",
    "cat a/*",
    "cat ~/.npmrc",
    "cat $HOME/.npmrc",
    'cat "$HOME/.npmrc"',
    "cat ${HOME}/.npmrc",
    "cat $(echo ~/.ssh/id_rsa)",
    "cat `echo ~/.ssh/id_rsa`",
    "cat {~/.ssh/id_rsa,README.md}",
    "cat x=~/.npmrc",
    "cat ~+/README.md",
    "cat ~root/.bashrc",
    "ls; rm -rf x",
    "ls && rm -rf x",
    "cat README.md | sh",
    "cat x > y",
    "cat README.md >> notes",
    "cat < ~/.npmrc",
    "grep -r foo ~",
    "grep -r foo /",
    "grep -R foo .",
    "grep --dereference-recursive foo .",
    "grep -f ~/.ssh/id_rsa README.md",
    "find . -delete",
    "find . -exec rm {} \\;",
    "find . -execdir cat {} +",
    "find . -fprintf out %p",
    "find . -fprint out",
    "find -L . -name x",
    "find . -follow",
    "find / -name id_rsa",
    "find ~ -name credentials",
    "git log --output=x",
    "git log --outp=x",
    "git diff --ext-diff",
    "git diff --textconv",
    "git -c core.pager=sh log",
    "git -C .. log",
    "git --git-dir=../other/.git log",
    "git show --output=x",
    "git show -o x",
    "git diff --no-index ../secret README.md",
    "git push",
    "git config core.pager sh",
    "GIT_EXTERNAL_DIFF=sh git diff",
    "tail -f README.md",
    "tail -F README.md",
    "tail --follow README.md",
    "tail --fo README.md",
    "tail +5f README.md",  # the old spelling of tail -f: it never ends
    "tail +1 README.md",
    "head -c 1 /dev/sda",
    "cat /proc/self/environ",
    "rg --pre sh x",
    "rg --pre=sh x",
    "rg --pre-glob '*' --pre cat x",
    "rg -z x",
    "rg --search-zip x",
    "rg -L x",
    "rg --follow x",
    "rg --hostname-bin=sh x",
    "ls -R /",
    "ls -L a",
    "wc --files0-from=list",
    "cat [a]/credentials",
    "ls .*",
    "/bin/cat README.md",
    "./cat README.md",
    "sudo cat README.md",
    "env cat README.md",
    "xargs cat",
    "sh -c 'cat README.md'",
    "bash -c ls",
    "eval ls",
    "echo hi",
    "(ls)",
]


@pytest.mark.parametrize("command", ATTACKS)
def test_every_attack_asks_in_default_mode(ws: Path, command: str) -> None:
    decision = judge(ws, command)
    assert not isinstance(decision, Allow), (command, decision)


def test_the_secret_places_inside_the_workspace_ask(home: Path) -> None:
    """A workspace holding a secret place (the home folder itself): reading it asks, and
    so does every walk, which could reach it; reading elsewhere in it still runs."""
    (home / "notes.txt").write_text("n\n")
    (home / ".git").mkdir()
    real = Path(os.path.realpath(home))
    assert isinstance(judge(real, "cat .ssh/id_rsa"), Ask)
    assert isinstance(judge(real, "cat .npmrc"), Ask)
    assert isinstance(judge(real, "grep -r key ."), Ask)
    assert isinstance(judge(real, "rg key"), Ask)
    assert isinstance(judge(real, "find . -name id_rsa"), Ask)
    assert isinstance(judge(real, "cat notes.txt"), Allow)


def test_rules_win(ws: Path) -> None:
    assert judge(ws, "cat README.md", deny=["Bash(cat:*)"]).__class__.__name__ == "Deny"
    assert isinstance(judge(ws, "ls src", ask=["Bash(ls:*)"]), Ask)
    assert judge(ws, "cat src/app.py", deny=["Read(src/**)"]).__class__.__name__ == "Deny"
    assert isinstance(judge(ws, "cat src/app.py", ask=["Read(src/**)"]), Ask)
    # A Read deny rule the walk could meet inside the workspace: the walk asks.
    assert isinstance(judge(ws, "grep -r key .", deny=["Read(**/.env)"]), Ask)
    assert isinstance(judge(ws, "cat README.md", deny=["Read(**/.env)"]), Allow)
    # A deny rule elsewhere does not get in the way.
    assert isinstance(judge(ws, "grep -r key .", deny=["Read(/srv/keys/**)"]), Allow)
    assert isinstance(judge(ws, "cat README.md", deny=["Read"]), Ask)


def test_modes(ws: Path) -> None:
    assert isinstance(judge(ws, "ls", mode="accept-edits"), Allow)
    assert judge(ws, "ls", mode="plan").__class__.__name__ == "Deny"


def test_a_call_copied_from_tool_output_still_asks(ws: Path) -> None:
    use = ToolUse("c", "Bash", {"command": "cat README.md"}, copied_from="Read README.md")
    assert isinstance(decide(checked(use), PermissionRules(), ws, held()), Ask)


def test_git_asks_where_the_workspace_has_no_repository_of_its_own(ws: Path) -> None:
    # git would look for a repository in the workspace itself, then above it: one a
    # command planted (a bare repository whose config runs core.fsmonitor) could run code.
    assert isinstance(judge(ws, "git status", held(repository=False)), Ask)
    assert isinstance(judge(ws, "ls", held(repository=False)), Allow)


def test_a_search_path_into_the_workspace_asks(ws: Path) -> None:
    # With ./node_modules/.bin in PATH, "ls" could be a program the project ships.
    assert isinstance(judge(ws, "ls", held(search_path_outside=False)), Ask)


def test_a_glob_with_too_many_matches_asks(ws: Path) -> None:
    many = ws / "many"
    many.mkdir()
    for index in range(300):
        (many / f"f{index}").write_text("")
    assert isinstance(judge(ws, "cat many/f1"), Allow)
    assert isinstance(judge(ws, "cat many/*"), Ask)


def test_reads_lists_the_paths_and_walks() -> None:
    found = reads(analyse("grep -rn -e pat --include=*.py src | head -5"))
    assert found is not None
    assert found.walks and not found.git
    assert set(found.paths) == {"pat", "*.py", "src"}
    assert reads(analyse("cat x; touch y")) is None


# -- through the gate, with the real kernel sandbox ---------------------------------


class Recorder:
    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        self.asked.append(call.use.input["command"])
        return self.answers.pop(0)


def gate_for(ws: Path, sandboxed: bool, approver: Recorder) -> ToolGate:
    rules = PermissionRules()
    box = session_sandbox(SandboxTable(enabled=sandboxed), rules, ws)
    tools = BuiltinTools(ToolContext(ws, sandbox=box))
    confined = box is not None and box.filesystem
    return ToolGate(tools, ws, rules, approver, confined, box)


def run(gate: ToolGate, command: str) -> ToolResult:
    return asyncio.run(run_through(gate, ToolUse("call_1", "Bash", {"command": command})))


@pytest.mark.skipif(probe_support().landlock_abi == 0, reason="needs Landlock")
def test_the_gate_runs_a_read_unasked_only_with_the_sandbox_on(ws: Path) -> None:
    approver = Recorder(Answer(False, reason="the user said no"))
    gate = gate_for(ws, True, approver)
    assert "# proj" in run(gate, "cat README.md").content
    assert "app.py" in run(gate, "ls src").content
    assert approver.asked == []
    refused = run(gate, "cat ~/.npmrc")
    assert refused.refusal is not None and "npm_x" not in refused.content
    assert approver.asked == ["cat ~/.npmrc"]

    off = Recorder(Answer(False, reason="the user said no"))
    assert run(gate_for(ws, False, off), "cat README.md").refusal is not None
    assert off.asked == ["cat README.md"]


_SAFE_WORDS = ["ls", "cat", "grep", "rg", "find", "git", "log", "-n", "README.md", "src", "."]
# Dangerous wherever they stand (a command name such as rm is tried in ATTACKS).
_DANGEROUS = [
    ">", "~/.ssh/id_rsa", "../secret", "$(id)", "`id`", "$HOME/.npmrc", "--pre",
    "--output=x", "a/credentials", "/etc/shadow", "{a,b}", "x=~/.npmrc", "--ext-diff",
    "up/secret", "~", "a/*", "--follow", "--search-zip",
]  # fmt: skip
_JOINERS = [" ", " | ", " && ", "; "]


@given(
    st.lists(st.sampled_from(_SAFE_WORDS + _DANGEROUS), min_size=1, max_size=6),
    st.lists(st.sampled_from(_JOINERS), min_size=6, max_size=6),
)
@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_command_with_a_dangerous_word_runs_unasked(
    ws: Path, words: list[str], joiners: list[str]
) -> None:
    command = "".join(word + joiner for word, joiner in zip(words, joiners, strict=False))
    decision = judge(ws, command.strip(" |&;"))
    if isinstance(decision, Allow):
        assert not set(words) & set(_DANGEROUS), command
        assert isinstance(judge(ws, command.strip(" |&;"), held(sandboxed=False)), Ask)


@pytest.mark.skipif(probe_support().landlock_abi == 0, reason="needs Landlock")
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_status_asks_once_the_repository_config_runs_a_program(ws: Path) -> None:
    (ws / ".git").rmdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    approver = Recorder(Answer(False, reason="the user said no"))
    gate = gate_for(ws, True, approver)
    assert run(gate, "git status").refusal is None and approver.asked == []
    # A hook an earlier command planted: git status would run it unasked.
    hook = ws / "hook.sh"
    hook.write_text("#!/bin/sh\ntouch ran.txt\n")
    hook.chmod(0o755)
    with (ws / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = {hook}\n")
    assert run(gate, "git status").refusal is not None
    assert approver.asked == ["git status"] and not (ws / "ran.txt").exists()
