"""``nehanda serve``'s processes: itself, or ``--workers N`` on one socket, each worker
handed its app, with the token and the keys, through the pipe it starts with.

uvicorn's own supervisor has each worker import the app by name, which leaves a worker
only its environment to learn the token and the upstream keys from, and nehanda keeps
those out of every child's environment (``secret_env.seal``): its workers let every
request through and sent no key. Here each worker is a ``multiprocessing`` spawn child
whose arguments (the uvicorn config, holding ``app.WorkerApp`` with the values inside)
are pickled into the pipe multiprocessing starts it with and reads at once: nothing is
written to a file or to an environment, and nothing stays behind once the worker has
read it. A worker that dies is started again the same way, the values sent again from
this process's memory; one that fails before it serves (uvicorn's ``STARTUP_FAILURE``)
stops them all.
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from types import FrameType

import uvicorn
from uvicorn.config import STARTUP_FAILURE


def run(config: uvicorn.Config, workers: int, sock: socket.socket) -> int:
    """Serves on ``sock`` (bound already) until stopped; the exit code."""
    if workers == 1:
        server = uvicorn.Server(config)
        server.run(sockets=[sock])
        return 0 if server.started else 1
    return _Supervisor(config, sock, workers).run()


def _serve(config: uvicorn.Config, sock: socket.socket) -> None:
    """A worker's life, in the spawned process."""
    config.configure_logging()
    uvicorn.Server(config).run(sockets=[sock])


class _Supervisor:
    def __init__(self, config: uvicorn.Config, sock: socket.socket, count: int) -> None:
        self._spawn = multiprocessing.get_context("spawn")
        self._config = config
        self._sock = sock
        self._count = count
        self._stopping = False

    def run(self) -> int:
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, self._stop)
        processes = [self._start() for _ in range(self._count)]
        failed = False
        try:
            while not self._stopping:
                wait([process.sentinel for process in processes], timeout=0.5)
                for index, process in enumerate(processes):
                    if process.exitcode is None or self._stopping:
                        continue
                    if process.exitcode == STARTUP_FAILURE:
                        failed = self._stopping = True
                    else:
                        processes[index] = self._start()
        finally:
            for process in processes:
                process.terminate()  # SIGTERM: uvicorn finishes what it answers, then exits
            for process in processes:
                process.join()
            self._sock.close()
        return 1 if failed else 0

    def _start(self) -> BaseProcess:
        process = self._spawn.Process(target=_serve, args=(self._config, self._sock), daemon=True)
        process.start()
        return process

    def _stop(self, number: int, frame: FrameType | None) -> None:
        self._stopping = True
