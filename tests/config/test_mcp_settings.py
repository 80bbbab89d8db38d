"""Which MCP servers may start: where they are defined, trust, approval, ``${VAR}``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_process import nehanda
from nehanda.cli.mcp_setup import runnable
from nehanda.config.mcp import McpServerEntry, expand
from nehanda.config.mcp_approvals import approval, approve
from nehanda.config.settings import load_settings, user_settings_path
from nehanda.config.trust import trust_folder
from nehanda.errors import ConfigError

PROJECT_SERVER = '[mcp_servers.tools]\ncommand = "python"\nargs = ["tools.py"]\n'


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def started(workspace: Path) -> tuple[list[str], list[str]]:
    ready, notes = runnable(load_settings(workspace), workspace)
    return [name for name, _ in ready], notes


def test_user_servers_start_and_project_ones_wait_for_trust(tmp_path: Path) -> None:
    write(user_settings_path(), '[mcp_servers.mine]\nurl = "http://127.0.0.1:1/mcp"\n')
    write(tmp_path / ".nehanda" / "settings.toml", PROJECT_SERVER)
    write(tmp_path / ".mcp.json", "{ a broken file nehanda must not even read here")
    names, notes = started(tmp_path)
    assert names == ["mine"]
    assert any(".mcp.json defines MCP servers; a project may start" in note for note in notes)
    assert load_settings(tmp_path).untrusted_ignored == ("mcp_servers",)


def test_a_trusted_project_server_needs_its_own_approval_and_again_after_a_change(
    tmp_path: Path,
) -> None:
    settings_file = tmp_path / ".nehanda" / "settings.toml"
    write(settings_file, PROJECT_SERVER)
    trust_folder(tmp_path)
    names, notes = started(tmp_path)
    assert names == [] and "'tools' from" in notes[0] and "is new" in notes[0]
    approve(tmp_path, load_settings(tmp_path).mcp_servers[0])
    assert started(tmp_path) == (["tools"], [])
    write(settings_file, PROJECT_SERVER.replace("tools.py", "tools.py; curl evil"))
    assert started(tmp_path)[0] == []  # a changed settings file makes the folder untrusted
    trust_folder(tmp_path)  # and trusting it again does not approve the changed server
    names, notes = started(tmp_path)
    assert names == [] and "changed since you approved it" in notes[0]
    write(settings_file, PROJECT_SERVER + 'env = { TOKEN = "x" }\n')
    trust_folder(tmp_path)
    assert approval(tmp_path, load_settings(tmp_path).mcp_servers[0]) == "changed"


def test_mcp_json_in_claude_code_format(tmp_path: Path) -> None:
    servers = {
        "local": {"command": "node", "args": ["s.js"], "env": {"A": "1"}},
        "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"H": "v"}},
    }
    write(tmp_path / ".mcp.json", json.dumps({"mcpServers": servers}))
    trust_folder(tmp_path)
    defined = {s.name: s for s in load_settings(tmp_path).mcp_servers}
    assert defined["local"].entry.args == ["s.js"] and defined["local"].origin == "project"
    assert defined["remote"].entry.url == "https://x.example/mcp"
    servers["old"] = {"type": "sse", "url": "https://x.example/sse"}
    write(tmp_path / ".mcp.json", json.dumps({"mcpServers": servers}))
    assert load_settings(tmp_path).mcp_servers == ()  # a changed .mcp.json: untrusted again
    trust_folder(tmp_path)
    settings = load_settings(tmp_path)
    assert [s.name for s in settings.mcp_servers] == ["local", "remote"]
    assert (
        "'old'" in settings.mcp_notes[0] and "type 'sse' is not supported" in settings.mcp_notes[0]
    )
    write(tmp_path / ".mcp.json", '{"mcpServers": {"x": {"command": "a", "bogus": 1}}}')
    trust_folder(tmp_path)
    with pytest.raises(ConfigError, match=r"mcpServers\.x\.bogus"):
        load_settings(tmp_path)


def test_a_project_cannot_take_over_a_user_server(tmp_path: Path) -> None:
    write(user_settings_path(), '[mcp_servers.tools]\ncommand = "safe"\n')
    write(tmp_path / ".nehanda" / "settings.toml", PROJECT_SERVER)
    trust_folder(tmp_path)
    settings = load_settings(tmp_path)
    assert [(s.name, s.entry.command) for s in settings.mcp_servers] == [("tools", "safe")]
    assert "already defines a server of that name" in settings.mcp_notes[0]


def test_two_user_servers_whose_tools_would_share_a_prefix_keep_the_first(
    tmp_path: Path,
) -> None:
    write(
        user_settings_path(),
        '[mcp_servers.gh]\ncommand = "a"\n\n[mcp_servers."GH"]\ncommand = "b"\n'
        '[mcp_servers."g h"]\ncommand = "c"\n',
    )
    settings = load_settings(tmp_path)
    assert [s.name for s in settings.mcp_servers] == ["gh", "g h"]
    (note,) = settings.mcp_notes
    assert note == (
        f"MCP server 'GH' in {user_settings_path()}:4 was skipped: its tools would be named "
        f"mcp__GH__*, which reads as mcp__gh__*, the prefix of the tools of 'gh' from "
        f"{user_settings_path()}:1; rename one of them"
    )


def test_a_project_server_never_takes_a_user_servers_prefix_whatever_the_order(
    tmp_path: Path,
) -> None:
    from nehanda.config.mcp import DefinedServer, merge_servers

    entry = McpServerEntry(command="x")
    project = DefinedServer("ｇｈ", entry, "project", ".mcp.json")  # full-width letters
    user = DefinedServer("gh", entry, "user", "settings.toml")
    kept, (note,) = merge_servers([project, user])
    assert kept == (user,)
    assert note.startswith("MCP server 'ｇｈ' in .mcp.json was skipped: its tools would be")


def test_a_server_needs_a_command_or_a_url(tmp_path: Path) -> None:
    write(user_settings_path(), '[mcp_servers.x]\ncommand = "a"\nurl = "http://b"\n')
    with pytest.raises(ConfigError, match=r"mcp_servers\.x"):
        load_settings(tmp_path)


def test_variables_are_expanded_and_an_unset_one_skips_the_server(tmp_path: Path) -> None:
    entry = McpServerEntry(
        command="srv", env={"T": "${TOKEN}", "D": "${MISSING:-fallback}"}, args=["${TOKEN}x"]
    )
    expanded = expand(entry, {"TOKEN": "abc"})
    assert (expanded.env, expanded.args) == ({"T": "abc", "D": "fallback"}, ["abcx"])
    with pytest.raises(ValueError, match=r"\$\{TOKEN\}, which is not set"):
        expand(entry, {})
    write(user_settings_path(), '[mcp_servers.s]\ncommand = "srv"\nargs = ["${UNSET_VAR_X}"]\n')
    names, notes = started(tmp_path)
    assert names == [] and "names ${UNSET_VAR_X}, which is not set" in notes[0]


def test_approve_command_shows_what_runs(tmp_path: Path) -> None:
    write(
        tmp_path / ".nehanda" / "settings.toml",
        PROJECT_SERVER + 'env = { KEY = "${OPENAI_API_KEY:-}", HOME2 = "${HOME}" }\n',
    )
    trust_folder(tmp_path)
    refused = nehanda("mcp", "approve", "tools", cwd=tmp_path)
    assert refused.returncode == 1 and "add --yes" in refused.stderr
    done = nehanda("mcp", "approve", "tools", "--yes", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "command: python tools.py" in done.stdout
    assert "env: KEY=${OPENAI_API_KEY:-}" in done.stdout
    assert "given these variables of your environment: $OPENAI_API_KEY, $HOME" in done.stdout
    assert "sandbox: no: with your rights" in done.stdout
    assert started(tmp_path) == (["tools"], [])
