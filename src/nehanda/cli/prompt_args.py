"""Which of ``nehanda``'s own arguments are a prompt (``nehanda "fix the bug"``); pure.

The first word that is not an option, or an option's value, decides: a command's name
runs that command, as click would; any other word starts a prompt, and then every word
that is not an option belongs to it, in any order with the options
(``nehanda -p "explain" --base-url URL``). After ``--`` every word is the prompt's.

An option whose value is optional (``--resume [ID]``) takes the next word only when it
looks like a session id: letters, digits, ``-`` and ``_``, at least one digit. So
``nehanda --resume "fix it"`` and ``nehanda --resume fix`` open the session picker and
send the prompt; ``--resume=ID`` gives any value. (``nehanda run`` needs an id, so there
click takes the word after ``--resume`` as it, whatever it looks like.)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def looks_like_id(word: str) -> bool:
    """Whether ``word`` may be a session id or a start of one (``5ea999``, ``20261203``)."""
    return any(char.isdigit() for char in word) and all(
        char.isascii() and (char.isalnum() or char in "-_") for char in word
    )


def split_prompt(
    args: Sequence[str],
    taking_value: Collection[str],
    commands: Collection[str],
    optional_value: Collection[str] = (),
) -> tuple[list[str] | None, list[str]]:
    """The prompt's words (``None`` when there is no prompt) and the arguments left for
    the option parser. ``taking_value`` lists the option spellings that take a value,
    ``optional_value`` those that take one only when it looks like an id."""
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
            takes = token in taking_value or (
                token in optional_value and at < len(args) and looks_like_id(args[at])
            )
            if takes and at < len(args):
                options.append(args[at])
                at += 1
        elif not words and token in commands:
            return None, list(args)
        else:
            words.append(token)
    return (words or None), options
