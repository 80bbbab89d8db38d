"""Qwen3-Coder: ``<function=NAME><parameter=k>value</parameter></function>`` calls.

Inside ``<tool_call>`` (Hermes' opener, whose block reads the element) or without
the wrapper, as ``QWEN_XML`` here. Values are raw text, typed by the tool's schema
(``xmlcalls``; vLLM ``vllm/tool_parsers/qwen3coder_tool_parser.py``).
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

# A Qwen3-Coder function element without its <tool_call> wrapper.
QWEN_XML = Dialect(
    "qwen_xml", "<function=", ("</tool_call>",), closer_required=False, xml=True, element=True
)

FAMILY = Family(
    key="qwen3_coder",
    source="vllm-project/vllm vllm/tool_parsers/qwen3coder_tool_parser.py",
    dialects=(QWEN_XML,),
)
