"""The MCP SDK is heavy (hundreds of modules): only a session with servers loads it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def modules_after(script: str) -> list[str]:
    code = f"import json, sys\n{script}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.parametrize(
    "script",
    [
        "import nehanda.cli.main",
        "import nehanda.cli.session, nehanda.permissions.decision, nehanda.cli.repl",
        # a session's MCP set-up with no server configured
        "import asyncio, pathlib\nfrom nehanda.cli.mcp_setup import start_mcp\n"
        "from nehanda.config.settings import Settings\n"
        "start_mcp(Settings(), pathlib.Path('.'))",
    ],
)
def test_nothing_loads_the_sdk_until_a_server_is_configured(script: str) -> None:
    loaded = modules_after(script)
    assert not [name for name in loaded if name.split(".")[0] in ("mcp", "mcp_types", "httpx2")]
