"""An MCP server's answers reach the model as the built-ins' do: secrets masked, size capped.

The notes server (tests/fixtures/mcp/notes_server.py), started over stdio by a session
opened as ``nehanda run`` opens it, is handed a token and a large value through its
configured ``env``; its ``env_value`` tool returns them, as a server holding a key of
its own (or leaking one) would. The scripted model's next request shows what it got.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_session import ask, sent, tool_messages, write_settings
from nehanda.masking import MASK
from nehanda.tools.output import MAX_OUTPUT_BYTES
from scripted_calls import calls_stream
from scripted_server import ScriptedServer

NOTES = Path(__file__).parents[2] / "fixtures" / "mcp" / "notes_server.py"
TOKEN = "svc-7f3a9c1e5b2d8046aa91"


def test_a_server_returning_a_secret_and_a_flood_gets_them_masked_and_capped(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTES_SERVICE_TOKEN", TOKEN)  # a name that says it is a secret
    monkeypatch.setenv("NOTES_FLOOD", "x" * (MAX_OUTPUT_BYTES + 20_000))
    write_settings(
        f'[mcp_servers.notes]\ncommand = "{sys.executable}"\nargs = ["{NOTES}", "stdio"]\n'
        f'env = {{ NOTES_LOG = "{tmp_path / "calls.jsonl"}", '
        'NOTES_SERVICE_TOKEN = "${NOTES_SERVICE_TOKEN}", NOTES_FLOOD = "${NOTES_FLOOD}" }\n'
    )
    calls = [
        ("mcp__notes__env_value", {"name": "NOTES_SERVICE_TOKEN"}),
        ("mcp__notes__env_value", {"name": "NOTES_FLOOD"}),
    ]
    server.stream(calls_stream(calls)).stream("e2e_mcp_answer.sse")
    ask(tmp_path, server.base_url, "what is the token?", approve_all=True)
    secret, flood = tool_messages(sent(server)[1])
    assert secret == MASK
    assert TOKEN not in str(sent(server)[1])
    assert len(flood.encode()) < MAX_OUTPUT_BYTES + 1_000 and "x" * 1000 in flood
