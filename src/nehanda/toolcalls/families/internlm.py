"""InternLM2 / 2.5: ``<|action_start|><|plugin|>`` JSON ``<|action_end|>``.

The body is ``\\n{"name": ..., "parameters": {...}}``.

One call per action, its arguments under ``parameters`` (or ``arguments``); the
server splits on ``<|action_start|><|plugin|>`` and ``<|action_end|>`` (vLLM
``vllm/tool_parsers/internlm2_tool_parser.py``, its tests
``tests/tool_parsers/test_internlm2_tool_parser.py`` and the template
``examples/tool_chat_template_internlm2_tool.jinja``). ``<|action_start|><|interpreter|>``
is InternLM's code interpreter, not a tool call, and stays prose.
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

# The closer is a special token a server may drop with the others: not required.
INTERNLM = Dialect(
    "internlm",
    "<|action_start|><|plugin|>",
    ("<|action_end|>",),
    closer_required=False,
)

FAMILY = Family(
    key="internlm",
    source="vllm-project/vllm vllm/tool_parsers/internlm2_tool_parser.py",
    dialects=(INTERNLM,),
)
