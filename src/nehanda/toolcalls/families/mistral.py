"""Mistral: ``[TOOL_CALLS]`` followed by a JSON array, or by ``Name[ARGS]{...}`` (v11+).

Mistral's own token has no closer (vLLM ``vllm/tool_parsers/mistral_tool_parser.py``;
``[CALL_ID]`` between the name and ``[ARGS]`` on some templates). Magistral reasons
inside ``[THINK]...[/THINK]``.
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

# Mistral's own token: no closer in Mistral's format, but a model confusing it with
# the canonical one writes the canonical closer, which is then consumed.
MISTRAL = Dialect(
    "mistral",
    "[TOOL_CALLS]",
    ("[/TOOL_CALLS]", "[/TOOL_CALL]"),
    closer_required=False,
    name_prefix=True,
)

FAMILY = Family(
    key="mistral",
    source="vllm-project/vllm vllm/tool_parsers/mistral_tool_parser.py",
    dialects=(MISTRAL,),
    reasoning=(("[THINK]", "[/THINK]"),),
)
