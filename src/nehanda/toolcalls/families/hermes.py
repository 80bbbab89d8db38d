"""Hermes 2 Pro / Hermes 3 (NousResearch): ``<tool_call>`` JSON, and its look-alike wrappers.

``HERMES`` is ``<tool_call>\\n{...}\\n</tool_call>`` (vLLM
``vllm/tool_parsers/hermes_tool_parser.py``). NousResearch's own prompts show the
body as a Python dict, ``{'arguments': {...}, 'name': ...}`` (single quotes,
NousResearch/Hermes-Function-Calling ``prompt_assets/sys_prompt.yml`` and
``README.md``): the block repairs read it. Hermes 3's tool-use prompt asks the model
to "use <scratch_pad> </scratch_pad> XML tags to record your reasoning and planning
before you call the functions" (same ``README.md``): a reasoning section whose
``Actions:`` lines are drafts, never calls. ``<|im_end|>`` (ChatML) is markup.

Models that saw ``<tools>`` (the prompt's tool list), ``<function_call>`` or
``<json>`` wrap a Hermes JSON call in those tags instead. ``<tools>`` and ``<json>``
hold other data too (the echoed tool list, an answer in JSON), so only a call to a
known tool counts there (weak); ``<function_call>`` is a call marker.
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

HERMES = Dialect("hermes", "<tool_call>", ("</tool_call>",), name_prefix=True, xml=True)
TOOLS_TAG = Dialect("hermes_tools", "<tools>", ("</tools>",), weak=True)
FUNCTION_CALL_TAG = Dialect("hermes_function_call", "<function_call>", ("</function_call>",))
JSON_TAG = Dialect("hermes_json", "<json>", ("</json>",), weak=True)

FAMILY = Family(
    key="hermes",
    source="vllm-project/vllm vllm/tool_parsers/hermes_tool_parser.py; "
    "NousResearch/Hermes-Function-Calling README.md, prompt_assets/sys_prompt.yml",
    dialects=(HERMES, TOOLS_TAG, FUNCTION_CALL_TAG, JSON_TAG),
    reasoning=(("<scratch_pad>", "</scratch_pad>"),),
    markup=("<|im_end|>",),
)
