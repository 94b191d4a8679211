"""The scripted agent, agent-run's run folder, and the metrics of its runs on SciFact
against trec_eval's (through rserini.eval)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import rserini
from rserini.agent import SearchSession, TimeBudget
from rserini.agent.runs.evaluation import evaluate_records
from rserini.agent.runs.records import read_runs
from rserini.agent.runs.runner import run_queries
from rserini.agent.runs.scripted import ScriptedAgent
from rserini.exceptions import RseriniError
from support import collection

DOCS = [
    {"id": str(100 + i), "contents": f"graphene {'heat ' * (i % 7)}note {i}"} for i in range(40)
]
DOCS.append({"id": "doc-x", "contents": "graphene heat heat heat heat heat heat heat heat"})


@pytest.fixture(scope="module")
def index():
    return rserini.Index.build(DOCS, progress=False)


READ = "Verify the candidate's text."


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_script_calls_and_record(index, tmp_path):
    with SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path) as session:
        record, events = ScriptedAgent().run(session, "7", "graphene heat")
    ranking = [d for d, _ in index.search_pairs("graphene heat", k=1000)]
    calls = [(e["toolName"], e["args"]) for e in events if e["type"] == "tool_execution_end"]
    assert calls == [
        ("search", {"reason": "Start with the question's own wording.", "query": "graphene heat"}),
        ("read_search_results", {"reason": calls[1][1]["reason"], "search_id": "s1", "offset": 6}),
        ("read_search_results", {"reason": calls[1][1]["reason"], "search_id": "s1", "offset": 16}),
        *[("read_document", {"reason": READ, "docid": d}) for d in ranking[:3]],
    ]  # fmt: skip
    assert [e["type"] for e in events[-2:]] == ["message_end", "agent_end"]
    assert record["status"] == "completed"
    assert record["surfaced_docids"] == ranking
    assert record["previewed_docids"] == ranking[:25]
    assert record["opened_docids"] == ranking[:3]
    assert record["tool_call_counts"] == {"search": 1, "read_search_results": 2, "read_document": 3}
    answer = record["result"][-1]["output"]
    assert answer.startswith("Explanation: ") and "\nExact Answer: " in answer
    assert answer.endswith("\nConfidence: 0%")
    # "doc-x" ranks first: digit runs cite nothing of it; a pattern for it does.
    assert ranking[0] == "doc-x"
    assert record["cited_docids"] == ranking[1:3]
    with SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path) as session:
        record, _ = ScriptedAgent(citation_pattern=r"[\w-]+").run(session, "7", "graphene heat")
    assert record["cited_docids"] == ranking[:3]


def test_script_stops_at_the_steer(index, tmp_path):
    clock = Clock()
    budget = TimeBudget(10, clock=clock)
    with SearchSession(index, budget=budget, spill_dir=tmp_path) as session:
        session.search("warm up", "graphene")  # an earlier call, not part of this run
        clock.now = 7.5  # past 0.7 * 10: the steer is due, tools are blocked
        record, events = ScriptedAgent().run(session, "1", "graphene heat")
    tools = [e for e in events if e["type"] == "tool_execution_end"]
    assert len(tools) == 1 and tools[0]["isError"]  # the search was blocked
    assert tools[0]["result"]["content"][0]["text"].startswith("Time budget is nearly exhausted.")
    assert record["status"] == "completed" and record["stats"]["pi_search_failures"] == 1
    clock.now = 11
    with SearchSession(index, budget=TimeBudget(10, clock=clock), spill_dir=tmp_path) as session:
        clock.now = 21  # the whole budget is spent
        record, events = ScriptedAgent().run(session, "1", "graphene heat")
    assert record["status"] == "timeout"


def test_script_steers_between_steps(index, tmp_path):
    clock = Clock()
    with SearchSession(index, budget=TimeBudget(10, clock=clock), spill_dir=tmp_path) as session:
        original = session.search

        def search_then_late(reason, query):
            result = original(reason, query)
            clock.now = 8.0  # the budget's threshold passes during the search
            return result

        session.search = search_then_late  # type: ignore[method-assign]
        record, events = ScriptedAgent().run(session, "1", "graphene heat")
    assert record["tool_call_counts"] == {"search": 1}
    steer = [e for e in events if e["type"] == "message_end" and e["message"]["role"] == "user"]
    assert len(steer) == 1
    assert steer[0]["message"]["content"][0]["text"].startswith("Time budget is nearly exhausted.")
    assert record["stats"]["assistant_turns"] == 1


def test_script_without_hits(index, tmp_path):
    with SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path) as session:
        record, _ = ScriptedAgent().run(session, "2", "zzzz qqqq")
    assert record["surfaced_docids"] == [] and record["opened_docids"] == []
    assert record["tool_call_counts"] == {"search": 1}
    assert "No document was retrieved" in record["result"][-1]["output"]
    with pytest.raises(ValueError):
        ScriptedAgent(pages=-1)


def test_run_queries_writes_and_resumes(index, tmp_path):
    out = tmp_path / "run"
    queries = [("1", "graphene heat"), ("2", "note 7"), ("q3", "graphene")]
    summary = run_queries(index, queries, out, timeout_seconds=0)
    assert (summary.ran, summary.skipped, summary.statuses) == (3, 0, {"completed": 3})
    assert sorted(p.name for p in out.iterdir()) == [
        "1.json", "2.json", "q3.json", "raw-events", "run_setup.json",
    ]  # fmt: skip
    events = (out / "raw-events" / "2.jsonl").read_text().splitlines()
    assert json.loads(events[0])["toolName"] == "search"
    assert json.loads(events[-1]) == {"type": "agent_end"}
    assert run_queries(index, queries, out).skipped == 3
    assert list(read_runs(out)) == ["1", "2"]
    with pytest.raises(RseriniError, match="cannot name a run file"):
        run_queries(index, [("a/b", "x")], tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_agent_run_command(tmp_path):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    queries = tmp_path / "queries.tsv"
    queries.write_text("1\tgraphene heat\n2\tnote 5\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 101 1\n2 0 105 1\n")
    idx, out = tmp_path / "idx", tmp_path / "run"

    def rserini_cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "rserini", *args], capture_output=True, text=True, timeout=60
        )

    assert rserini_cli("index", "--input", str(corpus), "--index", str(idx), "-q").returncode == 0
    done = rserini_cli(
        "agent-run", "--index", str(idx), "--queries", str(queries), "--output", str(out),
        "--k1", "25", "--b", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 queries run (2 completed)" in done.stderr and done.stdout == ""
    setup = json.loads((out / "run_setup.json").read_text())
    assert setup["bm25K1"] == "25.0" and setup["bm25B"] == "1.0"
    table = rserini_cli("agent-eval", "--runs", str(out), "--qrels", str(qrels))
    assert table.returncode == 0 and "2 queries, 2 with positives" in table.stdout
    bad = rserini_cli(
        "agent-run", "--index", str(idx), "--queries", str(queries), "--output", str(out),
        "--pages", "-1",
    )  # fmt: skip
    assert bad.returncode == 1 and "pages" in bad.stderr


@pytest.mark.data
def test_scifact_run_metrics_match_trec_eval(tmp_path):
    """On SciFact (binary qrels) the surfaced ranking's nDCG@10 and recall equal trec_eval's
    on the same ranking written as a run, and R@1000 is the surfaced recall."""
    from rserini.eval import evaluate
    from rserini.formats import read_qrels

    folder = collection("scifact")
    index = rserini.Index.from_jsonl(folder / "corpus.jsonl.gz", progress=False)
    queries = rserini.read_queries(folder / "queries.jsonl")[:40]
    qrels = read_qrels(folder / "qrels" / "test.tsv")
    run_queries(index, queries, tmp_path, agent=ScriptedAgent(pages=0, open_top=1))
    records = read_runs(tmp_path)
    ours = evaluate_records(records, qrels, ndcg_cutoffs=(10,), recall_cutoffs=(10, 100, 1000))
    run = {
        qid: {d: float(len(r["surfaced_docids"]) - i) for i, d in enumerate(r["surfaced_docids"])}
        for qid, r in records.items()
    }
    judged = {q: qrels[q] for q in records}
    reference = evaluate(run, judged, ["nDCG@10", "R@10", "R@100", "R@1000"])
    for metric in ("nDCG@10", "R@10", "R@100", "R@1000"):
        assert ours.ranking[metric] == pytest.approx(reference[metric], abs=1e-12)
    assert ours.macro["surfaced"] == pytest.approx(reference["R@1000"])
    # One search, no browsing, the top document opened and cited.
    assert all(len(r["previewed_docids"]) <= 5 for r in records.values())
    assert all(r["opened_docids"] == r["surfaced_docids"][:1] for r in records.values())
