"""Which of ``nehanda``'s arguments are a prompt: a table, and a property over any order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.cli.prompt_args import split_prompt

TAKING_VALUE = {"--model", "--base-url", "--output"}
COMMANDS = {"run", "sessions", "doctor"}


@pytest.mark.parametrize(
    ("args", "words", "rest"),
    [
        ([], None, []),
        (["-p", "explain"], ["explain"], ["-p"]),
        (["-p", "--base-url", "U"], None, ["-p", "--base-url", "U"]),
        (["-p", "explain", "--base-url", "U"], ["explain"], ["-p", "--base-url", "U"]),
        (["--base-url", "U", "fix", "the", "bug"], ["fix", "the", "bug"], ["--base-url", "U"]),
        (["--model", "run", "go"], ["go"], ["--model", "run"]),
        (["--model=run", "go"], ["go"], ["--model=run"]),
        (["--model", "m", "run", "hi"], None, ["--model", "m", "run", "hi"]),
        (["sessions", "--all"], None, ["sessions", "--all"]),
        (["fix", "run"], ["fix", "run"], []),
        (["-", "-y"], ["-"], ["-y"]),
        (["-y", "--", "--help", "me"], ["--help", "me"], ["-y"]),
        (["/etc/hosts is broken"], ["/etc/hosts is broken"], []),
    ],
)
def test_the_first_word_decides_between_a_command_and_a_prompt(
    args: list[str], words: list[str] | None, rest: list[str]
) -> None:
    assert split_prompt(args, TAKING_VALUE, COMMANDS) == (words, rest)


@pytest.mark.parametrize(
    ("args", "words", "rest"),
    [
        (["--resume"], None, ["--resume"]),
        (["--resume", "fix it"], ["fix it"], ["--resume"]),
        (["--resume", "fix"], ["fix"], ["--resume"]),
        (["--resume", "5ea999", "go"], ["go"], ["--resume", "5ea999"]),
        (["--resume", "20261203-171550-5ea999"], None, ["--resume", "20261203-171550-5ea999"]),
        (["--resume", "-y", "fix it"], ["fix it"], ["--resume", "-y"]),
        (["--resume=fix", "go"], ["go"], ["--resume=fix"]),
        (["--resume", "x1 y"], ["x1 y"], ["--resume"]),
        (["--resume", "run"], None, ["--resume", "run"]),
    ],
)
def test_an_optional_value_is_taken_only_when_it_looks_like_an_id(
    args: list[str], words: list[str] | None, rest: list[str]
) -> None:
    assert split_prompt(args, TAKING_VALUE, COMMANDS, {"--resume"}) == (words, rest)


WORD = st.sampled_from(["fix", "the", "bug", "/init", "x y"])
OPTION = st.one_of(
    st.tuples(st.sampled_from(["-p", "-y", "--verbose"])),
    st.tuples(st.sampled_from(sorted(TAKING_VALUE)), st.sampled_from(["m", "run", "U"])),
)


@given(st.lists(st.one_of(st.tuples(WORD), OPTION), min_size=1))
def test_options_anywhere_keep_the_prompts_words_in_order(
    pieces: list[tuple[str, ...]],
) -> None:
    args = [token for piece in pieces for token in piece]
    words, rest = split_prompt(args, TAKING_VALUE, COMMANDS)
    expected_words = [piece[0] for piece in pieces if not piece[0].startswith("-")]
    expected_rest = [token for piece in pieces if piece[0].startswith("-") for token in piece]
    assert (words, rest) == (expected_words or None, expected_rest)


@pytest.mark.parametrize(
    ("args", "prompt", "model", "resume"),
    [
        (["--model", "q", "--provider", "vllm"], None, "q", None),
        (["--resume", "--model", "q", "fix", "it"], "fix it", "q", ""),
        (["fix", "--resume", "5ea999", "--model", "q"], "fix", "q", "5ea999"),
        (["--model", "q", "--resume"], None, "q", ""),
    ],
)
def test_nehandas_own_options_keep_their_values_whatever_click_marks_them_with(
    args: list[str], prompt: str | None, model: str, resume: str | None
) -> None:
    from nehanda.cli.help_text import PROMPT_KEY
    from nehanda.cli.main import cli

    context = cli.make_context("nehanda", args)
    assert context.meta.get(PROMPT_KEY) == prompt
    assert (context.params["model"], context.params["resume_id"]) == (model, resume)
