"""Commands that run another command, and where in their words that command starts.

``WRAPPERS`` names them; ``command_start(name, args)`` finds the wrapped command's
first word in ``args`` from each wrapper's options (which take a value) and leading
operands (``timeout 5 cmd``, ``taskset -c 0 cmd``, ``chroot DIR cmd``), or returns None
when the shape is not one this table knows. ``script_argument`` gives the string some
of them hand to a shell (``flock F -c STRING``, ``su -c STRING``, ``watch STRING``,
``env -S STRING``). The shell analyser also matches deny and ask rules against every
word that could start the wrapped command, so a gap in this table makes a command
ask, never run unasked. ``shell_c_argument`` and ``find_command_start`` do the same for
``bash -c STRING`` and ``find … -exec CMD``; ``find_roots`` names the paths find searches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_SHELL_C_FLAG = re.compile(r"-[A-Za-z]*c[A-Za-z]*")


@dataclass(frozen=True)
class Shape:
    """``short``: short options taking a value; ``long``: long ones (without ``=``);
    ``operands``: words before the command; ``assignments``: NAME=value words skipped;
    ``script``: options whose value is a shell string."""

    short: str = ""
    long: frozenset[str] = frozenset()
    operands: int = 0
    assignments: bool = False
    script: frozenset[str] = frozenset()


def _shape(
    short: str = "",
    long: str = "",
    operands: int = 0,
    assignments: bool = False,
    script: str = "",
) -> Shape:
    return Shape(short, frozenset(long.split()), operands, assignments, frozenset(script.split()))


_SHAPES: dict[str, Shape] = {
    "env": _shape("uCS", "unset chdir split-string", assignments=True, script="-S --split-string"),
    "timeout": _shape("sk", "signal kill-after", operands=1),
    "gtimeout": _shape("sk", "signal kill-after", operands=1),
    "nice": _shape("n", "adjustment"),
    "ionice": _shape("cnpPu", "class classdata pid pgid uid"),
    "taskset": _shape(operands=1),
    "chrt": _shape("TPD", "sched-runtime sched-period sched-deadline", operands=1),
    "numactl": _shape(
        "iNmpCPbw",
        "interleave cpunodebind membind preferred physcpubind weighted-interleave",
    ),
    "prlimit": _shape("p", "pid"),
    "setpriv": _shape(
        "",
        "reuid regid ruid rgid euid egid groups inh-caps ambient-caps bounding-set "
        "securebits pdeathsig selinux-label apparmor-profile landlock-access landlock-rule",
    ),
    "stdbuf": _shape("ioe", "input output error"),
    "unbuffer": _shape(),
    "flock": _shape("wEc", "timeout conflict-exit-code command", operands=1, script="-c --command"),
    "time": _shape("fo", "format output"),
    "sudo": _shape(
        "ugCDhprtTUR",
        "user group close-from chdir host prompt role type command-timeout other-user chroot",
        assignments=True,
    ),
    "doas": _shape("uC"),
    "nohup": _shape(),
    "setsid": _shape(),
    "chronic": _shape(),
    "caffeinate": _shape("wt"),
    "builtin": _shape(),
    "command": _shape(),
    "exec": _shape("a"),
    "fakeroot": _shape("lsib", "lib faked"),
    "firejail": _shape(),
    "nsenter": _shape("tSG", "target setuid setgid"),
    "strace": _shape("oepsuEabIXPSO"),
    "ltrace": _shape("oepsuEabnAD"),
    "chroot": _shape("", "userspec groups", operands=1),
    "unshare": _shape("SGRwl", "setuid setgid root wd"),
    "runuser": _shape("ugcsw", "user group command shell", script="-c --command"),
    "su": _shape("gcsw", "group command shell", script="-c --command"),
    "script": _shape(
        "cEoTIOB", "command echo output-limit timing log-in log-out log-io", script="-c --command"
    ),
    "xargs": _shape("ILnPsdEa", "max-lines max-args max-procs max-chars delimiter eof arg-file"),
    "watch": _shape("nqd", "interval"),
    "busybox": _shape(),
    "cgexec": _shape("g"),
    "sg": _shape(operands=1),
    "systemd-run": _shape("upEM", "unit property setenv machine working-directory"),
    "bwrap": _shape(),
    "proxychains": _shape("f"),
    "proxychains4": _shape("f"),
    "torsocks": _shape("uapP"),
    "eatmydata": _shape(),
    "nocache": _shape(),
    "valgrind": _shape(),
    "catchsegv": _shape(),
    "dbus-run-session": _shape(),
    "xvfb-run": _shape("nsfep", "server-num server-args auth-file error-file"),
    "parallel": _shape(),
    "ssh-agent": _shape("aEPt"),
    "daemonize": _shape("aceEoplu"),
    "with-contenv": _shape(),
}

WRAPPERS = frozenset(_SHAPES)
# Forms in which the wrapper runs no command of its own choosing: "command -v git".
_NOT_RUNNING = {"command": frozenset({"-v", "-V"})}


def command_start(name: str, args: tuple[str, ...]) -> int | None:
    """Where the command ``name`` wraps starts in ``args``; None if none or unknown."""
    shape = _SHAPES.get(name)
    if shape is None or _NOT_RUNNING.get(name, frozenset()).intersection(args):
        return None
    operands, index = shape.operands, 0
    while index < len(args):
        word = args[index]
        if word == "--":
            index += 1
            break
        if word.startswith("--"):
            takes_value = "=" not in word and word[2:] in shape.long
            index += 2 if takes_value else 1
        elif word.startswith("-") and len(word) > 1:
            index += 2 if _short_value_follows(word, shape.short) else 1
        elif shape.assignments and _ASSIGNMENT.match(word):
            index += 1
        elif operands:
            operands -= 1
            index += 1
        else:
            return index
    while operands and index < len(args):
        operands -= 1
        index += 1
    return index if index < len(args) else None


def _short_value_follows(word: str, letters: str) -> bool:
    for position, letter in enumerate(word[1:], 1):
        if letter in letters:
            return position == len(word) - 1
    return False


def script_argument(name: str, args: tuple[str, ...]) -> str | None:
    """The shell string the wrapper ``name`` runs, if it runs one."""
    shape = _SHAPES.get(name)
    if name == "watch" and "-x" not in args and "--exec" not in args:
        start = command_start(name, args)
        return None if start is None else " ".join(args[start:])
    if shape is None or not shape.script:
        return None
    for index, word in enumerate(args):
        option, _, value = word.partition("=")
        if option in shape.script:
            return value if value else (args[index + 1] if index + 1 < len(args) else "")
    return None


def find_command_start(args: tuple[str, ...]) -> int | None:
    """Where the command of find's first -exec (-execdir, -ok, -okdir) starts."""
    for index, word in enumerate(args[:-1]):
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            return index + 1
    return None


def find_roots(args: tuple[str, ...]) -> tuple[str, ...]:
    roots = []
    for word in args:
        if word.startswith(("-", "(", "!")) and word not in ("-", "--"):
            break
        roots.append(word)
    return tuple(roots) or (".",)


def shell_c_argument(words: tuple[str, ...]) -> str | None:
    """The command string of ``bash -c STRING`` (also ``-lc``, ``-ec``…), else None.

    A ``-c`` anywhere counts, even where it might belong to a script's own arguments:
    mistaking one makes a command ask, never run unasked.
    """
    for index, word in enumerate(words):
        if _SHELL_C_FLAG.fullmatch(word):
            return words[index + 1] if index + 1 < len(words) else ""
    return None
