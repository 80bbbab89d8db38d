"""A seccomp filter that refuses new ``AF_UNIX`` sockets, while the network is closed.

A network namespace hides TCP, UDP and abstract UNIX sockets, but a socket file
(``/run/docker.sock``, an ssh agent's, the session bus) is reached by its path from any
namespace. The filter answers ``socket(AF_UNIX, ...)`` with EPERM; ``socketpair`` still
works (it connects to nothing outside). Syscalls of another ABI than the native one
(x32, 32-bit compatibility) are refused whole, since their socket calls look different.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct

_ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
_X32_BIT = 0x40000000
_AF_UNIX = 1
_EPERM = 1
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS_W, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_PR_SET_SECCOMP, _MODE_FILTER = 22, 2


def supported() -> bool:
    return platform.machine() in _ARCHES


def program() -> bytes:
    """The filter, as ``struct sock_filter`` entries."""
    arch, socket_nr = _ARCHES[platform.machine()]
    refuse = _RET_ERRNO | _EPERM
    steps = [
        (_LD_ABS_W, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, refuse),
        (_LD_ABS_W, 0, 0, 0),  # seccomp_data.nr
        (_JGE_K, 0, 1, _X32_BIT),
        (_RET_K, 0, 0, refuse),
        (_JEQ_K, 0, 3, socket_nr),
        (_LD_ABS_W, 0, 0, 16),  # low half of args[0], the family
        (_JEQ_K, 0, 1, _AF_UNIX),
        (_RET_K, 0, 0, refuse),
        (_RET_K, 0, 0, _RET_ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *step) for step in steps)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(filter_bytes: bytes) -> None:
    """Load the filter into the calling process (no_new_privs must be set already)."""
    buffer = ctypes.create_string_buffer(filter_bytes, len(filter_bytes))
    prog = _Program(len(filter_bytes) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_SECCOMP, _MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp filter: {os.strerror(number)}")
