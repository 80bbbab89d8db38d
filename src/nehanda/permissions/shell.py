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
  set for or used as the command, shell keywords, subshells, here-documents.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPERS = _names(
    "env timeout gtimeout xargs sudo doas su runuser nohup nice ionice time command builtin "
    "exec stdbuf setsid chroot unshare strace ltrace watch flock parallel script unbuffer "
    "busybox chronic caffeinate"
)
SHELLS = _names("bash sh zsh dash ksh mksh fish csh tcsh ash")
KEYWORDS = _names(
    "if then else elif fi for while until do done case esac function select coproc { } ! [[ ]]"
)
FIND_ACTIONS = _names("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_SHELL_C_FLAG = re.compile(r"-[A-Za-z]*c[A-Za-z]*")
# Deeper nesting than this is not analysed further; it is a risk in itself.
_MAX_DEPTH = 4
# A wrapper's own options come first: "sudo -u x cmd", "timeout 5 cmd", "nice -n 10 cmd".
_MAX_WRAPPED_TAILS = 4


@dataclass(frozen=True)
class SimpleCommand:
    words: tuple[str, ...]
    text: str  # as written, for prompts and suggested rules


@dataclass(frozen=True)
class ShellCommand:
    parts: tuple[SimpleCommand, ...]
    inner: tuple[SimpleCommand, ...]
    risks: tuple[str, ...]

    def everywhere(self) -> tuple[SimpleCommand, ...]:
        return self.parts + self.inner


def analyse(command: str, depth: int = 0) -> ShellCommand:
    scanner = _Scanner(command, depth)
    scanner.scan(stop_at_paren=False)
    return ShellCommand(tuple(scanner.parts), tuple(scanner.inner), tuple(scanner.risks))


@dataclass
class _Scanner:
    text: str
    depth: int
    i: int = 0
    parts: list[SimpleCommand] = field(default_factory=list)
    inner: list[SimpleCommand] = field(default_factory=list)
    risks: list[str] = field(default_factory=list)
    _words: list[str] = field(default_factory=list)
    _word: list[str] | None = None
    _expanded: bool = False  # the current word holds a $-expansion
    _quoted: bool = False  # the current word holds a quote
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
            self._add(char)
            self.i += 1

    # -- words -------------------------------------------------------------

    def _add(self, chars: str) -> None:
        if self._word is None:
            self._word = []
        self._word.append(chars)

    def _end_word(self) -> None:
        if self._word is None:
            return
        word, expanded = "".join(self._word), self._expanded
        self._word, self._expanded, self._quoted = None, False, False
        if self._redirect is not None:
            self._judge_redirect(self._redirect, word, expanded)
            self._redirect = None
        else:
            in_command_position = all(_ASSIGNMENT.match(done) for done in self._words)
            if expanded and in_command_position and not _ASSIGNMENT.match(word):
                self._risk(f"the command name comes from an expansion ({_short(word)})")
            self._words.append(word)

    def _end_part(self) -> None:
        self._end_word()
        if self._redirect is not None:
            self._risk(f"a redirection ({self._redirect}) has no target")
            self._redirect = None
        text = self.text[self._start : self.i].strip()
        if self._words:
            self._judge_words(tuple(self._words), text)
            self.parts.append(SimpleCommand(tuple(self._words), text))
        self._words = []

    def _risk(self, reason: str) -> None:
        if reason not in self.risks:
            self.risks.append(reason)

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
        self._quoted = True
        self.i += 2

    def _single_quoted(self) -> None:
        end = self.text.find("'", self.i + 1)
        if end < 0:
            self._risk("a quote is never closed")
            end = len(self.text)
        self._add(self.text[self.i + 1 : end])
        self._quoted = True
        self.i = end + 1

    def _double_quoted(self) -> None:
        self._add("")
        self._quoted = True
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

    def _adopt(self, nested: _Scanner) -> None:
        self.inner.extend(nested.parts + nested.inner)
        for reason in nested.risks:
            self._risk(reason)

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

    def _judge_words(self, words: tuple[str, ...], text: str) -> None:
        index = 0
        while index < len(words) and _ASSIGNMENT.match(words[index]):
            index += 1
        if 0 < index < len(words):
            self._risk(f"sets environment variables for the command ({_short(words[0])} …)")
            self.inner.append(SimpleCommand(words[index:], text))
        if index == len(words):
            return
        name = PurePosixPath(words[index]).name
        if words[index] in KEYWORDS:
            self._risk(f"uses shell syntax ({words[index]})")
        elif name in WRAPPERS:
            self._risk(f"{name} runs another command")
            self._wrapped(words[index + 1 :], text)
        elif name == "eval":
            self._risk("eval runs a string as a command")
            self._nested(" ".join(words[index + 1 :]))
        elif name in SHELLS and (script := _shell_c_argument(words[index + 1 :])) is not None:
            self._risk(f"{name} -c runs a string as a command")
            self._nested(script)
        elif name == "find" and (actions := FIND_ACTIONS.intersection(words)):
            self._risk(f"find {min(actions)} runs commands or changes files")
            self._wrapped(words[index + 1 :], text)

    def _wrapped(self, words: tuple[str, ...], text: str) -> None:
        """The first few tails that could be the wrapped command, for deny rules to see."""
        starts = [
            start
            for start, word in enumerate(words)
            if not word.startswith("-") and not _ASSIGNMENT.match(word)
        ]
        for start in starts[:_MAX_WRAPPED_TAILS]:
            self.inner.append(SimpleCommand(words[start:], text))


def _shell_c_argument(words: tuple[str, ...]) -> str | None:
    """The command string of ``bash -c STRING`` (also ``-lc``, ``-ec``…), else None.

    A ``-c`` anywhere counts, even where it might belong to a script's own arguments:
    mistaking one makes a command ask, never run unasked.
    """
    for index, word in enumerate(words):
        if _SHELL_C_FLAG.fullmatch(word):
            return words[index + 1] if index + 1 < len(words) else ""
    return None


def _short(word: str) -> str:
    return word if len(word) <= 40 else word[:39] + "…"
