"""The registry: tool schemas, and the one pipeline that turns every call into a result."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from nehanda.errors import ToolError
from nehanda.tools import registry
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.output import MAX_OUTPUT_BYTES
from nehanda.tools.registry import BUILTIN_TOOLS, builtin_specs, execute_builtin_tool
from nehanda.types import ToolResult, ToolUse


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "three.txt").write_text("one\ntwo\nthree\n")
    return Path(os.path.realpath(tmp_path))


def call(ws: Path, name: str, args: Any, **extra: Any) -> ToolResult:
    tool_use = ToolUse("call_42", name, args, **extra)
    result = asyncio.run(execute_builtin_tool(tool_use, ToolContext(ws)))
    assert result.tool_use_id == "call_42"
    return result


def keys_anywhere(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for value in node.values() for k in keys_anywhere(value)}
    if isinstance(node, list):
        return {k for item in node for k in keys_anywhere(item)}
    return set()


@pytest.mark.parametrize(
    ("name", "required", "properties"),
    [
        ("Read", ["file_path"], ["file_path", "offset", "limit"]),
        ("Write", ["file_path", "content"], ["file_path", "content"]),
        (
            "Edit",
            ["file_path", "old_string", "new_string"],
            ["file_path", "old_string", "new_string", "replace_all"],
        ),
        ("Bash", ["command"], ["command", "timeout", "run_in_background"]),
        ("LS", None, ["path"]),
        ("Glob", ["pattern"], ["pattern", "path"]),
        ("Grep", ["pattern"], ["pattern", "path", "glob", "ignore_case", "output_mode"]),
        # Claude Code's own argument names, which models trained on its tools write.
        ("BashOutput", ["bash_id"], ["bash_id", "filter"]),
        ("KillShell", ["shell_id"], ["shell_id"]),
        ("WebFetch", ["url", "prompt"], ["url", "prompt"]),
    ],
)
def test_schemas_are_compact_and_complete(
    name: str, required: list[str] | None, properties: list[str]
) -> None:
    schema = BUILTIN_TOOLS[name].spec().input_schema
    assert schema.get("required") == required
    assert list(schema["properties"]) == properties
    assert schema["additionalProperties"] is False
    assert "title" not in keys_anywhere(schema)
    assert "anyOf" not in keys_anywhere(schema)
    assert all("description" in prop for prop in schema["properties"].values())


def test_builtin_specs_list_every_tool_with_its_description() -> None:
    specs = builtin_specs()
    assert [spec.name for spec in specs] == [
        *("Read", "Write", "Edit", "Bash", "LS", "Glob", "Grep"),
        *("BashOutput", "KillShell", "WebFetch", "TodoWrite"),
    ]
    assert all(len(spec.description) > 100 for spec in specs)
    read_only = {name for name, tool in BUILTIN_TOOLS.items() if tool.read_only}
    # KillShell stops only what the session's own commands started.
    assert read_only == {
        "Read", "LS", "Glob", "Grep", "Skill", "BashOutput", "KillShell", "WebFetch", "TodoWrite"
    }  # fmt: skip


def test_optional_defaults_are_kept_and_null_defaults_dropped() -> None:
    grep = BUILTIN_TOOLS["Grep"].spec().input_schema["properties"]
    assert grep["output_mode"]["default"] == "content"
    assert grep["output_mode"]["enum"] == ["content", "files_with_matches", "count"]
    assert grep["glob"] == {"type": "string", "description": grep["glob"]["description"]}


def test_unknown_tool_names_the_valid_ones(ws: Path) -> None:
    result = call(ws, "Shell", {"command": "ls"})
    assert result.is_error
    assert result.content == (
        "Unknown tool 'Shell'. The tools are: Read, Write, Edit, Bash, LS, Glob, Grep, "
        "BashOutput, KillShell, WebFetch, TodoWrite."
    )


def test_an_input_error_is_answered_without_running(ws: Path) -> None:
    result = call(ws, "Read", {"file_path": "three.txt"}, input_error="arguments are not JSON")
    assert (result.is_error, result.content) == (True, "arguments are not JSON")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"file_path": "three.txt", "bogus": 1},
            "Invalid arguments for Read: unknown parameter 'bogus'. "
            "Valid parameters: file_path (required), offset, limit.",
        ),
        ({}, "Invalid arguments for Read: missing required parameter 'file_path'."),
        (
            {"file_path": "three.txt", "offset": "two"},
            "parameter 'offset': Input should be a valid integer, unable to parse string "
            "as an integer (got 'two')",
        ),
        ({"file_path": "three.txt", "limit": 0}, "parameter 'limit': Input should be greater"),
        ({"file_path": True}, "parameter 'file_path': Input should be a valid string (got True)"),
        (["three.txt"], "the arguments must be a JSON object"),
    ],
)
def test_bad_arguments_are_explained(ws: Path, args: Any, message: str) -> None:
    result = call(ws, "Read", args)
    assert result.is_error
    assert message in result.content


def test_a_long_rejected_value_is_quoted_short(ws: Path) -> None:
    result = call(ws, "Grep", {"pattern": "x", "output_mode": "y" * 500})
    assert "Input should be 'content', 'files_with_matches' or 'count'" in result.content
    assert len(result.content) < 300


def test_numbers_in_strings_are_coerced(ws: Path) -> None:
    result = call(ws, "Read", {"file_path": "three.txt", "offset": "2", "limit": "1"})
    assert not result.is_error
    assert result.content.startswith("     2\ttwo\n")


async def _raises_tool_error(args: BaseModel, context: ToolContext) -> str:
    raise ToolError("Boom", "the tool says no")


async def _raises_bug(args: BaseModel, context: ToolContext) -> str:
    raise RuntimeError("boom")


async def _returns_a_flood(args: BaseModel, context: ToolContext) -> str:
    return "z\n" * MAX_OUTPUT_BYTES


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


@pytest.mark.parametrize(
    ("handler", "is_error", "expected"),
    [
        (_raises_tool_error, True, "the tool says no"),
        (_raises_bug, True, "Boom failed: RuntimeError: boom"),
        (_returns_a_flood, False, f"[... {MAX_OUTPUT_BYTES} bytes ({MAX_OUTPUT_BYTES // 2} lines)"),
    ],
)
def test_handler_outcomes_become_results(
    ws: Path, monkeypatch: pytest.MonkeyPatch, handler: Any, is_error: bool, expected: str
) -> None:
    tool = Tool("Boom", "A test tool.", NoArgs, read_only=True, handler=handler)
    monkeypatch.setattr(registry, "BUILTIN_TOOLS", {"Boom": tool})
    result = call(ws, "Boom", {})
    assert result.is_error is is_error
    assert expected in result.content
