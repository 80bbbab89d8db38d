"""The garbage collector held off while nehanda starts, and out of the way at its exit.

Start-up makes a few hundred thousand objects (modules, classes, dataclasses' generated
methods, compiled patterns, settings models) that live as long as the process: the
collections their making triggers find no garbage and cost hundreds of milliseconds.
So the collector waits until a session is open (``settled``), and what start-up made is
then frozen (``gc.freeze``) out of every later collection's sight; at exit the same
freeze spares the interpreter a last pass over everything.
"""

from __future__ import annotations

import gc


def hold() -> None:
    """No collection until ``settled``: called first thing by the command line."""
    gc.disable()


def settled() -> None:
    """Start-up is over: what it made is frozen, and the collector runs again. Once only:
    what a session made later is its garbage to collect, never to freeze."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def exiting() -> None:
    """All that is left is frozen, so that exit collects nothing."""
    gc.freeze()
    gc.enable()
