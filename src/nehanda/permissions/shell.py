"""Split a bash command into the simple commands it runs, and find what a rule cannot judge.

Pure and conservative: it is not a full bash parser, but whatever it does not
understand makes a command riskier, never safer. ``analyse`` returns

- ``parts``: the simple commands at the top level, split at ``&&``, ``||``, ``;``,
  ``|``, ``&``, parentheses and newlines, each as words with quotes removed;
- ``inner``: commands found inside others (command substitutions, ``bash -c`` and
  ``eval`` strings, what a wrapper such as ``sudo`` or ``xargs`` runs), so that deny
  and ask rules can match them too;
- ``risks``: why no prefix rule may allow the command: command or process
  substitution, redirection to a file, ``eval`` and ``bash -c``, wrappers, variables
  set for or used as the command, shell keywords, subshells, here-documents, options
  that write files or run programs (``permissions.options``);
- ``unjudged``: why nobody can tell from the text what the command runs: a command
  name built by an expansion, a glob, a brace or spliced quotes (``/bin/r[m]``,
  ``$'\\x72m'``, ``{rm,-f,X}``, ``r''m``), ``eval`` and ``source``, a wrapper whose
  command cannot be found, an option that runs a program of its own. Where deny or
  ask rules are in force, such a command is not run unasked.

Each simple command keeps its redirection targets (``redirects``), so that path rules
can see them, and what built each word (``built``: an expansion, a glob, a brace).
``find … -delete`` is also seen as ``rm`` of the paths it searches.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from nehanda.permissions.options import judge_options
from nehanda.permissions.wrappers import (
    WRAPPERS,
    command_start,
    find_command_start,
    find_roots,
    script_argument,
    shell_c_argument,
)


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


SHELLS = _names("bash sh zsh dash ksh mksh fish csh tcsh ash")
KEYWORDS = _names(
    "if then else elif fi for while until do done case esac function select coproc { } ! [[ ]]"
)
FIND_ACTIONS = _names("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
# Deeper nesting than this is not analysed further; it is a risk in itself.
_MAX_DEPTH = 4
# The words after a wrapper that could start the command it runs, matched against deny
# and ask rules besides the one its shape names; a wrapper with more is not judged.
_MAX_WRAPPED_TAILS = 8
_GLOB_CHARS = frozenset("*?[")
# What a word in command position may be built by; the analyser cannot read such a name.
_BUILT_BY = {
    "expansion": "an expansion",
    "glob": "a glob",
    "brace": "a brace expansion",
    "spliced": "quotes spliced into it",
}


@dataclass(frozen=True)
class SimpleCommand:
    words: tuple[str, ...]
    text: str  # as written, for prompts and suggested rules
    redirects: tuple[str, ...] = ()  # the files its redirections name
    # For each word, what built it (``_BUILT_BY`` keys): a word the shell expands or globs.
    built: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True)
class ShellCommand:
    parts: tuple[SimpleCommand, ...]
    inner: tuple[SimpleCommand, ...]
    risks: tuple[str, ...]
    unjudged: tuple[str, ...] = ()

    def everywhere(self) -> tuple[SimpleCommand, ...]:
        return self.parts + self.inner


def analyse(command: str, depth: int = 0) -> ShellCommand:
    scanner = _Scanner(command, depth)
    scanner.scan(stop_at_paren=False)
    return ShellCommand(
        tuple(scanner.parts), tuple(scanner.inner), tuple(scanner.risks), tuple(scanner.unjudged)
    )


@dataclass
class _Scanner:
    text: str
    depth: int
    i: int = 0
    parts: list[SimpleCommand] = field(default_factory=list)
    inner: list[SimpleCommand] = field(default_factory=list)
    risks: list[str] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)
    _words: list[str] = field(default_factory=list)
    _word_flags: list[frozenset[str]] = field(default_factory=list)  # _BUILT_BY keys
    _redirects: list[str] = field(default_factory=list)
    _word: list[str] | None = None
    _expanded: bool = False  # the current word holds a $-expansion
    _quoted: bool = False  # the current word holds a quote
    _quotes: int = 0  # how many quoted pieces the current word has
    _flags: set[str] = field(default_factory=set)  # of the current word
    _redirect: str | None = None  # an operator waiting for its target word
    _start: int = 0

    def scan(self, *, stop_at_paren: bool) -> None:
        """Scan to the end, or to the ``)`` closing a substitution when ``stop_at_paren``."""
        nesting = 0
        while self.i < len(self.text):
            char = self.text[self.i]
            if char == ")" and stop_at_paren and nesting == 0:
                break
            if char in "()":
                nesting += 1 if char == "(" else -1
                self._risk("runs commands in a subshell or group ( … )")
                self._end_part()
                self.i += 1
                self._start = self.i
            else:
                self._step(char)
        self._end_part()

    def _step(self, char: str) -> None:
        if char in " \t":
            self._end_word()
            self.i += 1
        elif char == "\n" or char in ";&|":
            self._separator()
        elif char == "#" and self._word is None:
            end = self.text.find("\n", self.i)
            self.i = len(self.text) if end < 0 else end
        elif char == "\\":
            self._escape()
        elif char == "'":
            self._single_quoted()
        elif char == '"':
            self._double_quoted()
        elif char == "$":
            self._dollar()
        elif char == "`":
            self._backtick()
        elif char in "<>":
            self._redirection()
        else:
            self._plain(char)
            self.i += 1

    # -- words -------------------------------------------------------------

    def _add(self, chars: str) -> None:
        if self._word is None:
            self._word = []
        self._word.append(chars)

    def _plain(self, char: str) -> None:
        if char in _GLOB_CHARS:
            self._flags.add("glob")
        elif char == "{":
            self._flags.add("brace")
        self._flags.add("plain")
        self._add(char)

    def _quote_piece(self) -> None:
        self._quoted = True
        self._quotes += 1

    def _end_word(self) -> None:
        if self._word is None:
            return
        word, expanded = "".join(self._word), self._expanded
        flags = {flag for flag in self._flags if flag in _BUILT_BY}
        if expanded:
            flags.add("expansion")
        if self._quotes > 1 or (self._quotes and "plain" in self._flags):
            flags.add("spliced")
        self._word, self._expanded, self._quoted, self._quotes = None, False, False, 0
        self._flags = set()
        if self._redirect is not None:
            self._judge_redirect(self._redirect, word, expanded)
            self._redirect = None
        else:
            self._words.append(word)
            self._word_flags.append(frozenset(flags))

    def _end_part(self) -> None:
        self._end_word()
        if self._redirect is not None:
            self._risk(f"a redirection ({self._redirect}) has no target")
            self._redirect = None
        text = self.text[self._start : self.i].strip()
        if self._words or self._redirects:
            words, redirects, built = (
                tuple(self._words),
                tuple(self._redirects),
                tuple(self._word_flags),
            )
            self._judge_words(words, built, text, 0)
            self.parts.append(SimpleCommand(words, text, redirects, built))
        self._words, self._word_flags, self._redirects = [], [], []

    def _risk(self, reason: str) -> None:
        if reason not in self.risks:
            self.risks.append(reason)

    def _unjudged(self, reason: str) -> None:
        self._risk(reason)
        if reason not in self.unjudged:
            self.unjudged.append(reason)

    # -- separators, quotes and escapes --------------------------------------

    def _separator(self) -> None:
        pair = self.text[self.i : self.i + 2]
        if pair == "&>":
            self._redirection()
            return
        self._end_part()
        self.i += 2 if pair in ("&&", "||", "|&", ";;", ";&") else 1
        self._start = self.i

    def _escape(self) -> None:
        following = self.text[self.i + 1 : self.i + 2]
        if following == "\n":  # a line continuation joins the lines
            self.i += 2
            return
        self._add(following)
        self._quote_piece()
        self.i += 2

    def _single_quoted(self) -> None:
        end = self.text.find("'", self.i + 1)
        if end < 0:
            self._risk("a quote is never closed")
            end = len(self.text)
        self._add(self.text[self.i + 1 : end])
        self._quote_piece()
        self.i = end + 1

    def _double_quoted(self) -> None:
        self._add("")
        self._quote_piece()
        self.i += 1
        while self.i < len(self.text):
            char = self.text[self.i]
            if char == '"':
                self.i += 1
                return
            if char == "\\" and self.text[self.i + 1 : self.i + 2] in ('"', "\\", "$", "`", "\n"):
                self._add(self.text[self.i + 1])
                self.i += 2
            elif char == "$":
                self._dollar()
            elif char == "`":
                self._backtick()
            else:
                self._add(char)
                self.i += 1
        self._risk("a quote is never closed")

    # -- expansions and substitutions ---------------------------------------

    def _dollar(self) -> None:
        following = self.text[self.i + 1 : self.i + 2]
        if following == "(":
            self._substitution(self.i + 2, "runs a command substitution $( … )")
        elif following == "'":
            self._ansi_c_quoted()
        elif following and (following.isalnum() or following in "{_@*#?-$!"):
            self._expanded = True
            self._add("$")
            self.i += 1
        else:
            self._add("$")
            self.i += 1

    def _ansi_c_quoted(self) -> None:
        end = self.i + 2
        while end < len(self.text) and self.text[end] != "'":
            end += 2 if self.text[end] == "\\" else 1
        self._add(self.text[self.i : end + 1])
        self._expanded = True
        self.i = end + 1

    def _substitution(self, body_start: int, reason: str) -> None:
        """Scan a ``$( … )``, ``<( … )`` or ``>( … )`` body as commands of their own."""
        self._risk(reason)
        if self.depth >= _MAX_DEPTH:
            self._risk("commands nested too deeply to check")
            self._add(self.text[self.i :])
            self.i = len(self.text)
            return
        nested = _Scanner(self.text, self.depth + 1, i=body_start, _start=body_start)
        nested.scan(stop_at_paren=True)
        self._adopt(nested)
        end = min(nested.i + 1, len(self.text))
        self._add(self.text[self.i : end])
        self._expanded = True
        self.i = end

    def _backtick(self) -> None:
        self._risk("runs a command substitution ` … `")
        end = self.i + 1
        while end < len(self.text) and self.text[end] != "`":
            end += 2 if self.text[end] == "\\" else 1
        self._nested(self.text[self.i + 1 : end].replace("\\`", "`"))
        self._add(self.text[self.i : end + 1])
        self._expanded = True
        self.i = end + 1

    def _nested(self, command: str) -> None:
        if self.depth >= _MAX_DEPTH:
            self._risk("commands nested too deeply to check")
            return
        found = analyse(command, self.depth + 1)
        self.inner.extend(found.everywhere())
        for reason in found.risks:
            self._risk(reason)
        for reason in found.unjudged:
            self._unjudged(reason)

    def _adopt(self, nested: _Scanner) -> None:
        self.inner.extend(nested.parts + nested.inner)
        for reason in nested.risks:
            self._risk(reason)
        for reason in nested.unjudged:
            self._unjudged(reason)

    # -- redirections --------------------------------------------------------

    def _redirection(self) -> None:
        if self._word is not None and not self._quoted and "".join(self._word).isdigit():
            self._word = None  # "2>": the digits name the descriptor, not a word
        self._end_word()
        rest = self.text[self.i :]
        if rest[:2] in ("<(", ">("):
            self._substitution(self.i + 2, "runs a process substitution <( … )")
            return
        operator = re.match(r"&>>|&>|<<<|<<-|<<|<>|<&|>&|>>|>\||<|>", rest)
        assert operator is not None
        self._redirect = operator.group()
        self.i += len(self._redirect)
        if self._redirect in ("<<", "<<-"):
            self._risk("uses a here-document (<<)")

    def _judge_redirect(self, operator: str, target: str, expanded: bool) -> None:
        if operator in ("<<<", "<<", "<<-"):
            return
        self._redirects.append(target)
        if operator == "<":
            # bash itself opens /dev/tcp and /dev/udp paths as network connections, and
            # an expansion could put a secret into the address it looks up.
            if posixpath.normpath(target).startswith(("/dev/tcp/", "/dev/udp/")):
                self._risk(f"opens a network connection (< {_short(target)})")
            elif expanded:
                self._risk(f"reads from a path built by an expansion (< {_short(target)})")
            return
        if operator in (">&", "<&") and (target.isdigit() or target == "-"):
            return
        if target in HARMLESS_TARGETS:
            return
        self._risk(f"redirects output to a file ({operator} {_short(target)})")

    # -- what a simple command runs ------------------------------------------

    def _judge_words(
        self, words: tuple[str, ...], flags: tuple[frozenset[str], ...], text: str, depth: int
    ) -> None:
        index, assigns = 0, None
        while index < len(words) and (_ASSIGNMENT.match(words[index]) or words[index] in KEYWORDS):
            if words[index] in KEYWORDS:
                self._risk(f"uses shell syntax ({words[index]})")
                if words[index] == "function":
                    index += 1  # the function's name, not a command
            else:
                assigns = assigns or words[index]
            index += 1
        if index == len(words):
            return
        if assigns:
            self._risk(f"sets environment variables for the command ({_short(assigns)} …)")
        if index:
            self.inner.append(SimpleCommand(words[index:], text))
        if built := sorted(flags[index]):
            how = " and ".join(_BUILT_BY[flag] for flag in built)
            self._unjudged(f"the command name is built by {how} ({_short(words[index])})")
            if "expansion" in built:
                self._risk(f"the command name comes from an expansion ({_short(words[index])})")
        self._judge_command(words[index:], flags[index:], text, depth)

    def _judge_command(
        self, words: tuple[str, ...], flags: tuple[frozenset[str], ...], text: str, depth: int
    ) -> None:
        name, args = PurePosixPath(words[0]).name or words[0], words[1:]
        if name in WRAPPERS:
            self._risk(f"{name} runs another command")
            self._wrapped(name, args, flags[1:], text, depth)
        elif name in ("eval", "source", "."):
            if name == "eval":
                self._unjudged("eval runs a string as a command")
                self._nested(" ".join(args))
            else:
                self._unjudged(f"{name} runs a file's commands, which nehanda cannot read")
        elif name in SHELLS and (script := shell_c_argument(args)) is not None:
            self._risk(f"{name} -c runs a string as a command")
            self._nested(script)
        elif name in SHELLS:
            self._unjudged(f"{name} runs a script or its input, which nehanda cannot read")
        elif name == "find" and (actions := FIND_ACTIONS.intersection(args)):
            self._risk(f"find {min(actions)} runs commands or changes files")
            self._wrapped(name, args, flags[1:], text, depth)
            if "-delete" in actions:
                self.inner.append(SimpleCommand(("rm", "-r", "--", *find_roots(args)), text))
        verdict = judge_options(name, args, flags[1:])
        for reason in verdict.writes:
            self._risk(reason)
        for reason in verdict.runs:
            self._unjudged(reason)

    def _wrapped(
        self,
        name: str,
        words: tuple[str, ...],
        flags: tuple[frozenset[str], ...],
        text: str,
        depth: int,
    ) -> None:
        """What a wrapper runs: the command its shape names, judged in full, and the
        first few tails that could be it, for deny and ask rules to see."""
        if (script := script_argument(name, words)) is not None:
            self._risk(f"{name} runs a string as a command")
            self._nested(script)
        starts = [
            start
            for start, word in enumerate(words)
            if not word.startswith("-") and not _ASSIGNMENT.match(word)
        ]
        for tail in starts[:_MAX_WRAPPED_TAILS]:
            self.inner.append(SimpleCommand(words[tail:], text))
        start = command_start(name, words) if name != "find" else find_command_start(words)
        if start is not None and depth < _MAX_DEPTH:
            self.inner.append(SimpleCommand(words[start:], text))
            self._judge_words(words[start:], flags[start:], text, depth + 1)
        elif start is not None or (name != "find" and len(starts) > _MAX_WRAPPED_TAILS):
            self._unjudged(f"cannot tell which command {name} runs")


def _short(word: str) -> str:
    return word if len(word) <= 40 else word[:39] + "…"
