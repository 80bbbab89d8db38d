"""``nehanda config`` through the real CLI: which files count, where they are, what they add
up to, and that no secret a file or the environment holds is ever printed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from nehanda.cli.config_command import MASK, masked

KEY = "sk-live-0123456789abcdefXYZ"
USER = f"""\
default_provider = "local"

[providers.local]
type = "vllm"
base_url = "http://alice:hunter2hunter2@127.0.0.1:8000/v1?api_key=qq"
api_key_env = "LOCAL_KEY"

[mcp_servers.gh]
command = "gh-mcp"
args = ["--token", "ghp_0123456789abcdefghij", "--verbose"]
env = {{ GITHUB_TOKEN = "plain-words-secret", LEVEL = "debug", REF = "${{LEVEL}}" }}

[mcp_servers.web]
url = "https://mcp.example.com/mcp"
headers = {{ Authorization = "Bearer {KEY}", X-Trace = "on" }}
"""


def user_settings() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"


def test_config_names_every_file_present_or_not_and_merges_them(tmp_path: Path) -> None:
    shown = nehanda("config", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert f"user     {user_settings()}  (not present)" in shown.stdout
    assert f"project  {tmp_path / '.nehanda' / 'settings.toml'}  (not present)" in shown.stdout
    assert f"mcp      {tmp_path / '.mcp.json'}  (not present)" in shown.stdout
    assert "\nmax_turns = 50\n" in shown.stdout

    user_settings().parent.mkdir(parents=True)
    user_settings().write_text('max_turns = 9\n[permissions]\ndeny = ["Read(.env)"]\n')
    project = tmp_path / ".nehanda" / "settings.toml"
    project.parent.mkdir()
    project.write_text('max_turns = 4\n[permissions]\nallow = ["Bash"]\nask = ["Edit"]\n')
    merged = nehanda("config", cwd=tmp_path, env={"NEHANDA_MODEL": "qwen"})
    assert f"user     {user_settings()}  (present)" in merged.stdout
    assert "(present; folder not trusted: may only tighten)" in merged.stdout
    assert "ignored from the project: permissions.allow" in merged.stdout
    assert "environment: NEHANDA_MODEL=qwen" in merged.stdout
    for line in ("max_turns = 4", 'model = "qwen"', 'deny = ["Read(.env)"]', 'ask = ["Edit"]'):
        assert f"\n{line}\n" in merged.stdout
    assert "\nallow = []\n" in merged.stdout

    nehanda("trust", cwd=tmp_path)
    trusted = nehanda("config", cwd=tmp_path).stdout
    assert "(present; folder trusted)" in trusted and '\nallow = ["Bash"]\n' in trusted


def test_config_masks_every_secret_a_file_or_the_environment_holds(tmp_path: Path) -> None:
    user_settings().parent.mkdir(parents=True)
    user_settings().write_text(USER)
    env = {"LOCAL_KEY": "envsecret-987654", "NEHANDA_PROVIDER": "local"}
    shown = nehanda("config", cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    for secret in (
        KEY,
        "hunter2",
        "alice",
        "api_key=qq",
        "ghp_0123",
        "plain-words-secret",
        "envsecret",
    ):
        assert secret not in shown.stdout
    for kept in (
        'api_key_env = "LOCAL_KEY"',
        'base_url = "http://127.0.0.1:8000/v1 (user info and query hidden)"',
        f'args = ["--token", "{MASK}", "--verbose"]',
        f'GITHUB_TOKEN = "{MASK}"',
        'LEVEL = "debug"',
        'REF = "${LEVEL}"',
        f'Authorization = "{MASK}"',
        'X-Trace = "on"',
        "environment: NEHANDA_PROVIDER=local",
    ):
        assert kept in shown.stdout


def test_providers_names_the_user_settings_file(tmp_path: Path) -> None:
    listed = nehanda("providers", cwd=tmp_path)
    assert listed.returncode == 0 and str(user_settings()) in listed.stdout
    user_settings().parent.mkdir(parents=True)
    user_settings().write_text('[providers.local]\ntype = "vllm"\n')
    assert f"user settings: {user_settings()}" in nehanda("providers", cwd=tmp_path).stdout


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("api_key_env", "OPENAI_API_KEY", "OPENAI_API_KEY"),
        ("api_key", "abc", MASK),
        ("Authorization", "Bearer ${TOKEN}", "Bearer ${TOKEN}"),
        ("Authorization", "Bearer abc", MASK),
        ("password", "${PW}", "${PW}"),
        ("cookie", "s=1", MASK),
        ("command", "npx", "npx"),
        ("args", "--key=sk-ant-abcdefgh12345", f"--key={MASK}"),
        ("args", "--level=debug", "--level=debug"),
        ("args", "AKIAABCDEFGHIJKLMNOP", MASK),
        ("url", "https://h/x?token=1", "https://h/x (user info and query hidden)"),
        ("cwd", "/home/me/src/widget", "/home/me/src/widget"),
        ("x", "a1" * 20, MASK),
    ],
)
def test_what_is_masked(key: str, value: str, shown: Any) -> None:
    assert masked({key: value}) == {key: shown}
    assert masked({"outer": {key: [value]}}) == {"outer": {key: [shown]}}


def test_the_value_after_a_secret_flag_is_masked() -> None:
    args = ["serve", "--password", "hunter2", "--port", "8080", "--api-key=abc"]
    shown = ["serve", "--password", MASK, "--port", "8080", f"--api-key={MASK}"]
    assert masked({"args": args}) == {"args": shown}
