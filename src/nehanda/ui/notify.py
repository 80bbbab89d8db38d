"""What rings the terminal when nehanda wants the user back; pure.

OSC 9 (``ESC ] 9 ; text BEL``) shows a desktop notification in iTerm2, WezTerm, Ghostty,
Windows Terminal and ConEmu; OSC 777 (``ESC ] 777 ; notify ; title ; text BEL``) in
urxvt, foot and VTE terminals that carry the notify patch. Everywhere else the bell
(BEL) rings, which any terminal shows somehow. The text is stripped of control
characters and of ``;``, which would end a field early.
"""

from __future__ import annotations

from collections.abc import Mapping

BEL = "\a"
_OSC_9 = frozenset({"iTerm.app", "WezTerm", "ghostty"})


def terminal_signal(environ: Mapping[str, str], title: str, text: str) -> str:
    """The bytes to write to the terminal ``environ`` describes."""
    if (
        environ.get("TERM_PROGRAM") in _OSC_9
        or environ.get("WT_SESSION")
        or environ.get("ConEmuPID")
    ):
        return f"\x1b]9;{_field(text)}{BEL}"
    term = environ.get("TERM", "")
    if term.startswith(("rxvt", "foot")) or environ.get("VTE_VERSION"):
        return f"\x1b]777;notify;{_field(title)};{_field(text)}{BEL}"
    return BEL


def _field(text: str) -> str:
    kept = "".join(c for c in text if c.isprintable() and c != ";")
    return kept[:200]
