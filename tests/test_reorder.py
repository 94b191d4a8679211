"""Document reordering (``reorder="bp"``): a reordered index numbers its documents
differently, and returns exactly what the plain index returns (same docids, same order,
bitwise-equal scores) on every query of the real collections, whatever the algorithm."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import rserini
from support import TINY, collection
from test_cli import rserini as rserini_cli

BM25 = [{}, {"k1": 1.2, "b": 0.75}]  # rserini's defaults (Pyserini's), then Lucene's
ALGORITHMS = ("exhaustive", "maxscore", "bmw", "auto")

Pair = tuple[rserini.Index, rserini.Index, list[str]]


def source(name: str) -> Path:
    folder = collection(name)
    return next(p for p in (folder / "corpus.jsonl.gz", folder / "corpus.jsonl") if p.exists())


def queries(name: str) -> list[str]:
    lines = (collection(name) / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


@pytest.fixture(scope="module", params=["scifact", "cranfield", "cacm", "npl", "adi"])
def pair(request: pytest.FixtureRequest) -> Pair:
    path = source(request.param)
    plain = rserini.Index.from_jsonl(path, store=False, progress=False)
    bp = rserini.Index.from_jsonl(path, store=False, progress=False, reorder="bp")
    return plain, bp, queries(request.param)


def ranked(index: rserini.Index, result: tuple[np.ndarray, np.ndarray]) -> list[list[str]]:
    return [index.docids(row[row >= 0]) for row in result[0]]


def test_reordering_renumbers_the_documents(pair: Pair) -> None:
    plain, bp, _ = pair
    assert len(bp) == len(plain)
    assert bp.stats()["num_postings"] == plain.stats()["num_postings"]
    ids = np.arange(len(plain), dtype=np.int64)
    before, after = plain.docids(ids), bp.docids(ids)
    assert sorted(before) == sorted(after)
    assert sum(a != b for a, b in zip(before, after, strict=True)) > len(plain) // 2


@pytest.mark.parametrize("params", BM25, ids=["default", "lucene"])
def test_reordered_and_plain_indexes_return_the_same_hits(
    pair: Pair, params: dict[str, float]
) -> None:
    plain, bp, qs = pair
    for k in (10, 1000):
        expected = plain.batch_search(qs, k, algorithm="exhaustive", **params)
        assert (expected[0] >= 0).any(), "the queries match documents"
        names = ranked(plain, expected)
        for algorithm in ALGORITHMS:
            got = bp.batch_search(qs, k, algorithm=algorithm, **params)
            assert ranked(bp, got) == names, (algorithm, k)
            assert np.array_equal(got[1].view(np.uint32), expected[1].view(np.uint32))
        # One call per query, as a user makes them.
        for query in qs:
            hits = [(h.docid, h.score) for h in bp.search(query, k, **params)]
            assert hits == [(h.docid, h.score) for h in plain.search(query, k, **params)]


def test_a_saved_reordered_index_keeps_documents_and_results(tmp_path: Path) -> None:
    path = source("adi")
    plain = rserini.Index.from_jsonl(path, progress=False)
    bp = rserini.Index.from_jsonl(path, progress=False, reorder="bp")
    bp.save(tmp_path / "bp")
    loaded = rserini.Index.load(tmp_path / "bp")
    loaded.verify()
    for docid in plain.docids(np.arange(len(plain), dtype=np.int64)):
        assert loaded.doc(docid) == plain.doc(docid)
        assert loaded.contents(docid) == plain.contents(docid)
    for query in queries("adi"):
        expected = [(h.docid, h.score) for h in plain.search(query, 50)]
        assert [(h.docid, h.score) for h in loaded.search(query, 50)] == expected


def test_build_reorders_lists_too() -> None:
    docs = [
        (f"d{i:03d}", f"{'alpha' if i % 2 else 'beta'} gamma w{i % 7} w{i % 5}") for i in range(300)
    ]
    plain = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    bp = rserini.Index.build(docs, analyzer="whitespace", progress=False, reorder="bp", threads=1)
    again = rserini.Index.build(docs, analyzer="whitespace", progress=False, reorder="bp")
    ids = np.arange(len(docs), dtype=np.int64)
    assert bp.docids(ids) == again.docids(ids), "the order does not depend on threads"
    assert bp.docids(ids) != plain.docids(ids)
    for query in ("alpha", "beta w3", "gamma w1 w2"):
        expected = [(h.docid, h.score) for h in plain.search(query, 300)]
        assert [(h.docid, h.score) for h in bp.search(query, 300)] == expected
    assert rserini.Index.build(TINY, reorder="none", progress=False).docids(
        np.arange(4, dtype=np.int64)
    ) == [d for d, _ in TINY]


def test_an_unknown_reorder_is_a_value_error() -> None:
    with pytest.raises(ValueError, match='unknown reorder "random"'):
        rserini.Index.build(TINY, reorder="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown reorder"):
        rserini.Index.from_jsonl(source("adi"), reorder="BP", progress=False)  # type: ignore[arg-type]


def test_cli_index_reorder_bp(tmp_path: Path) -> None:
    path = source("cacm")
    done = rserini_cli(
        "index", "--input", path, "--index", tmp_path / "bp", "--reorder", "bp", "-q"
    )
    assert done.returncode == 0, done.stderr
    bp = rserini.Index.load(tmp_path / "bp")
    plain = rserini.Index.from_jsonl(path, progress=False)
    ids = np.arange(len(plain), dtype=np.int64)
    assert bp.docids(ids) != plain.docids(ids)
    for query in queries("cacm"):
        expected = [(h.docid, h.score) for h in plain.search(query, 100)]
        assert [(h.docid, h.score) for h in bp.search(query, 100)] == expected
    done = rserini_cli(
        "index", "--input", path, "--index", tmp_path / "bp", "--append", "--reorder", "bp"
    )
    assert done.returncode != 0
    assert "--reorder applies to a new index" in done.stderr


def test_reordered_and_plain_linux_corpora_return_the_same_hits() -> None:
    """The Linux kernel corpus of benches/linux_corpus.py (1.04 M documents). Building
    and reordering it takes many minutes, so it runs only when asked for with
    ``RSERINI_LINUX_TEST=1`` (and the corpus made)."""
    if os.environ.get("RSERINI_LINUX_TEST") != "1":
        pytest.skip(
            "reordered == plain on the Linux corpus: make the corpus with "
            "benches/linux_corpus.py, then set RSERINI_LINUX_TEST=1 (builds take many minutes)"
        )
    root = os.environ.get("RSERINI_BENCH_DATA")
    folder = (Path(root) if root else Path.home() / ".cache" / "rserini" / "bench") / "linux-chunks"
    corpus, query_file = folder / "corpus.jsonl", folder / "queries.jsonl"
    if not (corpus.exists() and query_file.exists()):
        pytest.fail(f"Linux corpus not found at {folder} (make it with benches/linux_corpus.py)")
    qs = [text for _, text in rserini.read_queries(query_file)]
    plain = rserini.Index.from_jsonl(corpus, store=False, progress=False)
    bp = rserini.Index.from_jsonl(corpus, store=False, progress=False, reorder="bp")
    for k in (10, 1000):
        expected = plain.batch_search(qs, k, algorithm="exhaustive")
        names = ranked(plain, expected)
        for algorithm in ("exhaustive", "maxscore", "auto"):
            got = bp.batch_search(qs, k, algorithm=algorithm)
            assert ranked(bp, got) == names, (algorithm, k)
            assert np.array_equal(got[1].view(np.uint32), expected[1].view(np.uint32))
