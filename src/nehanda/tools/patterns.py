"""Glob patterns as regular expressions, shared by Glob, Grep's ``glob`` filter and .gitignore.

The dialect is the common one: ``*`` and ``?`` stay within one path segment, ``**`` as a
whole segment spans any number of directories, ``[...]`` is a character class (``[!...]``
negates), a backslash quotes the next character, and ``{a,b}`` alternatives expand
(outside .gitignore files, which have no braces).
"""

from __future__ import annotations

import itertools
import re

# A pattern such as "{a,b}{c,d}{e,f}..." multiplies; past this it is surely a mistake.
MAX_BRACE_EXPANSIONS = 256

MAGIC_CHARS = frozenset("*?[{\\")


def compile_glob(pattern: str, *, braces: bool = True) -> re.Pattern[str]:
    """A regex whose ``fullmatch`` against a POSIX relative path says whether it matches."""
    alternatives = expand_braces(pattern) if braces else [pattern]
    return re.compile("|".join(f"(?:{translate(alt)})" for alt in alternatives), re.DOTALL)


def expand_braces(pattern: str) -> list[str]:
    """``a{b,c}d`` -> ``["abd", "acd"]``; a brace group without a comma stays literal."""
    found = _first_brace_group(pattern)
    if found is None:
        return [pattern]
    start, end, alternatives = found
    expanded: list[str] = []
    for alternative in alternatives:
        expanded.extend(expand_braces(pattern[:start] + alternative + pattern[end + 1 :]))
        if len(expanded) > MAX_BRACE_EXPANSIONS:
            raise ValueError(f"the pattern expands to more than {MAX_BRACE_EXPANSIONS} globs")
    return expanded


def _first_brace_group(pattern: str) -> tuple[int, int, list[str]] | None:
    """Start, end and top-level alternatives of the first ``{...,...}`` group."""
    for start, char in enumerate(pattern):
        if char != "{" or (start and pattern[start - 1] == "\\"):
            continue
        depth, cuts = 0, [start]
        for index in range(start, len(pattern)):
            if pattern[index] == "{":
                depth += 1
            elif pattern[index] == "}":
                depth -= 1
                if depth == 0:
                    if len(cuts) == 1:
                        break
                    cuts.append(index)
                    return start, index, [pattern[a + 1 : b] for a, b in itertools.pairwise(cuts)]
            elif pattern[index] == "," and depth == 1:
                cuts.append(index)
    return None


def translate(pattern: str) -> str:
    """Regex source for one brace-free glob over ``/``-separated paths."""
    segments = pattern.split("/")
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else "(?:.*/)?")
        else:
            out.append(_segment(segment) + ("" if last else "/"))
    return "".join(out)


def _segment(segment: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := _class_end(segment, index)) > 0:
            out.append(_char_class(segment[index + 1 : end]))
            index = end
        elif char == "\\" and index + 1 < len(segment):
            index += 1
            out.append(re.escape(segment[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _class_end(segment: str, start: int) -> int:
    """Index of the ``]`` closing the class opened at ``start``, or -1."""
    index = start + 1
    if index < len(segment) and segment[index] in "!^":
        index += 1
    if index < len(segment) and segment[index] == "]":
        index += 1  # a leading "]" is a literal member
    return segment.find("]", index)


def _char_class(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[^/{body}]" if negate else f"[{body}]"
