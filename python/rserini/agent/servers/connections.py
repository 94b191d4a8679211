"""The TCP servers' bounds: a connection cap, an idle timeout, a bounded worker pool.

The servers' loop (:mod:`~rserini.agent.servers.selector_server`) reads every
connection on one thread and runs the commands on a :class:`WorkerPool` of ``threads``
workers, so the threads are ``threads`` plus the loop's, however many connections are
open, and one client's heavy command never holds another client's answer. A connection
past the cap gets the server's refusal and is closed; a connection silent for
``idle_timeout`` seconds is closed. A client that hangs up or goes quiet is routine:
nothing is printed for it (a traceback per client filled stderr under a flood, and a
full stderr pipe stalled the server).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["ServerLimits", "WorkerPool"]

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

    def submit(self, work: Callable[[], object]) -> None:
        """Queues ``work()`` for the next free worker, without waiting (``work`` reports
        its own result and errors)."""
        self._executor.submit(work)

    def close(self) -> None:
        """Drops queued commands; a running one finishes on its own."""
        self._executor.shutdown(wait=False, cancel_futures=True)
