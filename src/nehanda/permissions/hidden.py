"""What the walks of Grep, Glob and LS never enter, list or search (``ToolContext.hidden``).

``HiddenPaths`` covers the default secret places (``permissions.secrets``) and every path
a Read deny rule covers. It is asked about every entry a walk meets, so the places are
looked up by string, one ancestor at a time, and each rule is read once per session.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from nehanda.permissions.rules import Rule, path_rule_matcher
from nehanda.permissions.secrets import secret_paths


@dataclass(frozen=True)
class HiddenPaths:
    """Whether a path is, or lies below, a secret place or a path a Read deny rule covers.

    Checked for every entry a walk meets, so the places are looked up by string, one
    ancestor at a time, rather than compared one by one.
    """

    places: frozenset[str]
    rules: tuple[Callable[[Path], bool], ...]  # the Read deny rules, as matchers

    @classmethod
    def build(cls, deny: Iterable[Rule], workspace: Path, home: Path | None = None) -> HiddenPaths:
        places = set()
        for place in secret_paths(home):
            places.add(os.path.normpath(place))
            places.add(os.path.realpath(place))
        rules = tuple(
            path_rule_matcher(rule, workspace)
            for rule in deny
            if rule.covers("Read") and rule.specifier is not None
        )
        return cls(frozenset(places), rules)

    def __call__(self, path: Path) -> bool:
        return self._in_places(os.path.normpath(path)) or any(rule(path) for rule in self.rules)

    def _in_places(self, text: str) -> bool:
        while text not in self.places:
            parent = text.rpartition("/")[0] or "/"
            if parent == text:
                return False
            text = parent
        return True
