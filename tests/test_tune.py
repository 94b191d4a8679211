"""`rserini.tune` and `rserini tune`: the k1 x b grid, sampling, refinement and the heatmap."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import matplotlib.image
import pytest

import rserini
from rserini import tune
from rserini.eval import EvaluationError, evaluate, retrieve
from rserini.formats import write_qrels, write_queries
from rserini.tune import Grid, grid, parse_values, split_queries
from support import cli, collection

WORDS = [f"w{i}" for i in range(30)]


def synthetic() -> tuple[list[tuple[str, str]], list[tuple[str, str]], dict[str, dict[str, int]]]:
    """60 documents of very different lengths, 12 judged topics, one unjudged topic."""
    rng = random.Random(7)
    docs = []
    for i in range(60):
        length = rng.choice([3, 8, 20, 60, 150])
        docs.append((f"d{i}", " ".join(rng.choice(WORDS) for _ in range(length))))
    queries, qrels = [], {}
    for j in range(12):
        terms = rng.sample(WORDS, 3)
        queries.append((f"q{j}", " ".join(terms)))
        matching = [d for d, text in docs if sum(t in text.split() for t in terms) >= 2]
        qrels[f"q{j}"] = {d: rng.choice([1, 2]) for d in matching[:5]} or {"d0": 1}
    queries.append(("unjudged", "w1 w2"))
    qrels["no-topic"] = {"d1": 1}
    return docs, queries, qrels


@pytest.fixture(scope="module")
def data():
    docs, queries, qrels = synthetic()
    index = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    return index, queries, qrels


@pytest.mark.parametrize(
    ("spec", "values"),
    [
        ("0:1:5", [0.0, 0.25, 0.5, 0.75, 1.0]),
        ("0.5:30:3", [0.5, 15.25, 30.0]),
        ("1:100:3:log", [1.0, 10.0, 100.0]),
        ("0:1:3", [0.0, 0.5, 1.0]),
        ("0.9, 25,1.2,0.9", [0.9, 1.2, 25.0]),
        ("0:1:10", [0.0, 0.1111, 0.2222, 0.3333, 0.4444, 0.5556, 0.6667, 0.7778, 0.8889, 1.0]),
        ("0.4", [0.4]),
        ("2:2:1", [2.0]),
    ],
)
def test_parse_values(spec: str, values: list[float]) -> None:
    assert parse_values(spec) == values


@pytest.mark.parametrize(
    "spec", ["1:2", "1:2:0", "a:2:3", "1:2:3:lin", "0:10:3:log", "", "1,x", "1:2:3.5", "nan"]
)
def test_parse_values_rejects(spec: str) -> None:
    with pytest.raises(ValueError):
        parse_values(spec)


def test_every_cell_is_the_evaluation_of_its_run(data) -> None:
    index, queries, qrels = data
    k1s, bs = [0.3, 1.2, 8.0], [0.0, 0.5, 1.0]
    result = grid(index, queries, qrels, k1s, bs, metric="nDCG@5")
    assert result.depth == 5
    assert result.queries == 12  # topics judged by the qrels; "no-topic" is not evaluated
    assert [(r["k1"], r["b"]) for r in result.rows] == [(k1, b) for k1 in k1s for b in bs]
    judged = [q for q in queries if q[0] in qrels]
    judged_qrels = {q: qrels[q] for q, _ in judged}
    for row in result.rows:
        run = retrieve(index, judged, 5, k1=row["k1"], b=row["b"])
        assert row["nDCG@5"] == evaluate(run, judged_qrels, ["nDCG@5"])["nDCG@5"]
    values = [r["nDCG@5"] for r in result.rows]
    assert len(set(values)) > 1  # the parameters matter on this corpus
    assert result.best["nDCG@5"] == max(values)
    assert result.matrix()[2][1] == result.value(1.2, 1.0)
    csv = result.to_csv().splitlines()
    assert csv[0] == "stage,k1,b,nDCG@5" and len(csv) == 10
    assert csv[1].startswith("grid,0.3,0,")
    with pytest.raises(KeyError):
        result.value(0.9, 0.4)


def test_metric_without_cutoff_searches_1000_deep(data) -> None:
    index, queries, qrels = data
    assert grid(index, queries, qrels, [0.9], [0.4], metric="MAP").depth == 1000
    assert grid(index, queries, qrels, [0.9], [0.4], metric="MAP", k=7).depth == 7


def test_ties_go_to_the_cell_nearest_the_default() -> None:
    rows = [
        {"k1": k1, "b": b, "m": 0.5 if (k1, b) in {(0.5, 0.0), (1.0, 0.5), (8.0, 0.5)} else 0.1}
        for k1 in (0.5, 1.0, 8.0)
        for b in (0.0, 0.5, 1.0)
    ]
    g = Grid("m", [0.5, 1.0, 8.0], [0.0, 0.5, 1.0], rows, queries=1, depth=10, seconds=0.0)
    assert (g.best["k1"], g.best["b"]) == (1.0, 0.5)


def test_invalid_grids_and_inputs(data) -> None:
    index, queries, qrels = data
    with pytest.raises(rserini.QueryError, match="k1"):
        grid(index, queries, qrels, [-1.0], [0.4])
    with pytest.raises(rserini.QueryError, match="b must be"):
        grid(index, queries, qrels, [0.9], [1.5])
    with pytest.raises(rserini.QueryError, match="at least one"):
        grid(index, queries, qrels, [], [0.4])
    with pytest.raises(EvaluationError, match="unknown metric"):
        grid(index, queries, qrels, [0.9], [0.4], metric="nDCG@ten")
    with pytest.raises(EvaluationError, match="no query of the topics is judged"):
        grid(index, queries, {"x": {"d1": 1}}, [0.9], [0.4])
    with pytest.raises(EvaluationError, match="topic 'q1' appears twice"):
        grid(index, [*queries, ("q1", "again")], qrels, [0.9], [0.4])
    with pytest.raises(EvaluationError, match="no tuning query matches"):
        grid(index, [("q0", "zzz")], {"q0": {"d1": 1}}, [0.9], [0.4])


def test_split_queries_is_seeded_and_disjoint() -> None:
    queries = [(f"q{i}", f"text {i}") for i in range(50)]
    tuning, held_out = split_queries(queries, 20, seed=3)
    assert len(tuning) == 20 and len(held_out) == 30
    assert sorted(tuning + held_out) == sorted(queries)
    assert tuning == sorted(tuning, key=queries.index)  # original order kept
    assert split_queries(queries, 20, seed=3) == (tuning, held_out)
    assert split_queries(queries, 20, seed=4)[0] != tuning
    assert split_queries(queries, None) == (queries, [])
    assert split_queries(queries, 500) == (queries, [])
    with pytest.raises(ValueError):
        split_queries(queries, 0)


def test_tune_samples_refines_and_checks_on_held_out(data) -> None:
    index, queries, qrels = data
    calls = []
    report = tune.tune(
        index,
        queries,
        qrels,
        [0.3, 1.2, 8.0],
        [0.0, 0.5, 1.0],
        metric="nDCG@10",
        sample=8,
        seed=1,
        refine=True,
        refine_steps=3,
        name="synthetic",
    )
    m = "nDCG@10"
    assert len(report.tuning_qids) == 8 and len(report.held_out_qids) == 4
    assert report.unmatched_qids == ["no-topic"] and report.unjudged == 1
    tuning = [q for q in queries if q[0] in report.tuning_qids]
    held = [q for q in queries if q[0] in report.held_out_qids]
    assert report.grid.queries == 8

    def score(part, k1, b):
        part_qrels = {q: qrels[q] for q, _ in part}
        return evaluate(retrieve(index, part, 10, k1=k1, b=b), part_qrels, [m])[m]

    assert report.default[m] == score(tuning, 0.9, 0.4)
    assert report.held_out is not None and report.held_out["queries"] == 4
    assert report.held_out["default"] == score(held, 0.9, 0.4)
    assert report.held_out["best"] == score(held, report.best["k1"], report.best["b"])
    assert report.best[m] == score(tuning, report.best["k1"], report.best["b"])

    coarse = report.grid.best
    refined = report.refined
    assert refined is not None and refined.stage == "refine"
    assert coarse["k1"] in refined.k1s and coarse["b"] in refined.bs
    i, j = report.grid.k1s.index(coarse["k1"]), report.grid.bs.index(coarse["b"])
    k1s, bs = report.grid.k1s, report.grid.bs
    assert k1s[max(i - 1, 0)] <= min(refined.k1s) and max(refined.k1s) <= k1s[min(i + 1, 2)]
    assert bs[max(j - 1, 0)] <= min(refined.bs) and max(refined.bs) <= bs[min(j + 1, 2)]
    assert report.best[m] >= coarse[m]
    assert report.best[m] == max(r[m] for r in report.rows)

    csv = report.to_csv().splitlines()
    assert len(csv) == 1 + len(report.grid.rows) + len(refined.rows)
    assert sum(line.startswith("refine,") for line in csv) == len(refined.rows)
    saved = json.loads(report.to_json())
    assert saved["best"] == report.best and saved["held_out"] == report.held_out
    assert saved["tuning_qids"] == report.tuning_qids
    summary = report.summary()
    assert summary.startswith("synthetic: nDCG@10") and "held-out" in summary

    tune.grid(index, queries, qrels, [1.0, 2.0], [0.5], progress=lambda *a: calls.append(a))
    assert [c[:2] for c in calls] == [(1, 2), (2, 2)]


def test_tune_without_sample_has_no_held_out(data) -> None:
    index, queries, qrels = data
    report = tune.tune(index, queries, qrels, [0.9], [0.4])
    assert report.held_out is None and report.held_out_qids == []
    assert report.best["nDCG@10"] == report.default["nDCG@10"]
    assert "held-out" not in report.summary()


def test_plot_writes_a_heatmap_png(data, tmp_path: Path) -> None:
    index, queries, qrels = data
    report = tune.tune(index, queries, qrels, [0.3, 1.2, 8.0], [0.0, 0.5, 1.0], refine=True)
    path = tune.plot(report, tmp_path / "img" / "grid.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    height, width, _ = matplotlib.image.imread(path).shape
    assert width > 1.5 * height  # two panels: the grid and the refined grid
    single = tune.plot(report.grid, tmp_path / "single.png", title="one grid")
    height, width, _ = matplotlib.image.imread(single).shape
    assert width < 1.5 * height


def test_progress_bar_and_missing_matplotlib(data, tmp_path, capsys, monkeypatch) -> None:
    index, queries, qrels = data
    result = grid(index, queries, qrels, [0.9, 2.0], [0.4], progress=True)
    err = capsys.readouterr().err
    assert "2/2" in err and err.endswith("\n")
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(rserini.RseriniError, match=r"pip install 'rserini\[plot\]'"):
        tune.plot(result, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


# The command line


def beir_folder(root: Path) -> Path:
    docs, queries, qrels = synthetic()
    (root / "qrels").mkdir(parents=True)
    with open(root / "corpus.jsonl", "w") as f:
        for docid, text in docs:
            f.write(json.dumps({"_id": docid, "title": "", "text": text}) + "\n")
    write_queries(queries, root / "queries.jsonl")
    write_qrels(qrels, root / "qrels" / "test.tsv", style="beir")
    return root


def test_cli_tune_writes_csv_json_and_heatmap(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "mini")
    out_dir = tmp_path / "out"
    out = cli(
        "tune",
        "--corpus",
        folder,
        "--k1",
        "0.3,1.2,8",
        "--b",
        "0:1:3",
        "--sample",
        "8",
        "--seed",
        "2",
        "--refine",
        "--refine-steps",
        "3",
        "--analyzer",
        "whitespace",
        "--output",
        out_dir,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("mini: nDCG@10 over k1 x b, 8 tuning queries (sample, seed 2)")
    assert "best: k1=" in out.stdout and "held-out" in out.stdout
    assert "1 judged queries have no topic" in out.stderr
    assert "1 topics are not judged" in out.stderr
    saved = json.loads((out_dir / "grid.json").read_text())
    assert len(saved["grid"]["rows"]) == 9 and saved["refined"] is not None
    assert saved["tuning_queries"] == 8 and saved["held_out_queries"] == 4
    csv = (out_dir / "grid.csv").read_text().splitlines()
    assert csv[0] == "stage,k1,b,nDCG@10" and len(csv) == 1 + 9 + len(saved["refined"]["rows"])
    assert (out_dir / "heatmap.png").read_bytes()[:4] == b"\x89PNG"

    again = cli(
        "tune",
        "--corpus",
        folder,
        "--k1",
        "0.3,1.2,8",
        "--b",
        "0:1:3",
        "--sample",
        "8",
        "--seed",
        "2",
        "--refine",
        "--refine-steps",
        "3",
        "--analyzer",
        "whitespace",
        "--output",
        tmp_path / "again",
        "--no-plot",
        "-q",
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:] == out.stdout.splitlines()[1:]  # line 1 has timings
    assert again.stderr == ""
    assert json.loads((tmp_path / "again" / "grid.json").read_text())["best"] == saved["best"]
    assert not (tmp_path / "again" / "heatmap.png").exists()


def test_cli_tune_errors(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "mini")
    out = cli("tune", "--corpus", folder, "--k1", "1:2")
    assert out.returncode == 2 and "start:stop:count" in out.stderr
    out = cli("tune", "--corpus", folder / "corpus.jsonl", "--no-plot")
    assert out.returncode == 1 and "--queries and --qrels are needed" in out.stderr
    assert "Traceback" not in out.stderr
    out = cli("tune", "--corpus", folder, "--b", "0,2", "--no-plot")
    assert out.returncode == 1 and "b must be between 0 and 1" in out.stderr
    out = cli("tune", "--corpus", folder, "--metric", "ERR@20", "--no-plot")
    assert out.returncode == 1 and "not one of trec_eval's" in out.stderr


# On a real collection


def test_scifact_grid_contains_pyserini_default_and_penalises_long_document_settings() -> None:
    folder = collection("scifact")
    index, queries, qrels, name = tune.open_collection(folder)
    assert name == "scifact" and len(index) == 5183
    result = grid(index, queries, qrels, [0.9, 25.0], [0.4, 1.0], remove_query=True)
    assert result.queries == 300
    assert round(result.value(0.9, 0.4), 4) == 0.6789  # Pyserini's BM25 flat figure
    assert result.value(25.0, 1.0) < result.value(0.9, 0.4) - 0.02
