"""One ``nehanda serve`` app per test module, on uvicorn in a thread, in front of
scripted upstreams on 127.0.0.1:

- ``native``: an OpenAI-compatible server with a tool parser (vLLM);
- ``refusing``: one that answers tools with vLLM's 400 until rescue mode takes over;
- ``stripped``: the Nehanda proxy emulation, which drops ``tools`` on the way (type
  vllm: native mode, the model prints its call as text and leak recovery finds it);
- ``cloud``: the same proxy as the ``nehanda`` type (rescue mode, forced);
- ``ollama``: Ollama with a model whose ``/api/show`` names no tool support (rescue);
- ``claude``: the Anthropic Messages API (native, with signed thinking);
- ``picky``: refuses every request that carries tools, answers the rest with a rescue
  call (many requests meeting the refusal at once);
- ``paced``: a slow stream, to see a client's disconnect reach the upstream.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from local_http import LocalHTTP
from nehanda.config.settings import ProviderConfig
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.app import build_app
from nehanda.serve.config import ServeConfig
from paced_upstream import PacedUpstream
from scripted_server import Reply, ScriptedServer, fixture_body
from stripping_proxy import StrippingProxy
from waiting import until

TOKEN = "serve-test-token"
UPSTREAM_KEY = "sk-up/stream+0123456789abcdef"  # "/" and "+": its URL forms differ
PING_EVERY = 0.25
RESCUE_FIXTURE = "nehanda_cloud_tool_call_split.sse"
READ_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "Read",
        "description": "Read a file.",
        "parameters": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"],
        },
    },
}


@dataclass
class Served:
    url: str
    native: ScriptedServer
    refusing: ScriptedServer
    stripped: ScriptedServer
    proxy: StrippingProxy
    paced: PacedUpstream
    ollama: ScriptedServer
    claude: ScriptedServer
    picky: Picky

    def reset(self) -> None:
        for server in (self.native, self.refusing, self.stripped, self.ollama, self.claude):
            server.replies.clear()
            server.requests.clear()
        self.proxy.received.clear()


def _provider(name: str, kind: str, base_url: str, model: str) -> ProviderConfig:
    return ProviderConfig.model_validate(
        {"name": name, "type": kind, "base_url": base_url, "model": model, "max_retries": 0}
    )


class _Thread(uvicorn.Server):
    def install_signal_handlers(self) -> None:
        pass


class Picky(LocalHTTP):
    """An upstream that answers by the request's content, not by a script."""

    def __init__(self) -> None:
        self.asked = 0
        self.serve(_PickyHandler, "picky")


class _PickyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    picky: Picky

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        self.picky.asked += 1
        refused = "tools" in body
        name = "openai_error_vllm_auto_tool_choice.json" if refused else RESCUE_FIXTURE
        answer = fixture_body(name)
        self.send_response(400 if refused else 200)
        self.send_header("Content-Type", "application/json" if refused else "text/event-stream")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def start(app: Any) -> tuple[str, Callable[[], None]]:
    """``app`` on uvicorn in a thread on a free port: its URL, and how to stop it."""
    server = _Thread(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    until(lambda: server.started, "uvicorn starting")
    port = server.servers[0].sockets[0].getsockname()[1]

    def stop() -> None:
        server.should_exit = True
        thread.join(10)

    return f"http://127.0.0.1:{port}", stop


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    native, refusing, stripped = ScriptedServer(), ScriptedServer(), ScriptedServer()
    proxy = StrippingProxy(stripped.base_url)
    paced = PacedUpstream(chunks=400, rate=50)
    ollama, claude, picky = ScriptedServer(), ScriptedServer(), Picky()
    as_json = {"Content-Type": "application/json"}
    ollama.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), as_json))
    show = fixture_body("ollama_show_gemma_no_tools.json")
    ollama.route("POST", "/api/show", Reply(200, show, as_json))
    aliases = {
        "native-model": _provider("native", "vllm", native.base_url, "qwen"),
        "refusing-model": _provider("refusing", "vllm", refusing.base_url, "qwen"),
        "stripped-model": _provider("stripped", "vllm", proxy.base_url, "qwen"),
        "cloud-model": _provider("cloud", "nehanda", proxy.base_url, "qwen"),
        "paced-model": _provider("paced", "vllm", paced.base_url, "paced"),
        "gemma": _provider("ollama", "ollama", ollama.root_url, "gemma:2b"),
        "claude-model": _provider("claude", "anthropic", claude.root_url, "claude-sonnet-4-5"),
        "picky-model": _provider("picky", "vllm", picky.base_url, "qwen"),
        "keyed-model": ProviderConfig(
            name="keyed",
            type="vllm",
            base_url=native.base_url,
            model="qwen",
            api_key_env="SERVE_UPSTREAM_KEY",
            max_retries=0,
        ),
    }
    config = ServeConfig(
        default=None, aliases=aliases, token_env="SERVE_TEST_TOKEN", ping_every=PING_EVERY
    )
    cache = ToolSupportCache(Path(tmp_path_factory.mktemp("cache")) / "tool_support.json")
    app = build_app(config, {"SERVE_TEST_TOKEN": TOKEN, "SERVE_UPSTREAM_KEY": UPSTREAM_KEY}, cache)
    url, stop = start(app)
    yield Served(url, native, refusing, stripped, proxy, paced, ollama, claude, picky)
    stop()
    for closing in (native, refusing, stripped, proxy, paced, ollama, claude, picky):
        closing.close()


@pytest.fixture
def serve(served: Served) -> Served:
    served.reset()
    return served
