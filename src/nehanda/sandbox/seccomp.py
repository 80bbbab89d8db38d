"""A seccomp filter for sandboxed commands: no setuid bits, and no new UNIX sockets.

Landlock does not cover a file's mode, so a command could ``chmod u+s`` a program it
does not own when nehanda runs as root; the filter refuses every mode change that sets
the setuid or setgid bit. While the network is closed it also answers
``socket(AF_UNIX, ...)`` with EPERM: a network namespace hides TCP, UDP and abstract
UNIX sockets, but a socket file (``/run/docker.sock``, an ssh agent's, the session bus)
is reached by its path from any namespace. ``socketpair`` still works (it connects to
nothing outside). Syscalls of another ABI than the native one (x32, 32-bit
compatibility) are refused whole, since their numbers and arguments differ.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct

# Per architecture: the audit arch, socket's number, and each chmod call with the index
# of its mode argument.
_ARCHES = {
    "x86_64": (0xC000003E, 41, ((90, 1), (91, 1), (268, 2), (452, 2))),
    "aarch64": (0xC00000B7, 198, ((52, 1), (53, 2), (452, 2))),
}
_X32_BIT = 0x40000000
_AF_UNIX = 1
_SETID_BITS = 0o6000
_EPERM = 1
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS_W, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_PR_SET_SECCOMP, _MODE_FILTER = 22, 2
_REFUSE = _RET_ERRNO | _EPERM


def supported() -> bool:
    return platform.machine() in _ARCHES


def program(*, refuse_unix_sockets: bool) -> bytes:
    """The filter, as ``struct sock_filter`` entries."""
    arch, socket_nr, chmods = _ARCHES[platform.machine()]
    steps = [
        (_LD_ABS_W, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, _REFUSE),
        (_LD_ABS_W, 0, 0, 0),  # seccomp_data.nr
        (_JGE_K, 0, 1, _X32_BIT),
        (_RET_K, 0, 0, _REFUSE),
    ]
    for number, mode_arg in chmods:
        steps += _argument_check(number, mode_arg, (_JSET_K, 0, 1, _SETID_BITS))
    if refuse_unix_sockets:
        steps += _argument_check(socket_nr, 0, (_JEQ_K, 0, 1, _AF_UNIX))
    steps.append((_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(struct.pack("=HBBI", *step) for step in steps)


def _argument_check(
    number: int, argument: int, test: tuple[int, int, int, int]
) -> list[tuple[int, int, int, int]]:
    """For syscall ``number`` only: refuse when ``test`` on the low half of the argument
    holds, else allow; any other syscall falls through to the next check."""
    return [
        (_JEQ_K, 0, 4, number),
        (_LD_ABS_W, 0, 0, 16 + 8 * argument),  # seccomp_data.args[argument], low half
        test,
        (_RET_K, 0, 0, _REFUSE),
        (_RET_K, 0, 0, _RET_ALLOW),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Prepared:
    """The filter laid out in memory before fork, so that the child allocates nothing."""

    def __init__(self, filter_bytes: bytes) -> None:
        self._buffer = ctypes.create_string_buffer(filter_bytes, len(filter_bytes))
        self.program = _Program(len(filter_bytes) // 8, ctypes.cast(self._buffer, ctypes.c_void_p))


def install(libc: ctypes.CDLL, prepared: Prepared) -> None:
    """Load the filter into the calling process (no_new_privs must be set already)."""
    if libc.prctl(_PR_SET_SECCOMP, _MODE_FILTER, ctypes.byref(prepared.program), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp filter: {os.strerror(number)}")
