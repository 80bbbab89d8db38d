"""A seccomp filter for sandboxed commands: no setuid bits, no io_uring, no new UNIX sockets.

Landlock does not cover a file's mode, so a command could ``chmod u+s`` a program it
does not own when nehanda runs as root; the filter refuses every mode change that sets
the setuid or setgid bit. io_uring is refused always: its operations (a socket, a
connect) run in the kernel without passing through this filter, so a ring would undo
every check below. It is answered with ENOSYS, as by a kernel built without it, never by
a kill: libuv (Node) and liburing try it at start and fall back to epoll and plain calls.

While the network is closed the filter also answers ``socket(AF_UNIX, ...)`` with EPERM:
a network namespace hides TCP, UDP and abstract UNIX sockets, but a socket file
(``/run/docker.sock``, an ssh agent's, the session bus) is reached by its path from any
namespace. ``socketpair`` gives UNIX sockets too: a stream or seqpacket pair is connected
to its other end for good (connect and an address on send are refused or ignored), but
a datagram end may still ``sendto`` or ``connect`` any path, so only those two types
pass (``SOCK_RAW`` is a datagram socket in ``AF_UNIX``). Syscalls of another ABI than the
native one (x32, 32-bit compatibility) are refused whole, since their numbers and
arguments differ.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct

# Per architecture: the audit arch, the numbers of socket and socketpair, and each chmod
# call with the index of its mode argument.
_ARCHES = {
    "x86_64": (0xC000003E, (41, 53), ((90, 1), (91, 1), (268, 2), (452, 2))),
    "aarch64": (0xC00000B7, (198, 199), ((52, 1), (53, 2), (452, 2))),
}
# io_uring_setup, io_uring_enter, io_uring_register: the same in both tables.
_IO_URING = (425, 426, 427)
_X32_BIT = 0x40000000
_AF_UNIX = 1
_SOCK_STREAM, _SOCK_SEQPACKET, _SOCK_TYPE_MASK = 1, 5, 0xF
_SETID_BITS = 0o6000
_EPERM, _ENOSYS = 1, 38
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS_W, _JEQ_K, _JGE_K, _JSET_K, _RET_K, _AND_K = 0x20, 0x15, 0x35, 0x45, 0x06, 0x54
_PR_SET_SECCOMP, _MODE_FILTER = 22, 2
_REFUSE = _RET_ERRNO | _EPERM
_ABSENT = _RET_ERRNO | _ENOSYS

Step = tuple[int, int, int, int]


def supported() -> bool:
    return platform.machine() in _ARCHES


def program(*, refuse_unix_sockets: bool) -> bytes:
    """The filter, as ``struct sock_filter`` entries."""
    arch, (socket_nr, socketpair_nr), chmods = _ARCHES[platform.machine()]
    steps: list[Step] = [
        (_LD_ABS_W, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, _REFUSE),
        (_LD_ABS_W, 0, 0, 0),  # seccomp_data.nr
        (_JGE_K, 0, 1, _X32_BIT),
        (_RET_K, 0, 0, _REFUSE),
    ]
    for number in _IO_URING:
        steps += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, _ABSENT)]
    for number, mode_arg in chmods:
        steps += _argument_check(number, mode_arg, (_JSET_K, 0, 1, _SETID_BITS))
    if refuse_unix_sockets:
        steps += _argument_check(socket_nr, 0, (_JEQ_K, 0, 1, _AF_UNIX))
        steps += _datagram_pair_check(socketpair_nr)
    steps.append((_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(struct.pack("=HBBI", *step) for step in steps)


def _datagram_pair_check(number: int) -> list[Step]:
    """For socketpair only: an ``AF_UNIX`` pair passes if its type (the low bits of the
    argument, without SOCK_NONBLOCK and SOCK_CLOEXEC) is stream or seqpacket."""
    return [
        (_JEQ_K, 0, 8, number),
        (_LD_ABS_W, 0, 0, 16),  # args[0], the domain
        (_JEQ_K, 0, 5, _AF_UNIX),
        (_LD_ABS_W, 0, 0, 24),  # args[1], the type
        (_AND_K, 0, 0, _SOCK_TYPE_MASK),
        (_JEQ_K, 2, 0, _SOCK_STREAM),
        (_JEQ_K, 1, 0, _SOCK_SEQPACKET),
        (_RET_K, 0, 0, _REFUSE),
        (_RET_K, 0, 0, _RET_ALLOW),
    ]


def _argument_check(number: int, argument: int, test: Step) -> list[Step]:
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
