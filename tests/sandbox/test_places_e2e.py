"""Code nehanda runs outside the sandbox, attacked through the real CLI and kernel.

``nehanda run --yes`` with a scripted model whose Bash and Grep calls go after what
nehanda or its MCP servers run unconfined at the next start, or at once: a nehanda
that ``uvx`` installed in uv's cache, an MCP server ``npx`` installed, an ``rg``
planted in the workspace's ``.venv/bin`` on ``PATH`` for Grep to run, and nehanda's
own environment when it lives in the workspace. HOME, TMPDIR and the XDG folders
lie in the test's folder.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from nehanda.sandbox.confine import probe_support
from scripted_calls import calls_stream
from scripted_server import Reply, ScriptedServer

pytestmark = pytest.mark.skipif(
    probe_support().landlock_abi == 0, reason="this kernel has no Landlock"
)

UVX_NEHANDA = ".cache/uv/archive-v0/Hk2xq9/bin/nehanda"
NPX_SERVER = ".npm/_npx/5f1e2a/node_modules/@modelcontextprotocol/server-filesystem/index.js"
SITE = f".venv/lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"


@dataclass
class Place:
    workspace: Path
    home: Path
    outside: Path
    env: dict[str, str]


def make_place(root: Path) -> Place:
    workspace, home, tmp, outside = (root / name for name in ("ws", "home", "tmp", "outside"))
    for folder in (workspace, home, tmp, outside):
        folder.mkdir()
    xdg = {"CONFIG": ".config", "STATE": ".local/state", "CACHE": ".cache", "DATA": ".local/share"}
    env = {"HOME": str(home), "TMPDIR": str(tmp), "OPENAI_API_KEY": "sk-places-test"}
    env |= {f"XDG_{name}_HOME": str(home / sub) for name, sub in xdg.items()}
    return Place(workspace, home, outside, env)


def run_calls(
    place: Place, calls: dict[str, tuple[str, dict[str, Any]]], python: str = sys.executable
) -> tuple[dict[str, str], str]:
    """Each call's result by name, and nehanda's stderr."""
    server = ScriptedServer()
    models = {"data": [{"id": "q", "object": "model", "max_model_len": 32768}]}
    server.route("GET", "/v1/models", Reply(200, json.dumps(models).encode()))
    try:
        server.stream(calls_stream(list(calls.values())))
        server.stream("e2e_vllm_answer.sse")
        done = nehanda(
            *("run", "attack", "--yes", "--output", "json", "--provider", "vllm"),
            *("--base-url", server.base_url, "--model", "q"),
            cwd=place.workspace,
            env=place.env,
            python=python,
        )
        assert done.returncode == 0, done.stderr
        messages = server.received("/v1/chat/completions")[1].body["messages"]
    finally:
        server.close()
    contents = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    return {name: contents[f"call-{i}"] for i, name in enumerate(calls)}, done.stderr


def bash(command: str) -> tuple[str, dict[str, Any]]:
    return ("Bash", {"command": command})


@dataclass
class Planted:
    place: Place
    results: dict[str, str]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Planted]:
    place = make_place(tmp_path_factory.mktemp("planted"))
    home, workspace = place.home, place.workspace
    for program, text in ((UVX_NEHANDA, "#!/bin/sh\nexec python -m nehanda\n"), (NPX_SERVER, "")):
        (home / program).parent.mkdir(parents=True)
        (home / program).write_text(text or "console.log('server');\n")
    for cache in (".npm/_cacache", ".cache/pip"):
        (home / cache).mkdir(parents=True)
    (workspace / "notes.md").write_text("a needle in the workspace\n")
    place.env["PATH"] = f"{workspace / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"
    fake_rg = f"#!/bin/sh\\necho ran > {place.outside}/marker\\n"
    calls = {
        "uvx": bash(f"echo x >> ~/{UVX_NEHANDA}"),
        "uvx_new": bash("mkdir ~/.cache/uv/archive-v0/planted"),
        "npx": bash(f"echo x >> ~/{NPX_SERVER}"),
        "caches": bash("echo ok > ~/.npm/_cacache/x && echo ok > ~/.cache/pip/x && echo filled"),
        "plant_rg": bash(
            f"mkdir -p .venv/bin && printf '{fake_rg}' > .venv/bin/rg && chmod +x .venv/bin/rg"
            " && echo planted"
        ),
        "grep": ("Grep", {"pattern": "needle"}),
    }
    results, _ = run_calls(place, calls)
    yield Planted(place, results)


def test_a_command_cannot_change_a_uvx_installed_nehanda_or_an_npx_mcp_server(
    planted: Planted,
) -> None:
    home = planted.place.home
    assert (home / UVX_NEHANDA).read_text() == "#!/bin/sh\nexec python -m nehanda\n"
    assert (home / NPX_SERVER).read_text() == "console.log('server');\n"
    assert not (home / ".cache" / "uv" / "archive-v0" / "planted").exists()
    for attack in ("uvx", "uvx_new", "npx"):
        assert "Permission denied" in planted.results[attack], attack


def test_the_named_tool_caches_stay_writable(planted: Planted) -> None:
    assert "filled" in planted.results["caches"]
    home = planted.place.home
    assert (home / ".npm" / "_cacache" / "x").read_text() == "ok\n"
    assert (home / ".cache" / "pip" / "x").read_text() == "ok\n"


def test_grep_never_runs_an_rg_a_command_planted_on_path(planted: Planted) -> None:
    assert "planted" in planted.results["plant_rg"]
    assert (planted.place.workspace / ".venv" / "bin" / "rg").exists()
    assert not (planted.place.outside / "marker").exists()
    assert "notes.md:1:a needle in the workspace" in planted.results["grep"]


def test_nehanda_in_a_workspace_venv_keeps_that_venv_read_only(tmp_path: Path) -> None:
    place = make_place(tmp_path)
    venv, workspace = place.workspace / ".venv", place.workspace
    (venv / "bin").mkdir(parents=True)
    (workspace / SITE).mkdir(parents=True)
    (workspace / "src").mkdir()
    python = Path(sys.executable).resolve()
    (venv / "bin" / "python").symlink_to(python)
    config = f"home = {python.parent}\ninclude-system-site-packages = true\n"
    (venv / "pyvenv.cfg").write_text(config)
    # The suite may itself run in a venv (the README's command): what it imports from
    # there, nehanda and its dependencies, the workspace's venv sees too.
    (workspace / SITE / "outer.pth").write_text("\n".join(p for p in sys.path if p) + "\n")
    calls = {
        "pth": bash(f"echo 'import os' > {SITE}/planted.pth"),
        "config": bash("echo 'include-system-site-packages = false' >> .venv/pyvenv.cfg"),
        "swap": bash("mv .venv .venv-old"),
        "work": bash("echo ok > src/made.txt && cat src/made.txt"),
    }
    results, stderr = run_calls(place, calls, python=str(venv / "bin" / "python"))
    assert not (workspace / SITE / "planted.pth").exists()
    assert (venv / "pyvenv.cfg").read_text() == config
    assert venv.is_dir() and not (workspace / ".venv-old").exists()
    for attack in ("pth", "config", "swap"):
        assert "Permission denied" in results[attack] or "not permitted" in results[attack]
    assert (workspace / "src" / "made.txt").read_text() == "ok\n"
    assert f"nehanda runs from {venv}, inside a folder Bash commands may write" in stderr
