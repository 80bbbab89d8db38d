"""Each checked call carries its tool's facts, and what permissions make of them.

The facts come from the toolset that checked the call (a built-in's ``Tool``, an MCP
server's annotations, ToolSearch), never from the name the model wrote: a server's
``readOnlyHint`` is a claim, which keeps nothing from asking.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nehanda.config.permission_modes import Mode
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.tools.base import ToolContext
from nehanda.tools.mcp import search
from nehanda.tools.mcp.connection import RemoteTool
from nehanda.tools.mcp.servers import McpServers, mcp_tool
from nehanda.tools.mcp.toolset import WithMcp
from nehanda.tools.registry import BuiltinTools, builtin_specs, check_call
from nehanda.types import CheckedCall, ToolUse
from nehanda.verdicts import Allow, Ask, Deny

KINDS = {
    "Read": "read",
    "Write": "edit",
    "Edit": "edit",
    "Bash": "execute",
    "LS": "search",
    "Glob": "search",
    "Grep": "search",
}
ARGUMENTS = {
    "Read": {"file_path": "a.txt"},
    "Write": {"file_path": "a.txt", "content": "x"},
    "Edit": {"file_path": "a.txt", "old_string": "x", "new_string": "y"},
    "Bash": {"command": "ls"},
    "LS": {"path": "."},
    "Glob": {"pattern": "*.py"},
    "Grep": {"pattern": "x"},
}


@pytest.mark.parametrize("name", list(KINDS))
def test_a_built_in_call_carries_the_facts_its_spec_offers(name: str) -> None:
    checked = check_call(ToolUse("c", name, ARGUMENTS[name]))
    assert isinstance(checked, CheckedCall)
    spec = next(spec for spec in builtin_specs() if spec.name == name)
    assert checked.facts is spec.facts
    assert (checked.facts.kind, checked.facts.source) == (KINDS[name], "builtin")
    assert checked.facts.read_only is (KINDS[name] in ("read", "search"))


def with_notes(tmp_path: Path) -> WithMcp:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    tools = (
        mcp_tool("mcp__notes__list", "notes", RemoteTool("list", "List.", schema, True)),
        mcp_tool("mcp__notes__wipe", "notes", RemoteTool("wipe", "Wipe.", schema, False)),
    )
    return WithMcp(BuiltinTools(ToolContext(tmp_path)), McpServers(tools=tools), deferred=True)


def test_an_mcp_call_claiming_to_read_only_still_asks_and_names_no_path(tmp_path: Path) -> None:
    tools = with_notes(tmp_path)
    listed = tools.check(ToolUse("c", "mcp__notes__list", {"path": "/etc/shadow"}))
    assert isinstance(listed, CheckedCall)
    facts = listed.facts
    assert (facts.kind, facts.source, facts.server, facts.read_only) == (
        "read",
        "mcp",
        "notes",
        True,
    )
    assert facts.path_argument is None and facts.command_argument is None
    modes: tuple[Mode, ...] = ("default", "accept-edits", "plan")
    for mode in modes:
        assert isinstance(decide(listed, PermissionRules(mode=mode), tmp_path), Ask), mode


def test_plan_mode_refuses_an_mcp_tool_its_server_does_not_call_read_only(tmp_path: Path) -> None:
    wiped = with_notes(tmp_path).check(ToolUse("c", "mcp__notes__wipe", {}))
    assert isinstance(wiped, CheckedCall) and wiped.facts.kind == "other"
    assert isinstance(decide(wiped, PermissionRules(mode="plan"), tmp_path), Deny)
    assert isinstance(decide(wiped, PermissionRules(), tmp_path), Ask)


def test_tool_search_is_a_search_of_nehanda_s_own_list(tmp_path: Path) -> None:
    found = with_notes(tmp_path).check(ToolUse("c", search.NAME, {"query": "notes"}))
    assert isinstance(found, CheckedCall) and found.facts.kind == "search"
    assert isinstance(decide(found, PermissionRules(mode="plan"), tmp_path), Allow)
