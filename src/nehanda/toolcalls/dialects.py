"""The tool-call formats the rescue parser accepts, as data.

Each JSON-bodied format is a ``Dialect``: the opener that starts a block, the
closers that may end it, and what may sit between them. Family modules list them;
``registry`` gathers every family into the tables the scanner reads.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """One delimited call format.

    ``closer_required``: a block that ends with the output before its closer is
    marked ``unclosed``. ``name_prefix``: a bare tool name may precede the JSON (then
    the JSON holds only the arguments), as in Mistral's ``Name[ARGS]{...}`` and
    DeepSeek's ``name<｜tool▁sep｜>{...}``. ``xml``: Qwen3-Coder's ``<function=...>``
    may follow the opener. ``weak``: the delimiter is ordinary markdown or no
    delimiter at all, so anything that is not a call to a known tool stays prose.
    ``repair``: whether the repairs for a delimited block apply.
    """

    key: str
    opener: str
    closers: tuple[str, ...] = ()
    closer_required: bool = True
    name_prefix: bool = False
    name_required: bool = False
    multi: bool = True
    xml: bool = False
    weak: bool = False
    repair: bool = True


TOOL_CALL = Dialect(
    "tool_call",
    "[TOOL_CALL]",
    ("[/TOOL_CALL]", "[/TOOL_CALLS]"),
    name_prefix=True,
    xml=True,
)
# Mistral's own token: no closer in Mistral's format, but a model confusing it with
# the canonical one writes the canonical closer, which is then consumed.
MISTRAL = Dialect(
    "mistral",
    "[TOOL_CALLS]",
    ("[/TOOL_CALLS]", "[/TOOL_CALL]"),
    closer_required=False,
    name_prefix=True,
)
HERMES = Dialect("hermes", "<tool_call>", ("</tool_call>",), name_prefix=True, xml=True)
LLAMA = Dialect(
    "llama",
    "<|python_tag|>",
    ("<|eom_id|>", "<|eot_id|>"),
    closer_required=False,
)
DEEPSEEK = Dialect(
    "deepseek",
    "<｜tool▁call▁begin｜>",
    ("<｜tool▁call▁end｜>",),
    name_prefix=True,
    name_required=True,
    multi=False,
)
# A Qwen3-Coder function element without its <tool_call> wrapper.
QWEN_XML = Dialect("qwen_xml", "<function=", ("</tool_call>",), closer_required=False, xml=True)
FENCE = Dialect("fence", "```", ("```",), multi=False, weak=True)
BARE = Dialect("bare", "", (), closer_required=False, multi=False, weak=True, repair=False)

# A JSON value alone on its line, after a line of prose (xLAM, Llama 3 after a remark).
LINE = Dialect("line", "", (), closer_required=False, multi=False, weak=True, repair=False)

REASONING_PAIRS = (
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("[THINK]", "[/THINK]"),
)
# DeepSeek wraps its calls in a section; the wrapper is markup, never prose.
WRAPPERS = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
FENCE_MARK = "```"

JSON_FENCE_LANGS = frozenset({"", "json", "jsonc", "json5", "tool_call", "tool_calls"})
