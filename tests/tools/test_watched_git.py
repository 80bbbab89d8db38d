"""Red team: what git runs on the user's next git command, planted by a Bash command
(run through the gate, inside the kernel sandbox), is reported, naming the file."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from fakes import run_through
from nehanda.config.settings import SandboxTable
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.permissions.sandboxing import session_sandbox
from nehanda.sandbox.confine import probe_support
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.tools.watched import steering_note
from nehanda.types import ToolUse

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
    pytest.mark.skipif(probe_support().landlock_abi == 0, reason="needs Landlock"),
]
_USER = ["-c", "user.name=t", "-c", "user.email=t@t"]


def _git(where: Path, *args: str) -> None:
    subprocess.run(["git", *_USER, *args], cwd=where, check=True, capture_output=True)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = Path(os.path.realpath(tmp_path)) / "proj"
    workspace.mkdir()
    _git(workspace, "init", "-q")
    (workspace / "app.py").write_text("print(1)\n")
    _git(workspace, "add", "app.py")
    _git(workspace, "commit", "-qm", "start")
    return workspace


def note_of(ws: Path, command: str) -> str | None:
    """The steering note of ``command``, run through the gate under --yes in the sandbox."""
    rules = PermissionRules(mode="yolo")
    box = session_sandbox(SandboxTable(enabled=True), rules, ws)
    assert box is not None
    gate = ToolGate(BuiltinTools(ToolContext(ws, sandbox=box)), ws, rules, NoTerminal(), True, box)
    result = asyncio.run(run_through(gate, ToolUse("call_1", "Bash", {"command": command})))
    assert result.refusal is None, result.content
    return steering_note(result.content)


def assert_reported(ws: Path, command: str, named: str) -> None:
    note = note_of(ws, command)
    assert note is not None and named in note, (command, note)


def test_a_planted_commondir_and_the_hooks_of_the_folder_it_names(ws: Path) -> None:
    (ws / "vendor" / "hooks").mkdir(parents=True)
    assert_reported(ws, "echo ../vendor > .git/commondir", ".git/commondir (added)")
    # git now takes its hooks (and configuration) from vendor/: so does the watch.
    hook = "printf '#!/bin/sh\\ntouch PWNED\\n' > vendor/hooks/pre-commit"
    assert_reported(ws, f"{hook} && chmod +x vendor/hooks/pre-commit", "vendor/hooks/pre-commit")
    assert_reported(ws, "echo '[core]' > vendor/config", "vendor/config (added)")


@pytest.mark.parametrize("folder", [".husky", "tools/git-hooks"])
def test_hooks_in_the_folder_core_hooks_path_names(ws: Path, folder: str) -> None:
    assert_reported(ws, f"git config core.hooksPath {folder}", ".git/config (changed)")
    hook = f"mkdir -p {folder} && printf '#!/bin/sh\\ntouch PWNED\\n' > {folder}/pre-commit"
    assert_reported(ws, f"{hook} && chmod +x {folder}/pre-commit", f"{folder}/pre-commit (added)")
    # The hook is real: the user's next commit runs it.
    _git(ws, "commit", "-q", "--allow-empty", "-m", "next")
    assert (ws / "PWNED").exists()


def test_hooks_in_a_folder_the_hooks_folder_links_to(ws: Path) -> None:
    elsewhere = ws.parent / "elsewhere"
    elsewhere.mkdir()
    assert_reported(ws, f"rm -rf .git/hooks && ln -s {elsewhere} .git/hooks", ".git/hooks (added)")
    hook = f"printf '#!/bin/sh\\ntouch PWNED\\n' > {elsewhere}/pre-commit"
    assert_reported(ws, hook, ".git/hooks/pre-commit (added)")


def test_an_include_if_file_in_the_workspace_and_the_pager_it_names(ws: Path) -> None:
    include = "printf '[includeIf \"gitdir:/\"]\\n\\tpath = ../settings.inc\\n' >> .git/config"
    assert_reported(ws, include, ".git/config (changed)")
    pager = "printf '[core]\\n\\tpager = ./tools/pager.sh\\n' > settings.inc"
    assert_reported(ws, pager, "settings.inc (added)")
    script = "mkdir tools && echo 'touch PWNED' > tools/pager.sh"
    assert_reported(ws, script, "tools/pager.sh (added)")
    assert_reported(ws, "echo 'rm -rf ~' > tools/pager.sh", "tools/pager.sh (changed)")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.fsmonitor", "./watch.sh"),
        ("core.sshCommand", "sh ./watch.sh"),
        ("core.editor", "./watch.sh"),
        ("filter.lint.clean", "./watch.sh %f"),
        ("diff.pretty.textconv", "./watch.sh"),
        ("credential.helper", "!./watch.sh"),
        ("alias.up", "!sh -c './watch.sh'"),
    ],
)
def test_a_program_the_configuration_names_in_the_workspace(ws: Path, key: str, value: str) -> None:
    (ws / "watch.sh").write_text("exit 0\n")
    _git(ws, "config", key, value)
    assert_reported(ws, "echo 'touch PWNED' > watch.sh", "watch.sh (changed)")


def test_attributes_that_name_a_driver(ws: Path) -> None:
    assert note_of(ws, "echo '*.png binary' > .gitattributes") is None
    assert_reported(ws, "echo '*.py filter=lint' >> .gitattributes", ".gitattributes (added)")
    assert_reported(ws, "echo '* diff=pretty' > .git/info/attributes", ".git/info/attributes")
    _git(ws, "config", "core.attributesFile", "attrs/extra")
    assert_reported(ws, "mkdir attrs && echo '* merge=m' > attrs/extra", "attrs/extra (added)")


def test_a_linked_worktree_s_git_folders_outside_the_workspace(ws: Path) -> None:
    linked = ws.parent / "linked"
    _git(ws, "worktree", "add", "-q", str(linked))
    git_dir = ws / ".git" / "worktrees" / "linked"
    assert_reported(linked, f"echo ../../../evil > {git_dir}/commondir", f"{git_dir}/commondir")
    # From the main worktree, the linked one's folders are watched too.
    assert_reported(ws, "echo '[core]' > .git/worktrees/linked/config.worktree", "config.worktree")


def test_ordinary_work_reports_nothing(ws: Path) -> None:
    _git(ws, "config", "core.hooksPath", ".husky")
    (ws / ".husky").mkdir()
    (ws / ".gitattributes").write_text("*.sh filter=lint\n")
    for command in (
        "git status",
        "echo 'print(2)' > app.py && git add app.py && git commit -qm two",
        "git log -p -1 && git diff HEAD~1",
        "mkdir -p src && echo x > src/lib.py",
        "echo '*.md text' >> .gitattributes",
    ):
        assert note_of(ws, command) is None, command
