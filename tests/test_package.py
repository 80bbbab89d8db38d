"""The package's shape: its public surface, and what an import or a first request loads."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import nehanda


def loaded_by(module: str) -> list[str]:
    """The modules that importing ``module`` loads in a fresh interpreter."""
    script = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    loaded: list[str] = json.loads(out)
    return loaded


# Which package may import which is pyproject.toml's import-linter contract
# (tests/test_layers.py); these check what an import loads, which is start-up time.
def test_the_package_root_loads_only_the_core_values() -> None:
    loaded = [name for name in loaded_by("nehanda") if name.startswith("nehanda")]
    assert sorted(loaded) == ["nehanda", "nehanda.errors", "nehanda.events", "nehanda.types"]


@pytest.mark.parametrize("adapter", ["openai_compat", "anthropic", "ollama"])
def test_a_provider_adapter_loads_neither_the_rescue_parser_nor_discovery(adapter: str) -> None:
    loaded = loaded_by(f"nehanda.providers.{adapter}")
    assert f"nehanda.providers.{adapter}" in loaded
    heavy = ("nehanda.toolcalls", "nehanda.providers.discovery", "regex", "jsonschema")
    assert [name for name in loaded if name.startswith(heavy)] == []


@pytest.mark.parametrize("view", ["live", "approval"])
def test_the_live_view_and_the_prompt_load_neither_permissions_nor_the_engine(view: str) -> None:
    loaded = loaded_by(f"nehanda.ui.{view}")
    assert [n for n in loaded if n.startswith(("nehanda.permissions", "nehanda.engine"))] == []


def test_the_command_line_loads_neither_the_exam_nor_the_settings_writer() -> None:
    loaded = loaded_by("nehanda.cli.main")
    assert [name for name in loaded if name.startswith(("nehanda.exam", "tomlkit"))] == []
    assert "nehanda.config.writer" not in loaded


# Runs `nehanda run` in this process against a server on a thread of it, which notes
# the modules loaded when each request arrives (the window probe, then the chat).
_FIRST_REQUEST = """
import json, socket, sys, threading, time
from nehanda.cli import main
seen, sent = [], []
def connecting(event, args):  # what is loaded as the first request goes out, seen by its thread
    if event == "socket.connect" and not sent:
        sent.append(sorted(k for k, v in sys.modules.items() if v is not None))
sys.addaudithook(connecting)
MODELS = b'{"object":"list","data":[{"id":"q","object":"model","max_model_len":32768}]}'
ANSWER = (b'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}'
          b'\\n\\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'
          b'\\n\\ndata: [DONE]\\n\\n')
def serve(server):
    while True:
        conn, _ = server.accept()
        data = conn.recv(65536)
        seen.append(sorted(k for k, v in sys.modules.items() if v is not None))
        head, _, body = data.partition(b"\\r\\n\\r\\n")
        length = [int(l.split(b":")[1]) for l in head.split(b"\\r\\n")
                  if l.lower().startswith(b"content-length:")]
        while length and len(body) < length[0]:
            body += conn.recv(65536)
        kind, reply = ((b"text/event-stream", ANSWER) if head.startswith(b"POST")
                       else (b"application/json", MODELS))
        if not head.startswith(b"POST"):  # answers once the session has loaded the rest
            deadline = time.monotonic() + 10
            while "nehanda.permissions.gate" not in sys.modules and time.monotonic() < deadline:
                time.sleep(0.005)
            seen.append("nehanda.permissions.gate" in sys.modules)
        conn.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: " + kind + b"\\r\\nContent-Length: "
                     + str(len(reply)).encode() + b"\\r\\nConnection: close\\r\\n\\r\\n" + reply)
        conn.close()
server = socket.create_server(("127.0.0.1", 0))
threading.Thread(target=serve, args=(server,), daemon=True).start()
url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
try:
    main.main(["run", "hi", "--provider", "vllm", "--base-url", url, "--model", "q"])
except SystemExit:
    pass
print(json.dumps([sent[0], *seen[1:], sorted(k for k, v in sys.modules.items() if v is not None)]))
"""


def test_a_run_sends_its_first_request_before_loading_the_engine(tmp_path: Path) -> None:
    """``nehanda run`` asks the server its window before loading the engine, the tools,
    the permissions or the sandbox, which load while it answers, and reaches its chat
    request without the rescue parser, discovery, the regex engine, httpx's own command
    line (rich, pygments), pydantic's plugin search, or the approval prompt and the
    settings writer it brings."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env |= {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_REQUEST],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
    ).stdout
    probe, loaded_while_asked, chat, _ = json.loads(out.splitlines()[-1])
    assert loaded_while_asked, "the session waited for the window before loading the rest"
    later = ("engine.loop", "tools", "permissions", "sandbox", "ui", "cli.session")
    within = [(f"nehanda.{m}", f"nehanda.{m}.") for m in later]
    assert [n for n in probe if any(n == m or n.startswith(sub) for m, sub in within)] == []
    assert "nehanda.tools.registry" in chat and "nehanda.permissions.gate" in chat
    unwanted = ("httpx._main", "rich", "pygments", "regex", "nehanda.toolcalls", "jsonschema")
    assert [name for name in chat if name.split(".")[0] in unwanted or name in unwanted] == []
    assert "importlib.metadata" not in chat
    assert "nehanda.providers.discovery" not in chat
    # Asking and saving rules matter only where someone can be asked.
    assert "nehanda.ui.approval" not in chat and "nehanda.config.writer" not in chat


def test_a_run_whose_answer_is_prose_never_loads_the_rescue_parser_nor_trio(
    tmp_path: Path,
) -> None:
    """A native reply is read for leaked calls, but prose with no sign of one is passed
    on without the parser; httpcore never imports trio (installed here) for asyncio."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env |= {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_REQUEST],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
    ).stdout
    assert out.startswith("ok\n")  # the answer, read through the leak watch
    *_, ended = json.loads(out.splitlines()[-1])
    assert "nehanda.providers.leak_watch" in ended and "httpcore" in ended
    assert [name for name in ended if name.startswith("nehanda.toolcalls.scanner")] == []
    assert "nehanda.providers.leaks" not in ended
    assert [name for name in ended if name.split(".")[0] == "trio"] == []


def test_every_name_in_all_imports() -> None:
    for name in nehanda.__all__:
        assert getattr(nehanda, name) is not None, name


def test_all_lists_every_public_name_of_the_package_root() -> None:
    public = {
        name
        for name, value in vars(nehanda).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert public | {"__version__"} == set(nehanda.__all__)


def test_every_subpackage_init_is_a_docstring_only() -> None:
    """Importing a module of a subpackage loads nothing but that module's own imports."""
    root = Path(nehanda.__file__).parent
    inits = sorted(root.glob("*/**/__init__.py"))
    assert inits
    for init in inits:
        body = ast.parse(init.read_text(encoding="utf-8")).body
        assert [type(node) for node in body] == [ast.Expr], init.relative_to(root)
