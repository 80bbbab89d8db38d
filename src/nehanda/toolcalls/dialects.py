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
    may follow the opener; ``element``: the opener itself starts such an element.
    ``weak``: the delimiter is ordinary markdown or no
    delimiter at all, so anything that is not a call to a known tool stays prose.
    ``repair``: whether the repairs for a delimited block apply. ``alone``: the value
    must end its line (only blanks and markup may follow it there).
    """

    key: str
    opener: str
    closers: tuple[str, ...] = ()
    closer_required: bool = True
    name_prefix: bool = False
    name_required: bool = False
    multi: bool = True
    xml: bool = False
    element: bool = False
    weak: bool = False
    repair: bool = True
    alone: bool = False


FENCE = Dialect("fence", "```", ("```",), multi=False, weak=True)
BARE = Dialect("bare", "", (), closer_required=False, multi=False, weak=True, repair=False)

# A JSON value alone on its line, after a line of prose (xLAM, Llama 3 after a remark).
LINE = Dialect(
    "line", "", (), closer_required=False, multi=False, weak=True, repair=False, alone=True
)

FENCE_MARK = "```"

JSON_FENCE_LANGS = frozenset({"", "json", "jsonc", "json5", "tool_call", "tool_calls", "xml"})
