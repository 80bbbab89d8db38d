"""What an expected argument, or an expected answer, must be: small matchers the task
table is written with. Each says whether a value passes and how to name what it wanted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# How much of an expected or received value a failure quotes: enough to recognise it.
QUOTE_CHARS = 60


def quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 3] + "..."


@dataclass(frozen=True)
class Equals:
    """Exactly this value (``True`` is not ``1``: a boolean must be a boolean)."""

    value: Any

    def __call__(self, got: Any) -> bool:
        return type(got) is type(self.value) and got == self.value

    def describe(self) -> str:
        return quote(self.value)


@dataclass(frozen=True)
class SameText:
    """This text, give or take the final line break, which models add or drop freely."""

    value: str

    def __call__(self, got: Any) -> bool:
        return isinstance(got, str) and got.rstrip("\n") == self.value.rstrip("\n")

    def describe(self) -> str:
        return f"the {len(self.value)}-character text given"


@dataclass(frozen=True)
class OneOf:
    """Any of these values: the ways of writing one thing a user would accept."""

    values: tuple[Any, ...]

    def __call__(self, got: Any) -> bool:
        return any(Equals(value)(got) for value in self.values)

    def describe(self) -> str:
        return " or ".join(quote(value) for value in self.values)


@dataclass(frozen=True)
class Contains:
    """Text holding every one of these pieces, letter case aside."""

    pieces: tuple[str, ...]

    def __call__(self, got: Any) -> bool:
        return isinstance(got, str) and all(p.lower() in got.lower() for p in self.pieces)

    def describe(self) -> str:
        return "text with " + " and ".join(quote(piece) for piece in self.pieces)


Check = Equals | SameText | OneOf | Contains
