"""IBM Granite: ``<|tool_call|>`` and a JSON array of calls (3.x), Hermes tags (4.x).

Granite 3.0 writes the special token ``<|tool_call|>`` followed by a JSON array of
``{"name", "arguments"}`` objects and no closer: the array ends the block (vLLM
``vllm/tool_parsers/granite_tool_parser.py``, llama.cpp ``common/chat.cpp``
``common_chat_parse_granite``). Granite 3.1 writes the same array after the plain
string ``<tool_call>``, which the Hermes dialect already reads (no closer: the call
is marked unclosed). Granite 4 writes Hermes ``<tool_call>{...}</tool_call>``, with
``arguments`` sometimes a JSON-encoded string (vLLM
``vllm/tool_parsers/granite4_tool_parser.py`` and its tests). Granite 3.2/3.3
thinking models wrap the answer in ``<response>...</response>`` (llama.cpp
``common_chat_parse_granite``): template markup.

Phi-4-mini's tokenizer has the same ``<|tool_call|>`` token with a ``<|/tool_call|>``
closer; both families share this one dialect (see ``phi.py``).
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

# No closer is required: Granite 3.x ends the block with the array itself.
GRANITE = Dialect("granite", "<|tool_call|>", ("<|/tool_call|>",), closer_required=False)

FAMILY = Family(
    key="granite",
    source="vllm-project/vllm vllm/tool_parsers/granite_tool_parser.py, "
    "vllm/tool_parsers/granite4_tool_parser.py; ggml-org/llama.cpp common/chat.cpp "
    "(common_chat_parse_granite)",
    dialects=(GRANITE,),
    markup=("<response>", "</response>"),
)
