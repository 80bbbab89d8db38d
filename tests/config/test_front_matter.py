"""Front matter of Markdown files: what is read, and the one-line reason when it cannot be."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.config.front_matter import (
    FrontMatterError,
    list_field,
    split_front_matter,
    split_items,
    text_field,
)


@pytest.mark.parametrize(
    ("text", "fields", "body"),
    [
        ("just a body\n", {}, "just a body\n"),
        ("---\n---\nbody", {}, "body"),
        ("---\ndescription: Review it\n---\nbody\n", {"description": "Review it"}, "body\n"),
        ("\ufeff---\nname: x\n---\n", {"name": "x"}, ""),
        ("---\nmodel: 'haiku'\nn: 3\n---\n", {"model": "haiku", "n": 3}, ""),
        ("---\nd: >\n  two\n  lines\n---\nb", {"d": "two lines\n"}, "b"),
        ("---\nallowed-tools: [Read, Bash]\n---\n", {"allowed-tools": ["Read", "Bash"]}, ""),
        ("no --- here\n---\nx: 1\n---\n", {}, "no --- here\n---\nx: 1\n---\n"),
    ],
)
def test_split(text: str, fields: dict[str, Any], body: str) -> None:
    document = split_front_matter(text)
    assert (document.fields, document.body) == (fields, body)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\nname: x\n", "never closed"),
        ("---\nname: [x\n---\n", "not valid YAML (line"),
        ("---\n- a\n- b\n---\n", "must be a map"),
        ("---\n!!python/object:os.system x: 1\n---\n", "not valid YAML"),
        ("---\n" + "a: b\n" * 20000 + "---\n", "longer than"),
    ],
)
def test_front_matter_that_cannot_be_read_says_why(text: str, reason: str) -> None:
    with pytest.raises(FrontMatterError, match=reason.replace("(", r"\(")):
        split_front_matter(text)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            "Bash(git add:*), Bash(git status:*) Read",
            ("Bash(git add:*)", "Bash(git status:*)", "Read"),
        ),
        ("Read Grep", ("Read", "Grep")),
        (["Read", " Bash(ls -la) "], ("Read", "Bash(ls -la)")),
        ("", ()),
        (None, ()),
    ],
)
def test_list_fields_split_outside_parentheses(value: Any, expected: tuple[str, ...]) -> None:
    assert list_field({"allowed-tools": value}, "allowed-tools") == expected


def test_a_text_field_refuses_a_list_and_spells_booleans_as_yaml_does() -> None:
    assert text_field({"x": True}, "x") == "true" and text_field({}, "x") is None
    with pytest.raises(FrontMatterError, match="x must be text, not a list"):
        text_field({"x": ["a"]}, "x")


@given(st.lists(st.text("abc(): ", min_size=1, max_size=8).map(str.strip).filter(bool), max_size=6))
def test_items_joined_by_commas_split_back_when_none_holds_a_separator(items: list[str]) -> None:
    plain = [item for item in items if not set(item) & set(",() :")]
    assert split_items(", ".join(plain)) == tuple(plain)
