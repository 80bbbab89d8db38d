"""Plan mode offers only read-only tools, and a mode set mid-session holds from the next
call: ``ToolGate.set_mode`` and ``ToolGate.specs``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nehanda.config.permission_modes import CYCLE, MODES, next_in_cycle
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.tools.base import ToolContext
from nehanda.tools.mcp.connection import RemoteTool
from nehanda.tools.mcp.servers import McpServers, McpTool, mcp_tool
from nehanda.tools.mcp.toolset import WithMcp
from nehanda.tools.registry import BuiltinTools
from nehanda.types import CheckedCall, ToolSpec, ToolUse

READ_ONLY = ["Read", "LS", "Glob", "Grep", "BashOutput", "WebFetch", "TodoWrite"]
ALL = [
    *("Read", "Write", "Edit", "Bash", "LS", "Glob", "Grep"),
    *("BashOutput", "KillShell", "WebFetch", "TodoWrite"),
]


def gate(workspace: Path, mode: str = "default", mcp: bool = False) -> ToolGate:
    tools = BuiltinTools(ToolContext(workspace))
    inner = WithMcp(tools, notes_server(), deferred=True) if mcp else tools
    return ToolGate(inner, workspace, PermissionRules.parse(mode), NoTerminal())  # type: ignore[arg-type]


def notes_server() -> McpServers:
    def tool(name: str, read_only: bool) -> McpTool:
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        remote = RemoteTool(name, f"{name} a note", schema, read_only)
        return mcp_tool(f"mcp__notes__{name}", "notes", remote)

    return McpServers(tools=(tool("list_notes", True), tool("add_note", False)))


def names(specs: tuple[ToolSpec, ...]) -> list[str]:
    return [spec.name for spec in specs]


def test_plan_mode_offers_only_the_read_only_built_ins(tmp_path: Path) -> None:
    assert names(gate(tmp_path, "plan").specs) == READ_ONLY
    for mode in ("default", "accept-edits", "yolo"):
        assert names(gate(tmp_path, mode).specs) == ALL


def test_a_mode_set_mid_session_changes_the_next_list_and_keeps_its_identity(
    tmp_path: Path,
) -> None:
    g = gate(tmp_path)
    full = g.specs
    g.set_mode("plan")
    planned = g.specs
    assert names(planned) == READ_ONLY and g.rules.mode == "plan"
    # The rescue prompt and token counts are cached by the tuple's identity.
    assert g.specs is planned
    g.set_mode("default")
    assert g.specs is full


def test_plan_mode_refuses_a_write_the_model_calls_anyway(tmp_path: Path) -> None:
    g = gate(tmp_path, "plan")
    use = ToolUse("c1", "Write", {"file_path": "x.txt", "content": "hi"})
    checked = g.check(use)
    assert isinstance(checked, CheckedCall)
    result = asyncio.run(g.run(checked))
    assert result.is_error and "plan mode: read-only tools only" in result.content
    assert not (tmp_path / "x.txt").exists()


def test_in_plan_mode_tool_search_finds_only_tools_their_server_calls_read_only(
    tmp_path: Path,
) -> None:
    g = gate(tmp_path, "default", mcp=True)
    search = ToolUse("s1", "ToolSearch", {"query": "note"})

    def found() -> str:
        checked = g.check(search)
        assert isinstance(checked, CheckedCall)
        return asyncio.run(g.run(checked)).content

    assert "mcp__notes__add_note" in found()
    g.set_mode("plan")
    assert "mcp__notes__add_note" not in found() and "mcp__notes__list_notes" in found()
    assert [n for n in names(g.specs) if n.startswith("mcp__")] == ["mcp__notes__list_notes"]
    add = g.check(ToolUse("a1", "mcp__notes__add_note", {"text": "x"}))
    assert not isinstance(add, CheckedCall) and "not offered in plan mode" in add.content
    g.set_mode("default")
    assert "mcp__notes__add_note" in names(g.specs)


@pytest.mark.parametrize(
    ("mode", "after"),
    [
        ("default", "accept-edits"),
        ("accept-edits", "plan"),
        ("plan", "default"),
        ("yolo", "default"),
    ],
)
def test_shift_tab_cycles_three_modes_and_leaves_yolo(mode: str, after: str) -> None:
    assert next_in_cycle(mode) == after  # type: ignore[arg-type]


def test_no_number_of_steps_reaches_yolo() -> None:
    for start in MODES:
        mode = start
        for _ in range(10):
            mode = next_in_cycle(mode)
            assert mode in CYCLE and mode != "yolo"
