"""Collection statistics as integers (``GlobalStats``) and searches scored with given
statistics (``stats=``): the value's checks and arithmetic, live counts only, and the
rules that keep a search with given statistics exact or refuse it."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import rserini
from rserini import GlobalStats

DOCS = [
    ("a1", "routers forward packets between networks"),
    ("a2", "packets packets packets"),
    ("a3", ""),
    ("a4", "plants grow in sunlight"),
    ("a5", "networks of plants"),
    ("a6", "   "),
]


def build(docs: list[tuple[str, str]] = DOCS) -> rserini.Index:
    return rserini.Index.build(docs, analyzer="whitespace", store=False, progress=False)


def test_a_value_of_checked_integers() -> None:
    s = GlobalStats(5, 3, 12, {"a": 2, "b": 3})
    assert (s.documents, s.documents_with_terms, s.total_terms) == (5, 3, 12)
    assert s.dfs == {"a": 2, "b": 3}
    assert GlobalStats(5, 3, 12).dfs == {}
    assert s == GlobalStats(5, 3, 12, {"b": 3, "a": 2})
    assert hash(s) == hash(GlobalStats(5, 3, 12, {"b": 3, "a": 2}))
    assert s != GlobalStats(5, 3, 12, {"a": 2})
    assert pickle.loads(pickle.dumps(s)) == s
    assert (
        repr(s)
        == "GlobalStats(documents=5, documents_with_terms=3, total_terms=12, dfs={'a': 2, 'b': 3})"
    )
    many = GlobalStats(100, 100, 100, {f"t{i}": 1 for i in range(30)})
    assert repr(many).endswith("dfs=<30 terms>)")
    with pytest.raises(AttributeError):
        s.documents = 4  # type: ignore[misc]
    # The dfs given back are a copy: the value stays frozen.
    s.dfs["a"] = 99
    assert s.dfs["a"] == 2


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((-1, 0, 0), ValueError, "documents must be a count"),
        ((2**64, 0, 0), ValueError, "documents must be a count"),
        ((1, 2, 5), ValueError, "documents_with_terms .2. cannot exceed documents"),
        ((3, 3, 2), ValueError, "cannot exceed total_terms"),
        ((3, 2, 5, {"x": 3}), ValueError, 'df of "x" .3. exceeds documents_with_terms'),
        ((3, 2, 5, {"x": -1}), ValueError, "must be a count"),
        ((1.0, 0, 0), TypeError, "documents must be an int, got float"),
        ((True, 0, 0), TypeError, "must be an int, got bool"),
        ((3, 2, 5, [("x", 1)]), TypeError, "dfs must be a dict"),
        ((3, 2, 5, {1: 1}), TypeError, "dfs must map str terms"),
        ((3, 2, 5, {"x": "1"}), TypeError, "must be an int, got str"),
    ],
)
def test_bad_counts_are_refused(
    args: tuple[object, ...], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        GlobalStats(*args)  # type: ignore[arg-type]


def test_sums_in_64_bit_integers() -> None:
    a = GlobalStats(3, 2, 5, {"x": 2, "y": 1})
    b = GlobalStats(4, 4, 9, {"y": 3, "z": 4})
    total = GlobalStats(7, 6, 14, {"x": 2, "y": 4, "z": 4})
    assert a + b == total
    assert GlobalStats.sum([a, b]) == total
    assert GlobalStats.sum(iter([a])) == a
    assert GlobalStats.sum([]) == GlobalStats(0, 0, 0)
    big = GlobalStats(2**64 - 1, 1, 1)
    with pytest.raises(ValueError, match="overflows a 64-bit count"):
        big + big
    with pytest.raises(ValueError, match="overflows"):
        GlobalStats.sum([big, big])
    with pytest.raises(TypeError):
        a + 1  # type: ignore[operator]
    with pytest.raises(TypeError, match="iterable of GlobalStats"):
        GlobalStats.sum([a, 1])  # type: ignore[list-item]


def test_an_index_counts_live_documents_before_and_after_merging() -> None:
    index = build()
    assert index.collection_stats() == GlobalStats(6, 4, 15)
    assert index.term_dfs(["packets", "networks", "nothing", "Packets"]) == [2, 2, 0, 0]
    index.delete(["a2", "a3"])
    index.commit()
    live = GlobalStats(4, 3, 12)
    assert index.collection_stats() == live
    assert index.term_dfs(["packets"]) == [1]
    index.optimize()
    assert index.collection_stats() == live
    assert index.term_dfs(["packets"]) == [1]
    fresh = build([d for d in DOCS if d[0] not in ("a2", "a3")])
    assert fresh.collection_stats() == live
    stats = index.global_stats(["packets of plants", "routers routers"])
    assert stats == GlobalStats(4, 3, 12, {"packets": 1, "of": 1, "plants": 2, "routers": 1})
    with pytest.raises(TypeError, match="not a single str"):
        index.term_dfs("packets")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must hold str"):
        index.global_stats([1])  # type: ignore[list-item]


def test_an_index_own_statistics_give_its_own_results() -> None:
    index = build()
    queries = ["packets networks", "plants", "routers of packets"]
    stats = index.global_stats(queries)
    for query in queries:
        for length in ("lucene", "exact"):
            plain = index.search_pairs(query, 10, length=length)
            assert index.search_pairs(query, 10, length=length, stats=stats) == plain
            assert [
                (h.docid, h.score) for h in index.search(query, 10, length=length, stats=stats)
            ] == plain
    ids, scores = index.batch_search(queries, 5, stats=stats)
    ref_ids, ref_scores = index.batch_search(queries, 5)
    assert np.array_equal(ids, ref_ids) and np.array_equal(
        scores.view(np.uint32), ref_scores.view(np.uint32)
    )
    assert index.batch_search_pairs(queries, 5, stats=stats) == index.batch_search_pairs(queries, 5)
    assert str(index.explain("packets", "a2", stats=stats)) == str(index.explain("packets", "a2"))


def test_given_statistics_change_the_scores_as_the_formula_says() -> None:
    index = build()
    stats = GlobalStats(1000, 900, 9000, {"packets": 10})
    (docid, score), *_ = index.search_pairs(
        "packets", 1, stats=stats, variant="atire", length="exact", b=0.0
    )
    # b = 0: no length normalisation, idf = ln(N / df) with the given N and df.
    idf = np.log(1000 / 10)
    assert docid == "a2"
    assert score == pytest.approx(idf * (0.9 + 1) * 3 / (3 + 0.9), rel=1e-6)
    e = index.explain("packets", "a2", stats=stats, variant="atire", length="exact", b=0.0)
    assert e.score == score
    assert e.terms[0].df == 10
    assert "N=1000" in e.formula


def test_statistics_that_cannot_score_exactly_are_refused() -> None:
    index = build()
    stats = index.global_stats(["packets"])
    with pytest.raises(rserini.QueryError, match=r"no df for the query term .networks."):
        index.search("packets networks", stats=stats)
    with pytest.raises(rserini.QueryError, match="no df for the query term"):
        index.batch_search(["packets", "networks"], stats=stats)
    with pytest.raises(rserini.QueryError, match="no df for the query term"):
        index.batch_search_pairs(["packets", "networks"], stats=stats)
    with pytest.raises(rserini.QueryError, match="no df for the query term"):
        index.explain("networks", "a1", stats=stats)
    with pytest.raises(rserini.QueryError, match=r"tfidf.*norms need the global df of every term"):
        index.search("packets", model="tfidf", stats=stats)
    with pytest.raises(
        rserini.QueryError, match=r"no collection frequency \(cfs, which QLD needs\)"
    ):
        index.search("packets", model="qld", stats=stats)
    with pytest.raises(rserini.QueryError, match="count fewer documents"):
        index.search("packets", stats=GlobalStats(1, 1, 1, {"packets": 1}))
    with pytest.raises(rserini.QueryError, match='1 documents holding "packets", fewer than'):
        index.search("packets", stats=GlobalStats(100, 100, 100, {"packets": 1}))
    with pytest.raises(TypeError):
        index.search("packets", stats={"packets": 1})  # type: ignore[arg-type]


def test_query_likelihood_scores_with_collection_frequencies() -> None:
    index = build()
    assert index.term_cfs(["packets", "plants", "nothing"]) == [4, 2, 0]
    queries = ["packets of plants", "networks"]
    stats = index.global_stats(queries, cfs=True)
    assert stats.cfs == {"packets": 4, "of": 1, "plants": 2, "networks": 2}
    assert "cfs={" in repr(stats)
    assert pickle.loads(pickle.dumps(stats)) == stats
    assert stats != index.global_stats(queries)
    for query in queries:
        plain = index.search_pairs(query, 10, model="qld")
        assert index.search_pairs(query, 10, model="qld", stats=stats) == plain
    e = index.explain("packets of plants", "a5", model="qld", stats=stats)
    assert str(e) == str(index.explain("packets of plants", "a5", model="qld"))
    more = stats + GlobalStats(10, 10, 100, {"packets": 5}, {"packets": 50})
    assert more.cfs["packets"] == 54
    assert index.search_pairs("packets", model="qld", stats=more) != index.search_pairs(
        "packets", model="qld"
    )
    with pytest.raises(rserini.QueryError, match='3 occurrences of "packets", fewer than'):
        index.search(
            "packets", model="qld", stats=GlobalStats(10, 10, 100, {"packets": 3}, {"packets": 3})
        )
    with pytest.raises(ValueError, match=r"cf of \"x\" \(1\) must lie between its df \(2\)"):
        GlobalStats(5, 3, 12, {"x": 2}, {"x": 1})
    with pytest.raises(TypeError, match="cfs must be a dict"):
        GlobalStats(5, 3, 12, None, [])  # type: ignore[arg-type]
