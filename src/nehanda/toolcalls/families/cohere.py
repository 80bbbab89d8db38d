"""Cohere Command: ``<|START_ACTION|>[...]<|END_ACTION|>`` (R7B, A) and ``Action:`` fences (R).

Command R7B and Command A write a plan between ``<|START_THINKING|>`` and
``<|END_THINKING|>`` (reasoning), then either an answer between
``<|START_RESPONSE|>`` and ``<|END_RESPONSE|>`` (template markup) or a JSON array
of actions ``{"tool_call_id": "0", "tool_name": ..., "parameters": {...}}`` between
``<|START_ACTION|>`` and ``<|END_ACTION|>`` (llama.cpp ``common/chat.cpp``
``common_chat_parse_command_r7b``; vLLM ``vllm/tool_parsers/cohere_command_tool_parser.py``
and ``tests/tool_parsers/test_cohere_command_tool_parser.py``, which also lists
``<|START_TEXT|>``/``<|END_TEXT|>`` among the markers that never reach content).
``shapes.calls_in`` reads ``tool_name``/``parameters`` and skips ``tool_call_id``.

Command R and R+ write ``Action: ```json\\n[{"tool_name": ..., "parameters": {...}}]```
(vLLM ``examples/command_r_tool_chat_template.jinja``): the JSON fence dialect reads
it; "Action:" stays visible. ``directly-answer`` is that template's pseudo tool for
"no tool needed": not a known tool, so the fence stays prose.
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

COHERE_ACTION = Dialect("cohere_action", "<|START_ACTION|>", ("<|END_ACTION|>",))

FAMILY = Family(
    key="cohere",
    source="ggml-org/llama.cpp common/chat.cpp (common_chat_parse_command_r7b); "
    "vllm-project/vllm vllm/tool_parsers/cohere_command_tool_parser.py",
    dialects=(COHERE_ACTION,),
    reasoning=(("<|START_THINKING|>", "<|END_THINKING|>"),),
    markup=("<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>"),
)
