"""``nehanda doctor`` and ``nehanda providers`` against real servers on 127.0.0.1.

Most checks call ``run_doctor`` in-process; one run each goes through the real command
to pin the report and the exit code.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cli_process import nehanda
from nehanda.cli.doctor import Diagnosis, run_doctor
from nehanda.config.settings import Flags, user_settings_path
from scripted_server import Reply, ScriptedServer, fixture_body

NDJSON = "application/x-ndjson"


def serve_ollama(server: ScriptedServer, show: str = "ollama_show_qwen3.json") -> None:
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), json_type))
    server.route("POST", "/api/show", Reply(200, fixture_body(show), json_type))


def user_file(text: str) -> None:
    """Settings in the user's file: a project file may not choose where requests go."""
    user_settings_path().parent.mkdir(parents=True)
    user_settings_path().write_text(text)


def doctor(workspace: Path, **flags: str) -> Diagnosis:
    return asyncio.run(run_doctor(workspace, Flags(**flags)))  # type: ignore[arg-type]


def checks(diagnosis: Diagnosis) -> dict[str, str]:
    return dict(diagnosis.checks)


def test_ollama_with_native_tools(server: ScriptedServer, tmp_path: Path) -> None:
    serve_ollama(server)
    found = doctor(tmp_path, provider="ollama", base_url=server.root_url, model="qwen3:8b")
    assert found.problem is None
    report = checks(found)
    assert report["tools"].startswith("native")
    assert report["mode"] == "native: Ollama /api/show lists the tools capability"
    assert report["context"] == "40960 tokens; nehanda asks for 32768 (num_ctx, context_cap 32768)"
    assert server.received("/api/chat") == []  # /api/show says it all


def test_ollama_without_tools_explains_rescue(server: ScriptedServer, tmp_path: Path) -> None:
    serve_ollama(server, "ollama_show_gemma_no_tools.json")
    report = checks(doctor(tmp_path, provider="ollama", base_url=server.root_url, model="gemma:2b"))
    assert report["tools"].startswith("none")
    assert report["mode"] == "rescue: Ollama /api/show lists no tools capability"


def test_ollama_model_missing_cannot_serve(server: ScriptedServer, tmp_path: Path) -> None:
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), {}))
    server.error(404, "ollama_error_show_not_found.json")
    found = doctor(tmp_path, provider="ollama", base_url=server.root_url, model="llama3")
    assert found.problem is not None and "ollama pull llama3" in found.problem


def test_the_doctor_command_notices_a_deleted_model(server: ScriptedServer, tmp_path: Path) -> None:
    serve_ollama(server)
    args = ("doctor", "--provider", "ollama", "--base-url", server.root_url, "--model", "qwen3:8b")
    assert nehanda(*args, cwd=tmp_path).returncode == 0  # remembers what /api/show said
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, b'{"models":[]}', json_type))
    gone = Reply(404, b'{"error":"model \'qwen3:8b\' not found"}', json_type)
    server.route("POST", "/api/show", gone)
    done = nehanda(*args, cwd=tmp_path)
    assert done.returncode == 1
    assert "model 'qwen3:8b' not found" in done.stderr
    assert "Download the model with: ollama pull qwen3:8b" in done.stderr
    assert "ok: nehanda can use this provider" not in done.stdout
    assert len(server.received("/api/show")) == 2


def test_openai_compatible_gets_one_tiny_request_with_one_tool(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    found = doctor(tmp_path, provider="vllm", base_url=server.base_url, model="qwen")
    assert found.problem is None
    assert checks(found)["tools"] == "native: the server accepted a request offering a tool"
    assert checks(found)["context"].startswith("not reported; nehanda assumes 8192 tokens")
    (probe,) = server.received("/v1/chat/completions")
    assert [tool["function"]["name"] for tool in probe.body["tools"]] == ["ping"]
    assert probe.body["max_tokens"] == 32


def test_a_refusal_of_tools_still_serves_in_rescue(server: ScriptedServer, tmp_path: Path) -> None:
    server.error(400, "openai_error_vllm_auto_tool_choice.json")
    found = doctor(tmp_path, provider="vllm", base_url=server.base_url, model="qwen")
    assert found.problem is None
    report = checks(found)
    assert report["tools"].startswith("refused:")
    assert report["mode"].startswith("rescue: the provider answered")


def test_nehanda_cloud_is_probed_without_tools(server: ScriptedServer, tmp_path: Path) -> None:
    server.stream("nehanda_cloud_answer.sse")
    found = doctor(tmp_path, provider="nehanda", base_url=server.base_url, model="qwen3")
    assert checks(found)["tools"] == "not tried: this provider always uses rescue mode"
    assert "tools" not in server.requests[0].body


@pytest.mark.parametrize(
    ("fixture", "status", "says"),
    [
        ("anthropic_error_authentication.json", 401, "invalid x-api-key"),
        ("anthropic_error_not_found.json", 404, "model: claude-sonnet-9"),
    ],
)
def test_claude_that_cannot_serve(
    server: ScriptedServer, tmp_path: Path, fixture: str, status: int, says: str
) -> None:
    server.error(status, fixture)
    found = doctor(
        tmp_path, provider="anthropic", base_url=server.root_url, model="claude-sonnet-9"
    )
    assert found.problem is not None and says in found.problem


def test_the_doctor_command_reports_and_exits_0(server: ScriptedServer, tmp_path: Path) -> None:
    server.stream("anthropic_answer.sse")
    done = nehanda(
        "doctor", "--provider", "anthropic", cwd=tmp_path,
        env={"ANTHROPIC_BASE_URL": server.root_url, "ANTHROPIC_API_KEY": "sk-ant-doctor"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "nehanda doctor"
    assert f"anthropic (anthropic) at {server.root_url}" in lines[1]
    assert "claude-sonnet-4-5" in lines[2]
    rows = {line.split()[0]: " ".join(line.split()[1:]) for line in lines[1:-1] if line}
    said = "native: the anthropic profile says so; a refusal would switch to rescue"
    assert rows["mode"] == said
    assert rows["context"].startswith("200000 tokens")
    assert lines[-1] == "ok: nehanda can use this provider"
    (probe,) = server.requests
    assert [tool["name"] for tool in probe.body["tools"]] == ["ping"]
    assert "sk-ant-doctor" not in done.stdout + done.stderr


def test_the_doctor_command_exits_1_when_nothing_answers(tmp_path: Path, unused_port: int) -> None:
    user_file(
        f'[providers.box]\ntype = "ollama"\nbase_url = "http://127.0.0.1:{unused_port}"\n'
        'model = "qwen3:8b"\nmax_retries = 0\n'
    )
    done = nehanda("doctor", "--provider", "box", cwd=tmp_path)
    assert done.returncode == 1
    assert "connection refused" in done.stderr and "ollama serve" in done.stderr
    assert f"127.0.0.1:{unused_port}" in done.stderr


def test_providers_lists_entries_without_keys(tmp_path: Path) -> None:
    user_file(
        'default_provider = "claude"\n'
        '[providers.claude]\ntype = "anthropic"\n'
        '[providers.box]\ntype = "vllm"\nbase_url = "http://gpu-box:8000/v1"\n'
        'model = "Qwen/Qwen3-8B"\n'
        '[providers.cloud]\ntype = "nehanda"\n'
    )
    done = nehanda("providers", cwd=tmp_path, env={"ANTHROPIC_API_KEY": "sk-ant-listed"})
    assert done.returncode == 0, done.stderr
    header, box, claude, cloud, footer, settings = done.stdout.splitlines()
    assert settings.startswith(f"user settings: {user_settings_path()} ")
    assert header.split() == ["NAME", "TYPE", "BASE", "URL", "MODEL", "KEY"]
    assert box.split() == ["box", "vllm", "http://gpu-box:8000/v1", "Qwen/Qwen3-8B", "-"]
    assert claude.split()[:5] == [
        "claude",
        "*",
        "anthropic",
        "https://api.anthropic.com",
        "claude-sonnet-4-5",
    ]
    assert "$ANTHROPIC_API_KEY (set)" in claude
    assert "NEHANDA_BASE_URL" in cloud
    assert footer == "* default_provider (claude)"
    assert "sk-ant-listed" not in done.stdout
