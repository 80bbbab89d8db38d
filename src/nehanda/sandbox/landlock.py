"""Landlock through ctypes: the ABI the kernel offers, and a ruleset built from grants.

Landlock only allows: a rule grants rights on a file or on a folder and everything
beneath it, and every right the ruleset handles is refused wherever no rule grants it.
``build_ruleset`` runs in nehanda (it opens paths, which may fail and must be reported);
``restrict_self`` runs in the child between fork and exec and makes two syscalls.
The syscall numbers are the same on every architecture Linux gives Landlock.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_VERSION_FLAG = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5

BIND_TCP, CONNECT_TCP = 1, 2  # ABI 4
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1, 2  # ABI 6

READ = READ_FILE | READ_DIR | EXECUTE
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
WRITE = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE
    | IOCTL_DEV
)


def handled_fs(abi: int) -> int:
    """Every file-system right the kernel of ``abi`` knows: all of them are restricted."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The Landlock ABI the kernel offers; 0 where there is none (not Linux, too old,
    or switched off at boot)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), _VERSION_FLAG)
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


@dataclass(frozen=True)
class Grant:
    """``rights`` on ``path`` and beneath it; ``path`` is opened without following a
    final symlink, so a symlink gets the rights itself and its target none."""

    path: str
    rights: int


def build_ruleset(abi: int, grants: Iterable[Grant], *, close_tcp: bool, scoped: int) -> int:
    """A ruleset file descriptor holding ``grants`` (paths that do not exist are left
    out); ``OSError`` when the kernel refuses it."""
    libc = _libc()
    attr = _RulesetAttr(handled_fs(abi), (BIND_TCP | CONNECT_TCP) if close_tcp else 0, scoped)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = int(libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0))
    if ruleset < 0:
        raise _os_error("landlock_create_ruleset")
    try:
        for grant in grants:
            _add_path(libc, ruleset, grant, handled_fs(abi))
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def _add_path(libc: ctypes.CDLL, ruleset: int, grant: Grant, handled: int) -> None:
    try:
        handle = os.open(grant.path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return
    try:
        rights = grant.rights & handled
        if not stat.S_ISDIR(os.fstat(handle).st_mode):
            rights &= FILE_RIGHTS
        if not rights:
            return
        rule = _PathBeneath(rights, handle)
        if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) < 0:
            raise _os_error(f"landlock_add_rule({grant.path})")
    finally:
        os.close(handle)


def libc() -> ctypes.CDLL:
    """The C library, loaded in the parent: the child between fork and exec must not
    ``dlopen`` (another thread may have held the loader's lock at fork)."""
    return _libc()


def restrict_self(libc: ctypes.CDLL, ruleset: int) -> None:
    """Put the calling process under ``ruleset``; meant for the child before exec."""
    if libc.syscall(_RESTRICT_SELF, ruleset, 0) < 0:
        raise _os_error("landlock_restrict_self")


def _os_error(call: str) -> OSError:
    number = ctypes.get_errno()
    return OSError(number, f"{call}: {os.strerror(number)}")
