"""Skills through ``nehanda run`` against a scripted vLLM server: offered by description
(the bodies kept out until used), loaded by the Skill tool in native and rescue mode,
the loaded skill's files readable unasked though outside the workspace, and nothing
else: not a file outside it, nor a symlink in the skill's folder that leads out."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda, run_json
from scripted_calls import calls_stream, text_stream
from scripted_server import ScriptedServer

COMPLETIONS = "/v1/chat/completions"
SKILL = """\
---
name: pdf-tools
description: Fill PDF forms and pull text out of PDF files.
license: MIT
metadata:
  author: someone
allowed-tools: Bash(pdftotext:*) Read
---
# PDF tools

Run scripts/fill.py with the form's fields. BODY-MARKER
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def skill(home: Path, tmp_path: Path) -> Path:
    folder = home / ".claude" / "skills" / "pdf-tools"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    (folder / "reference.md").write_text("REFERENCE-MARKER: fields are named f1, f2\n")
    (folder / "scripts" / "fill.py").write_text("print('filled')\n")
    (tmp_path / "secret.txt").write_text("SECRET-MARKER\n")
    (folder / "link.md").symlink_to(tmp_path / "secret.txt")
    return folder


def run(server: ScriptedServer, workspace: Path, home: Path, *extra: str) -> Any:
    return run_json(
        server.base_url, "fill the form", *extra, cwd=workspace, env={"HOME": str(home)}
    )


def bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    return [request.body for request in server.received(COMPLETIONS)]


def tool_results(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def test_a_skill_is_offered_by_description_and_its_files_read_unasked_once_loaded(
    server: ScriptedServer, workspace: Path, home: Path, skill: Path, tmp_path: Path
) -> None:
    reference = str(skill / "reference.md")
    server.stream(calls_stream([("Read", {"file_path": reference})]))
    server.stream(calls_stream([("Skill", {"name": "pdf-tools"})]))
    server.stream(
        calls_stream(
            [
                ("Read", {"file_path": reference}),
                ("Read", {"file_path": str(tmp_path / "secret.txt")}),
                ("Read", {"file_path": str(skill / "link.md")}),
            ]
        )
    )
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home)
    assert done.returncode == 0, done.stderr
    first, before, loaded, after = bodies(server)
    (offered,) = [t["function"] for t in first["tools"] if t["function"]["name"] == "Skill"]
    assert "- pdf-tools: Fill PDF forms and pull text out of PDF files." in offered["description"]
    assert "BODY-MARKER" not in json.dumps(first)
    assert "outside the workspace" in tool_results(before)[-1]  # not loaded yet: it asks
    given = tool_results(loaded)[-1]
    assert "BODY-MARKER" in given and str(skill / "scripts" / "fill.py") in given
    assert str(skill / "reference.md") in given and "link.md" not in given
    read, secret, link = tool_results(after)[-3:]
    assert "REFERENCE-MARKER" in read
    assert "SECRET-MARKER" not in secret and "Permission denied" in secret
    assert "SECRET-MARKER" not in link and "Permission denied" in link


def test_in_rescue_mode_the_skills_are_in_the_prompt_and_the_tool_loads_one(
    server: ScriptedServer, workspace: Path, home: Path, skill: Path
) -> None:
    call = {"name": "Skill", "arguments": {"name": "pdf-tools"}}
    server.stream(text_stream(f"Loading it.\n[TOOL_CALL]{json.dumps(call)}[/TOOL_CALL]"))
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home, "--mode", "rescue")
    assert done.returncode == 0, done.stderr
    first, second = bodies(server)
    assert "tools" not in first
    system = first["messages"][0]["content"]
    assert "pdf-tools: Fill PDF forms" in system and "BODY-MARKER" not in json.dumps(first)
    assert "BODY-MARKER" in json.dumps(second["messages"][1:])
    assert json.loads(done.stdout)["tool_calls"][0]["name"] == "Skill"


def test_a_skill_with_bad_front_matter_is_named_once_with_the_reason_and_left_out(
    server: ScriptedServer, workspace: Path, home: Path, skill: Path
) -> None:
    skills = home / ".claude" / "skills"
    (skills / "misnamed").mkdir()
    (skills / "misnamed" / "SKILL.md").write_text("---\nname: other\ndescription: x\n---\n")
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text("---\nname: [broken\n---\nbody\n")
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("skill misnamed") == 1
    assert "name 'other' must be the folder's name, 'misnamed'" in done.stderr
    assert "skill broken" in done.stderr and "not valid YAML" in done.stderr
    (offered,) = [t for t in bodies(server)[0]["tools"] if t["function"]["name"] == "Skill"]
    description = offered["function"]["description"]
    assert "pdf-tools" in description and "other" not in description


def test_a_project_skill_counts_only_in_a_trusted_folder(
    server: ScriptedServer, workspace: Path, home: Path
) -> None:
    folder = workspace / ".agents" / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploy it.\n---\nGo.\n")
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home)
    assert done.returncode == 0, done.stderr
    assert "this folder is not trusted" in done.stderr
    assert "Skill" not in [t["function"]["name"] for t in bodies(server)[0]["tools"]]
    assert nehanda("trust", cwd=workspace, env={"HOME": str(home)}).returncode == 0
    assert run(server, workspace, home).returncode == 0
    names = [t["function"]["name"] for t in bodies(server)[1]["tools"]]
    assert "Skill" in names


@pytest.mark.parametrize("denied", [False, True])
def test_a_loaded_skills_allowed_tools_allow_its_commands_but_never_past_a_deny_rule(
    server: ScriptedServer, workspace: Path, home: Path, denied: bool
) -> None:
    folder = home / ".claude" / "skills" / "marker"
    folder.mkdir(parents=True)
    front = "name: marker\ndescription: Leaves a marker.\nallowed-tools: Bash(touch:*)"
    (folder / "SKILL.md").write_text(f"---\n{front}\n---\nTouch the marker.\n")
    if denied:
        settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text('[permissions]\ndeny = ["Bash(touch:*)"]\n')
    touch = ("Bash", {"command": "touch made-by-skill"})
    server.stream(calls_stream([touch])).stream(calls_stream([("Skill", {"name": "marker"})]))
    server.stream(calls_stream([touch])).stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home)
    assert done.returncode == 0, done.stderr
    _, before, _, after = bodies(server)
    assert "Permission denied" in tool_results(before)[-1]  # not loaded yet
    assert (workspace / "made-by-skill").exists() is not denied
    assert ("deny rule Bash(touch:*)" in tool_results(after)[-1]) is denied
