"""ToolSearch: MCP tools described by name only until the model asks for their schemas.

Pure. When the MCP tools' schemas would cost more than a budget (a share of the context
window, or a count of tools), the model is told only their names, in ToolSearch's own
description; ToolSearch returns the full schemas of the tools a query matches, and those
tools are offered from then on. ``tool_budget`` is the one place that knows the window
and how tokens are counted; it is meant to read the context accounting's estimates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

import pydantic

from nehanda.config.mcp import McpTable
from nehanda.types import ToolFacts, ToolSpec

NAME = "ToolSearch"
# It reads nehanda's own list of tools, nothing else.
FACTS = ToolFacts(kind="search", read_only=True, summary_keys=("query",))
DEFAULT_WINDOW = 8192
_CHARS_PER_TOKEN = 4
_WORD = re.compile(r"[a-z0-9]+")


class SearchArgs(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    query: str = pydantic.Field(
        description='Keywords to search tool names and descriptions, or "select:NAME,NAME" '
        "to load tools by name."
    )
    max_results: int = pydantic.Field(default=5, ge=1, le=50)


def estimate_tokens(text: str) -> int:
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


def spec_tokens(specs: Iterable[ToolSpec]) -> int:
    """What describing ``specs`` in full costs, roughly."""
    return sum(estimate_tokens(_spec_json(spec)) for spec in specs)


def tool_budget(window: int | None, table: McpTable) -> int:
    """The tokens MCP tool descriptions may take: a share of the context window (8192
    tokens when nothing says what the window is)."""
    return (window or DEFAULT_WINDOW) * table.tool_budget_percent // 100


def should_defer(specs: Sequence[ToolSpec], table: McpTable, budget: int) -> bool:
    if table.tool_search != "auto":
        return table.tool_search == "always" and bool(specs)
    if table.max_tools is not None and len(specs) > table.max_tools:
        return True
    return spec_tokens(specs) > budget


def search_spec(names: Sequence[str], budget: int) -> ToolSpec:
    """ToolSearch as the model sees it, listing as many tool names as the budget holds."""
    intro = (
        "Loads MCP tools: only their names are known until you search for them. Returns "
        "the full schema of each match; the tools found can be called from then on. "
        "Available: "
    )
    used, shown = estimate_tokens(intro) + 100, []
    for name in names:
        used += estimate_tokens(name + ", ")
        if used > budget:
            break
        shown.append(name)
    rest = len(names) - len(shown)
    listed = ", ".join(shown) + (f", and {rest} more (search to find them)" if rest else "")
    schema = SearchArgs.model_json_schema()
    schema["properties"] = {
        key: {k: v for k, v in value.items() if k != "title"}
        for key, value in schema["properties"].items()
    }
    schema.pop("title", None)
    # Its names are the whole point: a small window gets them too.
    return ToolSpec(
        NAME,
        intro + listed,
        schema,
        brief=f"Loads MCP tools by name. Available: {listed}",
        facts=FACTS,
    )


def find(query: str, specs: Sequence[ToolSpec], limit: int) -> list[ToolSpec]:
    """The tools ``query`` names (``select:A,B``) or best matches by its words."""
    text = query.strip()
    if text.lower().startswith("select:"):
        wanted = [name.strip() for name in text[len("select:") :].split(",") if name.strip()]
        by_name = {spec.name: spec for spec in specs}
        return [by_name[name] for name in wanted if name in by_name][:limit]
    words = set(_WORD.findall(text.lower()))
    scored = []
    for index, spec in enumerate(specs):
        name_words = set(_WORD.findall(spec.name.lower()))
        description_words = set(_WORD.findall(spec.description.lower()))
        score = 3 * len(words & name_words) + len(words & description_words)
        if text.lower() in spec.name.lower():
            score += 5
        if score:
            scored.append((-score, index, spec))
    return [spec for _, _, spec in sorted(scored)[:limit]]


def render_found(query: str, found: Sequence[ToolSpec]) -> str:
    if not found:
        return (
            f"No MCP tool matches {query!r}. Try other words, or select:NAME with a name "
            f"from the {NAME} description."
        )
    lines = [f"Loaded {len(found)} tool(s); call them like any other tool:"]
    lines += [_spec_json(spec) for spec in found]
    return "\n".join(lines)


def _spec_json(spec: ToolSpec) -> str:
    body = {"name": spec.name, "description": spec.description, "parameters": spec.input_schema}
    return json.dumps(body, ensure_ascii=False)
