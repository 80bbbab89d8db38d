"""``nehanda run --base-url URL`` without ``--provider``: the server at that URL is used,
as Ollama or as an OpenAI-compatible server, and an error names it when nothing answers.

A real process against the scripted server on 127.0.0.1; every GET the discovery makes
is routed, so that no probe can take a reply meant for a chat request.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from nehanda.config.settings import Settings
from nehanda.providers.discovery import NoProviderFound, find_provider
from scripted_server import Reply, ScriptedServer, fixture_body

JSON = {"Content-Type": "application/json"}
NOT_FOUND = Reply(404, b"404 page not found", {"Content-Type": "text/plain"})
VLLM_NOT_FOUND = Reply(404, fixture_body("openai_error_fastapi_not_found.json"), JSON)
MODELS = {"object": "list", "data": [{"id": "local-qwen", "object": "model"}]}


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
    done = nehanda("run", "hi", *args, "--output", "json", cwd=cwd, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def serve_openai(server: ScriptedServer, models: Reply) -> None:
    server.route("GET", "/v1/models", models)
    server.route("GET", "/v1/api/tags", VLLM_NOT_FOUND)
    server.stream("e2e_vllm_answer.sse")


def test_an_openai_compatible_server_and_the_model_it_lists(
    server: ScriptedServer, tmp_path: Path
) -> None:
    serve_openai(server, Reply(200, json.dumps(MODELS).encode(), JSON))
    # An API key in the environment neither wins over the URL nor is sent to it.
    result = run("--base-url", server.base_url, cwd=tmp_path, env={"OPENAI_API_KEY": "sk-mine"})
    assert result["result"] == "Install it with `pip install widget`."
    assert (result["provider"], result["model"], result["mode"]) == (
        "OpenAI-compatible",
        "local-qwen",
        "native",
    )
    (chat,) = server.received("/v1/chat/completions")
    assert chat.body["model"] == "local-qwen" and chat.body["tools"]
    assert all("authorization" not in request.headers for request in server.requests)


def test_a_server_without_a_model_list_serves_the_model_given(
    server: ScriptedServer, tmp_path: Path
) -> None:
    serve_openai(server, VLLM_NOT_FOUND)
    result = run("--base-url", server.base_url + "/", "--model", "q", cwd=tmp_path)
    assert (result["provider"], result["model"]) == ("OpenAI-compatible", "q")
    assert server.received("/v1/chat/completions")[0].body["model"] == "q"


def test_an_ollama_server(server: ScriptedServer, tmp_path: Path) -> None:
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), JSON))
    server.route("GET", "/models", NOT_FOUND)
    server.route("POST", "/api/show", Reply(200, fixture_body("ollama_show_qwen3.json"), JSON))
    server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    result = run("--base-url", server.root_url, cwd=tmp_path)
    assert (result["provider"], result["model"]) == ("Ollama", "qwen3:8b")
    assert result["result"] == "Install it with `pip install widget`."
    assert server.received("/api/chat")[0].body["model"] == "qwen3:8b"


def test_llamacpp_answering_ollamas_path_too_is_openai_compatible(
    server: ScriptedServer, tmp_path: Path
) -> None:
    models = Reply(200, fixture_body("openai_llamacpp_models.json"), JSON)
    server.route("GET", "/api/tags", models).route("GET", "/models", models)
    server.stream("e2e_vllm_answer.sse")
    result = run("--base-url", server.root_url, cwd=tmp_path)
    # Named as it names itself (owned_by "llamacpp"), not by the profile it is spoken to with.
    assert (result["provider"], result["model"]) == ("llama.cpp", "Qwen3-8B-Q4_K_M.gguf")
    assert len(server.received("/chat/completions")) == 1


@pytest.mark.parametrize(
    ("models", "headers", "named"),
    [
        (fixture_body("vllm_models.json"), JSON, "vLLM"),
        (json.dumps(MODELS).encode(), {**JSON, "Server": "uvicorn"}, "OpenAI-compatible"),
        (json.dumps(MODELS).encode(), {**JSON, "Server": "llama.cpp"}, "llama.cpp"),
    ],
)
def test_a_server_is_named_by_what_it_says_it_is(
    server: ScriptedServer, tmp_path: Path, models: bytes, headers: dict[str, str], named: str
) -> None:
    serve_openai(server, Reply(200, models, headers))
    result = run("--base-url", server.base_url, cwd=tmp_path)
    assert result["provider"] == named


def test_a_generic_server_on_vllms_port_is_not_called_vllm(server: ScriptedServer) -> None:
    from dataclasses import replace

    from nehanda.providers.discovery import LOCAL_SERVERS

    server.route("GET", "/v1/models", Reply(200, json.dumps(MODELS).encode(), JSON))
    vllm = next(local for local in LOCAL_SERVERS if local.label == "vLLM")
    config = asyncio.run(find_provider(Settings(), {}, (replace(vllm, base_url=server.base_url),)))
    assert (config.name, config.type, config.model) == ("OpenAI-compatible", "vllm", "local-qwen")


def test_nothing_answering_names_the_url(tmp_path: Path, unused_port: int) -> None:
    url = f"http://127.0.0.1:{unused_port}/v1"
    done = nehanda("run", "hi", "--base-url", url, "--model", "q", cwd=tmp_path)
    assert done.returncode == 1
    assert f"no model provider answered at --base-url {url}: connection refused" in done.stderr
    assert "Tried:" not in done.stderr  # the local ports were not what the user asked for


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("gpu-box:8000/v1", "the URL must start with http:// or https://"),
        ("http://user:secret@127.0.0.1:{port}/v1", "connection refused"),
    ],
)
def test_a_url_that_leads_nowhere_is_named_without_its_credentials(
    url: str, why: str, unused_port: int
) -> None:
    settings = Settings(base_url=url.format(port=unused_port))
    with pytest.raises(NoProviderFound) as raised:
        asyncio.run(find_provider(settings, environ={}))
    assert why in str(raised.value) and "secret" not in str(raised.value)


class _Refusing(BaseHTTPRequestHandler):
    """An authenticating proxy in front of Ollama: 401 for everything."""

    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def ollama_port() -> Iterator[int]:
    try:
        httpd = ThreadingHTTPServer(("127.0.0.1", 11434), _Refusing)
    except OSError:
        pytest.skip("something listens on 127.0.0.1:11434")
    threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True).start()
    yield 11434
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(("path", "provider_type"), [("", "ollama"), ("/v1", "vllm")])
def test_ollamas_port_means_ollama_unless_the_url_has_a_path(
    ollama_port: int, path: str, provider_type: str
) -> None:
    settings = Settings(base_url=f"http://127.0.0.1:{ollama_port}{path}", model="m")
    config = asyncio.run(find_provider(settings, environ={}))
    assert (config.type, config.base_url) == (provider_type, settings.base_url)


def test_a_llama_cpp_server_found_on_its_port_keeps_its_own_model_and_gets_no_key(
    server: ScriptedServer,
) -> None:
    from dataclasses import replace

    from nehanda.providers.discovery import LOCAL_SERVERS

    server.route("GET", "/v1/models", Reply(200, fixture_body("openai_llamacpp_models.json"), JSON))
    llama_cpp = next(local for local in LOCAL_SERVERS if local.label == "llama.cpp")
    config = asyncio.run(
        find_provider(Settings(), {}, (replace(llama_cpp, base_url=server.base_url),))
    )
    assert (config.name, config.model, config.api_key_env) == (
        "llama.cpp",
        "Qwen3-8B-Q4_K_M.gguf",
        None,
    )
