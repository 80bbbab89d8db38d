"""Opening a resolved path below its root's descriptor, following no symlink on the way.

``paths`` checks a name (realpath, then containment) and a file tool then opens it;
in between, a process can swap a folder on the way for a symlink to somewhere else.
So the file tools open the resolved path again without following any symlink: the
root from ``/``, the rest below the root's descriptor. A resolved path holds no
symlink, so one met here means the path changed after it was checked: ``SymlinkMet``,
which the tools refuse. ``openat2`` (Linux 5.6+, syscall 437 through ctypes, as the
sandbox calls Landlock) does it in one call with ``RESOLVE_BENEATH |
RESOLVE_NO_SYMLINKS``; without it, a walk opens one component at a time with
``O_NOFOLLOW | O_DIRECTORY``. Missing folders are made the same way, each by a
``mkdir`` below the descriptor of the folder above it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import stat
import sys
from collections.abc import Callable
from functools import cache
from pathlib import PurePath

from nehanda.errors import ToolError
from nehanda.tools.paths import Placed, below

_OPENAT2 = 437  # the same number on every architecture in _SYSCALL_437
_SYSCALL_437 = frozenset({"x86_64", "aarch64", "riscv64", "ppc64le", "s390x"})
_RESOLVE_NO_MAGICLINKS, _RESOLVE_NO_SYMLINKS, _RESOLVE_BENEATH = 0x02, 0x04, 0x08
_RESOLVE = _RESOLVE_NO_MAGICLINKS | _RESOLVE_NO_SYMLINKS | _RESOLVE_BENEATH
_TOP = PurePath("/")
# A folder passed through on the way; O_PATH needs no read permission, only search.
_PASSING = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# A look at what a name is, a symlink itself included, without opening it for reading.
_LOOK = getattr(os, "O_PATH", os.O_RDONLY | os.O_NONBLOCK) | os.O_NOFOLLOW | os.O_CLOEXEC
# The folder a file is replaced in: readable, so that the rename can be synced.
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class SymlinkMet(OSError):
    """A symlink, or a way out of the root, met where the resolved path had none."""


class _OpenHow(ctypes.Structure):
    _fields_ = [
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    ]


def race_refusal(tool: str, shown: str) -> ToolError:
    """What a tool answers when ``SymlinkMet`` stopped it."""
    return ToolError(
        tool, f"{shown} changed while it was being opened (a symlink appeared); refused."
    )


def open_beneath(placed: Placed, flags: int, mode: int = 0) -> int:
    """A descriptor of ``placed.path`` opened with ``flags`` (``O_CLOEXEC`` added)."""
    root = _open_root(placed)
    try:
        return _open_below(root, placed.relative, flags | os.O_CLOEXEC, mode)
    finally:
        os.close(root)


def open_folder(placed: Placed, *, create: bool = False) -> int:
    """A readable descriptor of the folder holding ``placed.path``; with ``create``,
    missing folders are made first (``FileNotFoundError`` without it)."""
    root = _open_root(placed)
    try:
        try:
            return _open_below(root, placed.folder, _FOLDER)
        except FileNotFoundError:
            if not create:
                raise
        return _make_folders(root, placed.folder)
    finally:
        os.close(root)


def open_entry(folder: int, name: str, flags: int, mode: int = 0) -> int:
    """``name`` in the folder open as ``folder``, not followed if it is a symlink."""
    return _step(folder, name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)


def _open_root(placed: Placed) -> int:
    """The root, from ``/``: it was resolved too, so a symlink in it is a change."""
    top = os.open("/", _PASSING)
    try:
        return _open_below(top, below(placed.root, _TOP), _PASSING)
    finally:
        os.close(top)


def _open_below(directory: int, relative: str, flags: int, mode: int = 0) -> int:
    if use_openat2():
        return _openat2(directory, relative, flags, mode)
    return _walk(directory, relative, flags, mode)


@cache
def use_openat2() -> bool:
    """Whether this kernel has ``openat2`` (it may be missing, or a seccomp filter's)."""
    if not sys.platform.startswith("linux") or platform.machine() not in _SYSCALL_437:
        return False
    top = os.open("/", _PASSING)
    try:
        os.close(_openat2(top, ".", _PASSING, 0))
    except OSError:
        return False
    finally:
        os.close(top)
    return True


@cache
def _syscall() -> Callable[..., int]:
    from nehanda.sandbox.landlock import libc

    syscall: Callable[..., int] = libc().syscall
    return syscall


def _openat2(directory: int, relative: str, flags: int, mode: int) -> int:
    # With O_NOFOLLOW a final symlink is not followed, so RESOLVE_NO_SYMLINKS lets it be:
    # O_DIRECTORY then says ENOTDIR, O_PATH opens the symlink itself. Without, it is ELOOP.
    flags &= ~os.O_NOFOLLOW
    how = _OpenHow(flags, mode if flags & os.O_CREAT else 0, _RESOLVE)
    path = os.fsencode(relative)
    result = int(
        _syscall()(
            _OPENAT2, directory, path, ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how))
        )
    )
    if result >= 0:
        return result
    number = ctypes.get_errno()
    if number in (errno.ELOOP, errno.EXDEV):
        raise SymlinkMet(number, os.strerror(number), relative)
    raise OSError(number, os.strerror(number), relative)


def _walk(directory: int, relative: str, flags: int, mode: int) -> int:
    *folders, last = [part for part in relative.split("/") if part not in ("", ".")] or ["."]
    current = directory
    try:
        for part in folders:
            following = _step(current, part, _PASSING)
            if current != directory:
                os.close(current)
            current = following
        return _step(current, last, flags | os.O_NOFOLLOW, mode)
    finally:
        if current != directory:
            os.close(current)


def _make_folders(root: int, relative: str) -> int:
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    current = root
    try:
        for number, part in enumerate(parts):
            flags = _FOLDER if number == len(parts) - 1 else _PASSING
            try:
                following = _step(current, part, flags)
            except FileNotFoundError:
                # Made meanwhile, perhaps: opening it next decides whether it is a folder.
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=current)
                following = _step(current, part, flags)
            if current != root:
                os.close(current)
            current = following
        return current if current != root else os.open(".", _FOLDER, dir_fd=root)
    except BaseException:
        if current != root:
            os.close(current)
        raise


def _step(directory: int, name: str, flags: int, mode: int = 0) -> int:
    """One component below ``directory``; a symlink there is ``SymlinkMet``."""
    if name == "..":
        raise SymlinkMet(errno.EXDEV, "a way out of the root", name)
    try:
        return os.open(name, flags, mode, dir_fd=directory)
    except OSError as error:
        if error.errno == errno.ELOOP or (
            error.errno == errno.ENOTDIR and _changed(directory, name)
        ):
            raise SymlinkMet(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


def _changed(directory: int, name: str) -> bool:
    """Whether ``name``, found not to be a folder, is a symlink or a folder after all:
    the resolved path had a folder there, so either means it changed. Asked of a
    descriptor of ``name`` itself, so the answer is about what was opened."""
    try:
        handle = os.open(name, _LOOK, dir_fd=directory)
    except OSError as error:
        return error.errno == errno.ELOOP
    try:
        kind = stat.S_IFMT(os.fstat(handle).st_mode)
    finally:
        os.close(handle)
    return kind in (stat.S_IFLNK, stat.S_IFDIR)
