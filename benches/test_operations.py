"""The operations users time, with Pyserini and bm25s beside rserini in each group.

``pytest benches --benchmark-only`` (add ``--benchmark-autosave`` and later
``--benchmark-compare`` to follow regressions). Every benchmark checks its result,
so a fast wrong answer cannot pass for a fast one. Timings are of one pass over
SciFact's 300 test queries unless the group says otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rserini
from conftest import Bm25s, Pyserini

ANALYZE_DOCS = 1000


def reference_rrf(runs: list[list[str]], k: float = 60.0) -> list[tuple[str, float]]:
    """Plain-Python reciprocal-rank fusion: the baseline ``rserini.rrf`` is timed against."""
    scores: dict[str, float] = {}
    for run in runs:
        for rank, docid in enumerate(run):
            scores[docid] = scores.get(docid, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores.items(), key=lambda item: -item[1])


# analyze: the English analyzer over the first 1,000 SciFact documents.


@pytest.mark.benchmark(group="analyze")
def test_analyze_rserini(benchmark, docs) -> None:
    analyzer = rserini.Analyzer("lucene-english")
    texts = [text for _, text in docs[:ANALYZE_DOCS]]
    tokens = benchmark(analyzer.analyze_batch, texts)
    assert len(tokens) == ANALYZE_DOCS and all(tokens)


@pytest.mark.benchmark(group="analyze")
def test_analyze_bm25s(benchmark, docs, bm25s_engine: Bm25s) -> None:
    texts = [text for _, text in docs[:ANALYZE_DOCS]]
    tokens = benchmark(bm25s_engine.tokenize, texts)
    assert len(tokens.ids) == ANALYZE_DOCS


# build: all of SciFact (5,183 documents) into an index in memory (Lucene: on disk).


@pytest.mark.benchmark(group="build")
def test_build_rserini(benchmark, docs) -> None:
    index = benchmark.pedantic(
        rserini.Index.build, args=(docs,), kwargs={"progress": False}, rounds=3
    )
    assert len(index) == len(docs)


@pytest.mark.benchmark(group="build")
def test_build_rserini_one_thread(benchmark, docs) -> None:
    index = benchmark.pedantic(
        rserini.Index.build, args=(docs,), kwargs={"progress": False, "threads": 1}, rounds=3
    )
    assert len(index) == len(docs)


@pytest.mark.benchmark(group="build")
def test_build_pyserini_one_thread(benchmark, pyserini: Pyserini) -> None:
    index = benchmark.pedantic(pyserini.build, rounds=1)
    assert any(index.glob("segments_*"))


@pytest.mark.benchmark(group="build")
def test_build_bm25s(benchmark, bm25s_engine: Bm25s) -> None:
    retriever = benchmark.pedantic(bm25s_engine.build, rounds=3)
    assert retriever.scores["num_docs"] == len(bm25s_engine.ids)


# load: open a saved index, ready to search.


@pytest.mark.benchmark(group="load")
def test_load_rserini(benchmark, saved_index: Path) -> None:
    index = benchmark(rserini.Index.load, saved_index)
    assert index.search_pairs("cancer", k=1)


@pytest.mark.benchmark(group="load")
def test_load_pyserini(benchmark, pyserini: Pyserini, docs) -> None:
    searcher = benchmark(pyserini.open, pyserini.index)
    assert searcher.num_docs == len(docs)


# search and search_pairs: one query at a time, k = 10 and 1000.


@pytest.mark.parametrize("k", [10, 1000])
def test_search_rserini(benchmark, index, queries, k: int) -> None:
    benchmark.group = f"search k={k}"
    results = benchmark(lambda: [index.search(q, k=k) for q in queries])
    assert len(results) == len(queries) and all(results)


@pytest.mark.parametrize("k", [10, 1000])
def test_search_pairs_rserini(benchmark, index, queries, k: int) -> None:
    benchmark.group = f"search k={k}"
    results = benchmark(lambda: [index.search_pairs(q, k=k) for q in queries])
    assert results == [[(h.docid, h.score) for h in index.search(q, k=k)] for q in queries]


@pytest.mark.parametrize("k", [10, 1000])
def test_search_pyserini(benchmark, pyserini: Pyserini, queries, k: int) -> None:
    benchmark.group = f"search k={k}"
    searcher = pyserini.searcher
    results = benchmark(lambda: [searcher.search(q, k) for q in queries])
    assert len(results) == len(queries) and all(results)


@pytest.mark.parametrize("k", [10, 1000])
def test_search_bm25s(benchmark, bm25s_engine: Bm25s, queries, k: int) -> None:
    benchmark.group = f"search k={k}"
    results = benchmark(lambda: [bm25s_engine.search([q], k)[0] for q in queries])
    assert len(results) == len(queries) and all(results)


# batch_search: all queries in one call, k = 1000, on 1 and 2 threads.


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_search_rserini(benchmark, index, queries, threads: int) -> None:
    benchmark.group = f"batch_search k=1000 threads={threads}"
    ids, _ = benchmark(index.batch_search, queries, k=1000, threads=threads)
    assert ids.shape[0] == len(queries)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_search_pairs_rserini(benchmark, index, queries, threads: int) -> None:
    benchmark.group = f"batch_search k=1000 threads={threads}"
    runs = benchmark(index.batch_search_pairs, queries, k=1000, threads=threads)
    assert runs[0] == index.search_pairs(queries[0], k=1000)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_search_pyserini(benchmark, pyserini: Pyserini, queries, threads: int) -> None:
    benchmark.group = f"batch_search k=1000 threads={threads}"
    qids = [str(i) for i in range(len(queries))]
    out = benchmark(pyserini.searcher.batch_search, queries, qids, 1000, threads)
    assert len(out) == len(queries)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_search_bm25s(benchmark, bm25s_engine: Bm25s, queries, threads: int) -> None:
    benchmark.group = f"batch_search k=1000 threads={threads}"
    runs = benchmark(bm25s_engine.search, queries, 1000, threads)
    assert len(runs) == len(queries)


# explain: the score breakdown of each query's best document.


@pytest.mark.benchmark(group="explain")
def test_explain_rserini(benchmark, index, queries) -> None:
    top = [(q, index.search_pairs(q, k=1)[0][0]) for q in queries]
    explanations = benchmark(lambda: [index.explain(q, docid) for q, docid in top])
    assert all(e.score > 0 for e in explanations)


# rrf: fusing each query's BM25 and TF-IDF 1,000-hit rankings.


@pytest.fixture(scope="module")
def rankings(index, queries) -> list[list[list[str]]]:
    return [
        [[d for d, _ in index.search_pairs(q, k=1000, model=m)] for m in ("bm25", "tfidf")]
        for q in queries
    ]


@pytest.mark.benchmark(group="rrf")
def test_rrf_rserini(benchmark, rankings) -> None:
    fused = benchmark(lambda: [rserini.rrf(runs, k=60) for runs in rankings])
    assert [d for d, _ in fused[0][:10]] == [d for d, _ in reference_rrf(rankings[0])[:10]]


@pytest.mark.benchmark(group="rrf")
def test_rrf_python_reference(benchmark, rankings) -> None:
    fused = benchmark(lambda: [reference_rrf(runs) for runs in rankings])
    assert len(fused) == len(rankings)
