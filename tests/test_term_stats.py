"""Index.term_stats: the analyzed query terms with their document frequencies."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import rserini

DOCS = [
    ("d1", "Solar panels convert sunlight. Wind turbines spin."),
    ("d2", "The reactor core uses thorium fuel pellets. Thorium is fertile."),
    ("d3", "Thorium appears once here among other words."),
]
INDEX = rserini.Index.build(DOCS, progress=False)


def test_term_stats_counts_live_documents_per_analyzed_term():
    expected_df: Counter[str] = Counter()
    for _, text in DOCS:
        expected_df.update(set(INDEX.analyzer.analyze(text)))
    assert INDEX.term_stats("Thorium thorium, the zebra fuel") == [
        ("thorium", 2, expected_df["thorium"]),
        ("zebra", 1, 0),
        ("fuel", 1, expected_df["fuel"]),
    ]
    assert expected_df["thorium"] == 2
    assert INDEX.term_stats("the of") == []
    assert INDEX.term_stats("") == []
    changed = rserini.Index.build(DOCS, progress=False)
    changed.delete(["d3"])
    changed.commit()
    assert changed.term_stats("thorium") == [("thorium", 1, 1)]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["sun", "wind", "thorium", "the", "spin", "xyz"]), max_size=6))
def test_term_stats_agree_with_query_terms(words):
    query = " ".join(words)
    assert [(t, q, df > 0) for t, q, df in INDEX.term_stats(query)] == INDEX.query_terms(query)
