"""An emulated terminal (pyte) that shows what a person would see, concealed text too.

pyte keeps no concealed attribute (SGR 8), so text written under it would show on its
screen where a real terminal draws blanks; ``SeenScreen`` draws it as blanks. Its
``stream`` takes text as a terminal whose line discipline turns ``\\n`` into ``\\r\\n``
receives it, and, without ``utf8``, honours character-set switches (the line-drawing set
turns letters into box pieces), which pyte ignores in UTF-8 mode.
"""

from __future__ import annotations

import pyte


class SeenScreen(pyte.Screen):
    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self.concealed = False

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        for attr in attrs or (0,):
            if attr in (0, 28):
                self.concealed = False
            elif attr == 8:
                self.concealed = True
        super().select_graphic_rendition(*attrs)

    def draw(self, data: str) -> None:
        super().draw(" " * len(data) if self.concealed else data)

    def rows(self) -> list[str]:
        return [row.rstrip() for row in self.display]


def seen(written: str, columns: int = 80, lines: int = 24, *, utf8: bool = True) -> list[str]:
    """The rows of a ``columns`` by ``lines`` terminal after ``written``."""
    screen = SeenScreen(columns, lines)
    stream = pyte.Stream(screen)
    stream.use_utf8 = utf8
    stream.feed(written.replace("\r\n", "\n").replace("\n", "\r\n"))
    return screen.rows()
