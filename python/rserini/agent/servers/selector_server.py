"""The TCP servers' event loop: one thread reads and writes every connection, a bounded
pool of workers answers the requests.

The loop (``serve_forever``, on the caller's thread) accepts connections, reads what
they send without blocking, and cuts it into whole requests (:meth:`Framing.next`); each
whole request goes to the :class:`~rserini.agent.servers.connections.WorkerPool` (or is
answered on the loop when it is as cheap as an RPC ``ping``), and its answer is written
back without blocking. A connection has at most one request in the works: its next one
waits in its buffer, so answers keep their order and a client that sends faster than it
reads is simply not read. An idle connection costs a buffer, not a thread: the process
has the loop's thread and the pool's, however many connections are open.

The bounds of :class:`ServerLimits` hold: a connection past ``max_connections`` gets the
server's refusal (written without blocking) and is closed; one that sends nothing, or
does not read its answer, for ``idle_timeout`` seconds is closed (a request being
answered does not count as silence). A client that hangs up or resets is routine: nothing
is printed for it.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from rserini.agent.servers.connections import ServerLimits, WorkerPool

__all__ = ["Answer", "Connection", "Framing", "SelectorServer", "Work"]

Answer = tuple[bytes, bool]
"""What a request gets: the bytes to write, and whether to close the connection then."""
Work = Callable[[], Answer]
"""A whole request, ready to be answered."""

_READ_SIZE = 256 * 1024
_CHEAP_PER_TURN = 64  # requests of one connection answered on the loop before others' turn


class Connection:
    """One client connection's state, owned by the loop's thread."""

    __slots__ = (
        "address",
        "busy",
        "closed",
        "eof",
        "events",
        "inbuf",
        "last_active",
        "outbuf",
        "sock",
        "state",
    )

    def __init__(self, sock: socket.socket, address: Any, now: float) -> None:
        self.sock = sock
        self.address = address
        self.inbuf = bytearray()
        self.outbuf = memoryview(b"")
        self.busy = False  # a request is being answered (or its answer written)
        self.eof = False  # the client sent everything it will send
        self.closed = False
        self.events = 0  # what the selector watches it for (0: not registered)
        self.last_active = now
        self.state: dict[str, object] = {}  # the framing's own (e.g. a line being skipped)


class Framing(Protocol):
    """A protocol's cutting of a connection's bytes into requests."""

    def next(self, conn: Connection) -> tuple[Work, bool] | None:
        """The next whole request of ``conn.inbuf`` (removed from it) and whether it is
        cheap enough to answer on the loop's thread, or ``None`` if none is whole yet.
        With ``conn.eof`` the rest of the buffer is all there will be."""
        ...

    def buffered(self, conn: Connection) -> int:
        """Bytes past which the loop stops reading ``conn`` (its largest request)."""
        ...


class SelectorServer:
    """A TCP server on 127.0.0.1 (or ``address``) run by one selector loop.

    Parameters
    ----------
    address
        ``(host, port)``; port 0 picks a free port (see ``server_address``).
    framing
        Cuts each connection's bytes into requests.
    threads
        Requests answered at once, at most (the worker pool's size).
    limits
        The connection cap and idle timeout.
    name
        ``http`` or ``rpc``, for the rare message on stderr (a bug's).
    """

    refusal = b""
    """Written to a connection past the cap before it is closed."""

    def __init__(
        self,
        address: tuple[str, int],
        framing: Framing,
        threads: int,
        limits: ServerLimits,
        name: str,
    ) -> None:
        self.framing = framing
        self.limits = limits
        self.name = name
        self.pool = WorkerPool(threads)
        self.listener = socket.create_server(address, backlog=1024)
        self.listener.setblocking(False)
        self.server_address = self.listener.getsockname()
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._done: collections.deque[tuple[Connection, Answer | None]] = collections.deque()
        self._resume: collections.deque[Connection] = collections.deque()  # more to answer
        self._connections: set[Connection] = set()
        self._stop = False
        self._stopped = threading.Event()
        self._stopped.set()

    # --- life cycle ----------------------------------------------------------------------

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Runs the loop until :meth:`shutdown`."""
        self._stopped.clear()
        self._selector.register(self.listener, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        tick = min(poll_interval, self.limits.idle_timeout / 4)
        next_check = time.monotonic() + tick
        try:
            while not self._stop:
                for key, events in self._selector.select(0 if self._resume else tick):
                    if key.fileobj is self.listener:
                        self._accept()
                    elif key.fileobj is self._wake_r:
                        self._drain_wake()
                    else:
                        self._on_ready(key.data, events)
                self._finish_answers()
                if time.monotonic() >= next_check:  # a scan of every connection, per tick
                    self._close_idle()
                    next_check = time.monotonic() + tick
        finally:
            self._selector.unregister(self.listener)
            self._selector.unregister(self._wake_r)
            self._stopped.set()

    def shutdown(self) -> None:
        """Stops :meth:`serve_forever` (from another thread) and waits for it."""
        self._stop = True
        self._wake()
        self._stopped.wait()

    def server_close(self) -> None:
        """Closes the listening socket, every connection and the pool."""
        for conn in list(self._connections):
            self._close(conn)
        self.listener.close()
        self._wake_r.close()
        self._wake_w.close()
        self._selector.close()
        self.pool.close()

    def __enter__(self) -> SelectorServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server_close()

    # --- the loop's steps --------------------------------------------------------------

    def _accept(self) -> None:
        while True:
            try:
                sock, address = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors, or a connection reset in the queue
                return
            sock.setblocking(False)
            if len(self._connections) >= self.limits.max_connections:
                with contextlib.suppress(OSError):
                    sock.send(self.refusal)
                sock.close()
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(sock, address, time.monotonic())
            self._connections.add(conn)
            self._update_interest(conn)

    def _on_ready(self, conn: Connection, events: int) -> None:
        if conn.closed:
            return
        if events & selectors.EVENT_WRITE:
            self._write(conn)
        if events & selectors.EVENT_READ and not conn.closed:
            self._read(conn)

    def _read(self, conn: Connection) -> None:
        try:
            data = conn.sock.recv(_READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # reset
            if conn.busy and not conn.outbuf:  # a worker holds the socket: closed after
                conn.eof = True
                conn.inbuf.clear()
                self._update_interest(conn)
            else:
                self._close(conn)
            return
        conn.last_active = time.monotonic()
        if data:
            conn.inbuf += data
        else:
            conn.eof = True
        self._advance(conn)

    def _advance(self, conn: Connection) -> None:
        """Starts the connection's next requests while none is in the works (at most
        :data:`_CHEAP_PER_TURN` answered on the loop, then the others' turn); closes it
        when the client is done and everything is answered."""
        for _ in range(_CHEAP_PER_TURN):
            if conn.busy or conn.closed:
                break
            try:
                found = self.framing.next(conn)
            except Exception as e:  # a bug must not stop the loop
                self._bug(e)
                self._close(conn)
                return
            if found is None:
                if conn.eof:
                    self._close(conn)
                    return
                break
            work, cheap = found
            conn.busy = True
            if not cheap:
                self.pool.submit(functools.partial(self._on_worker, conn, work))
                break
            self._deliver(conn, self._run(work))
        else:
            self._resume.append(conn)
        self._update_interest(conn)

    def _run(self, work: Work) -> Answer | None:
        try:
            return work()
        except Exception as e:
            self._bug(e)
            return None

    def _on_worker(self, conn: Connection, work: Work) -> None:
        self._done_on_worker(conn, self._run(work))

    def _done_on_worker(self, conn: Connection, answer: Answer | None) -> None:
        """Writes what the socket takes now (the client need not wait for the loop's
        turn), then hands the rest to the loop. The loop closes no socket a worker holds."""
        if answer is not None:
            data, close = answer
            sent = 0
            try:
                while sent < len(data):
                    sent += conn.sock.send(memoryview(data)[sent:])
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:  # the client hung up
                answer = None
            if answer is not None and sent:
                answer = (data[sent:], close)
        self._done.append((conn, answer))
        self._wake()

    def _finish_answers(self) -> None:
        while self._done:
            conn, answer = self._done.popleft()
            if not conn.closed:
                self._deliver(conn, answer)
                self._after_write(conn)
        for _ in range(len(self._resume)):
            conn = self._resume.popleft()
            if not conn.closed:
                self._advance(conn)

    def _deliver(self, conn: Connection, answer: Answer | None) -> None:
        """Starts writing an answer (``None``: close the connection)."""
        if answer is None:
            self._close(conn)
            return
        data, close = answer
        if close:
            conn.eof = True
            conn.inbuf.clear()
        conn.outbuf = memoryview(data)
        conn.last_active = time.monotonic()
        self._flush(conn)

    def _flush(self, conn: Connection) -> None:
        """Writes what the socket takes; a request is done once its answer is out."""
        while conn.outbuf:
            try:
                sent = conn.sock.send(conn.outbuf)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # the client hung up
                self._close(conn)
                return
            conn.outbuf = conn.outbuf[sent:]
            conn.last_active = time.monotonic()
        conn.busy = False

    def _write(self, conn: Connection) -> None:
        self._flush(conn)
        self._after_write(conn)

    def _after_write(self, conn: Connection) -> None:
        if conn.closed:
            return
        if conn.busy:
            self._update_interest(conn)
        else:
            self._advance(conn)

    def _update_interest(self, conn: Connection) -> None:
        """Watches ``conn`` for writing while an answer is pending, else for reading
        while its buffer has room and the client may send more, else not at all."""
        if conn.closed:
            return
        if conn.outbuf:
            want = selectors.EVENT_WRITE
        elif not conn.eof and len(conn.inbuf) <= self.framing.buffered(conn):
            want = selectors.EVENT_READ
        else:
            want = 0
        if want == conn.events:
            return
        if not conn.events:
            self._selector.register(conn.sock, want, conn)
        elif not want:
            self._selector.unregister(conn.sock)
        else:
            self._selector.modify(conn.sock, want, conn)
        conn.events = want

    def _close_idle(self) -> None:
        now = time.monotonic()
        for conn in list(self._connections):
            silent = now - conn.last_active >= self.limits.idle_timeout
            working = conn.busy and not conn.outbuf
            if silent and not working:
                self._close(conn)

    def _close(self, conn: Connection) -> None:
        if conn.closed:
            return
        conn.closed = True
        self._connections.discard(conn)
        if conn.events:
            self._selector.unregister(conn.sock)
            conn.events = 0
        conn.sock.close()

    # --- waking the loop from a worker ----------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (the loop wakes anyway), or closed
            self._wake_w.send(b"\0")

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass

    def _bug(self, error: BaseException) -> None:
        print(f"rserini serve {self.name}: {type(error).__name__}: {error}", file=sys.stderr)
