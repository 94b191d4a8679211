"""End to end on the real test collections in ../shared/data."""

from __future__ import annotations

import csv
from pathlib import Path

import ir_measures
import pytest
from ir_measures import R, nDCG

import rserini
from rserini import Index
from support import collection

NAMES = ["scifact", "cranfield", "cacm", "npl", "adi"]


def qrels_of(folder: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return qrels


def corpus_path(folder: Path) -> Path:
    gz = folder / "corpus.jsonl.gz"
    return gz if gz.exists() else folder / "corpus.jsonl"


def run_of(
    index: Index, queries: list[tuple[str, str]], k: int, remove_query: bool, **kwargs: object
) -> dict[str, dict[str, float]]:
    ids, scores = index.batch_search([t for _, t in queries], k=k + 1, **kwargs)
    run: dict[str, dict[str, float]] = {}
    for (qid, _), docids, row in zip(queries, index.docids(ids), scores, strict=True):
        kept = [
            (d, float(s))
            for d, s in zip(docids, row, strict=False)
            if not (remove_query and d == qid)
        ][:k]
        run[qid] = dict(kept)
    return run


@pytest.fixture(scope="module")
def scifact() -> tuple[Index, list[tuple[str, str]], dict[str, dict[str, int]]]:
    folder = collection("scifact")
    index = Index.from_jsonl(corpus_path(folder), progress=False)
    return index, rserini.read_queries(folder / "queries.jsonl"), qrels_of(folder)


def test_scifact_matches_pyserini_bm25(scifact) -> None:
    """Pyserini (Lucene BM25, k1=0.9, b=0.4, flat index, 1000 hits, --remove-query) gives
    nDCG@10 0.6789, R@100 0.9253, R@1000 0.9767 on these files."""
    index, queries, qrels = scifact
    assert len(index) == 5183 and len(queries) == 300
    run = run_of(index, queries, 1000, remove_query=True)
    result = ir_measures.calc_aggregate([nDCG @ 10, R @ 100, R @ 1000], qrels, run)
    assert result[nDCG @ 10] == pytest.approx(0.6789, abs=0.002)
    assert result[R @ 100] == pytest.approx(0.9253, abs=0.003)
    assert result[R @ 1000] == pytest.approx(0.9767, abs=0.003)


def test_scifact_long_document_parameters_are_worse_on_short_documents(scifact) -> None:
    """k1=25, b=1 suits long web documents; on SciFact's abstracts it is clearly worse."""
    index, queries, qrels = scifact
    default = ir_measures.calc_aggregate([nDCG @ 10], qrels, run_of(index, queries, 100, True))[
        nDCG @ 10
    ]
    long_docs = ir_measures.calc_aggregate(
        [nDCG @ 10], qrels, run_of(index, queries, 100, True, k1=25.0, b=1.0)
    )[nDCG @ 10]
    assert long_docs < default - 0.02


@pytest.mark.parametrize("name", NAMES)
def test_every_collection_indexes_and_retrieves(name: str, tmp_path: Path) -> None:
    folder = collection(name)
    index = Index.from_jsonl(corpus_path(folder), progress=False)
    index.save(tmp_path / name)
    loaded = Index.load(tmp_path / name)
    queries = rserini.read_queries(folder / "queries.jsonl")
    qrels = qrels_of(folder)
    judged = [q for q in queries if q[0] in qrels]
    run = run_of(loaded, judged, 100, remove_query=False)
    score = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
    # Lucene-analyzed BM25 beats the naive (unstemmed) sanity baselines noted with the data.
    naive = {"scifact": 0.661, "cranfield": 0.492, "cacm": 0.365, "npl": 0.382, "adi": 0.433}
    assert score > naive[name] - 0.01, score
    # Threads do not change results.
    ids1, s1 = loaded.batch_search([t for _, t in judged], k=50, threads=1)
    ids2, s2 = loaded.batch_search([t for _, t in judged], k=50, threads=2)
    assert (ids1 == ids2).all() and (s1 == s2).all()
