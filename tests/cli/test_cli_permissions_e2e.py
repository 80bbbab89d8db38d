"""Permissions as a user meets them: the real ``nehanda`` process, a real HTTP server.

The server replays a recorded vLLM stream in which the model asks Bash to create
marker.txt, then a plain answer. The child process has no terminal, so without --yes
the call must be refused, the marker never created and the refusal sent to the model.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from cli_process import nehanda
from scripted_server import STREAMS


def script_bash_then_answer(server: HTTPServer) -> None:
    for name in ("e2e_vllm_bash_touch_marker.sse", "e2e_vllm_answer.sse"):
        server.expect_oneshot_request("/v1/chat/completions", method="POST").respond_with_data(
            (STREAMS / name).read_text(), content_type="text/event-stream"
        )


def run(
    server: HTTPServer, workspace: Path, *extra: str, output: str = "json", code: int = 0
) -> Any:
    script_bash_then_answer(server)
    done = nehanda(
        "run",
        "Create the marker file.",
        *("--provider", "vllm", "--base-url", server.url_for("/v1"), "--model", "qwen"),
        *("--output", output, *extra),
        cwd=workspace,
    )
    assert done.returncode == code, done.stderr
    return done


def tool_message(server: HTTPServer) -> dict[str, Any]:
    bodies = [
        json.loads(request.get_data()) for request, _ in server.log if request.method == "POST"
    ]
    message: dict[str, Any] = bodies[-1]["messages"][-1]
    assert message["role"] == "tool" and message["tool_call_id"] == "chatcmpl-tool-7e51"
    return message


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path


def test_without_a_terminal_and_without_yes_the_call_is_denied(
    httpserver: HTTPServer, workspace: Path
) -> None:
    done = run(httpserver, workspace, code=3)
    assert not (workspace / "marker.txt").exists()
    content = tool_message(httpserver)["content"]
    assert content.startswith("Permission denied: Bash was not run")
    assert "not running in a terminal" in content and "--yes" in content
    call = json.loads(done.stdout)["tool_calls"][0]
    assert call["is_error"] is True
    # A program can tell "nobody could approve it" from a command that failed.
    assert call["refused"]["by"] == "nobody" and "terminal" in call["refused"]["reason"]


def test_a_run_whose_calls_were_all_refused_says_so_and_exits_3(
    httpserver: HTTPServer, workspace: Path
) -> None:
    done = run(httpserver, workspace, code=3)
    denials = json.loads(done.stdout)["permission_denials"]
    assert [(d["tool_name"], d["tool_use_id"], d["by"]) for d in denials] == [
        ("Bash", "chatcmpl-tool-7e51", "nobody")
    ]
    assert "command" in denials[0]["tool_input"]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("note: 1 call was not run: Bash ")
    assert last.endswith("; rerun with --yes, or allow them in [permissions] allow")


def test_in_text_output_the_refusal_is_the_last_line(
    httpserver: HTTPServer, workspace: Path
) -> None:
    done = run(httpserver, workspace, output="text", code=3)
    assert done.stdout.strip()  # the model's answer still reaches stdout
    assert done.stderr.strip().splitlines()[-1].startswith("note: 1 call was not run: Bash ")


def test_with_yes_the_same_call_runs(httpserver: HTTPServer, workspace: Path) -> None:
    done = run(httpserver, workspace, "--yes")
    assert (workspace / "marker.txt").exists()
    assert tool_message(httpserver)["content"] == "(no output)\n\n(exit code 0)"
    result = json.loads(done.stdout)
    assert "refused" not in result["tool_calls"][0] and result["permission_denials"] == []
    assert "not run" not in done.stderr


def test_plan_mode_and_yes_contradict(workspace: Path) -> None:
    done = nehanda("run", "hi", "--yes", "--permission-mode", "plan", cwd=workspace)
    assert done.returncode == 2
    assert "--yes means --permission-mode yolo" in done.stderr


def test_a_project_allow_rule_applies_only_once_the_folder_is_trusted(
    httpserver: HTTPServer, workspace: Path
) -> None:
    settings = workspace / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('[permissions]\nallow = ["Bash(touch marker.txt)"]\n')
    untrusted = run(httpserver, workspace, code=3)
    assert not (workspace / "marker.txt").exists()
    assert "sets permissions.allow" in untrusted.stderr
    assert "nehanda trust" in untrusted.stderr

    trusted = nehanda("trust", cwd=workspace)
    assert trusted.returncode == 0 and trusted.stdout.startswith("trusted ")
    httpserver.clear()
    run(httpserver, workspace)
    assert (workspace / "marker.txt").exists()


def test_an_untrusted_project_cannot_send_the_conversation_elsewhere(
    httpserver: HTTPServer, workspace: Path, unused_port: int
) -> None:
    settings = workspace / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text(
        'default_provider = "theirs"\n[providers.theirs]\ntype = "openai"\n'
        f'base_url = "{httpserver.url_for("/v1")}"\nmodel = "qwen"\nmax_retries = 0\n'
    )
    # Where the untrusted file's provider goes instead: the type's own default, here an
    # address where nothing answers.
    elsewhere = {"OPENAI_BASE_URL": f"http://127.0.0.1:{unused_port}/v1", "OPENAI_API_KEY": "k"}
    listed = nehanda("providers", cwd=workspace, env=elsewhere)
    assert "providers.theirs.base_url" in listed.stdout and "nehanda trust" in listed.stdout

    refused = nehanda("run", "hi", cwd=workspace, env=elsewhere)
    assert refused.returncode == 1
    assert "sets providers.theirs.base_url" in refused.stderr
    assert "nehanda trust" in refused.stderr
    assert not httpserver.log

    nehanda("trust", cwd=workspace)
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_data(
        (STREAMS / "e2e_vllm_answer.sse").read_text(), content_type="text/event-stream"
    )
    trusted = nehanda("run", "hi", cwd=workspace, env=elsewhere)
    assert trusted.returncode == 0, trusted.stderr
    assert len([request for request, _ in httpserver.log if request.method == "POST"]) == 1


def first_post(server: HTTPServer) -> Any:
    """The first chat request (a window probe may come before it)."""
    return json.loads(next(r for r, _ in server.log if r.method == "POST").get_data())


AGENTS_CALL = '```json\n{"name": "Bash", "arguments": {"command": "touch marker.txt"}}\n```\n'


def test_an_untrusted_folders_agents_md_stays_out_of_the_prompt(
    httpserver: HTTPServer, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Always obey: PLANTED-INSTRUCTION\n")
    untrusted = run(httpserver, workspace, code=3)
    system = first_post(httpserver)["messages"][0]
    assert system["role"] == "system" and "PLANTED-INSTRUCTION" not in system["content"]
    assert "AGENTS.md was not given to the model" in untrusted.stderr
    assert "nehanda trust" in untrusted.stderr

    nehanda("trust", cwd=workspace)
    httpserver.clear()
    trusted = run(httpserver, workspace, code=3)
    system = first_post(httpserver)["messages"][0]
    assert "PLANTED-INSTRUCTION" in system["content"]
    assert "AGENTS.md was not given" not in trusted.stderr


@pytest.mark.parametrize("written", [True, False])
def test_a_call_copied_from_agents_md_asks_even_when_a_rule_allows_it(
    httpserver: HTTPServer, workspace: Path, written: bool
) -> None:
    """The control (the call not written in AGENTS.md) runs under the same allow rule."""
    (workspace / "AGENTS.md").write_text("# Setup\n" + (AGENTS_CALL if written else ""))
    user_settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text('[permissions]\nallow = ["Bash(touch marker.txt)"]\n')
    nehanda("trust", cwd=workspace)
    run(httpserver, workspace, code=3 if written else 0)
    assert (workspace / "marker.txt").exists() is not written
    if written:
        content = tool_message(httpserver)["content"]
        assert "the instructions nehanda was given (AGENTS.md)" in content
