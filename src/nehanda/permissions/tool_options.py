"""The options of test runners, linters and type checkers that write or run something else.

A prefix rule such as ``Bash(pytest:*)`` or ``Bash(npx jest:*)`` means "run the project's
tests": it must not let ``pytest --basetemp=src`` (pytest empties that folder first),
``pytest -p plugin``, ``mypy --install-types`` or ``jest --setupFiles=../x.js`` through.
Each tool has one ``OptionTable``: the options that ``writes`` (name a file or folder the
tool writes or deletes) and that ``runs`` (load code or a program the line names, install
packages, read more options nobody can see), each with what it does, in the words the
prompt shows. A configuration or module named by a path inside the project is the
project's own, like its ``conftest.py``, and stays allowed (``inside``). Everything else
(``pytest -x -q -k expr tests/``) stays allowed too: an option not in a table only reads,
or the tool's parser refuses it.

How each parser reads long options decides how a word is matched (``abbreviations``):
argparse and Ruby's OptionParser take any unambiguous prefix (mypy, pylint, flake8,
tox, nox, rspec: ``--install-ty``); pytest refuses them since 6.0, but older versions a
project may pin take them, so they count there too. ruff's parser (clap), the JavaScript
tools' (yargs, cac, optionator, command-line-args) and tsc take whole names only; yargs
and cac read ``--setup-files`` as ``--setupFiles`` and tsc ignores case, hence ``fold``.
``judge_table`` applies a table; the JavaScript and Ruby tools' tables are in
``js_options``, the build tools' in ``build_options``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nehanda.permissions.options import Verdict

# Given an option's value, whether it makes the option harmless after all.
ValueCheck = Callable[[str], bool]


@dataclass(frozen=True, eq=False)
class OptionTable:
    """``values``: short options taking a value, which end a cluster (``-kexpr``);
    ``single_dash``: long names also take one dash (``-outDir``, go's ``-exec``), so a
    one-dash word is never a cluster; ``harmless_if``: options whose value can make them
    harmless (``-p no:cacheprovider``); ``plain``: harmless long names that abbreviate a
    risky one (``--co``); ``at_files``: ``@FILE`` reads more options from FILE;
    ``subcommands``: the tool's subcommands that run what they are given."""

    writes: Mapping[str, str]
    runs: Mapping[str, str]
    values: str = ""
    abbreviations: bool = False
    fold: bool = False
    single_dash: bool = False
    harmless_if: Mapping[str, ValueCheck] = field(default_factory=dict)
    plain: frozenset[str] = frozenset()
    at_files: bool = False
    subcommands: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def long_names(self) -> tuple[tuple[str, str], ...]:
        """The risky options a long option word can name, each as ``_fold`` makes it."""
        named = [option for option in (*self.writes, *self.runs) if option != "@"]
        if not self.single_dash:
            named = [option for option in named if option.startswith("--")]
        return tuple((_fold(self, option), option) for option in named)


@dataclass(frozen=True)
class Hit:
    option: str  # the table's spelling
    written: str  # as written, without its value
    value: str


def judge_table(name: str, table: OptionTable, args: tuple[str, ...], verdict: Verdict) -> None:
    """Add to ``verdict`` what ``args`` (before ``--``) ask of ``name`` beyond running it."""
    # Any word before -- may be the subcommand: tox --colored yes exec -- …
    words = args[: args.index("--")] if "--" in args else args
    if found := next((word for word in words if word in table.subcommands), None):
        verdict.runs.append(f"{name} {found} {table.subcommands[found]}")
    judge_options_of(name, table, args, verdict)


def judge_options_of(
    name: str, table: OptionTable, args: tuple[str, ...], verdict: Verdict
) -> None:
    """``judge_table`` without the subcommands: for words handed on to a tool."""
    for hit in scan(table, args):
        check = table.harmless_if.get(hit.option)
        if check is not None and check(hit.value):
            continue
        shown = _short(f"{name} {hit.written}")
        if hit.option in table.runs:
            verdict.runs.append(f"{shown} {table.runs[hit.option]}")
        else:
            verdict.writes.append(f"{shown} {table.writes[hit.option]}")


def scan(table: OptionTable, args: Iterable[str]) -> list[Hit]:
    """The risky options among ``args``, up to ``--``."""
    words = list(args)
    hits: list[Hit] = []
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else ""
        if word == "--":
            break
        if word.startswith("@") and table.at_files:
            hits.append(Hit("@", word, ""))
        elif word.startswith("--") or (table.single_dash and word.startswith("-")):
            written, equals, value = word.partition("=")
            hits.extend(
                Hit(o, written, value if equals else following) for o in _long(table, written)
            )
        elif word.startswith("-") and len(word) > 1:
            hits.extend(_cluster(table, word, following))
    return hits


def _fold(table: OptionTable, option: str) -> str:
    bare = option.lstrip("-")
    return re.sub(r"[-_]", "", bare).lower() if table.fold else bare


def _long(table: OptionTable, written: str) -> list[str]:
    """The risky options ``written`` names: its own, or every one it abbreviates."""
    given = _fold(table, written)
    # cac (vitest) reads --outputFile.junit=F as --outputFile: a dotted name counts as its head.
    heads = {given, given.split(".", 1)[0]}
    named = table.long_names
    exact = [option for folded, option in named if folded in heads]
    if not given or exact or not table.abbreviations or written in table.plain:
        return exact
    return [option for folded, option in named if folded.startswith(given)]


def _cluster(table: OptionTable, word: str, following: str) -> list[Hit]:
    """The risky short options of ``-abc``; a letter taking a value ends the cluster."""
    hits = []
    for position, letter in enumerate(word[1:], start=2):
        option = f"-{letter}"
        if option in table.writes or option in table.runs:
            hits.append(Hit(option, option, word[position:] or following))
        if letter in table.values:
            break
    return hits


def _short(text: str) -> str:
    return text if len(text) <= 48 else text[:47] + "…"


def lines(text: str) -> dict[str, str]:
    """A table's options from lines of ``OPTION[,OPTION…]: what it does``."""
    found = {}
    for line in text.strip().splitlines():
        options, why = line.split(": ", 1)
        found.update(dict.fromkeys(options.split(","), why))
    return found


def inside(value: str) -> bool:
    """Whether a path as written stays inside the folder the command runs in."""
    parts = value.split("/")
    return (
        bool(value)
        and not value.startswith(("/", "~"))
        and ".." not in parts
        and not (set(value) & set("$`:\\"))
    )


def when(check: ValueCheck, options: str) -> dict[str, ValueCheck]:
    return dict.fromkeys(options.split(), check)


# -- Python ------------------------------------------------------------------------

_READ_ONLY_INI = frozenset(
    {"log_cli", "log_cli_level", "log_level", "console_output_style", "xfail_strict"}
    | {"verbosity_assertions", "verbosity_test_cases", "junit_family"}
)
_OTHER_OPTIONS = "reads more options from a file nehanda cannot see"
_OTHER_PYTHON = "picks another Python, whose code runs"
_OTHER_CONFIG = "reads a configuration from outside the project, which can load plugins"
_REPORT = "writes a report where it says"


def _warning_filter(value: str) -> bool:
    """A -W filter whose category names no module, or one pytest has loaded anyway."""
    module = "".join(value.split(":")[2:3]).rpartition(".")[0]
    return module in ("", "builtins", "warnings", "pytest") or module.startswith("_pytest.")


def _cache_dir(value: str) -> bool:
    return value == "/dev/null" or inside(value)


PYTEST = OptionTable(
    lines(f"""
--basetemp: empties the folder it names, then writes there
--junitxml,--junit-xml,--resultlog,--result-log,--report-log,--html: {_REPORT}
--json-report-file,--log-file,--debug,--cov-report: {_REPORT}
--rootdir: moves pytest's cache there, and can load conftest.py files from above it
--pastebin: uploads the test output to a paste service
--rsyncdir: copies files to other machines
"""),
    lines(f"""
-p: loads a plugin, which is code
-c,--config-file,--inifile: {_OTHER_CONFIG}
-o,--override-ini: sets configuration, which can load any plugin or write elsewhere
--confcutdir: loads conftest.py files from folders outside the project
--pyargs: imports and runs the tests of installed packages
--pdbcls,--cov-config: loads a module the line names
-W,--pythonwarnings: imports the module its warning category names
--tx: runs tests in other Pythons or on other machines
@: {_OTHER_OPTIONS}
"""),
    values="kmpcoWrn",
    abbreviations=True,
    at_files=True,
    plain=frozenset({"--co", "--cov", "--pdb", "--tb"}),
    harmless_if={
        "-p": lambda value: value.startswith("no:"),
        **when(lambda value: value.partition("=")[0] in _READ_ONLY_INI, "-o --override-ini"),
        "--cov-report": lambda value: ":" not in value,
        **when(_warning_filter, "-W --pythonwarnings"),
        **when(inside, "-c --config-file --inifile --confcutdir --rootdir"),
    },
)

MYPY = OptionTable(
    lines(f"""
--junit-xml,--html-report,--txt-report,--xml-report,--xslt-html-report: {_REPORT}
--xslt-txt-report,--linecount-report,--linecoverage-report,--lineprecision-report: {_REPORT}
--any-exprs-report,--cobertura-xml-report,--memory-xml-report: {_REPORT}
--cache-dir: writes its cache where it says
"""),
    lines(f"""
--install-types: installs packages
--python-executable: {_OTHER_PYTHON}
--config-file: {_OTHER_CONFIG}
@: {_OTHER_OPTIONS}
"""),
    abbreviations=True,
    at_files=True,
    harmless_if={"--config-file": inside, "--cache-dir": _cache_dir},
)

PYLINT = OptionTable(
    lines(f"""
--output: {_REPORT}
"""),
    lines(f"""
--load-plugins: loads plugins, which are code
--init-hook: runs the Python code it is given
--rcfile: {_OTHER_CONFIG}
--output-format: can load a reporter class from any module
@: {_OTHER_OPTIONS}
"""),
    abbreviations=True,
    at_files=True,
    harmless_if={
        # json:report.json writes a file, and a dotted name loads a reporter class
        "--output-format": lambda value: re.fullmatch(r"[\w,-]+", value) is not None,
        **when(inside, "--rcfile"),
    },
)

FLAKE8 = OptionTable(
    lines(f"""
--output-file: {_REPORT}
"""),
    lines(f"""
--config,--append-config: {_OTHER_CONFIG}
--require-plugins: names plugins to load
"""),
    abbreviations=True,
    harmless_if=when(inside, "--config --append-config"),
)


def _ruff_config(value: str) -> bool:
    """An inline setting that moves no cache, or a file inside the project."""
    if "=" in value and not value.endswith(".toml"):
        return "cache" not in value
    return inside(value)


RUFF = OptionTable(
    lines(f"""
--fix,--fix-only,--unsafe-fixes,--add-noqa: changes the files it checks
-o,--output-file: {_REPORT}
--cache-dir: writes its cache where it says
--config: reads a configuration from outside the project, which can move ruff's cache
"""),
    {},
    values="o",
    harmless_if={"--config": _ruff_config, "--cache-dir": _cache_dir},
)

PYRIGHT = OptionTable(
    lines("""
--createstub,--writebaseline: writes into the project's stubs or baseline
"""),
    lines(f"""
--pythonpath: {_OTHER_PYTHON}
-p,--project: reads a configuration from outside the project, which can pick another Python
-v,--venvpath: picks another environment, whose Python runs
"""),
    values="ptv",
    harmless_if=when(inside, "-p --project"),
)

TOX = OptionTable(
    lines(f"""
--workdir: writes its environments where it says
--result-json,--report-json: {_REPORT}
--no-provision,--devenv: writes where it says
"""),
    lines(f"""
--installpkg,--force-dep: installs the package it names
-c,--conf,--root: reads a configuration from outside the project, whose commands run
-x,--override: changes the configuration, commands included
--discover: {_OTHER_PYTHON}
@: {_OTHER_OPTIONS}
"""),
    values="ecxmfpn",
    abbreviations=True,
    at_files=True,
    harmless_if=when(inside, "-c --conf --root"),
    subcommands=dict.fromkeys(("exec", "e", "devenv", "d"), "runs or installs what it is given"),
)

NOX = OptionTable(
    lines(f"""
--envdir: writes its environments where it says
--report: {_REPORT}
"""),
    lines(f"""
-f,--noxfile: runs the sessions of a file outside the project
-P,--force-python,--extra-python,--extra-pythons: {_OTHER_PYTHON}
--download-python: downloads and runs a Python
@: {_OTHER_OPTIONS}
"""),
    values="fPsekt",
    abbreviations=True,
    harmless_if={
        **when(lambda value: "/" not in value, "-P --force-python --extra-python --extra-pythons"),
        **when(inside, "-f --noxfile"),
    },
)

TABLES: dict[str, OptionTable] = {
    "pytest": PYTEST,
    "py.test": PYTEST,
    "mypy": MYPY,
    "pylint": PYLINT,
    "flake8": FLAKE8,
    "ruff": RUFF,
    "pyright": PYRIGHT,
    "basedpyright": PYRIGHT,
    "tox": TOX,
    "nox": NOX,
}
