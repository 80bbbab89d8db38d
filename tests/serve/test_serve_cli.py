"""``nehanda serve`` as a user starts it: a real process, its settings, its bind check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from cli_process import nehanda
from scripted_server import ScriptedServer
from waiting import GUARD


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
        assert line.startswith("nehanda serve: http://127.0.0.1:")
    finally:
        process.terminate()
        process.wait(10)


TOKEN, KEY = "client-token-5f1d2a9c7e3b", "sk-upstream-9b8a7c6d5e4f3a2b"


@pytest.mark.parametrize(
    ("workers", "token_var", "key_var"),
    [
        # Names seal() takes for secrets at start: a worker finds them unset.
        ("2", "NEHANDA_SERVE_TOKEN", "UPSTREAM_API_KEY"),
        # Names it does not: serve must keep them from every child itself.
        ("1", "SERVE_CLIENT_AUTH", "UPSTREAM_CRED"),
    ],
)
def test_every_worker_asks_for_the_token_and_sends_the_key(
    tmp_path: Path,
    isolated_home: Path,
    unused_port: int,
    server: ScriptedServer,
    workers: str,
    token_var: str,
    key_var: str,
) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        f'[providers.local]\ntype = "vllm"\nbase_url = "{server.base_url}"\n'
        f'api_key_env = "{key_var}"\n[serve]\napi_key_env = "{token_var}"\n'
        '[serve.models]\n"my-model" = { provider = "local", model = "qwen" }\n'
    )
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    env = {token_var: TOKEN, key_var: KEY}
    process = _start(tmp_path, "--port", str(unused_port), "--workers", workers, env=env)
    try:
        _first_line(process)
        url = f"http://127.0.0.1:{unused_port}"
        _wait_healthy(url)
        asked: Any = [{"role": "user", "content": "hi"}]
        body = {"model": "my-model", "messages": asked}
        for _ in range(4):  # each on a connection of its own, to whichever worker takes it
            assert httpx.post(url + "/v1/chat/completions", json=body).status_code == 401
        assert httpx.get(url + "/v1/models").status_code == 401
        client = openai.OpenAI(base_url=url + "/v1", api_key=TOKEN, max_retries=0)
        for _ in range(2):
            answer = client.chat.completions.create(model="my-model", messages=asked)
            assert answer.choices[0].finish_reason == "stop"
        assert [r.headers["authorization"] for r in server.requests] == [f"Bearer {KEY}"] * 2
        assert server.requests[-1].body["model"] == "qwen"
        assert [model.id for model in client.models.list()] == ["my-model"]
        spawned = _descendants(process.pid)
        assert len(spawned) >= (2 if workers == "2" else 0)
        for pid in [process.pid, *spawned]:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            assert TOKEN.encode() not in environ and KEY.encode() not in environ
    finally:
        process.terminate()
        process.wait(10)


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started (its workers, multiprocessing's helper), and theirs."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _start(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "nehanda", "serve", *args],
        cwd=cwd,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _first_line(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    return process.stderr.readline()


def _wait_healthy(url: str) -> None:
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health").json() == {"status": "ok"}:
                return
        except (httpx.HTTPError, json.JSONDecodeError):
            time.sleep(0.05)
    raise AssertionError("nehanda serve did not come up")
