"""The TCP servers' bounds: a connection cap, an idle timeout, a bounded worker pool.

Each connection has a thread that only reads requests, waits and writes answers; the
commands themselves run on a :class:`WorkerPool` of ``threads`` workers (the server's
command layer owns it), so threads are at most ``max_connections + threads`` and one
client's heavy command never holds another client's connection thread. A connection
past the cap gets the server's refusal and is closed; a connection silent for
``idle_timeout`` seconds is closed. A client that hangs
up or goes quiet is routine: nothing is printed for it (a traceback per client filled
stderr under a flood, and a full stderr pipe stalled the server).
"""

from __future__ import annotations

import socket
import socketserver
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["BoundedServer", "ServerLimits", "WorkerPool"]

T = TypeVar("T")


@dataclass(frozen=True)
class ServerLimits:
    """How much a TCP server takes on.

    Attributes
    ----------
    max_connections
        Connections open at once; one more is refused and closed.
    idle_timeout
        Seconds a connection may stay silent (or not read its answer) before it is closed.
    """

    max_connections: int = 128
    idle_timeout: float = 120.0

    def __post_init__(self) -> None:
        if self.max_connections < 1 or not self.idle_timeout > 0:
            raise ValueError(
                "max_connections must be at least 1 and idle_timeout positive "
                f"(got {self.max_connections}, {self.idle_timeout})"
            )


class WorkerPool:
    """Runs commands on at most ``threads`` threads of their own; the caller waits."""

    def __init__(self, threads: int) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1 (got {threads})")
        self.threads = threads
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="rserini-worker")

    def run(self, work: Callable[[], T]) -> T:
        """``work()``, run on a worker once one is free."""
        return self._executor.submit(work).result()

    def close(self) -> None:
        """Drops queued commands; a running one finishes on its own."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class BoundedServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    """A thread per connection, at most ``limits.max_connections`` of them.

    ``refusal`` is written (without blocking) to a connection past the cap before it is
    closed. Every accepted connection has ``TCP_NODELAY`` (an answer is one write: Nagle's
    wait for the client's delayed ACK only adds latency) and the idle timeout.
    """

    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 64
    refusal = b""

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[socketserver.BaseRequestHandler],
        limits: ServerLimits,
        name: str,
    ) -> None:
        self.limits = limits
        self.name = name
        self._open = threading.BoundedSemaphore(limits.max_connections)
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._open.acquire(blocking=False):
            try:
                request.setblocking(False)
                request.send(self.refusal)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            request.settimeout(self.limits.idle_timeout)
            super().process_request(request, client_address)
        except BaseException:
            self._open.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._open.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):  # hung up, reset or timed out: routine
            return
        print(f"rserini serve {self.name}: {type(error).__name__}: {error}", file=sys.stderr)
