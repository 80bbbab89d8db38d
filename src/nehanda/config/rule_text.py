"""A permission rule's form: ``Tool`` or ``Tool(specifier)``, or an MCP tool's name. Pure.

``split_rule`` reads a rule as written into its tool name and specifier, and says what is
wrong with a text that has neither form. Which tools there are and what a specifier means
are the rule language's (``permissions.rules.parse_rule``, which starts here); the approval
prompt reads the rules it offers through this alone, without loading the rule engine.
"""

from __future__ import annotations

import re

_RULE = re.compile(r"([A-Za-z]+)(?:\((.*)\))?", re.DOTALL)
_MCP_RULE = re.compile(r"mcp__(?:\*|[A-Za-z0-9_-]+?(?:__\*|__[A-Za-z0-9_-]+)?)")


def split_rule(text: str) -> tuple[str, str | None]:
    """``(tool, specifier)`` of ``text``, both stripped (the specifier None for a bare name,
    ``""`` for empty parentheses); ``ValueError`` saying what is wrong with its form."""
    written = text.strip()
    if written.startswith("mcp__"):
        if _MCP_RULE.fullmatch(written) is None:
            raise ValueError(
                f"{text!r} is not an MCP tool rule: write mcp__SERVER__TOOL, mcp__SERVER__* "
                "or mcp__*, without a specifier"
            )
        return written, None
    match = _RULE.fullmatch(written)
    if match is None:
        raise ValueError(
            f"{text!r} is not a rule: write Tool or Tool(specifier), "
            "e.g. Bash(git status), Bash(npm run test:*), Edit(src/**)"
        )
    tool, specifier = match.group(1), match.group(2)
    return tool, None if specifier is None else specifier.strip()
