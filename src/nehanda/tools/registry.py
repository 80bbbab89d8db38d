"""The built-in tools by name, and ``BuiltinTools``, the ``Toolset`` holding them.

A call is checked once (``check_call``: a known tool, readable and valid arguments,
and the tool's ``ToolFacts`` on the ``CheckedCall``) and then run (``run_checked``);
``execute_builtin_tool`` does both, for callers with no gate in between. None of them
raises for a bad call: an unknown name, unreadable or invalid arguments
(``ToolCallFormatError``, with the reply for the model), a ``ToolError`` or an
unexpected failure all become an error ``ToolResult`` whose text tells the model what
went wrong, so the engine can send it back and carry on. Masking secrets and capping
the size are ``masked.Masked``'s, around the whole toolset.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache, cached_property
from types import MappingProxyType
from typing import Any

import pydantic

from nehanda.errors import ToolCallFormatError, ToolError
from nehanda.tools import (
    bash,
    bash_output,
    edit,
    glob,
    grep,
    kill_shell,
    ls,
    read,
    skill,
    todo_write,
    web_fetch,
    write,
)
from nehanda.tools.base import Shown, Tool, ToolContext
from nehanda.tools.masked import Masked
from nehanda.types import CheckedCall, ToolFacts, ToolResult, ToolSpec, ToolUse

# The order is the order models see.
_TOOLS: tuple[Tool, ...] = (
    read.TOOL,
    write.TOOL,
    edit.TOOL,
    bash.TOOL,
    ls.TOOL,
    glob.TOOL,
    grep.TOOL,
    skill.TOOL,
    bash_output.TOOL,
    kill_shell.TOOL,
    web_fetch.TOOL,
    todo_write.TOOL,
)

BUILTIN_TOOLS: Mapping[str, Tool] = MappingProxyType({tool.name: tool for tool in _TOOLS})
_FACTS: Mapping[str, ToolFacts] = MappingProxyType({tool.name: tool.facts for tool in _TOOLS})

# How much of a rejected value to quote back: enough to recognise it.
_MAX_QUOTED_INPUT = 80


@cache
def builtin_specs() -> tuple[ToolSpec, ...]:
    """The tools every session offers (not those whose spec depends on it: Skill)."""
    return tuple(tool.spec() for tool in _TOOLS if tool.offered_in is None)


def builtin_facts() -> Mapping[str, ToolFacts]:
    """Each built-in's facts by its name: the names a permission rule may give."""
    return _FACTS


def plain_output(content: str) -> str:
    """Tool output with every tool's framing taken away, whichever tool printed it: a
    command can show a file just as Read does (``cat -n``)."""
    for tool in _TOOLS:
        if tool.plain_output is not None:
            content = tool.plain_output(content)
    return content


def check_call(tool_use: ToolUse) -> CheckedCall | ToolResult:
    """The call with its validated arguments, or the error result that answers it.

    Nothing needs approval before this passes: a call that cannot run is not asked about.
    """
    try:
        return _checked(tool_use)
    except ToolCallFormatError as error:
        return _error(tool_use, error.reply)


def _checked(tool_use: ToolUse) -> CheckedCall:
    raw = json.dumps({"name": tool_use.name, "arguments": tool_use.input}, default=str)
    tool = BUILTIN_TOOLS.get(tool_use.name)
    if tool is None:
        names = ", ".join(spec.name for spec in builtin_specs())  # every session's
        raise ToolCallFormatError(raw, f"Unknown tool {tool_use.name!r}. The tools are: {names}.")
    if tool_use.input_error is not None:
        raise ToolCallFormatError(raw, tool_use.input_error)
    try:
        arguments = tool.args_model.model_validate(_numbers_as_strings(tool, tool_use.input))
    except pydantic.ValidationError as error:
        raise ToolCallFormatError(raw, describe_invalid_arguments(tool, error)) from None
    return CheckedCall(tool_use, arguments, facts=tool.facts)


def _numbers_as_strings(tool: Tool, arguments: Any) -> Any:
    """A number where the schema wants a string becomes its text: small models write
    ``{"pattern": 404}`` as readily as ``{"limit": "5"}``, which pydantic already reads."""
    if not isinstance(arguments, dict):
        return arguments
    properties = tool.spec().input_schema.get("properties", {})
    return {
        name: str(value) if _is_number(value) and _wants_string(properties.get(name)) else value
        for name, value in arguments.items()
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _wants_string(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "string"


async def execute_builtin_tool(tool_use: ToolUse, context: ToolContext) -> ToolResult:
    """Checks ``tool_use`` and runs it if it passed, its answer capped (``Masked``)."""
    tools = Masked(BuiltinTools(context))
    checked = tools.check(tool_use)
    if isinstance(checked, ToolResult):
        return checked
    return await tools.run(checked)


async def run_checked(checked: CheckedCall, context: ToolContext) -> ToolResult:
    """Runs a call ``check_call`` passed, with the paths its decision granted."""
    tool_use, tool = checked.use, BUILTIN_TOOLS[checked.use.name]
    if checked.granted:
        context = replace(context, granted=checked.granted)
    if checked.unconfined:
        context = replace(context, sandbox=None)
    try:
        content = await tool.handler(checked.arguments, context)
    except ToolError as error:
        return ToolResult(tool_use.id, str(error), True, sandbox_denial=error.sandbox_denial)
    except Exception as error:  # a bug in a tool must not end the session
        return _error(tool_use, f"{tool.name} failed: {type(error).__name__}: {error}")
    if isinstance(content, Shown):
        return ToolResult(tool_use.id, content.text, images=content.images)
    return ToolResult(tool_use.id, content)


@dataclass
class BuiltinTools:
    """The built-in tools as a ``Toolset``, running in ``context``."""

    context: ToolContext
    check = staticmethod(check_call)
    plain_output = staticmethod(plain_output)

    @cached_property
    def specs(self) -> tuple[ToolSpec, ...]:
        # One tuple per session: the caches downstream key on its identity.
        offered = (tool.offered_in(self.context) for tool in _TOOLS if tool.offered_in)
        return (*builtin_specs(), *(spec for spec in offered if spec is not None))

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        if started is not None:
            started()
        return await run_checked(checked, self.context)


def describe_invalid_arguments(tool: Tool, error: pydantic.ValidationError) -> str:
    """Say, in words a model can act on, which parameter is wrong and why."""
    problems = [_problem(item) for item in error.errors(include_url=False)]
    return (
        f"Invalid arguments for {tool.name}: {'; '.join(problems)}. "
        f"Valid parameters: {_parameter_list(tool)}."
    )


def _problem(item: Any) -> str:
    name = ".".join(str(part) for part in item["loc"])
    if item["type"] == "extra_forbidden":
        return f"unknown parameter {name!r}"
    if item["type"] == "missing":
        return f"missing required parameter {name!r}"
    if not name:
        return f"the arguments must be a JSON object ({item['msg']})"
    quoted = repr(item["input"])
    if len(quoted) > _MAX_QUOTED_INPUT:
        quoted = quoted[:_MAX_QUOTED_INPUT] + "..."
    return f"parameter {name!r}: {item['msg']} (got {quoted})"


def _parameter_list(tool: Tool) -> str:
    fields = tool.args_model.model_fields
    return ", ".join(
        f"{name} (required)" if info.is_required() else name for name, info in fields.items()
    )


def _error(tool_use: ToolUse, message: str) -> ToolResult:
    return ToolResult(tool_use.id, message, is_error=True)
