"""Exact dynamic pruning: MaxScore, block-max WAND and the automatic choice return exactly
what exhaustive scoring returns (same docids, same order, bitwise-equal float32 scores) on
every query of the real collections, for several BM25 settings and every variant."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from support import TINY, collection, many_range_corpus

PRUNED = ("maxscore", "bmw", "auto")
VOCAB = ["ab", "cd", "ef", "gh", "ij", "kl", "mn", "op"]
SETTINGS = [
    {"k1": 0.9, "b": 0.4},
    {"k1": 1.2, "b": 0.75},
    {"k1": 25.0, "b": 1.0},
    {"k1": 0.9, "b": 0.4, "length": "exact"},
    {"k1": 1.2, "b": 0.75, "variant": "atire"},
    {"k1": 1.2, "b": 0.75, "variant": "bm25l"},
    {"k1": 1.2, "b": 0.75, "variant": "bm25+"},
    {"k1": 1.2, "b": 0.75, "variant": "robertson"},
]


@pytest.fixture(scope="module", params=["scifact", "cranfield", "cacm", "npl", "adi"])
def corpus(request: pytest.FixtureRequest) -> tuple[rserini.Index, list[str]]:
    folder = collection(request.param)
    source = next(p for p in (folder / "corpus.jsonl.gz", folder / "corpus.jsonl") if p.exists())
    index = rserini.Index.from_jsonl(source, store=False, progress=False)
    lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [json.loads(line)["text"] for line in lines if line.strip()]
    return index, queries


def same(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    return np.array_equal(a[0], b[0]) and np.array_equal(a[1].view(np.uint32), b[1].view(np.uint32))


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: "-".join(map(str, p.values())))
def test_pruned_equals_exhaustive_on_every_query(
    corpus: tuple[rserini.Index, list[str]], params: dict[str, object]
) -> None:
    index, queries = corpus
    for k in (1, 10, 100, 1000):
        expected = index.batch_search(queries, k, algorithm="exhaustive", **params)
        assert (expected[0] >= 0).any(), "the queries match documents"
        for algorithm in PRUNED:
            got = index.batch_search(queries, k, algorithm=algorithm, **params)
            assert same(got, expected), (algorithm, k, params)


def test_single_search_matches_batch(corpus: tuple[rserini.Index, list[str]]) -> None:
    index, queries = corpus
    for query in queries[:50]:
        for algorithm in PRUNED:
            hits = index.search(query, 20, algorithm=algorithm)
            ref = index.search(query, 20, algorithm="exhaustive")
            assert [(h.docid, h.score) for h in hits] == [(h.docid, h.score) for h in ref]


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6),
    deleted=st.lists(st.integers(0, 299), max_size=40),
    k=st.integers(1, 400),
    k1=st.floats(0.0, 30.0),
    b=st.floats(0.0, 1.0),
)
def test_pruned_equals_exhaustive_after_updates(
    words: list[str], deleted: list[int], k: int, k1: float, b: float
) -> None:
    docs = [
        (f"d{i:03d}", " ".join(VOCAB[(i * j * 7 + j) % (1 + i % 8)] for j in range(1 + i % 23)))
        for i in range(300)
    ]
    index = rserini.Index.build(docs[:200], analyzer="whitespace", store=False)
    index.add(docs[200:])
    index.delete(sorted({f"d{i:03d}" for i in deleted if i < 200}))
    index.commit()
    query = " ".join(words)
    expected = index.search(query, k, k1=k1, b=b, algorithm="exhaustive")
    for algorithm in PRUNED:
        got = index.search(query, k, k1=k1, b=b, algorithm=algorithm)
        assert [(h.docid, h.score) for h in got] == [(h.docid, h.score) for h in expected]


def test_unknown_algorithm_is_a_query_error() -> None:
    index = rserini.Index.build(TINY, store=False)
    with pytest.raises(rserini.QueryError, match="auto, exhaustive, maxscore or bmw"):
        index.search("network", algorithm="wand")
    with pytest.raises(rserini.QueryError, match="unknown algorithm"):
        index.batch_search(["network"], algorithm="fast")


def test_pruned_equals_exhaustive_across_document_ranges() -> None:
    """Over more documents than exhaustive scoring takes in one range, queries scored
    densely and sparsely, with deleted documents in every range."""
    docs = many_range_corpus()
    index = rserini.Index.build(docs, analyzer="whitespace", store=False, progress=False)
    index.delete([docid for docid, _ in docs[::97]])
    index.commit()
    queries = ["w0 w1 w2", "w0 w7", "w150 w299", "w3 w40 w299", "w0", "w299"]
    for params in SETTINGS:
        for k in (10, 1000):
            expected = index.batch_search(queries, k, algorithm="exhaustive", **params)
            for algorithm in PRUNED:
                got = index.batch_search(queries, k, algorithm=algorithm, **params)
                assert same(got, expected), (algorithm, k, params)
