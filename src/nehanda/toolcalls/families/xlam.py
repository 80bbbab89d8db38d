"""Salesforce xLAM: a bare JSON array of ``{"name": ..., "arguments": {...}}``.

vLLM's parser (``vllm/tool_parsers/xlam_tool_parser.py``, tests in
``tests/tool_parsers/test_xlam_tool_parser.py``) takes the array as the whole
message, after ``</think>``, inside a ```` ```json ```` fence, after
``[TOOL_CALLS]`` or inside ``<tool_call>...</tool_call>``; ``arguments`` may be a
JSON-encoded string. Every one of those is read by an existing form (the bare value
at message start, the line form after prose, the JSON fence, Mistral, Hermes), so
this family adds no syntax: it names the lineage and its source for the registry.
"""

from __future__ import annotations

from nehanda.toolcalls.family import Family

FAMILY = Family(
    key="xlam",
    source="vllm-project/vllm vllm/tool_parsers/xlam_tool_parser.py",
)
