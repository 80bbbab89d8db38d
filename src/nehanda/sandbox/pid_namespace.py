"""A command in its own PID namespace, so that nothing it starts outlives it.

``unshare(CLONE_NEWPID)`` moves no process: the caller's next child becomes the new
namespace's init, and when the init ends the kernel kills whatever is left there, and
finishes that exit only once all of it is gone. ``split``, called between fork and exec
right after the unshare, makes three processes out of one:

- the caller stays outside and relays: it waits for the init, then ends as the command
  ended (the same exit code, or killed by the same signal); so whoever waits for it
  (nehanda, the MCP SDK) learns of the end once nothing the command started is left
  (background jobs, daemons that called ``setsid``);
- its child is the namespace's init (PID 1): it reaps the orphans the kernel hands it
  until the command ends, passes the command's status to the relay and ends too;
- the init's child (PID 2, its parent PID 1 as under any init) returns from ``split``
  and goes on to exec the command.

Signals need no forwarding: the three share the process group that nehanda and the MCP
SDK signal, so a Ctrl-C or a timeout's SIGTERM reaches the command and all of its group
directly; the relay and the init block every signal and so outlast it (SIGKILL aside:
the init then takes the namespace with it, as it does when the relay is killed). Both
close every descriptor but their pipe, so the command's output ends with the last
process of its own that holds it. Neither runs under Landlock: they are copies of
nehanda's memory, and a sandboxed process may trace, or read through /proc, only
processes of its own Landlock domain.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal

_PR_SET_PDEATHSIG = 1
_STATUS_BYTES = 16
_FAILED = 255


def split(libc: ctypes.CDLL) -> None:
    """Returns only in the command's process; the caller's process and the init end here."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    reading, writing = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(reading)
        command = os.fork()
        if command == 0:
            os.close(writing)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            return
        _serve_as_init(libc, command, writing)
    os.close(writing)
    _relay(init, reading)


def _serve_as_init(libc: ctypes.CDLL, command: int, writing: int) -> None:
    try:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        _close_all_but(writing)
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid == command:
                os.write(writing, str(status).encode())
                return
    finally:
        os._exit(_FAILED)


def _relay(init: int, reading: int) -> None:
    try:
        _close_all_but(reading)
        _, own = os.waitpid(init, 0)
        told = os.read(reading, _STATUS_BYTES)
        _end_as(int(told) if told else own)
    finally:
        os._exit(_FAILED)


def _end_as(status: int) -> None:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        # A copy of nehanda's memory must leave no core file behind.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        with contextlib.suppress(OSError, ValueError):
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {number})
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.WEXITSTATUS(status))


def _close_all_but(kept: int) -> None:
    os.closerange(0, kept)
    os.closerange(kept + 1, os.sysconf("SC_OPEN_MAX"))
