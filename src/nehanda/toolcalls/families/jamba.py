"""AI21 Jamba: ``<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>``.

One JSON array of calls between the two special tokens; text before the block is
content (vLLM ``vllm/tool_parsers/jamba_tool_parser.py`` and
``tests/tool_parsers/test_jamba_tool_parser.py``).
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

JAMBA = Dialect("jamba", "<tool_calls>", ("</tool_calls>",))

FAMILY = Family(
    key="jamba",
    source="vllm-project/vllm vllm/tool_parsers/jamba_tool_parser.py",
    dialects=(JAMBA,),
)
