"""Errors name where the bad value came from: the environment variable, not the flag it
stands for; the settings file and line of an unknown ``default_provider`` or a malformed
rule. A real ``nehanda`` process, against the scripted server where one is asked.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cli_process import nehanda
from scripted_server import ScriptedServer


def user_settings(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_turn_limit_names_the_variable_that_set_it(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_bash_touch_marker.sse")
    given = ("--provider", "vllm", "--base-url", server.base_url, "--model", "q", "--yes")
    done = nehanda(
        "run", "hi", *given, "--output", "json", cwd=tmp_path, env={"NEHANDA_MAX_TURNS": "1"}
    )
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error.startswith("stopped after 1 turns (NEHANDA_MAX_TURNS)")
    assert "--max-turns" not in error


def test_an_unknown_default_provider_names_its_file_and_line(tmp_path: Path) -> None:
    path = user_settings('# my settings\ndefault_provider = "nosuch"\n')
    done = nehanda("run", "hi", cwd=tmp_path)
    assert done.returncode == 2
    assert f"error: {path}:2: default_provider: unknown provider 'nosuch'" in done.stderr


def test_a_malformed_rule_is_an_error_naming_its_file(
    server: ScriptedServer, tmp_path: Path
) -> None:
    path = user_settings('[permissions]\nallow = ["Bash(git status"]\n')
    given = ("--provider", "vllm", "--base-url", server.base_url, "--model", "q")
    done = nehanda("run", "hi", *given, cwd=tmp_path)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}:2: permissions.allow: 'Bash(git status' is not a rule")
    assert not server.requests
