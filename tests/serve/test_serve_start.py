"""``nehanda serve``'s start and its log, as real processes: a port in use is one line
and exit 1, the start says how to point a client at it (and that works), and
``--log-requests`` logs method, path, status and milliseconds, never bodies or keys."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from cli_process import nehanda
from scripted_server import ScriptedServer

TOKEN, KEY = "client-token-0a1b2c3d4e5f6a7b", "sk-upstream-7c6d5e4f3a2b1c0d"
SECRET_WORDS = "the-body-says-hush-42"


def start(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "nehanda", "serve", *args],
        cwd=cwd,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
    )


def start_lines(process: subprocess.Popen[str]) -> tuple[str, str]:
    assert process.stderr is not None
    return process.stderr.readline(), process.stderr.readline()


def stopped(process: subprocess.Popen[str]) -> str:
    """The rest of its stderr once it has stopped."""
    process.terminate()
    _, err = process.communicate(timeout=30)
    return err


@pytest.fixture
def settings(isolated_home: Path, server: ScriptedServer) -> Path:
    path = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    path.parent.mkdir(parents=True)
    path.write_text(
        f'[providers.local]\ntype = "vllm"\nbase_url = "{server.base_url}"\n'
        'api_key_env = "UPSTREAM_API_KEY"\n[serve]\napi_key_env = "NEHANDA_SERVE_TOKEN"\n'
        '[serve.models]\n"my-model" = { provider = "local", model = "qwen" }\n'
    )
    return path


@pytest.fixture
def served(tmp_path: Path, settings: Path) -> Iterator[Any]:
    processes: list[subprocess.Popen[str]] = []

    def run(*args: str) -> subprocess.Popen[str]:
        env = {"NEHANDA_SERVE_TOKEN": TOKEN, "UPSTREAM_API_KEY": KEY}
        process = start(tmp_path, "--port", "0", *args, env=env)
        processes.append(process)
        return process

    yield run
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_a_port_in_use_is_one_line_naming_it_and_what_to_do(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        args = ("serve", "--provider", "vllm", "--base-url", "http://127.0.0.1:9/v1")
        done = nehanda(*args, "--port", str(port), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == (
        f"error: 127.0.0.1 port {port} is in use (another nehanda serve, or another server): "
        "stop it, or listen elsewhere with --port N (--port 0 takes a free one)\n"
    )


def test_the_start_says_how_to_point_a_client_at_it_and_that_works(
    served: Any, server: ScriptedServer
) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    process = served()
    first, hint = start_lines(process)
    found = re.search(r"OPENAI_BASE_URL=(\S+) or ANTHROPIC_BASE_URL=(\S+),", hint)
    assert found is not None, hint
    openai_url, anthropic_url = found.groups()
    assert openai_url == anthropic_url + "/v1" and ":0" not in anthropic_url  # the port taken
    assert first.startswith(f"nehanda serve: {anthropic_url} -> ")
    assert "with the token in $NEHANDA_SERVE_TOKEN as OPENAI_API_KEY or ANTHROPIC_API_KEY" in hint
    asked: Any = [{"role": "user", "content": "hi"}]
    chat = openai.OpenAI(base_url=openai_url, api_key=TOKEN, max_retries=0)
    assert chat.chat.completions.create(model="my-model", messages=asked).choices
    messages = anthropic.Anthropic(base_url=anthropic_url, api_key=TOKEN, max_retries=0)
    assert messages.messages.create(model="my-model", max_tokens=50, messages=asked).content
    stopped(process)


def test_log_requests_logs_method_path_status_and_ms_but_no_body_or_key(
    served: Any, server: ScriptedServer
) -> None:
    server.stream("e2e_vllm_answer.sse")
    process = served("--log-requests")
    _, hint = start_lines(process)
    url = hint.split("OPENAI_BASE_URL=", 1)[1].split()[0]
    client = openai.OpenAI(base_url=url, api_key=TOKEN, max_retries=0)
    asked: Any = [{"role": "user", "content": SECRET_WORDS}]
    client.chat.completions.create(model="my-model", messages=asked)
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=url, api_key="wrong", max_retries=0).models.list()
    client.with_options(default_query={"key": TOKEN}).models.list()
    logged = stopped(process).splitlines()
    lines = [line for line in logged if line.startswith("nehanda serve: ")]
    shapes = [re.sub(r" \d+ ms$", " N ms", line) for line in lines]
    assert shapes == [
        "nehanda serve: POST /v1/chat/completions 200 N ms",
        "nehanda serve: GET /v1/models 401 N ms",
        "nehanda serve: GET /v1/models 200 N ms",
    ]
    whole = "\n".join(logged)
    for secret in (SECRET_WORDS, TOKEN, KEY, "key="):
        assert secret not in whole


def test_without_the_flag_no_request_is_logged(served: Any, server: ScriptedServer) -> None:
    process = served()
    _, hint = start_lines(process)
    url = hint.split("OPENAI_BASE_URL=", 1)[1].split()[0]
    openai.OpenAI(base_url=url, api_key=TOKEN, max_retries=0).models.list()
    assert "/v1/models" not in stopped(process)


def test_serve_help_says_what_workers_and_log_requests_do(tmp_path: Path) -> None:
    shown = " ".join(nehanda("serve", "--help", cwd=tmp_path).stdout.split())
    assert "--workers INTEGER RANGE Processes answering on the one port" in shown
    assert "--log-requests One line on stderr per request" in shown
    assert "Exits 1, saying what to do, when it cannot start" in shown
