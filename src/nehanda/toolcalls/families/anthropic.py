"""Claude's prompt-format calls leaked as text: a ``<function_calls>`` block, or a bare
``<invoke>`` whose wrapper was eaten.

Claude's prompt format wraps ``<invoke name="NAME">`` elements of ``<parameter
name="k">v</parameter>`` in a ``function_calls`` block; behind a gateway the model
sometimes writes one into its text, whole or with the wrapper reduced to a stray line
(``count``, ``court``, ``call``) or gone (anthropics/claude-code#77061, #69529, #64922,
NousResearch/hermes-agent#35706). The elements are MiniMax-M2's
(``minimax.decode_minimax`` reads them; ``minimax.decode_block`` a block whose closer
was never written, which ends at its last closed invoke).

The whole block is marked, so it counts where MiniMax's does, prose after it too. Olmo
3's pythonic calls share its opener; this section comes first and is ruled out as soon
as its body starts with anything but ``<`` (``minimax.REFUSE``).

With no marker of its own the block is easily a quotation, so it counts only as
hermes-agent#74723 recovers it: at a line start, complete up to ``</invoke>``, naming
a known tool, and trailing: nothing but blanks, the wrapper's closer and further such
invokes after it up to the end of the output. Inside inline code that spans lines the
closing backtick follows it, so a quotation there stays prose. Between its elements it
holds only blanks (``blank_gaps``): any other text makes it a mention at once, so that
a mention never runs on to a later ``</invoke>`` and hides the calls in between.
"""

from __future__ import annotations

from nehanda.toolcalls.families import minimax
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.shapes import Found

OPENER = "<invoke"
CLOSER = "</invoke>"
WRAPPER_CLOSER = "</function_calls>"

HEAD = minimax.INVOKE_HEAD
REFUSE = minimax.INVOKE_REFUSE


def decode_bare_invoke(body: Body) -> list[Found] | None:
    """One whole invoke to a known tool, readable; anything else is prose."""
    text = OPENER + body.text + CLOSER
    found = minimax.decode_minimax(Body(text, body.closed, body.known, body.schemas))
    if not body.closed or found is None or len(found) != 1 or found[0].problem is not None:
        return None
    return found


FUNCTION_CALLS = Section(
    "anthropic_function_calls",
    "<function_calls>",
    (WRAPPER_CLOSER,),
    minimax.decode_block,
    head=minimax.HEAD,
    refuse=minimax.REFUSE,
    protect=minimax.MINIMAX.protect,
)

BARE_INVOKE = Section(
    "anthropic_bare_invoke",
    OPENER,
    (CLOSER,),
    decode_bare_invoke,
    head=HEAD,
    refuse=REFUSE,
    protect=minimax.MINIMAX.protect,
    tail=(WRAPPER_CLOSER,),
    blank_gaps=True,
)

FAMILY = Family(
    key="anthropic",
    source="anthropics/claude-code#77061, #69529, #64922; NousResearch/hermes-agent#35706, #74723",
    sections=(FUNCTION_CALLS, BARE_INVOKE),
)
