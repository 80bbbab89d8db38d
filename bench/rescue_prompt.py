"""Tokens rescue mode spends teaching the built-in tools, against Qwen3's own template.

Run by hand: ``pip install bpe-openai`` (ships cl100k_base, no download), then
``python bench/rescue_prompt.py``. Qwen3's chat template renders each tool as
``{"type": "function", "function": {...}}`` JSON inside ``<tools>`` with fixed
instructions around it; nehanda's injected section plus the late directive must cost
fewer tokens for the same tools. The compact tier, sent to windows of 8k tokens or less,
is shown beside it.
"""

from __future__ import annotations

import json

from bpe_openai import get_encoding

from nehanda.toolcalls.prompt import DIRECTIVE, render_tool_prompt
from nehanda.tools.registry import builtin_specs

QWEN3_HEAD = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
QWEN3_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)


def qwen3_tools_section() -> str:
    tools = [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            },
        }
        for spec in builtin_specs()
    ]
    return QWEN3_HEAD + "".join("\n" + json.dumps(tool) for tool in tools) + QWEN3_TAIL


def main() -> None:
    encoding = get_encoding("cl100k_base")
    rows = {
        "nehanda tool section": render_tool_prompt(builtin_specs()),
        "compact tier (<= 8k window)": render_tool_prompt(builtin_specs(), compact=True),
        "nehanda late directive": DIRECTIVE,
        "Qwen3 template tool section": qwen3_tools_section(),
    }
    counts = {name: len(encoding.encode(text)) for name, text in rows.items()}
    print(f"built-in tools: {', '.join(spec.name for spec in builtin_specs())}")
    print(f"{'text':32} {'tokens':>7} {'chars':>7}")
    for name, text in rows.items():
        print(f"{name:32} {counts[name]:7} {len(text):7}")
    ours = counts["nehanda tool section"] + counts["nehanda late directive"]
    theirs = counts["Qwen3 template tool section"]
    print(f"{'nehanda total':32} {ours:7}")
    print(f"nehanda / Qwen3: {ours / theirs:.2f}")
    compact = counts["compact tier (<= 8k window)"] + counts["nehanda late directive"]
    print(f"{'compact tier total':32} {compact:7}")
    print(f"compact / Qwen3: {compact / theirs:.2f}")


if __name__ == "__main__":
    main()
