"""The reasoning tags most open models share: ``<think>`` (Qwen3, DeepSeek-R1, GLM,
ERNIE, MiniMax), ``<thinking>`` and ``<reasoning>`` (models prompted to show their
work). Text inside them is reasoning, and a call drafted there does not run when an
answer follows.
"""

from __future__ import annotations

from nehanda.toolcalls.family import Family

FAMILY = Family(
    key="think",
    source="Qwen/Qwen3 chat template; deepseek-ai/DeepSeek-R1 tokenizer_config.json",
    reasoning=(
        ("<think>", "</think>"),
        ("<thinking>", "</thinking>"),
        ("<reasoning>", "</reasoning>"),
    ),
)
