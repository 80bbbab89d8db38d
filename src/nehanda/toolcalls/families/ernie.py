"""Baidu ERNIE 4.5: Hermes ``<tool_call>`` JSON after ``</think>``, ``<response>`` markup.

The thinking model writes its reasoning, ``</think>`` (the template opened the
section), then either ``<response>...</response>`` or one or more Hermes blocks
``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>`` (vLLM
``vllm/tool_parsers/ernie45_tool_parser.py`` and
``tests/tool_parsers/test_ernie45_moe_tool_parser.py``). The calls are read by the
Hermes dialect and ``<think>`` by the classic reasoning pairs; this family adds the
response tags, which are template markup.
"""

from __future__ import annotations

from nehanda.toolcalls.family import Family

FAMILY = Family(
    key="ernie",
    source="vllm-project/vllm vllm/tool_parsers/ernie45_tool_parser.py",
    markup=("<response>", "</response>"),
)
