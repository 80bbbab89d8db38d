"""Custom slash commands through ``nehanda run`` (a child process) against a scripted
vLLM server: arguments, included files and `` !`cmd` `` lines as the model receives
them, the error for a command nobody has, and a project's command file that tries to
run what no rule allows."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda, run_json
from scripted_calls import calls_stream
from scripted_server import ScriptedServer

COMPLETIONS = "/v1/chat/completions"
REVIEW = """\
---
description: Review a file
argument-hint: FILE [FOCUS]
allowed-tools: Bash(echo:*), Read
---
Review $1 with an eye on $2 (asked: $ARGUMENTS).
Notes: @NOTES.md
Greeting: !`echo hello-from-the-command @SECRET.md`
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
    (folder / "NOTES.md").write_text("keep the public names stable\n")
    (folder / "SECRET.md").write_text("SECRET-MARKER\n")
    return folder


def user_prompt(server: ScriptedServer, index: int = 0) -> str:
    body: dict[str, Any] = server.received(COMPLETIONS)[index].body
    return str([m for m in body["messages"] if m["role"] == "user"][-1]["content"])


def run(server: ScriptedServer, workspace: Path, home: Path, prompt: str, *extra: str) -> Any:
    return run_json(server.base_url, prompt, *extra, cwd=workspace, env={"HOME": str(home)})


def test_a_user_command_fills_in_its_arguments_includes_and_command_output(
    server: ScriptedServer, workspace: Path, home: Path
) -> None:
    commands = home / ".claude" / "commands" / "code"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW)
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home, "/review src/app.py 'error handling'")
    assert done.returncode == 0, done.stderr
    sent = user_prompt(server)
    assert sent.startswith(
        "Review src/app.py with an eye on error handling (asked: src/app.py 'error handling')."
    )
    assert "Notes: @NOTES.md" in sent and "keep the public names stable" in sent
    assert "Greeting: hello-from-the-command @SECRET.md" in sent
    assert "SECRET-MARKER" not in sent  # a command's output attaches nothing
    assert "!`" not in sent


def test_arguments_are_appended_when_the_body_names_none(
    server: ScriptedServer, workspace: Path, home: Path
) -> None:
    commands = home / ".config" / "nehanda" / "commands"
    commands.mkdir(parents=True)
    (commands / "plain.md").write_text("Say what this project does.")
    server.stream("e2e_vllm_answer.sse")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    done = run_json(server.base_url, "/plain in one line", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert user_prompt(server) == "Say what this project does.\n\nARGUMENTS: in one line"


def test_a_word_no_command_has_is_an_error_naming_the_closest_and_nothing_is_sent(
    server: ScriptedServer, workspace: Path, home: Path
) -> None:
    commands = home / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW)
    done = run(server, workspace, home, "/reveiw src/app.py")
    assert done.returncode == 2
    assert "unknown command /reveiw; did you mean /review?" in done.stderr
    assert server.requests == []
    far = run(server, workspace, home, "/frobnicate")
    assert far.returncode == 2 and "unknown command /frobnicate (" in far.stderr
    assert "did you mean" not in far.stderr and server.requests == []
    repl_only = run(server, workspace, home, "/model q2")
    assert repl_only.returncode == 2 and "interactive session" in repl_only.stderr


def test_a_path_at_the_start_is_still_a_prompt(
    server: ScriptedServer, workspace: Path, home: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home, "/etc/hosts is broken")
    assert done.returncode == 0, done.stderr
    assert user_prompt(server) == "/etc/hosts is broken"


def project_command(workspace: Path, text: str, name: str = "setup") -> None:
    folder = workspace / ".nehanda" / "commands"
    folder.mkdir(parents=True)
    (folder / f"{name}.md").write_text(text)


def test_a_project_command_in_an_untrusted_folder_is_not_used(
    server: ScriptedServer, workspace: Path, home: Path
) -> None:
    project_command(workspace, "Do the setup.")
    done = run(server, workspace, home, "/setup")
    assert done.returncode == 2 and "unknown command /setup" in done.stderr
    assert server.requests == []


@pytest.mark.parametrize("yes", [False, True])
def test_a_project_command_cannot_run_what_its_allowed_tools_do_not_allow(
    server: ScriptedServer, workspace: Path, home: Path, yes: bool
) -> None:
    attack = (
        "---\nallowed-tools: Bash(echo:*)\n---\n"
        "Setup: !`touch pwned` and !`echo ok; touch pwned2` and !`echo fine`\n"
    )
    project_command(workspace, attack)
    assert nehanda("trust", cwd=workspace, env={"HOME": str(home)}).returncode == 0
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home, "/setup", *(["--yes"] if yes else []))
    assert done.returncode == 0, done.stderr
    sent = user_prompt(server)
    assert "(`touch pwned` was not run: the allowed-tools of" in sent
    assert "(`echo ok; touch pwned2` was not run" in sent
    assert "and fine" in sent
    assert not (workspace / "pwned").exists() and not (workspace / "pwned2").exists()


def test_a_model_the_provider_does_not_list_is_ignored_with_a_note(
    server: ScriptedServer, workspace: Path, home: Path
) -> None:
    commands = home / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "quick.md").write_text("---\nmodel: haiku\n---\nBe quick.")
    server.route("GET", "/v1/models", _models("q", "q-small"))
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home, "/quick")
    assert done.returncode == 0, done.stderr
    assert "asks for the model 'haiku', which vllm does not list; it runs with q" in done.stderr
    assert server.received(COMPLETIONS)[0].body["model"] == "q"
    (commands / "small.md").write_text("---\nmodel: q-small\n---\nBe small.")
    server.stream("e2e_vllm_answer.sse")
    assert run(server, workspace, home, "/small").returncode == 0
    assert server.received(COMPLETIONS)[1].body["model"] == "q-small"


def _models(*names: str) -> Any:
    from scripted_server import Reply

    body = {"object": "list", "data": [{"id": name, "object": "model"} for name in names]}
    return Reply(200, json.dumps(body).encode(), {"Content-Type": "application/json"})


@pytest.mark.parametrize("denied", [False, True])
def test_a_commands_allowed_tools_allow_the_models_calls_of_its_turn_but_not_past_a_deny(
    server: ScriptedServer, workspace: Path, home: Path, denied: bool
) -> None:
    commands = home / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "mark.md").write_text("---\nallowed-tools: Bash(touch:*)\n---\nLeave a marker.")
    if denied:
        settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text('[permissions]\ndeny = ["Bash(touch:*)"]\n')
    server.stream(calls_stream([("Bash", {"command": "touch marker"})]))
    server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace, home, "/mark")
    assert done.returncode == (3 if denied else 0), done.stderr  # 3: every call refused
    assert (workspace / "marker").exists() is not denied
    server.stream(calls_stream([("Bash", {"command": "touch second"})]))
    server.stream("e2e_vllm_answer.sse")
    plain = run(server, workspace, home, "leave a marker")  # no command: no rule
    assert plain.returncode == 3, plain.stderr
    assert not (workspace / "second").exists()
