"""`rserini.eval` and `rserini eval`: trec_eval's numbers, through ir_measures."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import ir_measures
import pytest
from ir_measures import AP, RR, P, R, nDCG

import rserini
from rserini.eval import DEFAULT_METRICS, EvaluationError, Evaluator, evaluate, retrieve
from rserini.formats import beir_collection, read_run, write_qrels, write_run
from support import cli, collection

# q1 ranks a (rel 1), c (rel 0), b (rel 2), z (unjudged); q2 ranks w, then x (rel 1); q3 is
# judged but missing from the run; q9 is in the run but not judged.
QRELS = {"q1": {"a": 1, "b": 2, "c": 0}, "q2": {"x": 1}, "q3": {"y": 1}}
RUN = {
    "q1": {"a": 3.0, "c": 2.0, "b": 1.0, "z": 0.5},
    "q2": {"w": 2.0, "x": 1.0},
    "q9": {"a": 1.0},
}
# Per-query values computed by hand (trec_eval's definitions; nDCG with linear gains).
NDCG_Q1 = (1 + 2 / math.log2(4)) / (2 + 1 / math.log2(3))
NDCG_Q2 = 1 / math.log2(3)
BY_HAND = {
    "q1": {"P@10": 0.2, "MRR@10": 1.0, "R@100": 1.0, "MAP": (1 + 2 / 3) / 2, "nDCG@10": NDCG_Q1},
    "q2": {"P@10": 0.1, "MRR@10": 0.5, "R@100": 1.0, "MAP": 0.5, "nDCG@10": NDCG_Q2},
    "q3": {"P@10": 0.0, "MRR@10": 0.0, "R@100": 0.0, "MAP": 0.0, "nDCG@10": 0.0},
}
METRICS = ["P@10", "MRR@10", "R@100", "MAP", "nDCG@10"]


def test_values_match_hand_computation_and_missing_queries_count_as_zero() -> None:
    result = evaluate(RUN, QRELS, METRICS, per_query=True)
    assert result.missing_policy == "zero"
    assert result.queries == 3
    assert result.missing == ("q3",)
    assert result.unjudged == ("q9",)
    assert result.per_query is not None
    for qid, values in BY_HAND.items():
        for metric, value in values.items():
            assert result.per_query[qid][metric] == pytest.approx(value, abs=1e-12), (qid, metric)
    for metric in METRICS:
        mean = sum(BY_HAND[q][metric] for q in BY_HAND) / 3
        assert result[metric] == pytest.approx(mean, abs=1e-12), metric


def test_skip_policy_averages_only_answered_queries() -> None:
    result = evaluate(RUN, QRELS, METRICS, per_query=True, missing="skip")
    assert result.queries == 2
    assert result.missing == ("q3",)
    assert result.per_query is not None and set(result.per_query) == {"q1", "q2"}
    for metric in METRICS:
        mean = (BY_HAND["q1"][metric] + BY_HAND["q2"][metric]) / 2
        assert result[metric] == pytest.approx(mean, abs=1e-12), metric


def test_zero_policy_equals_ir_measures_and_skip_equals_it_on_answered_qrels() -> None:
    measures = [P @ 10, R @ 100, AP, nDCG @ 10]
    names = ["P@10", "R@100", "MAP", "nDCG@10"]
    zero = evaluate(RUN, QRELS, names)
    reference = ir_measures.calc_aggregate(measures, QRELS, RUN)
    for name, measure in zip(names, measures, strict=True):
        assert zero[name] == pytest.approx(reference[measure], abs=1e-12)
    skip = evaluate(RUN, QRELS, names, missing="skip")
    answered = {q: QRELS[q] for q in ("q1", "q2")}
    reference = ir_measures.calc_aggregate(measures, answered, RUN)
    for name, measure in zip(names, measures, strict=True):
        assert skip[name] == pytest.approx(reference[measure], abs=1e-12)


def test_unjudged_run_queries_change_nothing() -> None:
    judged_only = {q: RUN[q] for q in ("q1", "q2")}
    assert (
        evaluate(RUN, QRELS, METRICS).aggregate == evaluate(judged_only, QRELS, METRICS).aggregate
    )


def test_empty_result_list_is_a_missing_query() -> None:
    run = {**RUN, "q3": {}}
    result = evaluate(run, QRELS, METRICS, missing="skip")
    assert result.missing == ("q3",) and result.queries == 2


def test_ties_are_ranked_as_trec_eval_ranks_them() -> None:
    """trec_eval orders equal scores by docid descending: b comes before a."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    result = evaluate(run, qrels, ["MRR", "P@1", "MRR@1", "MRR@2"])
    assert result["MRR"] == 0.5
    assert result["P@1"] == 0.0
    assert result["MRR@1"] == 0.0  # trec_eval -M 1 -m recip_rank
    assert result["MRR@2"] == 0.5
    # ir_measures' default RR@k (MS MARCO's script) breaks the tie the other way.
    assert ir_measures.calc_aggregate([RR @ 1], qrels, run)[RR @ 1] == 1.0


def test_mrr_at_k_is_reciprocal_rank_over_the_first_k() -> None:
    qrels = {"q1": {"d5": 1}, "q2": {"d2": 1}}
    run = {
        "q1": {f"d{i}": 10.0 - i for i in range(1, 8)},  # d5 at rank 5
        "q2": {f"d{i}": 10.0 - i for i in range(1, 8)},  # d2 at rank 2
    }
    result = evaluate(run, qrels, ["MRR@4", "MRR@5", "RR"])
    assert result["MRR@4"] == pytest.approx(0.5 / 2)
    assert result["MRR@5"] == pytest.approx((0.2 + 0.5) / 2)
    assert result["RR"] == pytest.approx((0.2 + 0.5) / 2)


@pytest.mark.parametrize(
    ("name", "same_as"),
    [
        ("MAP", "AP"),
        ("map", "AP"),
        ("MRR@10", "RR@10"),
        ("Recall@100", "R@100"),
        ("NDCG@10", "nDCG@10"),
        ("ndcg_cut.10", "nDCG@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("recip_rank", "RR"),
        ("P.10", "P@10"),
    ],
)
def test_metric_aliases(name: str, same_as: str) -> None:
    assert evaluate(RUN, QRELS, [name])[name] == evaluate(RUN, QRELS, [same_as])[same_as]


@pytest.mark.parametrize("name", ["bogus", "nDCG@ten", "ERR@20", "Judged@10", ""])
def test_unknown_or_non_trec_eval_metrics_are_refused(name: str) -> None:
    with pytest.raises(EvaluationError, match="metric") as excinfo:
        evaluate(RUN, QRELS, [name])
    assert isinstance(excinfo.value, rserini.RseriniError)
    assert isinstance(excinfo.value, ValueError)


def test_bad_evaluations_are_clear_errors() -> None:
    with pytest.raises(EvaluationError, match="the run holds no result"):
        evaluate({}, QRELS)
    with pytest.raises(EvaluationError, match="the run holds no result"):
        evaluate({"q1": {}}, QRELS)
    with pytest.raises(EvaluationError, match="qrels hold no judgement"):
        evaluate(RUN, {})
    with pytest.raises(EvaluationError, match="no query of the run is judged"):
        evaluate({"other": {"a": 1.0}}, QRELS)
    with pytest.raises(EvaluationError, match="given twice"):
        evaluate(RUN, QRELS, ["MAP", "AP"])
    with pytest.raises(EvaluationError, match="missing-query policy"):
        evaluate(RUN, QRELS, missing="ignore")
    with pytest.raises(EvaluationError, match="no metric"):
        evaluate(RUN, QRELS, [])


def test_missing_ir_measures_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ir_measures", None)
    with pytest.raises(rserini.RseriniError, match=r"pip install 'rserini\[eval\]'"):
        evaluate(RUN, QRELS)


def test_text_output_is_trec_eval_style() -> None:
    result = evaluate(RUN, QRELS, ["P@10", "MAP"], per_query=True)
    lines = [line.split("\t") for line in result.to_text(per_query=True).splitlines()]
    assert [(m.strip(), q) for m, q, _ in lines] == [
        ("P@10", "q1"),
        ("MAP", "q1"),
        ("P@10", "q2"),
        ("MAP", "q2"),
        ("P@10", "q3"),
        ("MAP", "q3"),
        ("P@10", "all"),
        ("MAP", "all"),
    ]
    assert lines[-2][2] == "0.1000"
    with pytest.raises(ValueError, match="per-query"):
        evaluate(RUN, QRELS, ["P@10"]).to_text(per_query=True)


def test_evaluator_is_reusable() -> None:
    evaluator = Evaluator(QRELS, ["P@10"])
    first = evaluator(RUN)["P@10"]
    assert evaluator({"q1": {"a": 1.0}})["P@10"] == pytest.approx(0.1 / 3)
    assert evaluator(RUN)["P@10"] == first


def test_retrieve_returns_k_hits_and_removes_the_query_document(tiny_index) -> None:
    queries = [("d1", "network packets routers"), ("q2", "zzz unknown")]
    run = retrieve(tiny_index, queries, 1)
    assert list(run["d1"]) == ["d1"] and run["q2"] == {}
    run = retrieve(tiny_index, queries, 1, remove_query=True)
    assert list(run["d1"]) == ["d4"]  # d1 dropped; k + 1 searched, so one hit remains
    hits = tiny_index.search("network packets routers", k=2)
    assert run["d1"]["d4"] == hits[1].score


# On a real collection


@pytest.fixture(scope="module")
def scifact_run():
    beir = beir_collection(collection("scifact"))
    index = rserini.Index.from_jsonl(beir.corpus, progress=False)
    run = retrieve(index, beir.queries(), 1000, remove_query=True)
    return run, beir.qrels(), beir


def trec_eval_mrr(run, qrels, k: int) -> float:
    """trec_eval -M k -m recip_rank through ir_measures' pytrec_eval provider."""
    top = {
        q: dict(sorted(d.items(), key=lambda x: (x[1], x[0]), reverse=True)[:k])
        for q, d in run.items()
    }
    return ir_measures.pytrec_eval.calc_aggregate([RR], qrels, top)[RR]


def test_scifact_numbers_equal_ir_measures(scifact_run) -> None:
    run, qrels, _ = scifact_run
    result = evaluate(run, qrels, DEFAULT_METRICS, per_query=True)
    reference = ir_measures.calc_aggregate([nDCG @ 10, R @ 100, R @ 1000, AP, P @ 10], qrels, run)
    assert result["nDCG@10"] == pytest.approx(reference[nDCG @ 10], rel=1e-12)
    assert result["R@100"] == pytest.approx(reference[R @ 100], rel=1e-12)
    assert result["R@1000"] == pytest.approx(reference[R @ 1000], rel=1e-12)
    assert result["MAP"] == pytest.approx(reference[AP], rel=1e-12)
    assert result["P@10"] == pytest.approx(reference[P @ 10], rel=1e-12)
    assert result["MRR@10"] == pytest.approx(trec_eval_mrr(run, qrels, 10), rel=1e-12)
    # Pyserini's published BM25 flat figures for these files.
    assert round(result["nDCG@10"], 4) == 0.6789
    assert round(result["R@100"], 4) == 0.9253
    assert round(result["R@1000"], 4) == 0.9767
    assert result.queries == 300 and not result.missing and not result.unjudged
    per_query = {
        (m.query_id, m.measure): m.value for m in ir_measures.iter_calc([nDCG @ 10], qrels, run)
    }
    assert result.per_query is not None
    for qid, values in result.per_query.items():
        assert values["nDCG@10"] == per_query[(qid, nDCG @ 10)]


def test_cli_eval_equals_ir_measures_on_the_run_file(scifact_run, tmp_path: Path) -> None:
    run, qrels, beir = scifact_run
    path = tmp_path / "run.trec"
    write_run(run, path)
    from_file = read_run(path)
    reference = ir_measures.calc_aggregate([nDCG @ 10, R @ 100, AP], qrels, from_file)

    out = cli(
        "eval",
        "--qrels",
        beir.qrels_path,
        "--run",
        path,
        "--metrics",
        "nDCG@10",
        "R@100",
        "MAP",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["aggregate"]["nDCG@10"] == pytest.approx(reference[nDCG @ 10], rel=1e-12)
    assert data["aggregate"]["R@100"] == pytest.approx(reference[R @ 100], rel=1e-12)
    assert data["aggregate"]["MAP"] == pytest.approx(reference[AP], rel=1e-12)
    assert data["queries"] == 300

    out = cli("eval", "--qrels", beir.qrels_path, "--run", path, "--per-query")
    assert out.returncode == 0, out.stderr
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    assert {m.strip() for m, _, _ in rows} == set(DEFAULT_METRICS)
    all_rows = {m.strip(): float(v) for m, q, v in rows if q == "all"}
    assert all_rows["nDCG@10"] == round(reference[nDCG @ 10], 4)
    per_query = {
        (m.query_id, m.measure): m.value for m in ir_measures.iter_calc([AP], qrels, from_file)
    }
    ap_rows = [(q, float(v)) for m, q, v in rows if m.strip() == "MAP" and q != "all"]
    assert len(ap_rows) == 300
    for qid, value in ap_rows:
        assert value == round(per_query[(qid, AP)], 4)


# The command line on small synthetic files


def test_cli_eval_notes_missing_and_unjudged_queries(tmp_path: Path) -> None:
    write_qrels(QRELS, tmp_path / "qrels.txt")
    write_run(RUN, tmp_path / "run.trec")
    out = cli(
        "eval",
        "--qrels",
        tmp_path / "qrels.txt",
        "--run",
        tmp_path / "run.trec",
        "--metrics",
        "P@10",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["P@10", "all", "0.1000"]
    assert "1 judged queries have no result in the run, counted as 0" in out.stderr
    assert "1 queries of the run are not judged" in out.stderr
    out = cli(
        "eval",
        "--qrels",
        tmp_path / "qrels.txt",
        "--run",
        tmp_path / "run.trec",
        "--metrics",
        "P@10",
        "--missing",
        "skip",
    )
    assert out.stdout.split() == ["P@10", "all", "0.1500"]
    assert "left out of the averages" in out.stderr


@pytest.mark.parametrize(
    ("run_text", "metric", "message"),
    [
        ("q1 Q0 a 1 2 t\nq1 Q0 a 2 1 t\n", "P@10", "run.trec:2: document 'a' listed twice"),
        ("", "P@10", "no result line in the run"),
        ("q1 Q0 a 1 2 t\n", "nDCG@cut", "unknown metric 'nDCG@cut'"),
        ("other Q0 a 1 2 t\n", "P@10", "no query of the run is judged"),
    ],
)
def test_cli_eval_errors_are_one_line(tmp_path: Path, run_text: str, metric: str, message: str):
    write_qrels(QRELS, tmp_path / "qrels.txt")
    (tmp_path / "run.trec").write_text(run_text)
    out = cli(
        "eval",
        "--qrels",
        tmp_path / "qrels.txt",
        "--run",
        tmp_path / "run.trec",
        "--metrics",
        metric,
    )
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("rserini: error: ") and message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_pyserini_runs_evaluate_as_ir_measures_evaluates_them(tmp_path: Path) -> None:
    """Pyserini's own ADI runs (tests/data) give ir-measures' numbers, per query too."""
    import gzip

    from support import REPO

    folder = collection("adi")
    qrels = beir_collection(folder).qrels()
    with gzip.open(REPO / "tests" / "data" / "adi-pyserini-bm25.trec.gz", "rt") as f:
        lines = [line for line in f if line.rstrip().endswith("pyserini-k1=0.9-b=0.4")]
    path = tmp_path / "pyserini.trec"
    path.write_text("".join(lines))
    run = read_run(path)
    result = evaluate(run, qrels, ["nDCG@10", "R@1000", "MAP"], per_query=True)
    reference = ir_measures.calc_aggregate([nDCG @ 10, R @ 1000, AP], qrels, run)
    assert result["nDCG@10"] == pytest.approx(reference[nDCG @ 10], rel=1e-12)
    assert result["R@1000"] == pytest.approx(reference[R @ 1000], rel=1e-12)
    assert result["MAP"] == pytest.approx(reference[AP], rel=1e-12)
    assert round(result["nDCG@10"], 4) == 0.4747  # docs/parity.md
    per_query = {
        (m.query_id, m.measure): m.value for m in ir_measures.iter_calc([nDCG @ 10], qrels, run)
    }
    assert result.per_query is not None
    for qid, values in result.per_query.items():
        assert values["nDCG@10"] == pytest.approx(per_query.get((qid, nDCG @ 10), 0.0))
    out = cli(
        "eval", "--qrels", folder / "qrels" / "test.tsv", "--run", path, "--metrics", "nDCG@10"
    )
    assert out.returncode == 0, out.stderr
    assert "0.4747" in out.stdout
