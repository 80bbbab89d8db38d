"""Linux inotify through ctypes: which watched folders something changed since the last read.

The kernel queues an event in the same system call that changes a folder's entry, so
once a command has exited every change it made is in the queue: reading it then
misses nothing. Only the folders matter here (the caller lists a changed folder
again), so events are reduced to the watches they came from. An overflowed queue,
or a folder that cannot be watched (the user's watch limit), is ``Lost``: the caller
falls back to walking everything.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

# What changes a file's metadata or a folder's list of entries.
CHANGES = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE
CHANGES |= IN_DELETE | IN_DELETE_SELF
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len: struct inotify_event


class Lost(Exception):
    """Changes may have gone unseen: walk everything again."""


class Inotify:
    """One inotify instance; ``watch`` a folder, ``changed`` the watches with events."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")

    def watch(self, folder: str) -> int:
        """The watch descriptor of ``folder`` (the same one for a folder watched already);
        ``Lost`` when it cannot be watched while it exists (the watch limit)."""
        mask = CHANGES | IN_ONLYDIR | IN_DONT_FOLLOW
        wd: int = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), mask)
        if wd < 0:
            code = ctypes.get_errno()
            if code in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                return -1  # gone or unreadable: its parent's next listing says so
            raise Lost(os.strerror(code))
        return wd

    def forget(self, wd: int) -> None:
        self._libc.inotify_rm_watch(self._fd, wd)

    def changed(self) -> tuple[set[int], set[int]]:
        """The watches with events since the last call, and those whose folder was
        deleted (another folder may have taken its name, and even its inode number)."""
        touched: set[int] = set()
        dropped: set[int] = set()
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return touched, dropped
            at = 0
            while at < len(data):
                wd, mask, _cookie, size = _HEADER.unpack_from(data, at)
                at += _HEADER.size + size
                if mask & IN_Q_OVERFLOW:
                    raise Lost("the inotify queue overflowed")
                (dropped if mask & (IN_IGNORED | IN_DELETE_SELF) else touched).add(wd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
