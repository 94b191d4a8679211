"""Per-conversation sessions and records of a long-lived server (``serve mcp``, ``http``, ``rpc``).

An MCP host may keep one server process for many chats. Conversations are kept per key
(a client connection; a stdio server has one), and a conversation ends when the client
calls ``new_session`` (offered with ``--new-session-tool``), when a call comes after
``idle_reset`` seconds of silence, or when the server stops. A conversation's session is
made at its first tool call, so its search ids restart at ``s1``, its cache is its own and
its time budget starts then: a budget spent blocks only the conversation that spent it.

The session's events are drained after every call, so a long-lived server holds none of
them; with a record folder they are appended to ``raw-events/<id>.jsonl`` and folded into
a :class:`~rserini.agent.runs.trajectory.Trajectory` whose ``<id>.json`` record
(pi-serini's format, numeric ids after the folder's highest) is written when the
conversation ends. The http and rpc servers, which run no session, note each backend
request as the pi events it stands for (:mod:`~rserini.agent.servers.backend_record`).
The server never sees the model's answer, so a record carries the retrieval sets
(what ``agent-eval`` reports) and, without an answer, status ``failed``
(``timeout`` if the budget ran out).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import IO, Any

from rserini.agent.runs.records import write_record
from rserini.agent.runs.trajectory import Trajectory
from rserini.agent.tools.results import ToolResult
from rserini.agent.tools.session import SearchSession

__all__ = ["Conversation", "Conversations"]

_NUMERIC_RECORD = re.compile(r"^(\d+)\.json$")


class Conversation:
    """One conversation: its session (made at the first call) and its recording."""

    def __init__(
        self,
        conversation_id: str,
        make_session: Callable[[], SearchSession] | None,
        record_dir: Path | None,
        question: str = "",
        clock: Callable[[], float] = time.monotonic,
        transport: str = "mcp",
    ) -> None:
        self.id = conversation_id
        self._transport = transport
        self.question = question
        self._make_session = make_session
        self._record_dir = record_dir
        self._clock = clock
        self.session: SearchSession | None = None
        self.started: float | None = None
        self.last_call = clock()
        self.calls = 0
        self.timed_out = False
        self.trajectory = Trajectory(conversation_id, question) if record_dir else None
        self._events: IO[str] | None = None
        self.lock = threading.Lock()

    def call(self, name: str, arguments: object) -> ToolResult:
        """Runs one tool call on this conversation's session."""
        with self.lock:
            if self.session is None:
                if self._make_session is None:
                    raise RuntimeError("these conversations record backend requests only")
                self.session = self._make_session()
            result = self.session.call(name, arguments)
            events = list(self.session.events)
            self.session.events.clear()
            self._note(events, self.session.timed_out)  # as of the last call, not the close
            return result

    def note(self, events: list[dict[str, object]]) -> None:
        """Records one call made elsewhere (a backend request), as its pi events."""
        with self.lock:
            self._note(events, False)

    def _note(self, events: list[dict[str, object]], timed_out: bool) -> None:
        now = self._clock()
        if self.started is None:
            self.started = now
        self.last_call = now
        self.calls += 1
        self.timed_out = timed_out
        if self.trajectory is not None:
            self.trajectory.extend(events)
            self._write_events(events)

    def _write_events(self, events: list[dict[str, object]]) -> None:
        assert self._record_dir is not None
        if self._events is None:
            folder = self._record_dir / "raw-events"
            folder.mkdir(parents=True, exist_ok=True)
            self._events = open(folder / f"{self.id}.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        for event in events:
            self._events.write(json.dumps(event, ensure_ascii=False) + "\n")
        self._events.flush()

    def close(self) -> Path | None:
        """Ends the conversation; returns its record's path (when recording and used)."""
        with self.lock:
            session, self.session = self.session, None
            if self._events is not None:
                self._events.close()
                self._events = None
            if session is not None:
                session.close()
            if self.trajectory is None or self._record_dir is None or self.started is None:
                return None
            record = self.trajectory.to_record(
                elapsed_seconds=self.last_call - self.started,  # to the last call
                timed_out=self.timed_out,
                metadata={"model": f"{self._transport}-client", "transport": self._transport},
            )
            return write_record(self._record_dir, record)


class Conversations:
    """The conversations of one server, one current conversation per key.

    Parameters
    ----------
    make_session
        A new session (with its own budget) for each conversation; ``None`` when the
        conversations only record what :meth:`Conversation.note` is given.
    record_dir
        Where records and raw events go (``None``: nothing is recorded).
    idle_reset
        Seconds of silence after which a call starts a new conversation (``None``: never).
    transport
        The records' ``metadata.transport`` (and ``metadata.model``: ``<transport>-client``).
    """

    def __init__(
        self,
        make_session: Callable[[], SearchSession] | None,
        *,
        record_dir: Path | None = None,
        idle_reset: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        transport: str = "mcp",
    ) -> None:
        self._make_session = make_session
        self.transport = transport
        self.record_dir = record_dir
        self.idle_reset = idle_reset
        self._clock = clock
        self._lock = threading.Lock()
        self._current: dict[Hashable, Conversation] = {}
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
            used = [
                int(m.group(1))
                for p in record_dir.iterdir()
                if (m := _NUMERIC_RECORD.match(p.name))
            ]
            self._next_id = max(used, default=0) + 1
        else:
            self._next_id = 1

    def _new(self, question: str = "") -> Conversation:
        conversation_id = str(self._next_id)
        self._next_id += 1
        return Conversation(
            conversation_id,
            self._make_session,
            self.record_dir,
            question,
            self._clock,
            self.transport,
        )

    def conversation(self, key: Hashable) -> Conversation:
        """The current conversation of ``key`` (a new one after ``idle_reset`` seconds)."""
        with self._lock:
            current = self._current.get(key)
            stale = (
                current is not None
                and self.idle_reset is not None
                and current.calls
                and self._clock() - current.last_call >= self.idle_reset
            )
            if current is None or stale:
                if current is not None:
                    current.close()
                current = self._current[key] = self._new()
            return current

    def call(self, key: Hashable, name: str, arguments: object) -> ToolResult:
        """One tool call in ``key``'s current conversation."""
        return self.conversation(key).call(name, arguments)

    def restart(self, key: Hashable, question: str = "") -> tuple[Conversation, Path | None]:
        """Ends ``key``'s conversation (recording it) and starts a new one."""
        with self._lock:
            previous = self._current.pop(key, None)
            record = previous.close() if previous is not None else None
            current = self._current[key] = self._new(question)
            return current, record

    def close(self) -> None:
        """Ends every conversation (at server exit)."""
        with self._lock:
            for conversation in self._current.values():
                conversation.close()
            self._current.clear()

    def __enter__(self) -> Conversations:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
