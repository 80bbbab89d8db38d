"""The options of build tools (cargo, go, make, just, bun) and of the runners that start
a tool (``uv run``, ``poetry run``, ``pdm run``, ``hatch run``) that write or run
something else: ``cargo test --config 'target.….runner="sh -c …"'``, ``go test -exec
…``, ``make SHELL=…``, ``uv run --with PKG pytest``. Tables as in ``tool_options``.

Parsers: cargo and just (clap) and go (its flag package: one dash or two, no clusters)
take whole long names only; GNU make (getopt_long) takes any unambiguous prefix
(``--ev`` is ``--eval``). A runner's own options are few and rarely needed, so there
the table lists the harmless ones and any other option before the program counts
(``uv run --python /x/python pytest``); ``runner_program`` says where the program starts,
for ``options`` to judge it with its own table. ``judge_installs``: an install of a
package the line names (``npm install PKG``, ``pip install PKG``) runs that package's code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nehanda.permissions.tool_options import OptionTable, inside, judge_options_of, lines, when

if TYPE_CHECKING:
    from collections.abc import Callable

    from nehanda.permissions.options import Verdict

_WHERE = "writes where it says"
_ELSEWHERE = "builds and runs a project outside this one"

CARGO = OptionTable(
    lines(f"""
--target-dir,--artifact-dir,--out-dir,--lockfile-path: {_WHERE}
"""),
    lines(f"""
--config: can make cargo run any program (a test runner, a compiler wrapper, a linker)
-Z: turns on unstable features, which can change what cargo runs
--manifest-path,-C: {_ELSEWHERE}
"""),
    values="pjFZC",
    harmless_if=when(inside, "--manifest-path -C"),
)
# What cargo hands on after ``--``: libtest's --logfile writes; rustc and clippy-driver
# take compiler flags (``-C linker=…`` runs a program), of which lint levels are harmless.
_CARGO_COMPILERS = frozenset({"rustc", "rustdoc", "clippy"})
_LINT_LEVELS = re.compile(
    r"(-[DWAF]|--(deny|warn|allow|forbid|cap-lints)=?)?([A-Za-z_][\w:-]*)?", re.ASCII
)


def judge_cargo(args: tuple[str, ...], verdict: Verdict) -> None:
    if args[:1] and args[0].startswith("+") and "/" in args[0]:
        verdict.runs.append(f"cargo {args[0]} runs a toolchain from a path")
    if "--" not in args:
        return
    # Any word before -- may be the subcommand (cargo --color always rustc -- …).
    cut = args.index("--")
    after = args[cut + 1 :]
    if any(_logfile(word) for word in after):
        verdict.writes.append(f"cargo … -- --logfile {_WHERE}")
    compiler = next((word for word in args[:cut] if word in _CARGO_COMPILERS), None)
    if compiler and not all(_LINT_LEVELS.fullmatch(word) for word in after):
        verdict.runs.append(f"cargo {compiler} -- passes compiler flags, which can run a linker")


# Compiler and linker flags that neither write nor run: strip symbols, set a string,
# turn off optimisation and inlining, print decisions.
_PLAIN_TOOL_FLAGS = frozenset({"s", "w", "X", "N", "l", "m", "S", "B", "race"})


def _plain_tool_flags(value: str) -> bool:
    for token in value.split():
        if not token.startswith("-") and "=-" in token:
            token = token[token.index("=") + 1 :]  # all=-N: the flags for a pattern
        if token.startswith("-") and token.lstrip("-").split("=")[0] not in _PLAIN_TOOL_FLAGS:
            return False
    return True


def _logfile(word: str) -> bool:
    """libtest's --logfile, or what could abbreviate it (--list aside)."""
    given = word.partition("=")[0].removeprefix("--")
    return word.startswith("--") and len(given) > 1 and "logfile".startswith(given)


_PROFILES = "coverprofile cpuprofile memprofile blockprofile mutexprofile trace outputdir"
# go test hands the -test.* spellings to the test binary as they are.
_GO_FILES = ["-o", *(f"-{name}" for name in _PROFILES.split())]
_GO_FILES += [f"-test.{name}" for name in (*_PROFILES.split(), "testlogfile", "gocoverdir")]
_GO_FILES += ["-test.fuzzcachedir"]
GO = OptionTable(
    dict.fromkeys(_GO_FILES, _WHERE),
    lines(f"""
-exec,-toolexec,-vettool: runs the program it names
-overlay: compiles other files in place of the project's
-modfile,-C: {_ELSEWHERE}
-pkgdir: links packages compiled elsewhere
-ldflags,-gcflags,-asmflags,-gccgoflags: passes flags that can make a compiler run or write
"""),
    single_dash=True,
    harmless_if={
        **when(inside, "-modfile -C"),
        **when(_plain_tool_flags, "-ldflags -gcflags -asmflags -gccgoflags"),
    },
)


def judge_go(args: tuple[str, ...], verdict: Verdict) -> None:
    if "--" in args:  # go test hands what follows to the test binary, -test.* flags too
        judge_options_of("go … --", GO, args[args.index("--") + 1 :], verdict)
    if args[:1] == ("env",) and {"-w", "-u"} & set(args):
        verdict.runs.append("go env -w sets what later go commands run")


MAKE = OptionTable(
    {},
    lines("""
-f,--file,--makefile: reads a makefile from outside the project, whose recipes run
-C,--directory: runs the makefile of a folder outside the project
-I,--include-dir: includes makefiles from a folder outside the project
-E,--eval: reads the text it is given as makefile rules
"""),
    values="CfIjlOoWE",
    abbreviations=True,
    harmless_if=when(inside, "-f --file --makefile -C --directory -I --include-dir"),
)

JUST = OptionTable(
    {},
    lines("""
-f,--justfile,-d,--working-directory: runs the recipes of a justfile outside the project
--shell,--shell-arg,--set,--command,-c: runs a program or sets what recipes run
-E,--dotenv-path,--dotenv-filename: reads variables, which can change what recipes run
-g,--global-justfile,-e,--edit: runs the user's global justfile or an editor
"""),
    values="fdcE",
    harmless_if=when(inside, "-f --justfile -d --working-directory"),
)
_ASSIGNMENT = re.compile(r"[^=\s-][^=\s]*?([+:?!]*)=(.*)", re.DOTALL)


def judge_assignments(name: str) -> Callable[[tuple[str, ...], Verdict], None]:
    """``make VAR=value``: a variable set on the line can replace any command a recipe
    runs (``SHELL``, ``CC``); only a number is harmless."""

    def judge(args: tuple[str, ...], verdict: Verdict) -> None:
        for word in args:  # after --, too: make still reads VAR=value there
            found = _ASSIGNMENT.fullmatch(word)
            if found and not (found.group(1) == "" and found.group(2).isdigit()):
                shown = word if len(word) <= 30 else word[:29] + "…"
                verdict.runs.append(f"{name} {shown} sets a variable its recipes can run")

    return judge


BUN = OptionTable(
    lines(f"""
--coverage-dir,--reporter-outfile,--outfile,--outdir: {_WHERE}
-u,--update-snapshots: rewrites the snapshot files
"""),
    lines("""
-e,--eval,-p,--print: runs code given on the command line
-r,--preload,--require,--import: loads a module the line names, which is code
-c,--config,--cwd: reads a configuration or project outside this one
--env-file: sets environment variables, which can change what runs
--inspect,--inspect-brk,--inspect-wait: opens a debugger port through which code can run
"""),
    values="eprct",
    harmless_if=when(inside, "-r --preload --require --import -c --config --cwd --env-file"),
)

TABLES = {"cargo": CARGO, "go": GO, "make": MAKE, "gmake": MAKE, "just": JUST, "bun": BUN}
EXTRA: dict[str, Callable[[tuple[str, ...], Verdict], None]] = {
    "cargo": judge_cargo,
    "go": judge_go,
    "make": judge_assignments("make"),
    "gmake": judge_assignments("make"),
    "just": judge_assignments("just"),
}


# -- runners ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Runner:
    """A runner's harmless options: ``flags`` take no value, ``valued`` take one;
    ``module``: options saying the program is a module (``uv run -m pytest``)."""

    flags: frozenset[str]
    valued: frozenset[str] = frozenset()
    module: frozenset[str] = frozenset()


def _runner(flags: str, valued: str = "", module: str = "") -> Runner:
    return Runner(frozenset(flags.split()), frozenset(valued.split()), frozenset(module.split()))


_QUIET = "-q --quiet -v --verbose -vv -vvv"
RUNNERS = {
    "uv": _runner(
        f"{_QUIET} --frozen --locked --no-sync --offline --no-dev --dev --only-dev --exact "
        "--inexact --isolated --no-project --no-editable --native-tls --no-cache -n "
        "--no-progress --all-packages --all-extras --all-groups --no-default-groups --active "
        "--no-active --no-config --no-env-file --no-python-downloads",
        "--extra --no-extra --group --no-group --only-group --package --color",
        module="-m --module",
    ),
    "poetry": _runner(f"{_QUIET} -n --no-interaction --ansi --no-ansi --no-plugins --no-cache"),
    "pdm": _runner(f"{_QUIET} -s --site-packages"),
    "hatch": _runner(_QUIET),
}


def runner_program(name: str, args: tuple[str, ...], verdict: Verdict) -> int | None:
    """For ``NAME [options] run [options] PROGRAM …``, the index in ``args`` of PROGRAM;
    an option not known to be harmless goes into ``verdict``, and then None."""
    runner = RUNNERS.get(name)
    if runner is None:
        return None
    unknown, index, seen_run = "", 0, False
    while index < len(args) and not unknown:
        word = args[index]
        if not word.startswith("-") or word == "--":
            if word == "--" or seen_run:
                index += word == "--"
                return index if index < len(args) else None
            if word != "run":
                return None
            seen_run = True
        elif word in runner.module and seen_run:
            return index + 1 if index + 1 < len(args) else None
        elif word.partition("=")[0] in runner.valued:
            index += "=" not in word
        elif word not in runner.flags:
            unknown = word
        index += 1
    if unknown and (seen_run or "run" in args[index:]):
        shown = unknown if len(unknown) <= 30 else unknown[:29] + "…"
        verdict.runs.append(f"{name} {shown}: a runner's options can install or pick what runs")
    return None


# -- installers ------------------------------------------------------------------------

# Subcommands installing what their operands name. A package's own code (npm's install
# scripts, a setup.py, a build backend) runs as it installs, so an operand or option
# value that is not a path inside the project (``.``, ``./pkg``, ``-r requirements.txt``)
# counts as running code the line names, like ``uv run --with PKG``.
_INSTALLS = frozenset(
    {("npm", "install"), ("npm", "i"), ("npm", "add"), ("pnpm", "add"), ("pnpm", "install")}
    | {("pnpm", "i"), ("yarn", "add"), ("bun", "add"), ("bun", "install"), ("bun", "i")}
    | {("pip", "install"), ("pip3", "install"), ("uv", "add"), ("poetry", "add")}
    | {("pdm", "add")}
)
_INSTALL_FILES = frozenset({"-r", "--requirement", "-c", "--constraint"})


def judge_installs(name: str, args: tuple[str, ...], verdict: Verdict) -> None:
    at = 2 if name == "uv" and args[:2] == ("pip", "install") else 1
    if at == 1 and (name, args[0] if args else "") not in _INSTALLS:
        return
    words = args[at:]
    for index, word in enumerate(words):
        # An option's value is an operand too: --index-url=URL, --editable=git+URL.
        option, equals, value = word.partition("=") if word.startswith("-") else ("", "", word)
        if word == "--" or (option and not equals):
            continue
        base = value.split("[", 1)[0]  # .[test]: the project with its extras
        local = base == "." or (base.startswith("./") and inside(base))
        named_by = option or (words[index - 1] if index else "")
        if local or (named_by in _INSTALL_FILES and inside(value)):
            continue
        shown = value if len(value) <= 30 else value[:29] + "…"
        verdict.runs.append(
            f"{name} {args[at - 1]} {shown} installs what the line names, whose own code runs"
        )
        return
