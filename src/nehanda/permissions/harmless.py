"""Commands that only read, and whether one may run unasked: ``reads``, ``runs_unasked``.

A Bash command made only of ``ls``, ``cat``, ``head``, ``tail``, ``wc``, ``pwd``,
``grep``, ``rg``, ``find`` (tests only, no actions) and ``git status|log|diff|show``,
joined by pipes or separators, reads files and lists folders and nothing else, as long
as every option it carries is one listed here (the tools' options are allow lists:
``tail -f``, ``grep -R``, ``rg --pre``, ``rg -z``, ``find -L`` and anything unknown are
not). git's options are too many to list: for git, ``permissions.options`` finds the
ones that write or run (``--output``, ``--ext-diff``, ``-c``), which make the command a
risk before it gets here. Such a command runs unasked only where the kernel sandbox
holds it and every path it may name lies inside the workspace and outside the secret
places: ``runs_unasked`` checks that against the facts the gate found (``Confinement``)
and the rules, and ``*``/``?`` globs are expanded as bash will (the file system is read
only for that and to resolve paths).

Conservative: each word that is not an option, and each option's value, is
taken as a path, so a pattern that looks like a path outside (``grep /etc x``) makes the
command ask. A word the shell expands (``$HOME``, ``$(…)``, ``{a,b}``, a ``[…]`` glob,
a ``~`` after ``=`` or ``:``) makes it not one of these.
"""

from __future__ import annotations

import glob
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from nehanda.permissions.command_paths import denied_path
from nehanda.permissions.rules import Rule, path_rule_reaches
from nehanda.permissions.secrets import is_secret
from nehanda.permissions.shell import HARMLESS_TARGETS, ShellCommand, SimpleCommand
from nehanda.tools.paths import is_inside


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class _Options:
    """``flags``: short options without a value; ``valued``: short ones taking one (the
    rest of the cluster or the next word); ``long``/``long_valued`` the same for long
    options (exact names: an abbreviation is not listed); ``optional``: long options
    whose value, if any, follows ``=``; ``numbers``: ``-5`` means ``-n 5``; ``walking``:
    options that make the command walk folders; ``walks``: it always may;
    ``plus_option``: an operand starting with ``+`` may be an option (``tail +5f`` is
    the old spelling of ``tail -f``)."""

    flags: str = ""
    valued: str = ""
    long: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    numbers: bool = False
    walking: frozenset[str] = frozenset()
    walks: bool = False
    plus_option: bool = False


_HEAD = _Options(
    "qvz", "nc", _names("quiet silent verbose zero-terminated"), _names("lines bytes"), numbers=True
)
_TAIL = replace(_HEAD, plus_option=True)
_TOOLS = {
    "ls": _Options(
        "aAbBcCdfFgGhiklmnNopqQrRsStuUvxXZ1",
        "",
        _names(
            "all almost-all escape ignore-backups classify directory human-readable si inode "
            "literal numeric-uid-gid quote-name recursive reverse size group-directories-first "
            "full-time no-group"
        ),
        _names("sort time time-style format indicator-style"),
        _names("color colour"),
        walking=_names("-R --recursive"),
    ),
    "cat": _Options(
        "AbeEnstTuv",
        long=_names(
            "show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting"
        ),
    ),
    "head": _HEAD,
    "tail": _TAIL,
    "wc": _Options("cmlwL", long=_names("bytes chars lines words max-line-length")),
    "pwd": _Options("LP"),
    "grep": _Options(
        "EFGPiyvwxcLloqsbHhnTZzUaIr",
        "efmABC",
        _names(
            "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case "
            "invert-match word-regexp line-regexp count files-with-matches "
            "files-without-match only-matching quiet silent no-messages byte-offset "
            "with-filename no-filename line-number initial-tab null null-data text recursive "
            "line-buffered"
        ),
        _names(
            "regexp file max-count after-context before-context context include exclude "
            "exclude-dir exclude-from binary-files label"
        ),
        _names("color colour"),
        walking=_names("-r --recursive"),
    ),
    "rg": _Options(
        "iIsSwvxcloqHhnNuUF0aPbp.",
        "efmMABCgtTrjEd",
        _names(
            "hidden no-ignore no-ignore-vcs no-ignore-parent no-ignore-dot no-ignore-global "
            "no-ignore-exclude no-config files files-with-matches files-without-match count "
            "count-matches fixed-strings ignore-case smart-case case-sensitive word-regexp "
            "line-regexp line-number no-line-number heading no-heading with-filename "
            "no-filename vimgrep json only-matching invert-match multiline multiline-dotall "
            "pcre2 text null null-data stats trim no-messages quiet column byte-offset "
            "unrestricted crlf passthru no-follow sort-files"
        ),
        _names(
            "glob iglob type type-not regexp file max-count max-depth max-columns context "
            "after-context before-context replace sort sortr encoding threads path-separator "
            "ignore-file"
        ),
        _names("color colors"),
        walks=True,
    ),
}
_FIND_TESTS = _names(
    "-print -print0 -ls -empty -true -false -prune -quit -depth -xdev -mount -readable "
    "-writable -executable -nouser -nogroup -a -o -and -or -not ! ( ) ,"
)
_FIND_VALUED = _names(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type "
    "-xtype -maxdepth -mindepth -size -mtime -mmin -atime -amin -ctime -cmin -newer "
    "-anewer -cnewer -user -group -uid -gid -perm -links -inum -samefile -lname -ilname "
    "-printf -fstype -used"
)
# git's own options that change nothing about what it reads or runs.
_GIT_GLOBAL = _names("--no-pager -P --no-optional-locks")
GIT_READS = _names("status log diff show")


@dataclass(frozen=True)
class Reading:
    """``paths``: the words that may name paths, as written (option values included);
    ``globs``: those holding a ``*`` or ``?`` the shell expands; ``walks``: some part
    may walk folders (``grep -r``, ``rg``, ``find``, ``ls -R``); ``git``: a part is git."""

    paths: tuple[str, ...]
    globs: tuple[str, ...]
    walks: bool
    git: bool


def reads(shell: ShellCommand) -> Reading | None:
    """What ``shell`` may read, if it is made only of commands that read; else None."""
    if shell.risks or shell.inner or not shell.parts:
        return None
    paths: list[str] = []
    globs: list[str] = []
    walks = git = False
    for part in shell.parts:
        found = _part(part)
        if found is None or not _plain_words(part):
            return None
        words, walking = found
        paths += words
        built = zip(part.words, part.built, strict=True)
        globs += [word for word, flags in built if "glob" in flags]
        walks, git = walks or walking, git or part.words[0] == "git"
    return Reading(tuple(paths), tuple(globs), walks, git)


def _plain_words(part: SimpleCommand) -> bool:
    """No word is built by an expansion or brace, none holds a ``[`` glob, and no ``~``
    follows ``=`` or ``:`` (bash may expand those)."""
    if len(part.built) != len(part.words):
        return False
    for word, built in zip(part.words, part.built, strict=True):
        if "expansion" in built or "brace" in built or ("glob" in built and "[" in word):
            return False
        if "=~" in word or ":~" in word:
            return False
    return True


def _part(part: SimpleCommand) -> tuple[list[str], bool] | None:
    """The path words of one simple command and whether it walks; None if it may do
    more than read."""
    name, args = part.words[0], part.words[1:]
    if any(not _harmless_target(target) for target in part.redirects):
        return None
    if name == "find":
        return _find(args)
    if name == "git":
        return _git(args)
    options = _TOOLS.get(name)
    return None if options is None else _parse(options, args)


def _harmless_target(target: str) -> bool:
    """``2>/dev/null``, ``2>&1``: nothing read or written; a file named asks."""
    return target in HARMLESS_TARGETS or target.isdigit() or target == "-"


def _parse(options: _Options, args: tuple[str, ...]) -> tuple[list[str], bool] | None:
    words: list[str] = []
    walks, index, operands_only = options.walks, 0, False
    while index < len(args):
        word = args[index]
        index += 1
        if operands_only or word == "-" or not word.startswith("-"):
            if options.plus_option and word.startswith("+"):
                return None
            words.append(word)
        elif word == "--":
            operands_only = True
        elif word.startswith("--"):
            name, equals, value = word[2:].partition("=")
            if name in options.long_valued and not equals:
                value, index = (args[index], index + 1) if index < len(args) else ("", index)
            elif not (
                (name in options.long and not equals)
                or (name in options.long_valued)
                or name in options.optional
            ):
                return None
            words += [value] if value else []
            walks = walks or f"--{name}" in options.walking
        else:
            cluster = _short(options, word, args[index] if index < len(args) else None)
            if cluster is None:
                return None
            value, took_next = cluster
            index += took_next
            words += [value] if value else []
            walks = walks or any(f"-{letter}" in options.walking for letter in word[1:])
    return words, walks


def _short(options: _Options, word: str, following: str | None) -> tuple[str, int] | None:
    """A short-option cluster's value and whether it took the next word; None if a
    letter is not listed."""
    if options.numbers and word[1:].isdigit():
        return "", 0
    for position, letter in enumerate(word[1:], 1):
        if letter in options.valued:
            rest = word[position + 1 :]
            if rest:
                return rest, 0
            return (following, 1) if following is not None else ("", 0)
        if letter not in options.flags:
            return None
    return "", 0


def _find(args: tuple[str, ...]) -> tuple[list[str], bool] | None:
    words: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word in _FIND_VALUED:
            if index >= len(args):
                return None
            words.append(args[index])
            index += 1
        elif word in _FIND_TESTS or word == "-P":
            continue
        elif word.startswith("-") and word != "-":
            return None  # -exec, -delete, -fprint, -L, -follow, -D, -O… and the unknown
        else:
            words.append(word)
    return words, True


def _git(args: tuple[str, ...]) -> tuple[list[str], bool] | None:
    index = 0
    while index < len(args) and args[index] in _GIT_GLOBAL:
        index += 1
    if index >= len(args) or args[index] not in GIT_READS:
        return None
    words = []
    for word in args[index + 1 :]:
        if "%G" in word or _long_names(word, "--show-signature"):
            return None  # checking a signature runs gpg
        if word.startswith("--"):
            _, equals, value = word.partition("=")
            words += [value] if equals and value else []
        elif word.startswith("-") and len(word) > 2:
            words.append(word[2:])  # -O/etc/x: a short option's value written onto it
        else:
            words.append(word)
    return words, False


def _long_names(word: str, option: str) -> bool:
    """Whether ``word`` is ``option`` or an abbreviation git accepts for it."""
    given = word.split("=", 1)[0]
    return len(given) > 3 and given.startswith("--") and option.startswith(given)


# -- where it may read ------------------------------------------------------------


# How many paths one glob may stand for before a command that only reads asks anyway.
_MAX_GLOB_MATCHES = 256


@dataclass(frozen=True)
class Confinement:
    """What holds a Bash command besides the rules, as the gate finds it.

    ``sandboxed``: the kernel sandbox confines it; ``secrets``: the places no command
    may read (normalised and resolved); ``repository``: the workspace has a repository
    of its own whose configuration makes git run nothing
    (``permissions.repository``); ``search_path_outside``: no
    ``PATH`` entry is relative or inside the workspace, so ``ls`` is not a program the
    workspace holds. Until all hold, a command that only reads asks like any other.
    """

    sandboxed: bool = False
    secrets: tuple[Path, ...] = ()
    repository: bool = False
    search_path_outside: bool = False


# Where nothing is known to hold a command: what only reads asks like anything else.
UNCONFINED = Confinement()


def runs_unasked(
    shell: ShellCommand,
    deny: tuple[Rule, ...],
    ask: tuple[Rule, ...],
    workspace: Path,
    held: Confinement,
) -> bool:
    """Whether ``shell`` may run unasked: it only reads, and only where it may, under the
    deny and ask rules in force (``decision``, step 6)."""
    if not (held.sandboxed and held.search_path_outside):
        return False
    reading = reads(shell)
    if reading is None or (reading.git and not held.repository):
        return False
    if any(rule.covers("Read") and rule.specifier is None for rule in (*deny, *ask)):
        return False
    asked = [r for r in ask if r.tool in ("Read", "Edit") and r.specifier is not None]
    if denied_path(shell, asked, workspace):
        return False
    if reading.walks and _walk_meets_a_denial(deny, ask, workspace, held):
        return False
    globs = set(reading.globs)
    return all(
        _stays_inside(word, word in globs, workspace, held.secrets)
        for word in (*reading.paths, *reading.globs)
    )


def _walk_meets_a_denial(
    deny: tuple[Rule, ...], ask: tuple[Rule, ...], workspace: Path, held: Confinement
) -> bool:
    """Whether a walk of the workspace may meet a secret place or a path a Read deny or
    ask rule covers: neither the kernel (the workspace is writable, so it closes nothing
    inside) nor the text of the command would stop it there."""
    if any(is_inside(secret, workspace) for secret in held.secrets):
        return True
    return any(
        rule.tool == "Read" and rule.specifier is not None and path_rule_reaches(rule, workspace)
        for rule in (*deny, *ask)
    )


def _stays_inside(word: str, globbed: bool, workspace: Path, secrets: tuple[Path, ...]) -> bool:
    """Whether the path ``word`` names (every path, for a glob) resolves inside the
    workspace and outside the secret places, as bash will expand it."""
    if "\0" in word:
        return False
    if word.startswith("~"):
        try:
            word = str(Path(word).expanduser())
        except RuntimeError:
            return False  # ~+, ~- or an unknown user: bash's own expansion
        if word.startswith("~"):
            return False
    candidates = [str(workspace / word)]
    if globbed:
        if any(part.startswith(".") for part in Path(word).parts if "*" in part or "?" in part):
            return False  # bash may match . and .. where Python's glob does not
        matches = glob.glob(candidates[0])  # noqa: PTH207
        if len(matches) > _MAX_GLOB_MATCHES:
            return False
        candidates += matches
    for candidate in candidates:
        lexical = Path(os.path.normpath(candidate))
        for path in (lexical, Path(os.path.realpath(lexical))):
            if not is_inside(path, workspace) or is_secret(path, secrets):
                return False
        if not _file_or_folder(lexical):
            return False
    return True


def _file_or_folder(path: Path) -> bool:
    """Whether ``path`` is missing, a file or a folder: reading a FIFO, a socket or a
    device planted in the workspace may never end."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return True  # missing, or a loop of symlinks: the command fails
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)
