"""Rocchio feedback against a pure-Python reference of Anserini's ``RocchioReranker``.

The reference restates Anserini's algorithm in float32 (numpy scalars) where Anserini
computes in float and in double (Python floats) where it does: unpruned document vectors of
filtered term counts, per-term means of ``count / |d|_2`` in document order, pruning (weight
descending, term ascending) and L2 scaling, ``alpha * q + beta * top - gamma * bottom`` in
float32 keeping positive weights, with the bottom documents taken from the end of the
first stage searched to depth ``k``. The first stage is rserini's BM25 (tested elsewhere);
the new query must be bitwise equal, and its ranking equal to Lucene's BM25 with those boosts
(the reference of ``test_rm3_reference``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rserini
from rserini.exceptions import QueryError
from test_rm3_reference import VOCAB, bm25_boosted, prune

SETTINGS = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
F = np.float32


def l2(vector: dict[str, F]) -> float:
    return math.sqrt(math.fsum(float(w) ** 2 for w in vector.values()))


def mean_vector(
    docs: Sequence[Sequence[str]], chosen: Sequence[int], fb_terms: int
) -> dict[str, F]:
    df = Counter(t for d in docs for t in set(d))
    num_docs = sum(1 for d in docs if d)
    vectors = []
    for i in chosen:
        counts = Counter(docs[i])
        vector = {
            t: F(c)
            for t, c in counts.items()
            if 2 <= len(t) <= 20 and not F(df[t]) / F(num_docs) > F(0.1)
        }
        vectors.append((vector, F(l2(vector))))
    mean = {}
    for term in sorted({t for v, _ in vectors for t in v}):
        total = F(0.0)
        for vector, norm in vectors:
            if norm > F(0.001):
                total = F(total + F(vector.get(term, F(0.0)) / norm))
        mean[term] = F(total / F(len(vectors)))
    mean = prune(mean, fb_terms)
    norm = l2(mean)
    return {t: F(float(w) / norm) for t, w in mean.items()}


def rocchio_query(
    docs: Sequence[Sequence[str]],
    query: Sequence[str],
    ranking: Sequence[int],
    p: dict,
) -> dict[str, float]:
    top = mean_vector(docs, ranking[: p["top_fb_docs"]], p["top_fb_terms"])
    bottom: dict[str, F] = {}
    if p["use_negative"]:
        tail = list(reversed(ranking))[: p["bottom_fb_docs"]]
        bottom = mean_vector(docs, tail, p["bottom_fb_terms"])
    counts = {t: F(c) for t, c in Counter(query).items()}
    norm = l2(counts)
    original = {t: F(float(c) / norm) for t, c in counts.items()}
    alpha, beta, gamma = F(p["alpha"]), F(p["beta"]), F(p["gamma"])
    out = {}
    for term in sorted(set(original) | set(top) | set(bottom)):
        zero = F(0.0)
        w = F(
            F(alpha * original.get(term, zero) + beta * top.get(term, zero))
            - gamma * bottom.get(term, zero)
        )
        if w > 0:
            out[term] = float(w)
    return out


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[str, str]], str]:
    n = draw(st.integers(2, 40))
    docs = []
    for i in range(n):
        length = draw(st.integers(0, 30))
        tokens = draw(st.lists(st.sampled_from(VOCAB), min_size=length, max_size=length))
        docs.append((f"d{i:02d}", " ".join(tokens)))
    for j in range(draw(st.integers(0, 12))):
        i = draw(st.integers(0, n - 1))
        docs[i] = (docs[i][0], docs[i][1] + f" r{j} é{j}" * draw(st.integers(1, 2)))
    query = " ".join(draw(st.lists(st.sampled_from([*VOCAB, "r1", "r2"]), min_size=1, max_size=4)))
    return docs, query


@SETTINGS
@given(
    case=cases(),
    counts=st.lists(st.integers(1, 12), min_size=4, max_size=4),
    weights=st.lists(st.sampled_from([0.0, 0.15, 0.5, 0.75, 1.0]), min_size=3, max_size=3),
    use_negative=st.booleans(),
    k=st.integers(1, 45),
)
def test_rocchio_equals_the_reference_bitwise(case, counts, weights, use_negative, k):
    docs, query = case
    index = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    keys = ("top_fb_terms", "top_fb_docs", "bottom_fb_terms", "bottom_fb_docs")
    params = dict(zip(keys, counts, strict=True))
    params |= dict(zip(("alpha", "beta", "gamma"), weights, strict=True))
    params["use_negative"] = use_negative
    tokens = [text.split() for _, text in docs]
    position = {docid: i for i, (docid, _) in enumerate(docs)}
    ranking = [position[d] for d, _ in index.search_pairs(query, k)]
    want = rocchio_query(tokens, query.split(), ranking, params)
    assert index.rocchio_query(query, k, **params) == [(t, want[t]) for t in sorted(want)]
    scores = bm25_boosted(tokens, want, 0.9, 0.4)
    expected = sorted(((docs[i][0], s) for i, s in scores.items()), key=lambda h: (-h[1], h[0]))
    ids, values = index.batch_search_rocchio([query], k=k, **params)
    found = ids[0] >= 0
    got = list(zip(index.docids(ids[0][found]), values[0][found].tolist(), strict=True))
    assert got == expected[:k]


def test_rocchio_needs_the_document_store() -> None:
    index = rserini.Index.build([("d1", "aa bb"), ("d2", "bb cc")], store=False, progress=False)
    with pytest.raises(QueryError, match="store=True"):
        index.batch_search_rocchio(["aa"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"top_fb_terms": 0}, "top_fb_terms must be at least 1"),
        ({"top_fb_docs": -1}, "top_fb_docs must be at least 1"),
        ({"bottom_fb_terms": 0}, "bottom_fb_terms must be at least 1"),
        ({"bottom_fb_docs": 0}, "bottom_fb_docs must be at least 1"),
        ({"alpha": 1.5}, "alpha must be between 0 and 1"),
        ({"beta": -0.5}, "beta must be between 0 and 1"),
        ({"gamma": math.nan}, "gamma must be between 0 and 1"),
    ],
)
def test_bad_parameters_are_query_errors(params: dict, message: str) -> None:
    index = rserini.Index.build([("d1", "aa bb"), ("d2", "bb cc")], progress=False)
    with pytest.raises(QueryError, match=message):
        index.batch_search_rocchio(["aa"], **params)
    with pytest.raises(QueryError, match=message):
        index.rocchio_query("aa", **params)
