"""Options of common commands that write files or run programs of their own.

``judge_options(name, args)`` returns what a command's options do beyond what its name
says: ``writes`` (``git log --output=F``, ``sed -i``, ``sort -o F``) and ``runs``
(``sed 'e …'``, ``awk 'BEGIN{system(…)}'``, ``tar --to-command=…``, ``git -c k=v``,
``perl -e``), and those of test runners, linters and build tools from one table per tool
(``tool_options``, ``js_options``, ``build_options``: ``pytest --basetemp=src``, ``cargo
test --config …``, ``make SHELL=…``, ``uv run --with PKG pytest``, ``npm install PKG``),
the program a runner starts judged by its own (``uv run pytest …``, ``python -m pytest
…``). A command carrying either is never allowed by a prefix rule; one that
runs a program nobody can read off the command line is not judged at all when deny or
ask rules are in force (``shell.analyse`` reports it as ``unjudged``).

Pure and conservative. Long options match by any prefix of their name, as getopt and
git accept ``--outp=F`` for ``--output=F``; short options match anywhere in a cluster.
A sed script the scanner cannot follow counts as running something.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from nehanda.permissions import build_options, js_options, tool_options

# git's own options, before the subcommand. Those taking a value in the next word:
GIT_GLOBAL_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
    | {"--super-prefix", "--list-cmds", "--attr-source"}
)
# Harmless ones: nothing else is read or run because of them.
_GIT_GLOBAL_HARMLESS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs"}
    | {"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects"}
    | {"--no-advice", "--no-lazy-fetch"}
)
_GIT_RUNS = (
    *("exec", "upload-pack", "receive-pack", "ext-diff", "config-env", "exec-path"),
    *("config", "template", "textconv", "extcmd", "tool", "recurse-submodules"),
)
# Short options that run a program, by subcommand: clone -u is --upload-pack, rebase -x
# and difftool -x name a command.
_GIT_RUNS_SHORT = {"clone": "u", "rebase": "x", "difftool": "xt", "mergetool": "t"}
_GIT_WRITES = ("output", "output-directory")
# Subcommands whose next word makes them run a command given on the line
# (git submodule foreach CMD, git bisect run CMD), and ones that always may.
_GIT_RUNS_ACTION = {"submodule": "foreach", "bisect": "run"}
_GIT_RUNS_ALWAYS = frozenset({"filter-branch", "hook", "daemon", "instaweb", "p4", "svn"})
_INTERPRETERS = re.compile(r"(perl|ruby|python|pypy|node|nodejs|deno|bun|php|lua)[0-9.]*")
_INTERPRETER_CODE_FLAGS = {"perl": "eEMm", "ruby": "er", "php": "rB", "lua": "el"}
_INTERPRETER_CODE_LONG = ("eval", "print", "require", "import", "loader", "experimental-loader")
_TAR_RUNS = (
    *("to-command", "checkpoint-action", "use-compress-program", "info-script"),
    *("new-volume-script", "rsh-command", "rmt-command"),
)
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})


@dataclass
class Verdict:
    writes: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


def git_global_end(args: tuple[str, ...]) -> int:
    """The index of git's subcommand in ``args`` (the words after ``git``)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        word = args[index]
        index += 2 if word in GIT_GLOBAL_WITH_VALUE else 1
    return min(index, len(args))


def git_globals(args: tuple[str, ...]) -> tuple[str, ...]:
    """git's own options in ``args``, as written, minus the harmless ones."""
    end = git_global_end(args)
    return tuple(
        word
        for word in args[:end]
        if word.startswith("-") and word.split("=", 1)[0] not in _GIT_GLOBAL_HARMLESS
    )


def judge_options(
    name: str, args: tuple[str, ...], built: tuple[frozenset[str], ...] = ()
) -> Verdict:
    """``built``: what built each of ``args`` (``shell.SimpleCommand.built``)."""
    verdict = Verdict()
    _judge(name, args, verdict)
    if name in _JUDGED or _INTERPRETERS.fullmatch(name):
        hidden = next(
            (w for w, how in zip(args, built, strict=False) if _may_be_option(w, how)), None
        )
        if hidden is not None:
            shown = hidden if len(hidden) <= 30 else hidden[:29] + "…"
            verdict.runs.append(f"{name} {shown}: the shell expands it, maybe into an option")
    return verdict


def _may_be_option(word: str, built: frozenset[str]) -> bool:
    """Whether the shell may turn ``word`` into one starting with ``-``, which nobody
    judged: ``$'--basetemp=src'``, ``{--basetemp=src,}``, ``*`` beside a file named
    ``--basetemp=..``. ``tests/*.py`` and ``tests/{unit,e2e}`` cannot be."""
    if "brace" in built and (word.startswith("-") or re.search(r"[{,]-", word)):
        return True
    return bool(built & {"expansion", "glob"}) and word[:1] in ("-", "$", "*", "?", "[")


def _judge(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    """Judge ``name``'s options, then those of the program a runner starts
    (``uv run pytest …``), with that program's own table."""
    table = _TABLES.get(name)
    if (judge := _JUDGES.get(name)) is not None:
        judge(name, args, verdict)
    elif table is not None:
        tool_options.judge_table(name, table, args, verdict)
        if (extra := build_options.EXTRA.get(name)) is not None:
            extra(args, verdict)
    elif _INTERPRETERS.fullmatch(name):
        _judge_interpreter(name, args, verdict)
    build_options.judge_installs(name, args, verdict)
    shown, handed = _handed_on(name, args)
    if handed:
        _judge_unseen(shown, handed, verdict)
    start = build_options.runner_program(name, args, verdict)
    if start is not None:
        _judge(PurePosixPath(args[start]).name, args[start + 1 :], verdict)


def _long_is(word: str, names: tuple[str, ...]) -> str | None:
    """The option of ``names`` that long option ``word`` abbreviates, if any."""
    if not word.startswith("--") or len(word) == 2:
        return None
    given = word[2:].split("=", 1)[0]
    return next((full for full in names if full.startswith(given)), None)


def _options(args: tuple[str, ...]) -> list[str]:
    """The words before ``--``."""
    return list(args[: args.index("--")] if "--" in args else args)


def _short_has(word: str, letters: str) -> str | None:
    if word.startswith("-") and not word.startswith("--") and len(word) > 1:
        return next((letter for letter in word[1:] if letter in letters), None)
    return None


# -- git ------------------------------------------------------------------------


def _judge_git(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    end = git_global_end(args)
    for word in git_globals(args):
        if word == "-c" or word.startswith(("--config-env", "--exec-path")):
            verdict.runs.append(f"git {word} can make git run any program")
        elif word in ("-p", "--paginate"):
            verdict.writes.append(f"git {word} runs the pager git's configuration names")
        else:
            verdict.writes.append(f"git {word} reads or writes another repository")
    subcommand = args[end] if end < len(args) else ""
    action = _GIT_RUNS_ACTION.get(subcommand)
    if subcommand in _GIT_RUNS_ALWAYS or (action and action in args[end + 1 :]):
        verdict.runs.append(f"git {subcommand} {action or ''}".rstrip() + " runs commands")
    for word in _options(args[end + 1 :]):
        if word.startswith("--") and word.split("=", 1)[0].endswith("-cmd"):
            verdict.runs.append(f"git {subcommand} {word} runs a program")
        if (letter := _short_has(word, _GIT_RUNS_SHORT.get(subcommand, ""))) is not None:
            verdict.runs.append(f"git {subcommand} -{letter} runs a program")
        elif word.startswith("-c"):
            verdict.writes.append(f"git … {word} may set configuration")
        elif (option := _long_is(word, _GIT_RUNS)) is not None:
            verdict.runs.append(f"git --{option} runs a program")
        elif (option := _long_is(word, _GIT_WRITES)) is not None or word.startswith("-o"):
            verdict.writes.append(f"git {word} writes a file")


# -- sed ------------------------------------------------------------------------


def _judge_sed(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    scripts: list[str] = []
    words = list(args)
    plain: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            plain.extend(words[index + 1 :])
            break
        if _long_is(word, ("in-place",)) or _short_has(word, "i"):
            verdict.writes.append(f"sed {word} changes files in place")
        if _long_is(word, ("file",)) or _short_has(word, "f"):
            verdict.runs.append(f"sed {word} reads its script from a file")
        if _long_is(word, ("expression",)):
            scripts.append(word.split("=", 1)[1] if "=" in word else _at(words, index + 1))
            index += 1 if "=" in word else 2
            continue
        if (letter := _short_has(word, "e")) is not None:
            rest = word[word.index(letter) + 1 :]
            scripts.append(rest or _at(words, index + 1))
            index += 1 if rest else 2
            continue
        if not word.startswith("-") or word == "-":
            plain.append(word)
        index += 1
    if not scripts and plain:
        scripts.append(plain[0])
    for script in scripts:
        found = sed_script_effects(script)
        if found == "runs":
            verdict.runs.append("the sed script runs a command (e), or cannot be read")
        elif found == "writes":
            verdict.writes.append("the sed script writes a file (w, W)")


def _at(words: list[str], index: int) -> str:
    return words[index] if index < len(words) else ""


_SED_ADDRESS = re.compile(r"\s*(?:\d+(?:~\d+)?|\$|/(?:\\.|[^/\\\n])*/[IM]*|\\(.)(?:(?!\1).)*\1)")
_SED_SIMPLE = frozenset("=dDgGhHlnNpPqQxz#Fz")


def sed_script_effects(script: str) -> str | None:
    """ "runs" if a sed script can run a command (or is beyond this scanner), "writes" if
    it can write a file, else None."""
    writes = False
    index = 0
    while index < len(script):
        index = _skip_address(script, index)
        if index >= len(script):
            break
        command = script[index]
        index += 1
        if command in " \t\n;{}!":
            continue
        if command == "e":
            return "runs"
        if command in "wW":
            writes = True
            index = _line_end(script, index)
        elif command in "aicrRbtTv:":
            index = _line_end(script, index) if command in "aicrR" else _label_end(script, index)
        elif command in "sy":
            parsed = _substitution(script, index, command)
            if parsed is None:
                return "runs"
            index, flags = parsed
            if "e" in flags:
                return "runs"
            if "w" in flags:
                writes = True
                index = _line_end(script, index)
        elif command not in _SED_SIMPLE:
            return "runs"
    return "writes" if writes else None


def _skip_address(script: str, index: int) -> int:
    for _ in range(2):
        match = _SED_ADDRESS.match(script, index)
        if match is None:
            return index
        index = match.end()
        if script[index : index + 1] != ",":
            return index
        index += 1
    return index


def _line_end(script: str, index: int) -> int:
    end = script.find("\n", index)
    return len(script) if end < 0 else end


def _label_end(script: str, index: int) -> int:
    match = re.compile(r"[^;\n]*").match(script, index)
    return match.end() if match else index


def _substitution(script: str, index: int, command: str) -> tuple[int, str] | None:
    """The end of ``s/re/text/flags`` (or ``y/a/b/``) starting after the command letter,
    and its flags; None if it is not closed."""
    if index >= len(script) or script[index] in "\n\\":
        return None
    delimiter = script[index]
    index += 1
    for _ in range(2):
        while index < len(script) and script[index] != delimiter:
            index += 2 if script[index] == "\\" else 1
        if index >= len(script):
            return None
        index += 1
    if command == "y":
        return index, ""
    flags = re.compile(r"[gpiImMe0-9w]*").match(script, index)
    assert flags is not None
    return flags.end(), flags.group()


# -- the others -------------------------------------------------------------------


def _judge_awk(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    program: str | None = None
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-f", "-E", "--file", "--exec") or _long_is(word, ("file", "exec")):
            verdict.runs.append(f"{name} {word} reads its program from a file")
        if word in ("-v", "-F", "-f", "-E", "-i", "-l"):
            index += 2
            continue
        if not word.startswith("-") or word == "--":
            program = args[index + 1] if word == "--" and index + 1 < len(args) else word
            break
        index += 1
    if program is None:
        return
    if "system" in program or "|" in program or "@load" in program:
        verdict.runs.append(f"the {name} program runs commands (system, |)")
    if ">" in program:
        verdict.writes.append(f"the {name} program may write a file (>)")


def _judge_interpreter(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    base = _INTERPRETERS.fullmatch(name)
    letters = _INTERPRETER_CODE_FLAGS.get(base.group(1) if base else "", "ecp")
    words = _options(args)
    for index, word in enumerate(words):
        if not word.startswith("-"):
            return  # the script's own arguments follow
        if _short_has(word, letters) or _long_is(word, _INTERPRETER_CODE_LONG):
            verdict.runs.append(f"{name} {word} runs code given on the command line")
            return
        if word == "-m" and index + 1 < len(args):
            # python -m pytest …: the module's options, by its own table.
            _judge(args[index + 1], args[index + 2 :], verdict)
            return


def _judge_tar(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    for position, word in enumerate(_options(args)):
        cluster = word if position == 0 and not word.startswith("-") else ""
        if (option := _long_is(word, _TAR_RUNS)) is not None:
            verdict.runs.append(f"tar --{option} runs a program")
        elif _short_has(word, "IF") or "I" in cluster or "F" in cluster:
            verdict.runs.append(f"tar {word} runs a program")


def _judge_sort(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    for word in _options(args):
        if _long_is(word, ("compress-program",)):
            verdict.runs.append(f"sort {word} runs a program")
        elif _long_is(word, ("output",)) or _short_has(word, "o"):
            verdict.writes.append(f"sort {word} writes a file")


def _judge_package_manager(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    options = [word for word in _options(args) if word.startswith("-")]
    if options:
        verdict.writes.append(f"{name} {options[0]}: options before -- can change what {name} runs")


def _judge_npx(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    """npx's own options come before the package; every word after it is the program's
    (npx puts ``--`` there), judged by the program's table, or by all of them."""
    start = next((i for i, word in enumerate(args) if not word.startswith("-")), len(args))
    _judge_package_manager(name, args[:start], verdict)
    if start == len(args):
        return
    program, rest = PurePosixPath(args[start]).name, args[start + 1 :]
    if program in _TABLES:
        _judge(program, tuple(word for word in rest if word != "--"), verdict)
    else:
        _judge_unseen(f"npx {program}", tuple(word for word in rest if word != "--"), verdict)


def _handed_on(name: str, args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """How to name them, and the words a command hands to a script or program nehanda
    cannot see: after ``--`` for npm, yarn and pnpm (``npm run test -- …``), after the
    script for ``bun run SCRIPT …``."""
    if name in ("npm", "yarn", "pnpm") and "--" in args:
        after = args[args.index("--") + 1 :]
        return f"{name} … --", tuple(word for word in after if word != "--")
    if name == "bun" and args[:1] == ("run",):
        return f"bun run {_at(list(args), 1)}", tuple(word for word in args[2:] if word != "--")
    return name, ()


def _judge_unseen(shown: str, words: tuple[str, ...], verdict: Verdict) -> None:
    """Words bound for a tool nobody can name must pass every tool's table."""
    for table in dict.fromkeys(_TABLES.values()):
        found = Verdict()
        tool_options.judge_options_of(shown, table, words, found)
        if found.writes or found.runs:
            verdict.writes.extend(found.writes)
            verdict.runs.extend(found.runs)
            return


_TABLES = {**tool_options.TABLES, **js_options.TABLES, **build_options.TABLES}
_JUDGES = {
    "git": _judge_git,
    "sed": _judge_sed,
    "gsed": _judge_sed,
    "tar": _judge_tar,
    "gtar": _judge_tar,
    "bsdtar": _judge_tar,
    "sort": _judge_sort,
    "npm": _judge_package_manager,
    "npx": _judge_npx,
    "yarn": _judge_package_manager,
    "pnpm": _judge_package_manager,
    **dict.fromkeys(_AWKS, _judge_awk),
}
# Commands whose options are judged, so that an argument the shell builds must not
# smuggle one in.
_JUDGED = frozenset(_JUDGES) | frozenset(_TABLES) | frozenset(build_options.RUNNERS)
_JUDGED |= frozenset({"pip", "pip3"})
