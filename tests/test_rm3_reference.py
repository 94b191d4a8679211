"""RM3 feedback against a pure-Python reference of Anserini's ``Rm3Reranker``.

The reference restates Anserini's algorithm step by step in float32 where Anserini computes
in float (numpy scalars) and in double where it does (Python floats): document vectors of
filtered term counts pruned to ``fb_terms`` (count descending, term ascending), per-term
feedback weights ``sum(count / |d|_1 * score)`` in document order, pruning and L1 scaling,
interpolation with the L1-scaled query, then Lucene's BM25 with the boosts as term weights.
The first stage is rserini's BM25 (tested elsewhere against its own reference). Expanded
queries and rankings must be bitwise equal.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as ref
import rserini
from rserini.exceptions import QueryError

SETTINGS = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
F = np.float32


def keeps(term: str, df: int, num_docs: int, filter_terms: bool) -> bool:
    if not 2 <= len(term.encode("utf-16-le")) // 2 <= 20:
        return False
    if filter_terms and not all(c in "abcdefghijklmnopqrstuvwxyz0123456789" for c in term):
        return False
    return not F(df) / F(num_docs) > F(0.1)


def prune(vector: dict[str, F], k: int) -> dict[str, F]:
    ranked = sorted(vector.items(), key=lambda kv: (-float(kv[1]), kv[0].encode("utf-16-be")))
    return dict(ranked[:k])


def scale_l1(vector: dict[str, F]) -> dict[str, F]:
    norm = math.fsum(abs(float(w)) for w in vector.values())
    return {t: F(float(w) / norm) for t, w in vector.items()}


def expanded_query(
    docs: Sequence[Sequence[str]],
    query: Sequence[str],
    hits: Sequence[tuple[int, float]],
    fb_terms: int,
    fb_docs: int,
    weight: float,
    filter_terms: bool = True,
) -> dict[str, float]:
    """Anserini's interpolated RM3 query for first-stage ``hits`` (doc index, score)."""
    df = Counter(t for d in docs for t in set(d))
    num_docs = sum(1 for d in docs if d)  # Anserini indexes no blank document
    vectors = []
    for i, score in hits[: min(fb_docs, 50)]:
        counts = Counter(docs[i])
        vector = {t: F(c) for t, c in counts.items() if keeps(t, df[t], num_docs, filter_terms)}
        vector = prune(vector, fb_terms)
        norm = F(math.fsum(float(w) for w in vector.values()))
        vectors.append((vector, norm, F(score)))
    model: dict[str, F] = {}
    for term in sorted({t for v, _, _ in vectors for t in v}):
        total = F(0.0)
        for vector, norm, score in vectors:
            if norm > F(0.001):
                total = F(total + F(F(vector.get(term, F(0.0)) / norm) * score))
        model[term] = total
    model = scale_l1(prune(model, fb_terms))
    original = scale_l1({t: F(c) for t, c in Counter(query).items()})
    w = F(weight)
    out = {}
    for term in sorted(set(original) | set(model)):
        q = float(F(w * original.get(term, F(0.0))))
        out[term] = float(F(q + (1.0 - float(w)) * float(model.get(term, F(0.0)))))
    return out


def bm25_boosted(
    docs: Sequence[Sequence[str]], boosts: dict[str, float], k1: float, b: float
) -> dict[int, float]:
    """Lucene's float32 BM25 with ``boost * idf`` term weights."""
    n = sum(1 for d in docs if d)
    if n == 0:
        return {}
    avgdl = F(sum(len(d) for d in docs) / n)
    df = Counter(t for d in docs for t in set(d))
    k1_, b_ = F(k1), F(b)
    scores: dict[int, float] = {}
    for i, doc in enumerate(docs):
        tfs = Counter(doc)
        inverse = F(1) / (k1_ * ((F(1) - b_) + b_ * F(ref.lucene_length(len(doc))) / avgdl))
        parts = []
        for term, boost in boosts.items():
            if tfs[term] == 0:
                continue
            idf = F(math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5)))
            weight = F(F(boost) * idf)
            parts.append(float(weight - weight / (F(1) + F(tfs[term]) * inverse)))
        if parts:
            scores[i] = float(F(sum(parts)))
    return scores


VOCAB = ["aa", "bb", "cc", "dd", "ee", "ff", "g", "h1", "Xy", "zz9"]


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[str, str]], str]:
    n = draw(st.integers(2, 40))
    docs = []
    for i in range(n):
        length = draw(st.integers(0, 30))  # blank documents too
        docs.append(
            (
                f"d{i:02d}",
                " ".join(draw(st.lists(st.sampled_from(VOCAB), min_size=length, max_size=length))),
            )
        )
    # Rare terms so that some pass the 10 % document-frequency filter.
    for j in range(draw(st.integers(0, 12))):
        i = draw(st.integers(0, n - 1))
        docs[i] = (docs[i][0], docs[i][1] + f" r{j} r{j}" * draw(st.integers(1, 2)))
    query = " ".join(draw(st.lists(st.sampled_from([*VOCAB, "r1", "r2"]), min_size=1, max_size=4)))
    return docs, query


@SETTINGS
@given(
    case=cases(),
    fb_terms=st.integers(1, 12),
    fb_docs=st.integers(1, 12),
    weight=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
    filter_terms=st.booleans(),
)
def test_rm3_equals_the_reference_bitwise(case, fb_terms, fb_docs, weight, filter_terms):
    docs, query = case
    index = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    params = {
        "fb_terms": fb_terms,
        "fb_docs": fb_docs,
        "original_query_weight": weight,
        "filter_terms": filter_terms,
    }
    tokens = [text.split() for _, text in docs]
    position = {docid: i for i, (docid, _) in enumerate(docs)}
    first = [(position[d], s) for d, s in index.search_pairs(query, min(fb_docs, 50))]
    want = expanded_query(tokens, query.split(), first, fb_terms, fb_docs, weight, filter_terms)
    got = index.rm3_query(query, **params)
    assert [t for t, _ in got] == sorted(want)
    assert got == [(t, want[t]) for t in sorted(want)]
    scores = bm25_boosted(tokens, want, 0.9, 0.4)
    ranking = sorted(((docs[i][0], s) for i, s in scores.items()), key=lambda h: (-h[1], h[0]))
    ids, values = index.batch_search_rm3([query], k=len(docs), **params)
    found = ids[0] >= 0
    assert list(zip(index.docids(ids[0][found]), values[0][found].tolist(), strict=True)) == ranking


def test_feedback_needs_the_document_store() -> None:
    index = rserini.Index.build([("d1", "aa bb"), ("d2", "bb cc")], store=False, progress=False)
    with pytest.raises(QueryError, match="store=True"):
        index.batch_search_rm3(["aa"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"fb_terms": 0}, "fb_terms must be at least 1"),
        ({"fb_docs": -2}, "fb_docs must be at least 1"),
        ({"original_query_weight": 1.5}, "original_query_weight must be between 0 and 1"),
        ({"original_query_weight": -0.1}, "original_query_weight must be between 0 and 1"),
        ({"original_query_weight": math.nan}, "original_query_weight must be between 0 and 1"),
    ],
)
def test_bad_parameters_are_query_errors(params: dict, message: str) -> None:
    index = rserini.Index.build([("d1", "aa bb"), ("d2", "bb cc")], progress=False)
    with pytest.raises(QueryError, match=message):
        index.batch_search_rm3(["aa"], **params)
    with pytest.raises(QueryError, match=message):
        index.rm3_query("aa", **params)
