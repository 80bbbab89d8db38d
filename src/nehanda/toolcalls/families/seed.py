"""ByteDance Seed-OSS: Qwen3-Coder-style functions inside ``<seed:tool_call>``.

::

    <seed:tool_call>
    <function=NAME>
    <parameter=k>v</parameter>
    </function>
    </seed:tool_call>

(the chat template, llama.cpp ``models/templates/ByteDance-Seed-OSS.jinja``; vLLM
``vllm/tool_parsers/seed_oss_tool_parser.py`` and
``tests/tool_parsers/test_seed_oss_tool_parser.py``; llama.cpp ``common/chat.cpp``
``common_chat_parse_seed_oss``). The template writes each value as text right after
its tag and ``</parameter>`` right after it (non-strings through Jinja's ``string``).
Values are raw text typed by the tool's schema; a value runs to its
``</parameter>`` (``functions.read_elements``). One block may hold several
functions; a function closed by ``</function>`` counts even when the block's closer
(a special token) is missing.

Reasoning is ``<seed:think>...</seed:think>``; inside it the model reports its
thinking budget between ``<seed:cot_budget_reflect>`` tags (template markup, the
text between them stays reasoning). The thinking often quotes a complete call as
a draft before the real one (vLLM's tests): drafts do not run when an answer follows.
"""

from __future__ import annotations

import re

from nehanda.toolcalls.families.functions import read_elements
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.shapes import Found

OPENER = "<seed:tool_call>"
CLOSER = "</seed:tool_call>"
THINK = ("<seed:think>", "</seed:think>")
BUDGET = ("<seed:cot_budget_reflect>", "</seed:cot_budget_reflect>")

HEAD = re.compile(r"\s{0,64}+<function=")
REFUSE = re.compile(r"\s{0,64}+[^\s<]")


def decode_seed(body: Body) -> list[Found] | None:
    """Every function element of one block, in order."""
    return read_elements(body)


SEED = Section(
    "seed_oss",
    OPENER,
    (CLOSER,),
    decode_seed,
    head=HEAD,
    refuse=REFUSE,
    protect=(("<parameter=", "</parameter>"),),
)

FAMILY = Family(
    key="seed",
    source="vllm-project/vllm vllm/tool_parsers/seed_oss_tool_parser.py; ggml-org/llama.cpp "
    "models/templates/ByteDance-Seed-OSS.jinja, common/chat.cpp (common_chat_parse_seed_oss)",
    sections=(SEED,),
    reasoning=(THINK,),
    markup=(*BUDGET, "<seed:eos>"),
)
