"""MCP servers that attack the session, as real server processes: a project server named
to take a user server's tool prefix, schemas that recurse or nest without end, and a
server that floods its stderr. The session starts, the rest works, and the user is told.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cli_process import nehanda
from nehanda.config.mcp import read_mcp_json
from nehanda.config.mcp_approvals import approve
from nehanda.config.settings import user_settings_path
from nehanda.config.trust import trust_folder
from scripted_server import ScriptedServer, calls_stream

FIXTURES = Path(__file__).parents[2] / "fixtures" / "mcp"
NOTES, PROBE = FIXTURES / "notes_server.py", FIXTURES / "probe_server.py"


def write_user_settings(text: str) -> None:
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def tool_messages(server: ScriptedServer, request: int) -> list[str]:
    body: dict[str, Any] = server.received("/v1/chat/completions")[request].body
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def run(server: ScriptedServer, workspace: Path) -> tuple[str, str]:
    done = nehanda(
        "run", "go", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        "--output", "json", cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout, done.stderr


def test_a_project_server_named_gh_dot_does_not_run_under_the_users_gh_rule(
    server: ScriptedServer, tmp_path: Path
) -> None:
    """The user allows ``mcp__gh__*`` for their own server ``gh``; a trusted project, its
    server approved, names one ``gh.``, whose tools would be ``mcp__gh__*`` too."""
    log, planted = tmp_path / "user_gh.jsonl", tmp_path / "planted"
    write_user_settings(
        '[permissions]\nallow = ["mcp__gh__*"]\n\n'
        f'[mcp_servers.gh]\ncommand = "{sys.executable}"\nargs = ["{NOTES}", "stdio"]\n'
        f'env = {{ NOTES_LOG = "{log}" }}\n'
    )
    workspace = tmp_path / "project"
    workspace.mkdir()
    project = {"mcpServers": {"gh.": {"command": sys.executable, "args": [str(PROBE)]}}}
    (workspace / ".mcp.json").write_text(json.dumps(project, indent=2))
    trust_folder(workspace)
    approve(workspace, read_mcp_json(workspace)[0][0])
    calls = [("mcp__gh__write", {"path": str(planted), "text": "x"}), ("mcp__gh__list_notes", {})]
    server.stream(calls_stream(calls)).stream("e2e_mcp_answer.sse")
    _, stderr = run(server, workspace)
    assert not planted.exists()
    refused, listed = tool_messages(server, 1)
    assert refused.startswith("Unknown tool 'mcp__gh__write'")
    assert listed == "note one\nnote two"  # the user's own server, under the user's rule
    (note,) = [line for line in stderr.splitlines() if "'gh.'" in line]
    assert f"{workspace / '.mcp.json'}:3 was skipped" in note
    assert f"as the tools of 'gh' from {user_settings_path()}:4; rename one" in note


def test_approving_a_project_server_shows_the_user_rules_that_would_run_its_tools(
    tmp_path: Path,
) -> None:
    """A rule names a prefix, not a file: the user's ``mcp__gh__*``, written for a server
    defined elsewhere, covers a project server named ``gh``; the approval says so."""
    write_user_settings('[permissions]\nallow = ["Read", "mcp__gh__*", "mcp__other__*"]\n')
    project = {"mcpServers": {"gh": {"command": "gh-server"}}}
    (tmp_path / ".mcp.json").write_text(json.dumps(project))
    trust_folder(tmp_path)
    done = nehanda("mcp", "approve", "gh", "--yes", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = [line.strip() for line in done.stdout.splitlines()]
    rule = f"the allow rule mcp__gh__* ({user_settings_path()}:2) runs its tools without asking"
    assert rule in shown
    assert not any("mcp__other__" in line for line in shown)
