"""The exam's tasks and their checks, as data: add a task here and nothing else changes.

A task is a prompt and its turns. Each turn lists the calls the model's reply must make
(tool and the arguments that matter, each with a check from ``checks``; other valid
arguments are allowed) and the canned result each call gets back, which the next turn's
request carries; a turn with no calls expects a plain answer, which may have to mention
something. Every task is offered every built-in tool, as a run offers them, and no tool
ever runs: the results are written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nehanda.exam.checks import Check, Contains, Equals, OneOf, SameText


@dataclass(frozen=True)
class Expect:
    """One call the reply must make, and the canned result it gets back."""

    tool: str
    arguments: Mapping[str, Check] = field(default_factory=dict)
    result: str = "done"


@dataclass(frozen=True)
class Turn:
    """One model reply: the calls it must make, all in that reply; none means it must
    answer in text, mentioning ``answer`` when given."""

    calls: tuple[Expect, ...] = ()
    answer: Contains | None = None


@dataclass(frozen=True)
class Task:
    name: str
    skill: str  # what it tests, in a few words
    prompt: str
    turns: tuple[Turn, ...]
    max_tokens: int = 4096  # room for a reasoning model's thinking before its call


WINDOWS_PATH = 'C:\\work\\O\'Brien\\say "hi"\\notes.txt'
SHELL_COMMAND = 'printf \'%s\\n\' "it\'s done" > "out file.txt"'
LONG_TEXT = "\n".join(
    f'{n:02d}. The "quick" brown fox jumps over the lazy dog\'s back \\ again, once more.'
    for n in range(1, 29)
)


def call(tool: str, result: str = "done", **arguments: Check) -> Expect:
    return Expect(tool, arguments, result)


def turn(*calls: Expect, answer: Contains | None = None) -> Turn:
    return Turn(calls, answer)


def _read(path: str, result: str = "     1\tdone") -> Expect:
    return call("Read", result, file_path=Equals(path))


TASKS: tuple[Task, ...] = (
    Task(
        "string_argument",
        "one call, a string argument",
        "Read the file notes/todo.txt.",
        (turn(_read("notes/todo.txt")),),
    ),
    Task(
        "integer_arguments",
        "integer arguments",
        "Show me lines 120 to 159 of src/app.py: read 40 lines starting at line 120, "
        "using the Read tool's offset and limit.",
        (turn(call("Read", file_path=Equals("src/app.py"), offset=Equals(120), limit=Equals(40))),),
    ),
    Task(
        "boolean_argument",
        "a boolean argument",
        "In config.ini, replace every occurrence of `debug = false` with `debug = true` "
        "(all of them, with one Edit call).",
        (
            turn(
                call(
                    "Edit",
                    file_path=Equals("config.ini"),
                    old_string=Equals("debug = false"),
                    new_string=Equals("debug = true"),
                    replace_all=Equals(True),
                )
            ),
        ),
    ),
    Task(
        "path_with_quotes",
        "backslashes and quotes in a path",
        f"Read the file at this exact path: `{WINDOWS_PATH}`",
        (turn(_read(WINDOWS_PATH)),),
    ),
    Task(
        "command_with_quotes",
        "quotes in a shell command",
        f"Run exactly this shell command: `{SHELL_COMMAND}`",
        (turn(call("Bash", command=Equals(SHELL_COMMAND))),),
    ),
    Task(
        "two_calls",
        "two calls in one reply",
        "Read README.md and CHANGELOG.md. Make both Read calls now, in this one reply.",
        (turn(_read("README.md"), _read("CHANGELOG.md")),),
    ),
    Task(
        "right_tool",
        "the right tool among the built-ins",
        "Which files in this project contain the text LEGACY_API? Search the files' contents.",
        (turn(call("Grep", pattern=Contains(("LEGACY_API",)))),),
    ),
    Task(
        "no_call",
        "no call when none is needed",
        "What does the abbreviation HTTP stand for? Answer in one line.",
        (turn(answer=Contains(("transfer protocol",))),),
    ),
    Task(
        "mention_no_call",
        "a command mentioned, not run",
        "Without running anything, tell me in one sentence what the command "
        "`rm -rf build` would do.",
        (turn(answer=Contains(("build",))),),
    ),
    Task(
        "result_fed_back",
        "several turns, each needing the last result",
        "The file pointer.txt names the file that holds the server's port. Read pointer.txt, "
        "then read the file it names, then tell me the port number.",
        (
            turn(_read("pointer.txt", "     1\tThe server settings are in conf/app-42.toml")),
            turn(_read("conf/app-42.toml", "     1\t[server]\n     2\tport = 8431")),
            turn(answer=Contains(("8431",))),
        ),
    ),
    Task(
        "long_argument",
        "a long argument (a 2 KB file)",
        "Create the file docs/fox.txt with exactly this content, every line as written:\n\n"
        f"```\n{LONG_TEXT}\n```",
        (turn(call("Write", file_path=Equals("docs/fox.txt"), content=SameText(LONG_TEXT))),),
        max_tokens=6144,
    ),
    Task(
        "after_reasoning",
        "a call after a reasoning section",
        "The server's port is set in one of two files: settings.yaml (the server's "
        "configuration) or notes.md (a diary). First explain in two sentences which one "
        "holds it and why, then read that file.",
        (turn(call("Read", file_path=OneOf(("settings.yaml", "./settings.yaml")))),),
    ),
)
