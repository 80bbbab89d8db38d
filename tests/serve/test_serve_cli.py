"""``nehanda serve`` as a user starts it: a real process, its settings, its bind check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cli_process import nehanda
from scripted_server import ScriptedServer


def test_help_loads_no_server_stack() -> None:
    script = "import sys; from nehanda.cli.main import cli; print(sorted(sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert "starlette" not in loaded and "uvicorn" not in loaded


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::"])
def test_a_reachable_bind_without_a_token_is_refused(tmp_path: Path, host: str) -> None:
    done = nehanda("serve", "--provider", "vllm", "--host", host, cwd=tmp_path)
    assert done.returncode == 1
    assert "api_key_env" in done.stderr and "Traceback" not in done.stderr


def test_a_token_variable_that_is_not_set_is_refused(tmp_path: Path, isolated_home: Path) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('[serve]\napi_key_env = "MY_SERVE_TOKEN"\n')
    done = nehanda("serve", "--provider", "vllm", cwd=tmp_path, env={"MY_SERVE_TOKEN": ""})
    assert done.returncode == 1
    assert "MY_SERVE_TOKEN" in done.stderr


def test_an_untrusted_project_cannot_open_the_server_to_others(tmp_path: Path) -> None:
    (tmp_path / ".nehanda").mkdir()
    (tmp_path / ".nehanda" / "settings.toml").write_text('[serve]\nhost = "0.0.0.0"\n')
    process = _start(tmp_path, "--port", "0", "--provider", "vllm", "--base-url", "http://x/v1")
    try:
        line = _first_line(process)
        assert "http://127.0.0.1:0" in line
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_answers_with_the_settings_aliases(
    tmp_path: Path, isolated_home: Path, unused_port: int, server: ScriptedServer, workers: str
) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        f'[providers.local]\ntype = "vllm"\nbase_url = "{server.base_url}"\n'
        '[serve.models]\n"my-model" = { provider = "local", model = "qwen" }\n'
    )
    server.stream("e2e_vllm_answer.sse")
    process = _start(tmp_path, "--port", str(unused_port), "--workers", workers)
    try:
        _first_line(process)
        url = f"http://127.0.0.1:{unused_port}"
        _wait_healthy(url)
        body = {"model": "my-model", "messages": [{"role": "user", "content": "hi"}]}
        answer = httpx.post(url + "/v1/chat/completions", json=body, timeout=10).json()
        assert answer["choices"][0]["finish_reason"] == "stop"
        assert server.requests[-1].body["model"] == "qwen"
        assert httpx.get(url + "/v1/models").json()["data"][0]["id"] == "my-model"
    finally:
        process.terminate()
        process.wait(10)


def _start(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "nehanda", "serve", *args],
        cwd=cwd,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ),
    )


def _first_line(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    return process.stderr.readline()


def _wait_healthy(url: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health").json() == {"status": "ok"}:
                return
        except (httpx.HTTPError, json.JSONDecodeError):
            time.sleep(0.05)
    raise AssertionError("nehanda serve did not come up")
