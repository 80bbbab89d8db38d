"""What the child does between fork and exec to enter the sandbox.

In order: a new user namespace (the uid and gid mapped to themselves, so files keep
their owners) with a network namespace, a PID namespace or both, then for a PID
namespace its init (``pid_namespace.split``: the process goes on as the namespace's
second), ``no_new_privs`` (setuid programs cannot gain rights), the Landlock ruleset,
then the seccomp filter. Each step either works or raises, and a raise in
``preexec_fn`` stops the command before it runs.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from dataclasses import dataclass

from nehanda.sandbox import landlock, pid_namespace, seccomp

CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
_NAMES = {
    CLONE_NEWUSER: "CLONE_NEWUSER",
    CLONE_NEWPID: "CLONE_NEWPID",
    CLONE_NEWNET: "CLONE_NEWNET",
}
_PR_SET_NO_NEW_PRIVS = 38


@dataclass(frozen=True)
class ChildSteps:
    """Everything prepared in the parent; ``__call__`` only makes syscalls and forks.
    ``namespaces`` are the CLONE_NEW* flags to unshare (0: none)."""

    libc: ctypes.CDLL
    ruleset: int
    namespaces: int
    seccomp_filter: seccomp.Prepared | None
    uid: int
    gid: int

    def __call__(self) -> None:
        libc = self.libc
        if self.namespaces:
            enter_namespaces(libc, self.uid, self.gid, self.namespaces)
        if self.namespaces & CLONE_NEWPID:
            pid_namespace.split(libc)
        no_new_privs(libc)
        landlock.restrict_self(libc, self.ruleset)
        if self.seccomp_filter is not None:
            seccomp.install(libc, self.seccomp_filter)


def no_new_privs(libc: ctypes.CDLL) -> None:
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise _error("prctl(PR_SET_NO_NEW_PRIVS)")


def enter_namespaces(
    libc: ctypes.CDLL, uid: int, gid: int, flags: int = CLONE_NEWUSER | CLONE_NEWNET
) -> None:
    """A new user namespace and the others in ``flags``."""
    flags |= CLONE_NEWUSER
    if libc.unshare(flags) != 0:
        named = "|".join(name for flag, name in _NAMES.items() if flags & flag)
        raise _error(f"unshare({named})")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def first_of_pid_namespace(libc: ctypes.CDLL, uid: int, gid: int) -> None:
    """Raises unless a child forked after the unshare is PID 1 of its own namespace."""
    enter_namespaces(libc, uid, gid, CLONE_NEWPID)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports by its exit code only
        os._exit(0 if os.getpid() == 1 else 1)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise OSError(f"no PID namespace: the first child got another PID (status {status})")


def _write(path: str, text: str) -> None:
    handle = os.open(path, os.O_WRONLY)
    try:
        os.write(handle, text.encode())
    finally:
        os.close(handle)


def _error(call: str) -> OSError:
    number = ctypes.get_errno()
    return OSError(number, f"{call}: {os.strerror(number)}")


def probe(step: Callable[[ctypes.CDLL], None]) -> bool:
    """Whether ``step`` works in a forked child (which then exits at once)."""
    libc = landlock.libc()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports by its exit code only
        code = 1
        try:
            step(libc)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
