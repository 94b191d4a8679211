"""Per-conversation sessions of a long-lived server: separate ids, caches and budgets
per connection, the idle reset, drained events and the records they write."""

from __future__ import annotations

import pytest

import rserini
from rserini.agent import SearchSession, TimeBudget
from rserini.agent.runs.records import read_runs
from rserini.agent.servers.conversations import Conversations

DOCS = [{"id": str(i), "contents": f"alpha beta {'gamma ' * i}"} for i in range(1, 9)]


@pytest.fixture(scope="module")
def index():
    return rserini.Index.build(DOCS, progress=False)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def conversations(index, tmp_path, clock, seconds=10.0, **kw):
    def make():
        return SearchSession(index, budget=TimeBudget(seconds, clock=clock), spill_dir=tmp_path)

    return Conversations(make, clock=clock, **kw)


SEARCH = {"reason": "r", "query": "gamma"}


def test_connections_have_their_own_sessions_and_budgets(index, tmp_path):
    clock = Clock()
    with conversations(index, tmp_path, clock) as conv:
        assert "s1" in conv.call("a", "search", SEARCH).text
        assert "s2" in conv.call("a", "search", SEARCH).text
        clock.now = 8.0  # past 70% of a's budget, which started at 0
        assert conv.call("a", "search", SEARCH).is_error
        # b's first call starts b's session and budget now.
        assert "s1" in conv.call("b", "search", SEARCH).text
        clock.now = 14.0
        assert not conv.call(
            "b", "read_search_results", {"reason": "r", "search_id": "s1"}
        ).is_error
        # The events are drained after every call: a long-lived server keeps none.
        assert all(c.session.events == [] for c in conv._current.values())


def test_idle_reset_and_restart_write_records(index, tmp_path):
    clock = Clock()
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "7.json").write_text("{}")  # numbering continues after existing records
    with conversations(index, tmp_path, clock, 100.0, record_dir=folder, idle_reset=60) as conv:
        conv.call("a", "search", SEARCH)
        clock.now = 59.0
        conv.call("a", "read_document", {"reason": "r", "docid": "8"})
        clock.now = 119.0  # 60 s of silence: a new conversation
        assert "s1" in conv.call("a", "search", {"reason": "r", "query": "alpha"}).text
        current, path = conv.restart("a", "a new question")
        assert path == folder / "9.json" and current.id == "10"
        unused, none = conv.restart("a")
        assert none is None and unused.id == "11"  # a conversation without calls: no record
    records = read_runs(folder)
    assert sorted(records) == ["7", "8", "9"]
    first = records["8"]
    assert first["tool_call_counts"] == {"search": 1, "read_document": 1}
    assert first["opened_docids"] == ["8"] and first["status"] == "failed"
    assert first["stats"]["elapsed_seconds"] == 59.0
    assert records["9"]["tool_call_counts"] == {"search": 1}
    assert (folder / "raw-events" / "8.jsonl").read_text().count("\n") == 2


def test_max_events_keeps_the_last_ones(index, tmp_path):
    with SearchSession(index, spill_dir=tmp_path, max_events=2) as session:
        for q in ("alpha", "beta", "gamma"):
            session.search("r", q)
        assert [e["args"]["query"] for e in session.events] == ["beta", "gamma"]
    with pytest.raises(ValueError, match="max_events"):
        SearchSession(index, max_events=-1)
