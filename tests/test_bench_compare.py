"""benches/compare.py: the comparison driver runs and reports rserini (no timings are
asserted), with and without qrels; its exactness check and docs sections."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from support import REPO, collection


def run_compare(*args: str) -> subprocess.CompletedProcess[str]:
    """benches/compare.py with rserini alone and one build; fails on a non-zero exit."""
    script = REPO / "benches" / "compare.py"
    command = [sys.executable, str(script), "--engines", "rserini", "--builds", "1", *args]
    out = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    return out


def test_compare_smoke_reports_rserini():
    out = run_compare("--smoke", str(collection("adi")))
    rows = [line for line in out.stdout.splitlines() if line.startswith("| rserini |")]
    assert len(rows) == 1, out.stdout
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    header = [cell.strip() for cell in out.stdout.splitlines()[0].strip("|").split("|")]
    for column in ("single calls", "batch"):
        for k in (10, 1000):
            qps = float(cells[header.index(f"QPS k={k}, 1 thread, {column}")].replace(",", ""))
            assert qps > 0, column
    assert "batch_search (numpy arrays" in cells[header.index("notes")]
    ndcg = float(cells[header.index("nDCG@10")])
    assert 0 < ndcg <= 1


def load_bench(name: str):
    """A script of benches/ as a module (they are not a package)."""
    path = REPO / "benches" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def beir_folder(folder: Path, docs: int, queries: int) -> Path:
    words = ["kernel", "driver", "memory", "page", "lock", "queue", "device", "buffer"]
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
        for i in range(docs):
            text = " ".join(words[(i * j) % len(words)] for j in range(1, 9))
            f.write(json.dumps({"_id": f"d{i}", "title": "", "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as f:
        for i in range(queries):
            f.write(json.dumps({"_id": str(i), "text": f"{words[i % 8]} {words[(i + 3) % 8]}"}))
            f.write("\n")
    return folder


def test_compare_runs_every_query_of_a_corpus_without_qrels(tmp_path):
    folder = beir_folder(tmp_path, docs=40, queries=7)
    out = run_compare("--smoke", str(folder))
    assert "40 documents, 7 queries" in out.stderr
    header = [cell.strip() for cell in out.stdout.splitlines()[0].strip("|").split("|")]
    row = next(line for line in out.stdout.splitlines() if line.startswith("| rserini |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[header.index("nDCG@10")] == "\u2013"
    assert float(cells[header.index("QPS k=10, 1 thread, single calls")].replace(",", "")) > 0
    out = run_compare("--smoke", "--queries", "3", str(folder))
    assert "40 documents, 3 queries" in out.stderr


def test_compare_reads_all_queries_without_qrels_and_judged_ones_with(tmp_path):
    compare = load_bench("compare")
    folder = beir_folder(tmp_path, docs=3, queries=5)
    assert compare.read_qrels(folder / "qrels" / "test.tsv") is None
    assert [q for q, _ in compare.read_queries(folder / "queries.jsonl", None)] == list("01234")
    assert len(compare.read_queries(folder / "queries.jsonl", None, 2)) == 2
    judged = {"1": {"d0": 1}, "3": {"d1": 1}}
    assert [q for q, _ in compare.read_queries(folder / "queries.jsonl", judged)] == ["1", "3"]


class Hit:
    def __init__(self, docid, score):
        self.docid, self.score = docid, score


class FakeIndex:
    """Answers like rserini's Index; ``exhaustive`` gives other hits for query "b"."""

    def __init__(self, algorithm: bool):
        self.algorithm = algorithm

    def search(self, text, k, **options):
        if not self.algorithm and "algorithm" in options:
            raise TypeError("unexpected keyword argument 'algorithm'")
        hits = [Hit("x", 2.0), Hit("y", 1.0)][:k]
        if text == "b" and options.get("algorithm") == "exhaustive":
            hits = [Hit("y", 2.0), Hit("x", 1.0)][:k]
        return hits


def test_exactness_check_compares_pruned_with_exhaustive_hits():
    compare = load_bench("compare")
    timer = compare.Timer([("q1", "a"), ("q2", "b")], deep_k=1000, min_seconds=0, builds=1)
    timer.hits = {k: [[("x", 2.0), ("y", 1.0)]] * 2 for k in (10, 1000)}
    assert compare.check_exact(FakeIndex(algorithm=False), timer) == compare.NO_ALGORITHM
    said = compare.check_exact(FakeIndex(algorithm=True), timer)
    assert said.startswith("pruned != exhaustive on 2 queries at k=10 and k=1000")
    assert "k=10: 1 differ (first: query q2 (single))" in said
    timer.queries = [("q1", "a")]
    timer.hits = {k: [[("x", 2.0), ("y", 1.0)]] for k in (10, 1000)}
    said = compare.check_exact(FakeIndex(algorithm=True), timer)
    assert said == "pruned == exhaustive on 1/1 queries at k=10 and k=1000"


def test_rounds_run_the_engines_in_turn_and_merge_to_medians(tmp_path, monkeypatch):
    compare = load_bench("compare")
    order = []
    qps = {"rserini": [10.0, 30.0, 20.0], "bm25s": [5.0, 10.0, 40.0], "pisa": [4.0, 1.0, 8.0]}

    def fake_run(engine, spec, work, name=None):
        order.append(engine)
        value = qps[engine][sum(e == engine for e in order) - 1]
        if engine == "pisa" and value == 1.0:
            return {"skipped": "failed (exit 1): boom"}
        algorithm = "BMW" if value < 20 else "MaxScore"
        return {
            "qps10": value,
            "index_s": 100 / value,
            "rss_mb": value,
            "p50_ms": 1.0,
            "p99_ms": 2.0,
            "algorithm10_t1": algorithm,
            "exact": "same",
            "notes": "at {qps10:,.1f} QPS by {algorithm10_t1}; {exact}",
            "run": {"q": {"d": value}},
        }

    monkeypatch.setattr(compare, "run_engine", fake_run)
    merged, per_round = compare.run_rounds(["rserini", "bm25s", "pisa"], {}, tmp_path, 3)
    assert order[:3] == ["rserini", "bm25s", "pisa"]
    assert order[3:6] == ["bm25s", "pisa", "rserini"]
    assert order[6:] == ["pisa", "rserini", "bm25s"]
    ours = merged["rserini"]
    assert (ours["qps10"], ours["index_s"], ours["rss_mb"]) == (20.0, 5.0, 30.0)
    assert ours["notes"] == "at 20.0 QPS by BMW / MaxScore / MaxScore; same"
    assert ours["run"] == {"q": {"d": 10.0}}  # the first round's rankings
    assert merged["pisa"]["qps10"] == 6.0  # the two rounds that ran
    assert merged["pisa"]["notes"].endswith("; round 2 failed (exit 1): boom")
    # Within each round: rserini ÷ the best peer that ran (QPS), the best peer's time ÷
    # rserini's (index).
    assert compare.round_ratios(per_round, "qps10") == [2.0, 3.0, 0.5]
    assert compare.round_ratios(per_round, "index_s") == [2.0, 3.0, 0.5]
    row = compare.table(merged, per_round).splitlines()[-1]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == cells[4] == "2.00x (bm25s; rounds 0.50 to 3.00x)"  # index, QPS k=10
    assert compare.merge_rounds([{"skipped": "not installed"}]) == {"skipped": "not installed"}


def test_write_docs_keeps_the_sections_of_other_corpora(tmp_path, monkeypatch):
    compare = load_bench("compare")
    docs = tmp_path / "benchmarks.md"
    scifact = f"{compare.SECTION} (scifact, 5 documents, 3 queries)\n\nold scifact\n"
    docs.write_text(f"# Benchmarks\n\n{scifact}\n## Later\n\nkept\n", encoding="utf-8")
    monkeypatch.setattr(compare, "DOCS", docs)
    compare.write_docs("linux-chunks", f"{compare.SECTION} (linux-chunks, 9 documents)\n\nv1\n")
    compare.write_docs("linux-chunks", f"{compare.SECTION} (linux-chunks, 9 documents)\n\nv2\n")
    text = docs.read_text(encoding="utf-8")
    assert "old scifact" in text and "## Later\n\nkept" in text
    assert "v2" in text and "v1" not in text
    assert text.count("(linux-chunks,") == 1
    # A blank line between a replaced section and the next.
    compare.write_docs("scifact", f"{compare.SECTION} (scifact, 5 documents, 3 queries)\n\nv3\n")
    assert "\nv3\n\n## Later\n\nkept" in docs.read_text()


def test_curve_subsets_are_first_documents_and_nested_samples_by_title(tmp_path):
    compare = load_bench("compare")
    source = tmp_path / "corpus.jsonl"
    docs = [
        {"_id": f"f{i // 4}:{i % 4}", "title": f"file{i // 4}" if i < 1600 else "", "text": "x"}
        for i in range(2000)
    ]
    lines = [json.dumps(doc) + "\n" for doc in docs]
    source.write_text("".join(lines), encoding="utf-8")
    subsets = compare.write_subsets(source, tmp_path, [0.1, 0.3, 1.0], len(docs))
    kinds = [(s["fraction"], s["subset"]) for s in subsets]
    assert kinds == [(0.1, "first"), (0.1, "sample"), (0.3, "first"), (0.3, "sample"), (1, "all")]
    whole = subsets[-1]
    assert whole["path"] == source and whole["docs"] == 2000
    assert whole["bytes"] == sum(len(line.encode()) for line in lines)

    def read(subset):
        text = subset["path"].read_text(encoding="utf-8")
        assert subset["bytes"] == len(text.encode()) and subset["docs"] == text.count("\n")
        return [json.loads(line)["_id"] for line in text.splitlines()]

    first10, sample10, first30, sample30 = (read(s) for s in subsets[:4])
    ids = [doc["_id"] for doc in docs]
    assert first10 == ids[:200] and first30 == ids[:600]
    for sample in (sample10, sample30):
        assert sample == [i for i in ids if i in set(sample)]  # corpus order
    assert set(sample10) < set(sample30)
    assert 100 < len(sample10) < 300 and 450 < len(sample30) < 750
    kept = {json.loads(line)["title"] for line in lines if json.loads(line)["_id"] in sample30}
    for doc in docs:  # a title's documents are kept or left together
        if doc["title"]:
            assert (doc["_id"] in sample30) == (doc["title"] in kept)
    untitled = [doc["_id"] for doc in docs[1600:]]
    assert 0 < sum(i in set(sample30) for i in untitled) < len(untitled)
    # The first documents are at least one, however small the fraction.
    tiny = compare.write_subsets(source, tmp_path, [0.0001], len(docs))
    assert (tiny[0]["subset"], tiny[0]["docs"]) == ("first", 1)


def test_compare_curve_builds_every_subset(tmp_path):
    folder = beir_folder(tmp_path, docs=60, queries=2)
    out = run_compare("--fractions", "0.5,1", "--curve-only", str(folder))
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]
    assert [row[:2] for row in cells] == [
        ["0.5", "first documents"],
        ["0.5", "sample by title"],
        ["1", "whole corpus"],
    ]
    assert cells[0][2] == "30" and cells[2][2] == "60"
    column = header.index("rserini, 1 thread (s)") + 1  # its docs/s
    assert header[column] == "docs/s"
    assert all(float(row[column].replace(",", "")) > 0 for row in cells)
