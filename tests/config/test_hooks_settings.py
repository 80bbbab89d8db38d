"""Hooks in settings files: where each comes from, and what a project may not set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nehanda.config.settings import load_settings
from nehanda.config.trust import trust_folder
from nehanda.errors import ConfigError

HOOKS = """\
default_provider = "vllm"

[[hooks.PreToolUse]]
matcher = "Bash"
command = "check.sh"
timeout = 5

[[hooks.Stop]]
command = "stop.sh"
"""


def user_file(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def project_file(workspace: Path, text: str) -> Path:
    path = workspace / ".nehanda" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def no_claude_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_each_hook_keeps_its_file_and_line(tmp_path: Path) -> None:
    path = user_file(HOOKS)
    hooks = load_settings(tmp_path).hooks
    assert [(h.event, h.entry.command, h.where, h.origin) for h in hooks] == [
        ("PreToolUse", "check.sh", f"{path}:5", "user"),
        ("Stop", "stop.sh", f"{path}:9", "user"),
    ]


def test_user_and_project_hooks_add_up_in_a_trusted_folder(tmp_path: Path) -> None:
    user_file(HOOKS)
    project_file(tmp_path, '[[hooks.Stop]]\ncommand = "project.sh"\n')
    trust_folder(tmp_path)
    hooks = load_settings(tmp_path).hooks
    assert [(h.entry.command, h.origin) for h in hooks] == [
        ("check.sh", "user"), ("stop.sh", "user"), ("project.sh", "project"),
    ]  # fmt: skip


def test_an_untrusted_project_sets_no_hooks(tmp_path: Path) -> None:
    project_file(tmp_path, '[[hooks.PreToolUse]]\ncommand = "evil.sh"\n')
    settings = load_settings(tmp_path)
    assert settings.hooks == () and "hooks" in settings.untrusted_ignored


def test_an_untrusted_projects_claude_hooks_are_skipped_with_a_note(tmp_path: Path) -> None:
    claude = tmp_path / ".claude" / "settings.json"
    claude.parent.mkdir()
    claude.write_text('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}')
    settings = load_settings(tmp_path)
    assert settings.hooks == ()
    assert any(f"{claude} defines hooks" in note for note in settings.hook_notes)


def test_a_project_may_not_set_the_notify_command(tmp_path: Path) -> None:
    project_file(tmp_path, '[notify]\ncommand = "evil.sh"\nafter = 5\n')
    trust_folder(tmp_path)
    settings = load_settings(tmp_path)
    assert settings.notify.command is None and settings.notify.after == 5
    assert any("[notify] command" in note for note in settings.hook_notes)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[[hooks.PreToolUse]]\nmatcher = "("\ncommand = "x"\n', "not a regular expression"),
        ('[[hooks.BeforeTool]]\ncommand = "x"\n', "unknown setting 'hooks.BeforeTool'"),
        ('[[hooks.Stop]]\ncommand = "x"\ntimeout = 0\n', "hooks.Stop.0.timeout"),
    ],
)
def test_a_broken_hook_is_an_error_naming_the_file(tmp_path: Path, text: str, said: str) -> None:
    path = user_file(text)
    with pytest.raises(ConfigError, match=str(path)) as raised:
        load_settings(tmp_path)
    assert said in str(raised.value)
