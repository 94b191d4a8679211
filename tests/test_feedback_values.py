"""``rserini.Rm3`` and ``rserini.Rocchio``: the feedback models' parameters as values,
taken as ``feedback=`` by every search.

Their defaults are the core's (read from ``Rm3Params::default()`` and
``RocchioParams::default()``, written nowhere else); the feedback methods' keywords
(``fb_terms=`` ...) and ``LuceneSearcher.set_rm3``/``set_rocchio`` are sugar for them.
"""

from __future__ import annotations

import pickle
import random
import re
from typing import Any

import numpy as np
import pytest

from rserini import Bm25, GlobalStats, Index, QueryError, Rm3, Rocchio
from rserini.pyserini import LuceneSearcher
from support import REPO

WORDS = "network packet router switch frame plant energy sunlight asteroid orbit data".split()  # noqa: SIM905
QUERIES = ["network packet", "plant energy sunlight", "orbit", "router switch data frame"]


@pytest.fixture(scope="module")
def index() -> Index:
    rng = random.Random(11)
    docs = [
        (f"d{i}", " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40)))) for i in range(80)
    ]
    return Index.build(docs, progress=False)


def core_default(path: str, struct: str) -> dict[str, Any]:
    """The fields of `struct`'s `Default` in a core source file, as Python values."""
    text = (REPO / "rust" / "core" / "src" / path).read_text(encoding="utf-8")
    body = re.search(rf"impl Default for {struct} \{{.*?{struct} \{{(.*?)\}}", text, re.S)
    assert body is not None, f"no Default for {struct} in {path}"
    fields = dict(re.findall(r"(\w+): ([^,]+),", body.group(1)))
    assert fields, f"no fields read from {struct}'s Default"
    value = {"true": True, "false": False}
    return {
        name: value[v] if v in value else float(v) if "." in v else int(v)
        for name, v in fields.items()
    }


@pytest.mark.parametrize(
    ("cls", "path", "struct"),
    [(Rm3, "feedback/rm3.rs", "Rm3Params"), (Rocchio, "feedback/rocchio.rs", "RocchioParams")],
)
def test_defaults_are_the_cores(cls: type, path: str, struct: str) -> None:
    default = cls()
    expected = core_default(path, struct)
    assert {name: getattr(default, name) for name in expected} == expected


VALUES: list[Any] = [
    Rm3(),
    Rm3(fb_terms=5, fb_docs=2, original_query_weight=0.3, filter_terms=False),
    Rocchio(),
    Rocchio(3, 4, 5, 6, alpha=0.5, beta=0.25, gamma=0.125, use_negative=True),
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_values_are_frozen_comparable_hashable_and_picklable(value: Any) -> None:
    with pytest.raises(AttributeError):
        value.alpha = 0.1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        value.fb_terms = 3  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(value))
    assert copy == value and hash(copy) == hash(value)
    assert eval(repr(value), {"Rm3": Rm3, "Rocchio": Rocchio}) == value
    assert len({v for v in VALUES}) == len(VALUES)


def test_repr_shows_every_parameter_as_given() -> None:
    assert repr(Rm3(fb_terms=5, original_query_weight=0.25)).startswith("Rm3(fb_terms=5, fb_docs=")
    assert "original_query_weight=0.25, filter_terms=" in repr(Rm3(original_query_weight=0.25))
    assert repr(Rocchio(alpha=0.5, use_negative=True)).endswith(
        "alpha=0.5, beta=0.75, gamma=0.0, use_negative=True)"
    )
    assert Rm3(fb_terms=5) != Rm3(fb_terms=6)
    assert Rm3() != Rocchio()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Rm3(fb_terms=0), "fb_terms must be at least 1"),
        (lambda: Rm3(fb_docs=-1), "fb_docs must be at least 1"),
        (lambda: Rm3(original_query_weight=1.5), "original_query_weight must be between 0"),
        (lambda: Rm3(original_query_weight=float("nan")), "original_query_weight must be"),
        (lambda: Rocchio(top_fb_terms=0), "top_fb_terms must be at least 1"),
        (lambda: Rocchio(bottom_fb_docs=0), "bottom_fb_docs must be at least 1"),
        (lambda: Rocchio(alpha=2.0), "alpha must be between 0 and 1"),
        (lambda: Rocchio(gamma=-0.5), "gamma must be between 0 and 1"),
    ],
)
def test_bad_values_are_refused(make: Any, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        make()


def test_a_wrong_type_is_a_type_error(index: Index) -> None:
    with pytest.raises(TypeError):
        Rm3(fb_terms="10")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="feedback must be an Rm3, a Rocchio or None, not str"):
        index.search("network", feedback="rm3")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("feedback", "method", "params"),
    [
        (Rm3(), "rm3", {}),
        (
            Rm3(fb_terms=5, fb_docs=3, original_query_weight=0.3),
            "rm3",
            {"fb_terms": 5, "fb_docs": 3, "original_query_weight": 0.3},
        ),
        (Rocchio(), "rocchio", {}),
        (
            Rocchio(top_fb_docs=3, gamma=0.5, use_negative=True),
            "rocchio",
            {"top_fb_docs": 3, "gamma": 0.5, "use_negative": True},
        ),
    ],
)
def test_feedback_gives_the_feedback_methods_results(
    index: Index, feedback: Any, method: str, params: dict[str, Any]
) -> None:
    k, scoring = 20, Bm25(1.2, 0.75)
    old = getattr(index, f"batch_search_{method}")(QUERIES, k, scoring=scoring, **params)
    new = index.batch_search(QUERIES, k, scoring=scoring, feedback=feedback)
    np.testing.assert_array_equal(old[0], new[0])
    np.testing.assert_array_equal(old[1], new[1])
    plain = index.batch_search(QUERIES, k, scoring=scoring)
    assert not np.array_equal(plain[1], new[1])  # the feedback is not ignored
    pairs = index.batch_search_pairs(QUERIES, k, k1=1.2, b=0.75, feedback=feedback)
    for query, ids, scores, row in zip(QUERIES, new[0], new[1], pairs, strict=True):
        found = ids >= 0
        expected = list(zip(index.docids(ids[found]), scores[found].tolist(), strict=True))
        assert row == expected
        assert index.search_pairs(query, k, scoring=scoring, feedback=feedback) == expected
        hits = index.search(query, k, scoring=scoring, feedback=feedback)
        assert [(h.docid, h.score) for h in hits] == expected
    columns = index.batch_search_columns(QUERIES, k, scoring=scoring, feedback=feedback)
    assert columns.to_pairs() == pairs


def test_feedback_runs_over_lucene_bm25_and_the_index_statistics(index: Index) -> None:
    with pytest.raises(QueryError, match=r"^RM3 feedback runs over Lucene's BM25.*model=\"qld\""):
        index.search("network", model="qld", feedback=Rm3())
    with pytest.raises(QueryError, match=r"^Rocchio feedback runs over Lucene's BM25"):
        index.batch_search(QUERIES, variant="bm25+", feedback=Rocchio())
    stats = index.global_stats(QUERIES)
    with pytest.raises(QueryError, match="not with stats"):
        index.search("network", stats=stats, feedback=Rm3())
    assert isinstance(stats, GlobalStats)


def test_check_feedback_needs_the_document_store() -> None:
    docs = [("d1", "aa bb"), ("d2", "bb cc")]
    store_less = Index.build(docs, store=False, progress=False)
    for feedback in (Rm3(), Rocchio()):
        Index.build(docs, progress=False).check_feedback(feedback)
        with pytest.raises(QueryError, match="store=True"):
            store_less.check_feedback(feedback)
        with pytest.raises(QueryError, match="store=True"):
            store_less.search("aa", feedback=feedback)


def test_the_facade_holds_the_values(index: Index) -> None:
    searcher = LuceneSearcher(index)
    searcher.set_rm3(fb_docs=3)
    assert searcher.rm3 == Rm3(fb_docs=3)
    searcher.set_rocchio()
    assert searcher.rocchio == Rocchio()
    searcher.unset_rm3()
    ids, scores = index.batch_search(
        QUERIES, 10, scoring=searcher.scoring, feedback=searcher.rocchio
    )
    hits = searcher.batch_search(QUERIES, [f"q{i}" for i in range(len(QUERIES))], k=10)
    for i, (row_ids, row_scores) in enumerate(zip(ids, scores, strict=True)):
        found = row_ids >= 0
        assert [h.docid for h in hits[f"q{i}"]] == index.docids(row_ids[found])
        assert [h.raw_score for h in hits[f"q{i}"]] == row_scores[found].tolist()
