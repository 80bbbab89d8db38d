"""Microsoft Phi-4-mini: ``functools[{"name": ..., "arguments": {...}}, ...]``.

The template tells the model to "prefix function calls with functools marker (no
closing marker required)" and to write "a single JSON list" after it (vLLM
``examples/tool_chat_template_phi4_mini.jinja``). vLLM's parser
(``vllm/tool_parsers/phi4mini_tool_parser.py``, tests in
``tests/tool_parsers/test_phi4mini_tool_parser.py``) searches for ``functools[``
anywhere in the output and drops all other text; sglang's
(``python/sglang/srt/function_call/phi4mini_detector.py``) keeps the text before and
after the list. Both accept ``parameters`` for ``arguments``.

``functools`` is an ordinary word, so here it opens a call only at the start of a
line (or first in the message) and directly before ``[{`` (a line opener,
``FUNCTOOLS``). The list ends the block and what follows is text again. After a line
of prose the list must also end its line, as a JSON call alone on its line must.
Phi-4-mini's tokenizer also has ``<|tool_call|>...<|/tool_call|>`` (shared with
Granite, ``granite.py``), and a widely copied template variant asks for
``<|tool_calls|>[...]<|/tool_calls|>`` (vLLM issue #14682).
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.families.granite import GRANITE
from nehanda.toolcalls.family import Family

FUNCTOOLS = Dialect("phi_functools", "functools", (), closer_required=False, multi=False)

PHI_TOOL_CALLS = Dialect(
    "phi_tool_calls", "<|tool_calls|>", ("<|/tool_calls|>",), closer_required=False
)

FAMILY = Family(
    key="phi",
    source="vllm-project/vllm vllm/tool_parsers/phi4mini_tool_parser.py, "
    "examples/tool_chat_template_phi4_mini.jinja; sgl-project/sglang "
    "python/sglang/srt/function_call/phi4mini_detector.py",
    dialects=(GRANITE, PHI_TOOL_CALLS),
    lines=(FUNCTOOLS,),
)
