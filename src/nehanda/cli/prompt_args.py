"""Which of ``nehanda``'s own arguments are a prompt (``nehanda "fix the bug"``); pure.

The first word that is not an option, or an option's value, decides: a command's name
runs that command, as click would; any other word starts a prompt, and then every word
that is not an option belongs to it, in any order with the options
(``nehanda -p "explain" --base-url URL``). After ``--`` every word is the prompt's.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def split_prompt(
    args: Sequence[str], taking_value: Collection[str], commands: Collection[str]
) -> tuple[list[str] | None, list[str]]:
    """The prompt's words (``None`` when there is no prompt) and the arguments left for
    the option parser. ``taking_value`` lists the option spellings that take a value."""
    words: list[str] = []
    options: list[str] = []
    at = 0
    while at < len(args):
        token = args[at]
        at += 1
        if token == "--":
            words.extend(args[at:])
            break
        if token.startswith("-") and token != "-":
            options.append(token)
            if token in taking_value and at < len(args):
                options.append(args[at])
                at += 1
        elif not words and token in commands:
            return None, list(args)
        else:
            words.append(token)
    return (words or None), options
