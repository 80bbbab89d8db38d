"""The settings writer: one key changes, the rest of the file stays as the user wrote it."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from nehanda.config.settings import load_settings, resolve_named_provider, user_settings_path
from nehanda.config.writer import add_permission_rule, set_provider_setting
from nehanda.errors import ConfigError
from nehanda.fs import NEW_FILE_MODE

COMMENTED = """\
# my settings, by hand
default_provider = "box"   # the GPU machine

[providers.box]
type = "vllm"              # started with --enable-auto-tool-choice
base_url = "http://gpu-box:8000/v1"

[permissions]
allow = ["Bash(git status)"]  # safe
"""


def user_file(text: str) -> Path:
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_key_is_added_and_every_comment_and_line_stays(tmp_path: Path) -> None:
    path = user_file(COMMENTED)
    assert set_provider_setting("box", "force_manual_tools", True) == path
    lines = COMMENTED.splitlines()
    box_end = lines.index('base_url = "http://gpu-box:8000/v1"') + 1
    expected = [*lines[:box_end], "force_manual_tools = true", *lines[box_end:]]
    assert path.read_text().splitlines() == expected
    config = resolve_named_provider(load_settings(tmp_path), "box", environ={})
    assert config.force_manual_tools is True


def test_a_key_already_set_is_changed_in_place_keeping_its_comment() -> None:
    path = user_file('[providers.box]\ntype = "vllm"\nforce_manual_tools = false  # try\n')
    set_provider_setting("box", "force_manual_tools", True)
    assert path.read_text() == '[providers.box]\ntype = "vllm"\nforce_manual_tools = true  # try\n'


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            'providers.box.type = "vllm"\nmax_turns = 3\n',
            'providers.box.type = "vllm"\nproviders.box.force_manual_tools = true\nmax_turns = 3\n',
        ),
        (
            '[providers]\nbox = { type = "vllm" }\n',
            '[providers]\nbox = { type = "vllm", force_manual_tools = true}\n',
        ),
    ],
)
def test_dotted_keys_and_inline_tables_stay_in_their_form(before: str, after: str) -> None:
    path = user_file(before)
    set_provider_setting("box", "force_manual_tools", True)
    assert path.read_text() == after


def test_a_new_entry_joins_the_other_providers_and_a_missing_file_is_created(
    tmp_path: Path,
) -> None:
    entry = {"type": "vllm", "base_url": "http://10.0.0.5:8000/v1", "model": "qwen"}
    block = (
        '[providers."10.0.0.5"]\ntype = "vllm"\nbase_url = "http://10.0.0.5:8000/v1"\n'
        'model = "qwen"\nforce_manual_tools = true\n'
    )
    path = set_provider_setting("10.0.0.5", "force_manual_tools", True, entry=entry)
    assert path.read_text() == block
    user_file(COMMENTED)
    set_provider_setting("10.0.0.5", "force_manual_tools", True, entry=entry)
    permissions = COMMENTED.index("[permissions]")
    assert path.read_text() == COMMENTED[:permissions] + block + "\n" + COMMENTED[permissions:]
    config = resolve_named_provider(load_settings(tmp_path), "10.0.0.5", environ={})
    assert (config.base_url, config.force_manual_tools) == ("http://10.0.0.5:8000/v1", True)


def test_the_file_keeps_its_permission_bits() -> None:
    path = user_file(COMMENTED)
    path.chmod(0o600)
    set_provider_setting("box", "force_manual_tools", True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[providers.box\ntype = "vllm"\n', "invalid TOML"),
        ('[providers.box]\ntype = "vlm"\n', "providers.box.type must be one of"),
        ('[providers.box]\ntype = "vllm"\nforce_manual = true\n', "unknown setting"),
    ],
)
def test_a_file_nehanda_cannot_read_is_one_line_and_left_alone(text: str, says: str) -> None:
    path = user_file(text)
    before = path.stat()
    with pytest.raises(ConfigError) as raised:
        set_provider_setting("box", "force_manual_tools", True)
    message = str(raised.value)
    assert says in message and str(path) in message
    assert "\n" not in message
    assert path.read_text() == text
    assert path.stat().st_mtime_ns == before.st_mtime_ns


def test_an_unknown_provider_without_an_entry_changes_nothing() -> None:
    path = user_file(COMMENTED)
    with pytest.raises(ConfigError, match="no provider 'gpu'"):
        set_provider_setting("gpu", "force_manual_tools", True)
    assert path.read_text() == COMMENTED


def test_a_value_the_settings_refuse_is_not_written() -> None:
    path = user_file(COMMENTED)
    with pytest.raises(ConfigError, match="invalid file"):
        set_provider_setting("box", "max_retries", 99)
    assert path.read_text() == COMMENTED
    assert [p.name for p in path.parent.iterdir()] == ["settings.toml"]  # no temporary left


# -- add_permission_rule --------------------------------------------------------------


def test_a_rule_joins_the_allow_list_and_every_comment_and_line_stays(tmp_path: Path) -> None:
    path = user_file(COMMENTED)
    assert add_permission_rule("Bash(npm run test:*)") == path
    expected = COMMENTED.replace(
        'allow = ["Bash(git status)"]', 'allow = ["Bash(git status)", "Bash(npm run test:*)"]'
    )
    assert path.read_text() == expected
    allowed = [rule.text for rule in load_settings(tmp_path).permissions.allow]
    assert allowed == ["Bash(git status)", "Bash(npm run test:*)"]


def test_a_multiline_allow_list_keeps_its_comments() -> None:
    text = '[permissions]\n# mine\nallow = [\n  "Bash(ls)",  # listing\n]\n\n[sandbox]\n'
    path = user_file(text)
    add_permission_rule("Bash(git log:*)")
    assert path.read_text() == text.replace(
        '  "Bash(ls)",  # listing\n', '  "Bash(ls)",  # listing\n  "Bash(git log:*)",\n'
    )


def test_the_table_and_the_list_are_made_when_missing_and_a_rule_is_added_once() -> None:
    path = user_file('default_provider = "box"  # mine\n')
    add_permission_rule("Bash(git status:*)")
    add_permission_rule("Bash(git status:*)")
    assert path.read_text() == (
        'default_provider = "box"  # mine\n\n[permissions]\nallow = ["Bash(git status:*)"]\n'
    )
    fresh = user_settings_path().parent / "other.toml"
    add_permission_rule("Bash(make:*)", path=fresh)
    assert fresh.read_text() == '[permissions]\nallow = ["Bash(make:*)"]\n'
    assert stat.S_IMODE(fresh.stat().st_mode) == NEW_FILE_MODE


def test_a_file_nehanda_cannot_read_gets_no_rule() -> None:
    text = '[permissions]\nallow = "Bash(ls)"\n'
    path = user_file(text)
    with pytest.raises(ConfigError) as raised:
        add_permission_rule("Bash(make:*)")
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)
    assert path.read_text() == text
    with pytest.raises(ConfigError, match="not a list of rules"):
        add_permission_rule("Bash(make:*)", "mode")
