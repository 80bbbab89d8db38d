"""The MCP SDK, loaded on a worker thread: ``SdkLoad``.

Importing the SDK takes a second or more. A session begins it as soon as it knows a
server is configured, and goes on with its own start meanwhile (the provider's answer,
the engine's imports); only the servers' start waits for it. On CPython the import still
takes turns with the main thread, so the REPL holds it back (``begun=False``) until its
prompt is drawn, and ``begin``s it then. ``connection`` is the one
module that imports the SDK, so loading it loads the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import threading

_MODULE = "nehanda.tools.mcp.connection"


class SdkLoad:
    """The SDK loading on a daemon thread, which a closing session need not wait for."""

    def __init__(self, begun: bool = True) -> None:
        self._loop = asyncio.get_running_loop()
        self._done = asyncio.Event()
        self._thread: threading.Thread | None = None
        if begun:
            self.begin()

    def begin(self) -> None:
        """Starts the import, once."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._load, name="mcp-sdk-import", daemon=True)
            self._thread.start()

    def _load(self) -> None:
        # Any failure is raised again by ``loaded``, which imports in the waiting thread.
        with contextlib.suppress(Exception):
            importlib.import_module(_MODULE)
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
            self._loop.call_soon_threadsafe(self._done.set)

    async def loaded(self) -> None:
        """Returns once the SDK is loaded; ``ImportError`` when it is not installed."""
        await self._done.wait()
        importlib.import_module(_MODULE)
