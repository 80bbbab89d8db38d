"""The MCP SDK is heavy (hundreds of modules): only a session with servers loads it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcp_session import write_settings


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


def test_help_loads_no_sdk_with_a_server_configured() -> None:
    write_settings('[mcp_servers.notes]\ncommand = "notes-server"\n')
    script = (
        "from nehanda.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
        "    pass"
    )
    loaded = modules_after(script)
    assert "nehanda.cli.main" in loaded
    assert not [name for name in loaded if name.split(".")[0] in ("mcp", "mcp_types", "httpx2")]


def test_the_sdk_loads_on_a_worker_thread() -> None:
    """A session begins the SDK's import (``SdkLoad``) and goes on: the import runs on a
    thread of its own, never the one the event loop runs on."""
    script = """
import asyncio, importlib.abc, threading
found = []
class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "mcp":
            found.append(threading.current_thread().name)
sys.meta_path.insert(0, Watch())
from nehanda.tools.mcp.sdk import SdkLoad
async def load():
    await SdkLoad().loaded()
asyncio.run(load())
print(json.dumps(found))
"""
    code = f"import json, sys\n{script}"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out.splitlines()[-1]) == ["mcp-sdk-import"]
