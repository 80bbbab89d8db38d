"""Run inside a network namespace holding only loopback: a scripted vLLM upstream,
``nehanda serve`` in front of it, and ``codex exec`` pointed at serve through a
``model_providers`` entry with ``wire_api = "responses"``.

``python codex_through_serve.py FOLDER PROMPT``: Codex works in ``FOLDER/work`` with
its home in ``FOLDER/codex``; what happened goes to ``FOLDER/result.json`` (Codex's
exit status and output, and each request the upstream received).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from nehanda.config.settings import ProviderConfig
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.app import build_app
from nehanda.serve.config import ServeConfig
from scripted_server import ScriptedServer
from serve.conftest import start

TOKEN = "codex-serve-token-2b7e"


def main(folder: Path, prompt: str) -> None:
    upstream = ScriptedServer()
    upstream.stream("openai_vllm_codex_exec_command.sse").stream("e2e_vllm_answer.sse")
    provider = ProviderConfig.model_validate(
        {"name": "local", "type": "vllm", "base_url": upstream.base_url, "model": "qwen"}
    )
    config = ServeConfig(default=None, aliases={"local-coder": provider}, token_env="TOKEN")
    cache = ToolSupportCache(folder / "tool_support.json")
    url, stop = start(build_app(config, {"TOKEN": TOKEN}, cache))
    home = folder / "codex"
    home.mkdir()
    (home / "config.toml").write_text(
        'model_provider = "nehanda"\nmodel = "local-coder"\n\n[model_providers.nehanda]\n'
        f'name = "nehanda serve"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
        'env_key = "NEHANDA_SERVE_TOKEN"\n'
    )
    env = {**os.environ, "CODEX_HOME": str(home), "NEHANDA_SERVE_TOKEN": TOKEN}
    command = ["codex", "exec", "--skip-git-repo-check", prompt]
    done = subprocess.run(
        command, cwd=folder / "work", env=env, capture_output=True, text=True, timeout=180
    )
    stop()
    result = {
        "returncode": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr,
        "requests": [request.body for request in upstream.requests],
    }
    (folder / "result.json").write_text(json.dumps(result))
    upstream.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
