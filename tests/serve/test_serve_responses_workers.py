"""``previous_response_id`` across ``nehanda serve --workers 2``: the store is on disk,
so a continuation finds its conversation whichever worker takes the connection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from scripted_server import ScriptedServer
from serve.test_serve_cli import _first_line, _start, _wait_healthy
from serve.test_serve_openai import CALL_BODY, PROSE_BODY

READ: Any = {"type": "function", "name": "Read", "parameters": {"type": "object"}}
CONTINUATIONS = 6


def test_every_worker_continues_a_stored_response(
    tmp_path: Path, isolated_home: Path, unused_port: int, server: ScriptedServer
) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        f'[providers.local]\ntype = "vllm"\nbase_url = "{server.base_url}"\n'
        '[serve.models]\n"my-model" = { provider = "local", model = "qwen" }\n'
    )
    server.stream(CALL_BODY)
    for _ in range(CONTINUATIONS):
        server.stream(PROSE_BODY)
    process = _start(tmp_path, "--port", str(unused_port), "--workers", "2")
    try:
        _first_line(process)
        url = f"http://127.0.0.1:{unused_port}"
        _wait_healthy(url)
        first = _client(url).responses.create(model="my-model", input="Read it", tools=[READ])
        result: Any = [{"type": "function_call_output", "call_id": "chatcmpl-tool-4b2c"}]
        result[0]["output"] = "# Marker 42"
        for _ in range(CONTINUATIONS):  # each on a connection of its own
            answer = _client(url).responses.create(
                model="my-model", previous_response_id=first.id, input=result, tools=[READ]
            )
            assert answer.output_text == "Install it with `pip install widget`."
        for request in server.requests[1:]:
            roles = [message["role"] for message in request.body["messages"]]
            assert roles == ["user", "assistant", "tool"]
        with pytest.raises(openai.BadRequestError):
            _client(url).responses.create(
                model="my-model", previous_response_id="resp_" + "f" * 32, input="more"
            )
    finally:
        process.terminate()
        process.wait(10)


def _client(url: str) -> Any:
    return openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0)
