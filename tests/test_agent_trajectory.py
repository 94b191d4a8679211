"""Trajectories: citations, the five docid sets, stats and the per-query run record."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rserini.agent.runs.citations import extract_citations
from rserini.agent.runs.records import read_runs, write_record
from rserini.agent.runs.trajectory import Trajectory, record_views
from rserini.exceptions import RseriniError


def end(name, args, text="ok", details=None, *, error=False, call_id="c"):
    """A pi ``tool_execution_end`` event."""
    return {
        "type": "tool_execution_end",
        "toolCallId": call_id,
        "toolName": name,
        "args": args,
        "result": {"content": [{"type": "text", "text": text}], "details": details or {}},
        "isError": error,
    }


def answer(text):
    return {"type": "message_end", "message": {"role": "assistant", "content": text}}


# --- citations ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("Explanation: yes [123].", ["123"]),
        ("see [12, 34] and [doc 7]", ["12", "34", "7"]),
        ("in [1990] it rained", ["1990"]),
        # Whole-group citations come first, then the digits inside other groups.
        ("first [doc 7] then [12]", ["12", "7"]),
        ("full-width 【55】 and 【a 66, 77】 after [1]", ["1", "55", "66", "77"]),
        ("nested [a [5] b] only inner", ["5"]),
        ("repeated [3] [3] [3, 4]", ["3", "4"]),
        ("no brackets 123", []),
        ("non-ASCII digits [١٢٣] are not docids", []),
        ("", []),
    ],
)
def test_citations_numeric(text, cited):
    assert extract_citations(text) == cited


def test_citations_configurable_pattern():
    text = "Shown in [doc-7] and [msmarco_12, web-3] [x]."
    # The numeric default finds digit runs inside other docids (pi-serini's quirk).
    assert extract_citations(text) == ["7", "12", "3"]
    pattern = r"[a-z]+[-_][0-9]+"
    assert extract_citations(text, pattern) == ["doc-7", "msmarco_12", "web-3"]
    with pytest.raises(re.error):
        extract_citations(text, "[")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10**6), max_size=8))
def test_citations_roundtrip(ids):
    """Every ``[id]`` written is cited once, in first-seen order."""
    text = " ".join(f"fact [{i}]." for i in ids)
    assert extract_citations(text) == list(dict.fromkeys(str(i) for i in ids))


# --- trajectory --------------------------------------------------------------------------


def sample_events():
    ranking1 = [str(i) for i in range(100, 120)]
    ranking2 = ["105", "200", "201", "100"]
    return [
        {"type": "tool_execution_start", "toolCallId": "c1", "toolName": "search", "args": {}},
        end(
            "search",
            {"reason": "r", "query": "q1"},
            details={"retrievedDocids": ranking1, "previewedDocids": ranking1[:5]},
        ),
        end(
            "read_search_results",
            {"reason": "r", "search_id": "s1", "offset": 6, "limit": 3},
            details={"retrievedDocids": ranking1[5:8], "previewedDocids": ranking1[5:8]},
        ),
        end("read_document", {"reason": "r", "docid": "106"}),
        end("read_document", {"reason": "r", "docid": "999"}, "read_document failed", error=True),
        end("search", {"reason": "r", "query": "q2"}, details={"retrievedDocids": ranking2}),
        end("search", {"reason": "r", "query": "q3"}, details={"retrievedDocids": []}),
        end("search", {"reason": "r", "query": ""}, "Invalid search arguments", error=True),
        answer("thinking"),
        answer("Explanation: it is so [106][200, 7].\nExact Answer: x\nConfidence: 80%"),
        {"type": "agent_end"},
    ]


def test_sets_in_first_seen_order():
    t = Trajectory("7", "q")
    t.extend(sample_events())
    assert t.surfaced == [str(i) for i in range(100, 120)] + ["200", "201"]
    # Search 2 has no previewedDocids: its first 5 are used.
    assert t.previewed == [str(i) for i in range(100, 108)] + ["200", "201"]
    assert t.opened == ["106", "999"]  # failed reads count too
    assert t.cited == ["106", "200", "7"]
    assert t.agent == ["106", "999", "200", "7"]


def test_record_fields_and_stats():
    t = Trajectory("7", "the question", citation_pattern=r"[0-9]+")
    t.extend(sample_events())
    record = t.to_record(elapsed_seconds=12.3456, metadata={"model": "scripted"})
    assert record["status"] == "completed"
    assert record["completion_source"] == "assistant_text"
    assert record["metadata"] == {
        "query": "the question",
        "prompt_variant": "plain_minimal",
        "model": "scripted",
    }
    assert record["tool_call_counts"] == {"search": 4, "read_search_results": 1, "read_document": 2}
    stats = record["stats"]
    assert stats == {
        "elapsed_seconds": 12.346,
        "assistant_turns": 2,
        "tool_calls_total": 7,
        "seconds_per_assistant_turn": 6.173,
        "seconds_per_tool_call": 1.764,
        "search_calls": 4,
        "read_search_results_calls": 1,
        "read_document_calls": 2,
        "search_rewrites_after_browse": 1,
        "search_rewrites_without_browse": 2,
        "pi_search_failures": 2,
        "timed_out": False,
    }
    kinds = [(e["type"], e["tool_name"]) for e in record["result"]]
    assert kinds[:5] == [
        ("tool_call", "search"),
        ("tool_call", "read_search_results"),
        ("tool_call", "read_document"),
        ("tool_call", "read_document"),
        ("output_text", None),
    ]
    assert record["result"][4]["output"] == (
        "pi-search extension failure (read_document): read_document failed"
    )
    assert record["result"][-1]["output"].startswith("Explanation: it is so")
    assert list(record) == [
        "metadata",
        "query_id",
        "tool_call_counts",
        "status",
        "completion_source",
        "surfaced_docids",
        "previewed_docids",
        "agent_docids",
        "opened_docids",
        "cited_docids",
        "stats",
        "result",
    ]
    json.dumps(record)  # serializable


def test_status_rules():
    t = Trajectory("1")
    assert t.status() == "failed"  # no agent_end, no answer
    t.add(answer("done [1]"))
    assert t.status() == "failed"  # no agent_end
    t.add({"type": "agent_end"})
    assert t.status() == "completed"
    assert t.status(exited_cleanly=False) == "failed"
    assert t.status(timed_out=True) == "timeout"
    record = t.to_record(elapsed_seconds=0.0, timed_out=True, stderr="x" * 70000)
    assert record["status"] == "timeout" and record["completion_source"] is None
    assert record["stats"]["timed_out"] is True
    assert record["stats"]["seconds_per_tool_call"] is None
    last = record["result"][-1]["output"]
    assert last.startswith("pi stderr:\n") and len(last) == len("pi stderr:\n") + 64000


def test_quirks_and_fallbacks():
    t = Trajectory("1")
    # Browse without previewedDocids: its page (retrievedDocids) counts as previewed.
    t.add(end("read_search_results", {"search_id": "s1"}, details={"retrievedDocids": ["a"]}))
    # A non-pi search tool without details: docids from its JSON output (legacy).
    t.add(end("web_search", {}, json.dumps({"results": [{"docid": 5}, {"docid": "b"}]})))
    # The built-in tools' JSON output is not parsed.
    t.add(end("search", {"query": "x"}, json.dumps({"results": [{"docid": "z"}]})))
    # Numeric and start-event docids; a missing docid is not recorded.
    t.add({"type": "tool_execution_start", "toolCallId": "k", "args": {"docid": 42.0}})
    t.add(end("read_document", None, call_id="k"))
    t.add(end("read_document", {"reason": "no docid"}))
    t.add(end("find_in_document", {"docid": "c", "query": "q"}))
    assert t.surfaced == ["a", "5", "b"]
    assert t.previewed == ["a"]
    assert t.opened == ["42", "c"]
    # A failure of a tool that is not pi-search's is not counted.
    t.add(end("calculator", {}, "boom", error=True))
    assert t.failures == 0


def test_record_views_fallbacks():
    record = {
        "retrieved_docids": ["1", "2", "1"],
        "opened_docids": [],
        "result": [
            {"type": "tool_call", "tool_name": "read_document", "arguments": {"docid": "9"}},
            {"type": "tool_call", "tool_name": "read_document", "arguments": {"docid": 9}},
            {"type": "output_text", "output": "Answer [9] [3]"},
        ],
    }
    views = record_views(record)
    assert views == {
        "surfaced": ["1", "2"],
        "previewed": [],
        "opened": ["9"],
        "cited": ["9", "3"],
        "agent": ["9", "3"],
    }
    t = Trajectory("3")
    t.extend(sample_events())
    full = t.to_record(elapsed_seconds=1)
    views = record_views(full)
    assert views["surfaced"] == t.surfaced and views["agent"] == t.agent


def test_run_folder(tmp_path):
    for qid in ("10", "2", "q3"):
        write_record(tmp_path, Trajectory(qid).to_record(elapsed_seconds=0))
    (tmp_path / "run_setup.json").write_text("{}")
    assert list(read_runs(tmp_path)) == ["2", "10"]
    assert list(read_runs(tmp_path, numeric_only=False)) == ["2", "10", "q3"]
    merged = tmp_path / "merged"
    merged.mkdir()
    write_record(merged, Trajectory("5").to_record(elapsed_seconds=0))
    assert list(read_runs(tmp_path)) == ["5"]
    with pytest.raises(RseriniError, match="cannot name a run file"):
        write_record(tmp_path, Trajectory("../x").to_record(elapsed_seconds=0))
    (merged / "6.json").write_text("[1]")
    with pytest.raises(RseriniError, match="not a JSON run record"):
        read_runs(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RseriniError, match="no run record"):
        read_runs(empty)
