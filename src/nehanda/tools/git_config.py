"""Read a git configuration file as git does, running nothing: ``parse_config``. Pure.

git's own reader (``config.c``) is followed: ``[section]``, ``[section "subsection"]``
(escapes kept literal but for ``\\"`` and ``\\\\``) and the old ``[section.sub]``; a key
alone (true) or ``key = value``, where the value may hold ``"``-quoted parts, the
escapes ``\\n \\t \\b \\\\ \\"``, lines continued by a final ``\\``, and a ``#`` or ``;``
comment; several of them on one line (``[core] hooksPath = x``). Section and key names
fold to lower case; a subsection keeps its case. Where git would stop at a line it
cannot read (and then run no command at all), this reader skips the line and reads
on: a file git rejects hides no entry from the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

_SPACE = frozenset(" \t\n\v\f\r")
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}


@dataclass(frozen=True)
class Entry:
    """``name``: ``section.key`` or ``section.subsection.key``; ``value``: None for a key
    written alone."""

    name: str
    value: str | None


def parse_config(text: str) -> list[Entry]:
    return _Reader(text.replace("\r\n", "\n").removeprefix("\ufeff")).entries()


def _key_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "-")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.section = ""
        self.found: list[Entry] = []

    @property
    def ended(self) -> bool:
        return self.index > len(self.text)

    def next(self) -> str:
        """The next character; past the end, a newline (as git reads one)."""
        self.index += 1
        return self.text[self.index - 1] if self.index <= len(self.text) else "\n"

    def entries(self) -> list[Entry]:
        while not self.ended:
            char = self.next()
            if char in _SPACE:
                continue
            if char in "#;":
                self._skip_line()
            elif char == "[":
                if not self._header():
                    self._recover()
            elif not (char.isascii() and char.isalpha()) or not self._entry(char):
                self._recover()
        return self.found

    def _header(self) -> bool:
        name: list[str] = []
        while True:
            char = self.next()
            if self.ended:
                return False
            if char == "]":
                self.section = "".join(name)
                return True
            if char in _SPACE:
                return self._subsection("".join(name), char)
            if not (_key_char(char) or char == "."):
                return False
            name.append(char.lower())

    def _subsection(self, base: str, char: str) -> bool:
        while char in _SPACE:
            if char == "\n":
                return False
            char = self.next()
        if char != '"':
            return False
        name: list[str] = []
        while (char := self.next()) != '"':
            if char == "\\":
                char = self.next()
            if char == "\n":
                return False
            name.append(char)
        if self.next() != "]":
            return False
        self.section = f"{base}.{''.join(name)}"
        return True

    def _entry(self, first: str) -> bool:
        key = [first.lower()]
        while _key_char(char := self.next()):
            key.append(char.lower())
        while char in " \t":
            char = self.next()
        value = None
        if char != "\n" and (char != "=" or (value := self._value()) is None):
            return False
        name = "".join(key)
        self.found.append(Entry(f"{self.section}.{name}" if self.section else name, value))
        return True

    def _value(self) -> str | None:
        out: list[str] = []
        quoted = comment = False
        spaces = 0
        while (char := self.next()) != "\n":
            if comment:
                continue
            if char in _SPACE and not quoted:
                spaces += 1 if out else 0
                continue
            if char in "#;" and not quoted:
                comment = True
                continue
            if spaces:
                out.append(" " * spaces)
                spaces = 0
            if char == "\\":
                escaped = self.next()
                if escaped == "\n":
                    continue
                if escaped not in _ESCAPES:
                    return None
                out.append(_ESCAPES[escaped])
            elif char == '"':
                quoted = not quoted
            else:
                out.append(char)
        return None if quoted else "".join(out)

    def _skip_line(self) -> None:
        while not self.ended and self.next() != "\n":
            pass

    def _recover(self) -> None:
        """After a line git would reject: on from the next line."""
        if self.index <= len(self.text) and self.text[self.index - 1] != "\n":
            self._skip_line()
