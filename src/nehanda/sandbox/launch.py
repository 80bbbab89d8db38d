"""Runs a program under a ``Sandbox`` when the caller cannot give it a ``preexec_fn``.

The MCP SDK starts a stdio server itself, so a server with ``sandbox = true`` is started
as ``python -m nehanda.sandbox.launch SANDBOX_JSON -- COMMAND ARGS...``: this process
takes the sandbox's child steps for itself (the same ``Sandbox.spawn`` as a Bash
command) and then becomes the server by ``exec``, so no part of the server runs outside.
With a PID namespace it is the relay instead (``pid_namespace``): the server runs as the
namespace's second process, this one ends as it ends, and whatever the server started
ends with it.
A step that fails ends it with a one-line reason on stderr, before the server runs.
The temp folder travels with the policy: it is a writable root, and the server's
environment (the SDK's small default set) may not name the one nehanda's does.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from nehanda.sandbox.confine import Policy, Sandbox, Support

# -E and -P: neither PYTHON* variables nor the server's working folder may put another
# module in place of this one.
_PYTHON_FLAGS = ("-E", "-P")
_FAILED = 126


def launch_argv(sandbox: Sandbox, command: str, args: Sequence[str]) -> list[str]:
    """The command line that runs ``command args`` inside ``sandbox``."""
    policy, support = dataclasses.asdict(sandbox.policy), sandbox.support.as_dict()
    described = json.dumps(
        {"policy": policy, "support": support, "tempdir": tempfile.gettempdir()}, default=str
    )
    return [sys.executable, *_PYTHON_FLAGS, "-m", __name__, described, "--", command, *args]


def _sandbox(described: str) -> Sandbox:
    data = json.loads(described)
    policy = data["policy"]
    tempfile.tempdir = data["tempdir"]
    return Sandbox(
        Policy(
            workspace=Path(policy["workspace"]),
            home=Path(policy["home"]),
            writable=tuple(policy["writable"]),
            deny_read=tuple(policy["deny_read"]),
            private=tuple(policy["private"]),
            network=bool(policy["network"]),
            secrets=tuple(policy["secrets"]),
        ),
        Support(**data["support"]),
    )


def main(argv: Sequence[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print(
            "usage: python -m nehanda.sandbox.launch SANDBOX_JSON -- COMMAND ARGS...",
            file=sys.stderr,
        )
        return 2
    sandbox, command = _sandbox(argv[0]), list(argv[2:])
    try:
        with sandbox.spawn() as steps:
            if steps is None:
                print(
                    "nehanda: this kernel offers no sandbox; the server was not started",
                    file=sys.stderr,
                )
                return _FAILED
            steps()
        os.execvpe(command[0], command, sandbox.environment(os.environ))
    except OSError as error:
        print(f"nehanda: cannot start {command[0]!r} in the sandbox: {error}", file=sys.stderr)
        return _FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
