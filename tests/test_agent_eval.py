"""Agent-run metrics: hand-computed values, trec_eval cross-checks, the agent-eval command."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rserini.agent.runs.evaluation import evaluate_records
from rserini.agent.runs.metrics import coverage, dcg, ndcg, positives, recall
from rserini.agent.runs.records import write_record
from rserini.agent.runs.trajectory import Trajectory
from rserini.exceptions import RseriniError


def test_hand_computed_ndcg_and_recall():
    judged = {"a": 2, "b": 1, "c": 1, "z": 0}
    ranking = ["x", "a", "c", "y", "b"]
    # DCG = (2^2-1)/log2(3) + 1/log2(4) + 1/log2(6); ideal = 3 + 1/log2(3) + 1/2.
    got = 3 / math.log2(3) + 1 / 2 + 1 / math.log2(6)
    ideal = 3 + 1 / math.log2(3) + 1 / 2
    assert ndcg(ranking, judged, 10) == pytest.approx(got / ideal)
    # Linear gain: 2/log2(3) + 1/2 + 1/log2(6) over 2 + 1/log2(3) + 1/2.
    linear = (2 / math.log2(3) + 0.5 + 1 / math.log2(6)) / (2 + 1 / math.log2(3) + 0.5)
    assert ndcg(ranking, judged, 10, "linear") == pytest.approx(linear)
    # At k=2 only "a" (rank 2) counts; the ideal is cut at 2 as well.
    assert ndcg(ranking, judged, 2) == pytest.approx((3 / math.log2(3)) / (3 + 1 / math.log2(3)))
    assert ndcg(ranking, {"z": 0}, 10) == 0.0
    relevant = positives(judged)
    assert relevant == {"a", "b", "c"}
    assert positives(judged, 2) == {"a"}
    assert recall(ranking, relevant) == 1.0
    assert recall(ranking, relevant, 3) == pytest.approx(2 / 3)
    assert recall(ranking, set(), 3) == 0.0
    assert coverage(["a", "q"], relevant) == pytest.approx(1 / 3)
    assert coverage(["a"], set()) is None
    assert dcg([]) == 0.0
    with pytest.raises(ValueError, match="unknown gain"):
        ndcg(ranking, judged, 10, "cubic")  # type: ignore[arg-type]


def _as_run(rankings):
    """Rankings as a scored run with strictly decreasing scores (n - i, as pi-serini)."""
    return {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()}


docids = st.sampled_from([f"d{i}" for i in range(30)])


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["1", "2", "3", "4"]),
        st.tuples(
            st.lists(docids, unique=True, max_size=25),
            st.dictionaries(docids, st.integers(0, 3), min_size=1, max_size=12),
        ),
        min_size=1,
    ),
    st.booleans(),
)
def test_matches_trec_eval(data, binary):
    """nDCG@10 and R@k equal trec_eval's (through rserini.eval): always with linear gain,
    and with pi-serini's 2^rel - 1 gain on binary judgements."""
    eval_module = pytest.importorskip("rserini.eval")
    rankings = {q: ranking for q, (ranking, _) in data.items()}
    qrels = {
        q: {d: (min(r, 1) if binary else r) for d, r in judged.items()}
        for q, (_, judged) in data.items()
    }
    judged_qids = [q for q, j in qrels.items() if any(r > 0 for r in j.values())]
    run = {q: r for q, r in _as_run(rankings).items() if r and q in judged_qids}
    if not run:
        return
    trec_qrels = {q: qrels[q] for q in judged_qids}
    reference = eval_module.evaluate(
        run, trec_qrels, ["nDCG@10", "R@5", "R@100"], per_query=True
    ).per_query
    for q in judged_qids:
        relevant = positives(qrels[q])
        ranking = rankings[q]
        assert recall(ranking, relevant, 5) == pytest.approx(reference[q]["R@5"])
        assert recall(ranking, relevant, 100) == pytest.approx(reference[q]["R@100"])
        assert ndcg(ranking, qrels[q], 10, "linear") == pytest.approx(reference[q]["nDCG@10"])
        if binary:
            assert ndcg(ranking, qrels[q], 10) == pytest.approx(reference[q]["nDCG@10"])


def _record(qid, surfaced, previewed=(), opened=(), answer=""):
    t = Trajectory(qid)
    t.add(
        {
            "type": "tool_execution_end",
            "toolName": "search",
            "args": {"query": "q"},
            "result": {
                "content": [{"type": "text", "text": "page"}],
                "details": {"retrievedDocids": list(surfaced), "previewedDocids": list(previewed)},
            },
            "isError": False,
        }
    )
    for docid in opened:
        t.add(
            {
                "type": "tool_execution_end",
                "toolName": "read_document",
                "args": {"docid": docid},
                "result": {"content": [{"type": "text", "text": "doc"}], "details": {}},
                "isError": False,
            }
        )
    if answer:
        t.add({"type": "message_end", "message": {"role": "assistant", "content": answer}})
    t.add({"type": "agent_end"})
    return t.to_record(elapsed_seconds=1.0)


def _records():
    return {
        "1": _record("1", ["11", "12", "13", "14"], ["11", "12"], ["12"], "yes [12] [14]"),
        "2": _record("2", ["21", "22"], ["21"], [], "no citation"),
        "3": _record("3", ["31"], ["31"], ["31"], "[31]"),  # unjudged
    }


QRELS = {"1": {"12": 1, "14": 1, "15": 1, "16": 0}, "2": {"22": 2}, "9": {"91": 1}}


def test_macro_micro_by_hand():
    result = evaluate_records(_records(), QRELS)
    assert result.queries == ("1", "2", "3")
    assert result.judged == 2
    # q1: P = {12, 14, 15}; q2: P = {22}; q3 has no positives and is left out.
    assert result.macro["surfaced"] == pytest.approx((2 / 3 + 1) / 2)
    assert result.micro["surfaced"] == pytest.approx(3 / 4)
    assert result.macro["previewed"] == pytest.approx((1 / 3 + 0) / 2)
    assert result.micro["previewed"] == pytest.approx(1 / 4)
    assert result.macro["opened"] == pytest.approx((1 / 3) / 2)
    assert result.macro["cited"] == pytest.approx((2 / 3) / 2)
    assert result.micro["cited"] == pytest.approx(2 / 4)
    assert result.macro["agent"] == pytest.approx((2 / 3) / 2)
    assert result.per_query["3"]["surfaced"] is None
    # Ranking means over the two judged queries; R@100 = surfaced recall here.
    assert result.ranking_queries == 2
    assert result.ranking["R@100"] == pytest.approx(result.macro["surfaced"])
    q1 = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 1 / 2)
    q2 = (3 / math.log2(3)) / 3
    assert result.ranking["nDCG@10"] == pytest.approx((q1 + q2) / 2)
    # Counting the unjudged query as 0, as eval_retrieval does.
    zero = evaluate_records(_records(), QRELS, unjudged="zero")
    assert zero.ranking["nDCG@10"] == pytest.approx((q1 + q2) / 3)
    assert zero.macro == result.macro
    # A fixed query set: query 9 has no record and scores 0.
    fixed = evaluate_records(_records(), QRELS, queries=["1", "2", "9"])
    assert fixed.macro["surfaced"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert fixed.micro["surfaced"] == pytest.approx(3 / 5)
    # Threshold 2: only q2's document is positive.
    strict = evaluate_records(_records(), QRELS, threshold=2)
    assert strict.judged == 1 and strict.macro["surfaced"] == 1.0
    with pytest.raises(RseriniError):
        evaluate_records({}, QRELS)
    with pytest.raises(RseriniError):
        evaluate_records(_records(), QRELS, recall_cutoffs=(0,))
    with pytest.raises(RseriniError, match="threshold"):
        evaluate_records(_records(), QRELS, threshold=0)
    text = result.to_text()
    assert "surfaced (system)           83.33    75.00" in text
    assert "  nDCG@10" in text and "  R@1000" in text


def test_agent_eval_command(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for record in _records().values():
        write_record(runs, record)
    write_record(runs, _record("q4", ["x"]))  # not numeric: ignored by default
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, j in QRELS.items() for d, r in j.items()))
    gold = tmp_path / "gold.txt"
    gold.write_text("1 0 13 1\n")
    cmd = [
        sys.executable,
        "-m",
        "rserini",
        "agent-eval",
        "--runs",
        str(runs),
        "--qrels",
        str(qrels),
    ]
    out = subprocess.run(
        [*cmd, "--gold-qrels", str(gold)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert out.startswith(f"evidence ({qrels}): 3 queries, 2 with positives\n")
    assert f"gold ({gold}): 3 queries, 1 with positives" in out
    data = json.loads(
        subprocess.run(
            [*cmd, "--json", "--any-query-id"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    )
    assert data[0]["queries"] == 4
    assert data[0]["macro"]["surfaced"] == pytest.approx((2 / 3 + 1) / 2)
    bad = subprocess.run(
        [*cmd[:-4], "--runs", str(tmp_path / "none"), "--qrels", str(qrels)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and "no such run folder" in bad.stderr
