"""Query likelihood (Dirichlet) against a pure-Python reference of Lucene's formula.

The reference follows Lucene's ``LMDirichletSimilarity`` with the default collection
model, step by step in Python floats (double): per term
``max(0, qtf * (log(1 + tf / (mu * p)) + log(mu / (dl + mu))))`` with
``p = (cf + 1) / (T + 1)``, ``dl`` Lucene's one-byte length and ``mu`` a float32, rounded
to float32 per term, summed in double over the terms the document holds, rounded to
float32. Lucene and the core evaluate the same operations in the same order, so the
scores must be bitwise equal, and so must the ranking (score descending, docid
ascending), down to the documents that match with a score of 0.
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

SETTINGS = settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def f32(x: float) -> float:
    """``x`` rounded to float32."""
    return float(np.float32(x))


def qld_scores(docs: Sequence[Sequence[str]], query: Sequence[str], mu: float) -> dict[int, float]:
    """Lucene's QLD score of every document sharing a term with ``query``."""
    mu = f32(mu)
    cf: Counter[str] = Counter(t for d in docs for t in d)
    total = sum(len(d) for d in docs)
    qtf = Counter(query)
    scores: dict[int, float] = {}
    for i, doc in enumerate(docs):
        tfs = Counter(doc)
        dl = float(ref.lucene_length(len(doc)))
        terms = []
        for term, boost in qtf.items():
            if tfs[term] == 0:
                continue  # no clause matches: the term adds nothing
            p = (cf[term] + 1.0) / (total + 1.0)
            s = boost * (math.log(1 + tfs[term] / (mu * p)) + math.log(mu / (dl + mu)))
            terms.append(f32(s) if s > 0.0 else 0.0)
        if terms:
            scores[i] = f32(sum(terms))
    return scores


def expected_ranking(
    docs: list[tuple[str, str]], query: str, mu: float, k: int
) -> list[tuple[str, float]]:
    scores = qld_scores([t.split() for _, t in docs], query.split(), mu)
    ranked = sorted(((docs[i][0], s) for i, s in scores.items()), key=lambda h: (-h[1], h[0]))
    return ranked[:k]


docid_strategy = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=3)
# mu > 0 (0 would score every match 0; it is refused).
mu_strategy = st.one_of(st.sampled_from([1e-3, 1.0, 10.0, 1000.0, 2000.0]), st.floats(1e-3, 5000.0))


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[str, str]], str]:
    """A whitespace corpus with lengths on both sides of Lucene's exact range, and a query."""
    vocab = draw(st.lists(st.text("abcxyzé東", min_size=1, max_size=2), min_size=1, max_size=6))
    n = draw(st.integers(1, 10))
    docids = draw(st.lists(docid_strategy, min_size=n, max_size=n, unique=True))
    texts = []
    for _ in docids:
        if texts and draw(st.integers(0, 3)) == 0:
            texts.append(draw(st.sampled_from(texts)))  # exact ties
            continue
        length = draw(st.one_of(st.integers(0, 30), st.integers(31, 400)))
        tokens = draw(st.lists(st.sampled_from(vocab), min_size=length, max_size=length))
        texts.append(" ".join(tokens))
    query = draw(st.lists(st.sampled_from([*vocab, "unknown"]), min_size=1, max_size=6))
    return list(zip(docids, texts, strict=True)), " ".join(query)


@SETTINGS
@given(case=cases(), mu=mu_strategy, k=st.integers(1, 12))
def test_qld_equals_reference_bitwise(case, mu, k):
    """Scores and ranking equal the reference bit for bit, at any depth."""
    docs, query = case
    index = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    got = [(h.docid, h.score) for h in index.search(query, k, model="qld", mu=mu)]
    assert got == expected_ranking(docs, query, mu, k)


@SETTINGS
@given(case=cases(), mu=mu_strategy)
def test_qld_every_algorithm_is_the_exhaustive_path(case, mu):
    """Asking for pruning gives the exhaustive result (no bound is used for QLD)."""
    docs, query = case
    index = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    want = index.search_pairs(query, 5, model="qld", mu=mu, algorithm="exhaustive")
    for algorithm in ("auto", "maxscore", "bmw"):
        assert index.search_pairs(query, 5, model="qld", mu=mu, algorithm=algorithm) == want
    ids, scores = index.batch_search([query], k=5, model="qld", mu=mu)
    assert [(d, float(s)) for d, s in zip(index.docids(ids)[0], scores[0], strict=False) if d] == [
        (d, s) for d, s in want
    ]


def test_qld_matches_in_zero_and_ignores_missing_terms():
    """A term scoring below zero is clamped to 0 and its document still returned;
    a missing term adds no smoothing mass."""
    docs = [("long", " ".join(["a"] * 300 + ["b"])), ("short", "b c"), ("none", "c")]
    index = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    hits = index.search_pairs("b", 10, model="qld", mu=1000)
    assert [d for d, _ in hits] == ["short", "long"]
    assert hits[1][1] == 0.0
    # "c" is missing from "long": its score for "b c" is its score for "b".
    both = dict(index.search_pairs("b c", 10, model="qld", mu=1000))
    assert both["long"] == dict(hits)["long"]
    assert both == dict(expected_ranking(docs, "b c", 1000, 10))


@pytest.mark.parametrize("mu", [-1.0, 0.0, 1e-300, math.nan, math.inf, 1e300])
def test_invalid_mu_is_a_query_error(mu):
    index = rserini.Index.build([("d", "a b")], analyzer="whitespace", progress=False)
    with pytest.raises(rserini.QueryError, match="mu must be a finite number > 0"):
        index.search("a", model="qld", mu=mu)


def test_explain_sums_to_the_search_score():
    docs = [("d1", "a a b c"), ("d2", "a " * 40 + "b"), ("d3", "c")]
    index = rserini.Index.build(docs, analyzer="whitespace", progress=False)
    for docid, score in index.search_pairs("a b b", 10, model="qld", mu=50):
        e = index.explain("a b b", docid, model="qld", mu=50)
        assert e.score == score
        assert "mu=50" in e.formula
