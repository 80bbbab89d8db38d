"""The permission modes, strictest first: small enough for ``nehanda --help`` to import."""

from __future__ import annotations

from typing import Literal

Mode = Literal["default", "accept-edits", "plan", "yolo"]
MODES: tuple[Mode, ...] = ("plan", "default", "accept-edits", "yolo")
