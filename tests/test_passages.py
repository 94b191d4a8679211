"""``Index.best_passages`` against the numpy scorer the agent tools used before it: the
same windows, the same scores to the bit (so excerpts, ``find_in_document``'s printed
scores and its details are unchanged)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini.agent.tools.passages import PassageScorer

WORDS = "the of fuel thorium reactor core pellets cooling water steam turbine grid power plant"
VOCAB = [*WORDS.split(), "zebra", "xylophone"]  # two words no document holds


def _index() -> rserini.Index:
    rng = random.Random(7)
    words = WORDS.split()
    docs = [(f"d{i}", " ".join(rng.choices(words, k=rng.randint(1, 12)))) for i in range(40)]
    return rserini.Index.build(docs, progress=False)


INDEX = _index()


def numpy_best(index, query, units, window, k, k1=1.2, b=0.75):
    """The previous implementation, verbatim but for its names: float64 numpy arrays."""
    n_docs = len(index)
    weights = {
        term: qtf * math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        for term, qtf, df in index.term_stats(query)
    }
    if not weights or not units:
        return []
    n = len(units)
    window = max(1, min(window, n))
    analyzed = index.analyzer.analyze_batch(list(units))
    row = {term: i for i, term in enumerate(weights)}
    counts = np.zeros((len(row), n + 1))
    lengths = np.zeros(n + 1)
    for i, terms in enumerate(analyzed, start=1):
        lengths[i] = len(terms)
        for term in terms:
            r = row.get(term)
            if r is not None:
                counts[r, i] += 1
    counts = counts.cumsum(axis=1)
    tf = counts[:, window:] - counts[:, :-window]
    lengths = lengths.cumsum()
    window_lengths = lengths[window:] - lengths[:-window]
    norm = k1 * (1 - b + b * window_lengths / max(window_lengths.mean(), 1.0))
    w = np.fromiter(weights.values(), dtype=np.float64)[:, None]
    scores = (w * tf * (k1 + 1) / (tf + norm)).sum(axis=0)
    chosen: list[tuple[int, int, float]] = []
    for s in np.argsort(-scores, kind="stable"):
        if scores[s] <= 0 or len(chosen) == k:
            break
        start = int(s)
        if all(start + window <= q[0] or start >= q[1] for q in chosen):
            chosen.append((start, start + window, float(scores[s])))
    return chosen


def core_best(index, query, units, window, k, scoring=None):
    found = PassageScorer(index, query, scoring=scoring).best(units, window, k)
    return [(p.start, p.end, p.score) for p in found]


texts = st.lists(st.sampled_from(VOCAB), max_size=8).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(
    query=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=16).map(" ".join),
    units=st.lists(texts, min_size=1, max_size=24),
    window=st.integers(1, 8),
    k=st.integers(1, 4),
)
def test_best_passages_are_the_numpy_scorers_to_the_bit(query, units, window, k):
    assert core_best(INDEX, query, units, window, k) == numpy_best(INDEX, query, units, window, k)


def test_one_window_of_many_terms_sums_as_numpy_did():
    # A text that is one window: numpy summed its terms pairwise (blocks of 8).
    query = " ".join(VOCAB[2:])
    rng = random.Random(3)
    for _ in range(200):
        units = [" ".join(rng.choices(VOCAB, k=rng.randint(0, 30))) for _ in range(2)]
        want = numpy_best(INDEX, query, units, 2, 1)
        assert core_best(INDEX, query, units, 2, 1) == want


def test_many_units_are_analyzed_in_parallel_with_the_same_result():
    rng = random.Random(5)
    units = [" ".join(rng.choices(VOCAB, k=rng.randint(0, 6))) for _ in range(300)]
    for window in (1, 3, 300):
        want = numpy_best(INDEX, "fuel thorium core", units, window, 5)
        assert core_best(INDEX, "fuel thorium core", units, window, 5) == want


def test_scoring_gives_k1_and_b_and_the_idf_variant():
    units = ["fuel fuel reactor", "the grid", "thorium fuel pellets cooling water steam"]
    bm25 = rserini.Bm25(k1=0.9, b=0.4)
    got = core_best(INDEX, "fuel thorium", units, 1, 3, scoring=bm25)
    assert got == numpy_best(INDEX, "fuel thorium", units, 1, 3, k1=0.9, b=0.4)
    # A term no document holds: positive under both idfs, which differ.
    robertson = rserini.Bm25(k1=0.9, b=0.4, variant="robertson")
    other = core_best(INDEX, "zebra", ["zebra fuel", "x"], 1, 1, scoring=robertson)
    same = core_best(INDEX, "zebra", ["zebra fuel", "x"], 1, 1, scoring=bm25)
    n = len(INDEX)
    ratio = math.log((n + 0.5) / 0.5) / math.log(1 + (n + 0.5) / 0.5)
    assert other[0][:2] == same[0][:2] == (0, 1)
    assert other[0][2] == pytest.approx(same[0][2] * ratio)


def test_units_must_be_a_list_of_str():
    with pytest.raises(TypeError):
        INDEX.best_passages("fuel", "fuel reactor", 1)
    with pytest.raises(TypeError):
        INDEX.best_passages("fuel", ["fuel", 3], 1)
    assert INDEX.best_passages("fuel", [], 1) == []
    assert INDEX.best_passages("   ", ["fuel"], 1) == []
