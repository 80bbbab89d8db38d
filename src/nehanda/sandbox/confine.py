"""``Sandbox``: what one Bash command may touch, and the steps that hold it to that.

The policy (writable roots, denied paths, whether the network is open) comes from
settings; ``Support`` says what this kernel offers, probed once. ``spawn`` builds a
fresh Landlock ruleset for each command (so it follows the file system of the moment)
and yields the ``preexec_fn`` the child runs. ``report`` says, part by part, what the
kernel enforces and what it cannot: shown by ``nehanda doctor``, ``/permissions`` and
the note at start.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from nehanda.sandbox import landlock, seccomp
from nehanda.sandbox.child import (
    CLONE_NEWNET,
    CLONE_NEWPID,
    ChildSteps,
    enter_namespaces,
    first_of_pid_namespace,
    no_new_privs,
    probe,
)
from nehanda.sandbox.denials import Denial, Held, judge, named_paths
from nehanda.sandbox.places import (
    DEVICES,
    SECRET_PLACES,
    default_writable,
    expand,
    read_only_places,
)
from nehanda.sandbox.tree import readable_grants

# Sockets reached by path, which a closed network must not leave behind in the environment.
SOCKET_VARIABLES = ("SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST")


class Support:
    """What this kernel offers. Landlock's ABI is one system call, asked at once; the
    namespace and seccomp checks each fork a child, so each runs the first time it is
    asked (the first Bash command, a report), unless it was given."""

    def __init__(
        self,
        landlock_abi: int,
        user_namespaces: bool | None = None,
        seccomp: bool | None = None,
        pid_namespaces: bool | None = None,
    ) -> None:
        self.landlock_abi = landlock_abi
        self._user_namespaces = user_namespaces
        self._seccomp = seccomp
        self._pid_namespaces = pid_namespaces

    @property
    def user_namespaces(self) -> bool:
        if self._user_namespaces is None:
            uid, gid = os.getuid(), os.getgid()
            works = probe(lambda libc: enter_namespaces(libc, uid, gid))
            self._user_namespaces = self.landlock_abi > 0 and works
        return self._user_namespaces

    @property
    def pid_namespaces(self) -> bool:
        """Whether a command can have a PID namespace of its own (in a user namespace)."""
        if self._pid_namespaces is None:
            uid, gid = os.getuid(), os.getgid()
            works = self.user_namespaces and probe(
                lambda libc: first_of_pid_namespace(libc, uid, gid)
            )
            self._pid_namespaces = works
        return self._pid_namespaces

    @property
    def seccomp(self) -> bool:
        if self._seccomp is None:
            self._seccomp = self.landlock_abi > 0 and seccomp.supported() and _filters_self()
        return self._seccomp

    def as_dict(self) -> dict[str, int | bool]:
        """Every part, probed, as ``Support(**…)`` takes them back."""
        return {
            "landlock_abi": self.landlock_abi,
            "user_namespaces": self.user_namespaces,
            "seccomp": self.seccomp,
            "pid_namespaces": self.pid_namespaces,
        }


@cache
def probe_support() -> Support:
    """What this kernel offers; one per process, each part probed once."""
    return Support(landlock.abi_version())


def _user_may_write(path: str) -> bool:
    """Whether nehanda's user, unconfined, may write ``path``, or create it in the nearest
    folder above it that exists."""
    place = Path(path)
    while not os.path.lexists(place) and place != place.parent:
        place = place.parent
    return os.access(place, os.W_OK)


def _filters_self() -> bool:
    prepared = seccomp.Prepared(seccomp.program(refuse_unix_sockets=True))

    def filter_self(libc: ctypes.CDLL) -> None:
        no_new_privs(libc)
        seccomp.install(libc, prepared)

    return probe(filter_self)


@dataclass(frozen=True)
class Policy:
    """``writable`` and ``deny_read`` as written (``~`` and a final ``*`` allowed), on top
    of the defaults; ``secrets`` are the secret places, ``private`` nehanda's own folders,
    both always denied."""

    workspace: Path
    home: Path
    writable: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    private: tuple[str, ...] = ()
    network: bool = False
    secrets: tuple[str, ...] = SECRET_PLACES


@dataclass(frozen=True)
class Sandbox:
    policy: Policy
    support: Support

    @property
    def filesystem(self) -> bool:
        return self.support.landlock_abi > 0

    @property
    def network_closable(self) -> bool:
        """Whether the kernel can close the network at all; Landlock's TCP rules
        answer it without the forked check for a user namespace."""
        return self.support.landlock_abi >= 4 or self.support.user_namespaces

    @property
    def network_method(self) -> str | None:
        """How the network is closed: "namespace", "landlock-tcp", or ``None`` (open)."""
        if self.policy.network:
            return None
        if self.support.user_namespaces:
            return "namespace"
        return "landlock-tcp" if self.support.landlock_abi >= 4 else None

    def writable_roots(self) -> list[str]:
        written = default_writable(self.policy.workspace, self.policy.home)
        written += list(self.policy.writable)
        return sorted({p for w in written for p in expand(w, self.policy.home)})

    def denied_paths(self) -> list[str]:
        written = [*self.policy.secrets, *self.policy.deny_read, *self.policy.private, DEVICES]
        return sorted({p for w in written for p in expand(w, self.policy.home)})

    def unenforced_denials(self) -> list[str]:
        """Denied paths that exist inside a writable root: the kernel cannot close those."""
        roots = [Path(root) for root in self.writable_roots()]
        return [
            denied
            for denied in self.denied_paths()
            if any(Path(denied).is_relative_to(r) for r in roots) and os.path.lexists(denied)
        ]

    def may_write(self, path: Path) -> bool:
        """Whether a sandboxed command could write ``path`` (resolved)."""
        return any(path.is_relative_to(root) for root in self.writable_roots())

    def keeps_read_only(self, path: Path) -> bool:
        """Whether ``path`` (resolved) is code nehanda runs unconfined (its own environment,
        uv's cache, npx's packages), which no command may change, even in a writable root."""
        return any(path.is_relative_to(place) for place in read_only_places(self.policy.home))

    def may_read(self, path: Path) -> bool:
        """Whether a sandboxed command could read ``path`` (resolved)."""
        closed = any(path.is_relative_to(denied) for denied in self.denied_paths())
        return not closed or self.may_write(path)

    def denied(self, output: str, code: int | None) -> Denial | None:
        """What the sandbox denied during a command that ended with ``code``, as far as
        its ``output`` tells (``sandbox.denials``)."""
        if code == 0 or not self.filesystem:
            return None
        roots = tuple(os.path.realpath(root) for root in self.writable_roots())
        closed = tuple(os.path.realpath(place) for place in self.denied_paths())
        held = Held(roots, self.network_method is not None, closed)
        named = named_paths(output)
        unconfined = {path: os.path.realpath(path) for path in named if _user_may_write(path)}
        return judge(output, code, held, unconfined)

    def environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        if self.policy.network:
            return dict(environ)
        return {k: v for k, v in environ.items() if k not in SOCKET_VARIABLES}

    @contextlib.contextmanager
    def spawn(self) -> Iterator[ChildSteps | None]:
        """The child's steps for one command (``None`` where the kernel offers no sandbox);
        the ruleset is closed once the command has started."""
        if not self.filesystem:
            yield None
            return
        ruleset = self._ruleset()
        closed = not self.policy.network
        try:
            program = seccomp.program(refuse_unix_sockets=closed)
            yield ChildSteps(
                libc=landlock.libc(),
                ruleset=ruleset,
                namespaces=self._namespaces(),
                seccomp_filter=seccomp.Prepared(program) if self.support.seccomp else None,
                uid=os.getuid(),
                gid=os.getgid(),
            )
        finally:
            os.close(ruleset)

    def _namespaces(self) -> int:
        """The namespaces a command gets (a user namespace comes with any of them)."""
        flags = CLONE_NEWNET if self.network_method == "namespace" else 0
        return flags | (CLONE_NEWPID if self.support.pid_namespaces else 0)

    def _ruleset(self) -> int:
        abi = self.support.landlock_abi
        grants = readable_grants(self.denied_paths())
        grants.append(landlock.Grant(DEVICES, landlock.READ_DIR))
        everything = landlock.READ | landlock.WRITE
        grants += [landlock.Grant(root, everything) for root in self.writable_roots()]
        scoped = 0
        if abi >= 6:
            scoped = landlock.SCOPE_SIGNAL
            if not self.policy.network:
                scoped |= landlock.SCOPE_ABSTRACT_UNIX
        close_tcp = self.network_method == "landlock-tcp"
        return landlock.build_ruleset(abi, grants, close_tcp=close_tcp, scoped=scoped)

    def report(self) -> list[tuple[str, str]]:
        """(part, what holds it) for each part of the sandbox, in words."""
        abi = self.support.landlock_abi
        if not self.filesystem:
            files = "Bash sandbox off: this kernel has no Landlock (Linux 5.13 or later needed)"
        else:
            roots = ", ".join(self._short_roots())
            files = f"Bash sandbox (kernel, Landlock ABI {abi}): commands write only under {roots}"
        lines = [("writes", files)]
        if self.filesystem:
            reads = "the kernel closes the secret places and the Read deny rules' paths"
            unenforced = self.unenforced_denials()
            if unenforced:
                guarded = ", ".join(unenforced)
                reads += f"; inside a writable root, only nehanda's rules guard {guarded}"
            lines.append(("reads", reads))
            setid = "setuid and setgid bits refused (seccomp); " if self.support.seccomp else ""
            lines.append(("modes", f"{setid}other mode and time changes outside the roots pass"))
            if self.support.seccomp:
                lines.append(("io_uring", "refused (seccomp): programs fall back to epoll"))
        lines.append(("network", self._network_words()))
        lines.append(("processes", self._process_words()))
        return lines

    def _process_words(self) -> str:
        if self.filesystem and self.support.pid_namespaces:
            return "each command in a PID namespace of its own: what it leaves running ends with it"
        return (
            "what a command leaves running in its process group is stopped as it ends; "
            "a daemon that leaves the group (setsid) outlives it"
        )

    def _short_roots(self) -> list[str]:
        devices = [r for r in self.writable_roots() if r.startswith("/dev/")]
        others = [r for r in self.writable_roots() if not r.startswith("/dev/")]
        return others + (["the usual /dev devices"] if devices else [])

    def _network_words(self) -> str:
        method = self.network_method
        if self.policy.network:
            return "open ([sandbox] network = true)"
        unix = "; new UNIX sockets refused (seccomp)"
        if not self.support.seccomp:
            unix = "; socket files (an ssh agent's, docker's) stay reachable: no seccomp here"
        if method == "namespace":
            return f"closed by the kernel (a network namespace){unix}"
        if method == "landlock-tcp":
            return f"TCP closed by the kernel (Landlock); UDP is still open{unix}"
        return "open: this kernel can close it neither by namespace nor by Landlock"
