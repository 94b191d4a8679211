"""Reciprocal-rank fusion (``rserini.rrf``, ``rserini.rrf_full_depth``) against the reference.

rserini adds the same contributions in the same order (ranking 0 first) as
the reference, so fused scores are compared exactly.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
import rserini
from rserini.exceptions import QueryError

SETTINGS = settings(max_examples=200, derandomize=True, database=None, deadline=None)

str_items = st.text(st.characters(exclude_categories=("Cs",)), max_size=3)
int_items = st.integers(-(2**63), 2**63 - 1) | st.integers(0, 20)
rrf_k = st.sampled_from([60, 0, 1, 60.0]) | st.floats(0.0, 1000.0)
# Weights whose contributions could be -0.0 (-0.0 itself, or a negative weight so small that
# w / (k + r) underflows) are left out here: test_rrf_signed_zero_scores_tie_by_first_appearance
# covers that case on its own.
weight = (
    st.sampled_from([1.0, 0.0, 0.5, 2.0, -1.0]) | st.floats(-5.0, 5.0, allow_subnormal=False)
).map(lambda w: w + 0.0)


def prefixes_of_permutations(items: list) -> st.SearchStrategy[list]:
    """A random order of ``items``, cut after a random number of them."""
    return st.permutations(items).flatmap(lambda p: st.integers(0, len(p)).map(lambda m: p[:m]))


@st.composite
def rankings_of(draw: st.DrawFn, items: st.SearchStrategy) -> list[list]:
    """Rankings over a shared pool of items, each without repeats; some empty."""
    pool = draw(st.lists(items, min_size=1, max_size=12, unique=True))
    n = draw(st.integers(0, 5))
    return [draw(prefixes_of_permutations(pool)) for _ in range(n)]


@st.composite
def rrf_cases(draw: st.DrawFn) -> dict:
    """Rankings of str or int items with optional k, weights and depth."""
    rankings = draw(rankings_of(str_items) | rankings_of(int_items))
    weights = draw(st.none() | st.lists(weight, min_size=len(rankings), max_size=len(rankings)))
    depth = draw(st.none() | st.integers(0, 6))
    return {"rankings": rankings, "k": draw(rrf_k), "weights": weights, "depth": depth}


@SETTINGS
@given(case=rrf_cases())
def test_rrf_matches_reference(case):
    """rrf equals the reference: same items, same order (ties by first appearance), same scores."""
    got = rserini.rrf(case["rankings"], case["k"], case["weights"], case["depth"])
    want = ref.rrf(case["rankings"], case["k"], case["weights"], case["depth"])
    assert got == want
    assert all(isinstance(score, float) for _, score in got)


@SETTINGS
@given(case=rrf_cases())
def test_rrf_keyword_arguments_and_repeated_calls(case):
    """Keyword and positional calls agree, and repeated calls give identical results."""
    first = rserini.rrf(case["rankings"], k=case["k"], weights=case["weights"], depth=case["depth"])
    again = rserini.rrf(case["rankings"], case["k"], case["weights"], case["depth"])
    assert first == again


def test_rrf_spec_vector_order_and_scores():
    """rrf([[0,1,2],[2,0,1]]) is 0, 2, 1 with the textbook RRF sums at k = 60."""
    fused = rserini.rrf([[0, 1, 2], [2, 0, 1]])
    assert [item for item, _ in fused] == [0, 2, 1]
    scores = dict(fused)
    assert scores[0] == pytest.approx(1 / 61 + 1 / 62, rel=1e-15)
    assert scores[1] == pytest.approx(1 / 62 + 1 / 63, rel=1e-15)
    assert scores[2] == pytest.approx(1 / 63 + 1 / 61, rel=1e-15)


def test_rrf_weights_can_reverse_the_winner():
    """A heavy second ranking puts its first item first."""
    fused = rserini.rrf([[0, 1], [1, 0]], weights=[0.1, 5.0])
    assert [item for item, _ in fused] == [1, 0]
    assert fused[0][1] == pytest.approx(0.1 / 62 + 5.0 / 61, rel=1e-15)


def test_rrf_of_nothing_is_empty():
    """No rankings (or only empty ones) fuse to nothing."""
    assert rserini.rrf([]) == []
    assert rserini.rrf([[], []]) == []


def test_rrf_single_ranking_keeps_its_order():
    """One ranking comes back in its own order with scores 1/(k + rank)."""
    fused = rserini.rrf([[5, 2, 9]])
    assert fused == [(5, 1 / 61), (2, 1 / 62), (9, 1 / 63)]


def test_rrf_strings_and_ties_by_first_appearance():
    """Equal sums keep the order in which items first appear, scanning ranking 0 first."""
    fused = rserini.rrf([["b", "a"], ["a", "b"]])
    assert [item for item, _ in fused] == ["b", "a"]
    assert fused[0][1] == fused[1][1]
    fused = rserini.rrf([["x"], ["y"], ["z"]])
    assert [item for item, _ in fused] == ["x", "y", "z"]


def test_rrf_depth_limits_each_ranking():
    """Only the first ``depth`` items of each ranking count."""
    fused = rserini.rrf([[1, 2, 3], [3, 2, 1]], depth=1)
    assert fused == [(1, 1 / 61), (3, 1 / 61)]
    assert rserini.rrf([[1, 2]], depth=0) == []


def test_rrf_ints_and_strs_are_distinct_items():
    """The int 1 and the str "1" are different items."""
    fused = rserini.rrf([[1, "1"]])
    assert fused == [(1, 1 / 61), ("1", 1 / 62)]


def test_rrf_signed_zero_scores_tie_by_first_appearance():
    """Scores 0.0 and -0.0 are equal, so first appearance decides (item 1 first)."""
    fused = rserini.rrf([[1], [2]], weights=[-0.0, 0.0])
    assert [item for item, _ in fused] == [1, 2]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weights": [1.0]}, "got 1 weights for 2 rankings"),
        ({"weights": [1.0, 2.0, 3.0]}, "got 3 weights for 2 rankings"),
        ({"k": -1}, "RRF k must be a finite number >= 0"),
        ({"k": math.nan}, "RRF k must be a finite number >= 0"),
        ({"k": math.inf}, "RRF k must be a finite number >= 0"),
        ({"weights": [1.0, math.nan]}, "RRF weights must be finite"),
        ({"weights": [math.inf, 1.0]}, "RRF weights must be finite"),
    ],
)
def test_rrf_rejects_bad_parameters(kwargs, message):
    """Wrong weights length, negative or non-finite k, non-finite weights raise QueryError."""
    with pytest.raises(QueryError, match=message):
        rserini.rrf([[0, 1], [1, 0]], **kwargs)
    with pytest.raises(QueryError, match=message):
        rserini.rrf_full_depth(3, [[0, 1], [1, 0]], **kwargs)


def test_rrf_query_error_is_a_value_error():
    """QueryError can be caught as ValueError."""
    with pytest.raises(ValueError, match="weights"):
        rserini.rrf([[0]], weights=[1.0, 1.0])


# ---------------------------------------------------------------------------
# rrf_full_depth
# ---------------------------------------------------------------------------


@st.composite
def full_depth_cases(draw: st.DrawFn) -> dict:
    """Rankings of docs ``0..num_docs``: arbitrary subsets, or permutations of one shared set."""
    num_docs = draw(st.integers(0, 15))
    n = draw(st.integers(0, 4))
    docs = list(range(num_docs))
    if draw(st.booleans()):
        # Every ranking lists the same members (the case of BM25 vs TF-IDF rankings).
        members = draw(prefixes_of_permutations(docs))
        rankings = [draw(st.permutations(members)) for _ in range(n)]
    else:
        rankings = [draw(prefixes_of_permutations(docs)) for _ in range(n)]
    weights = draw(
        st.none()
        | st.lists(weight, min_size=n, max_size=n)
        | st.lists(st.floats(0.01, 5.0), min_size=n, max_size=n)
    )
    top = draw(st.none() | st.integers(0, num_docs + 2))
    k = draw(rrf_k)
    return {"num_docs": num_docs, "rankings": rankings, "k": k, "weights": weights, "top": top}


@SETTINGS
@given(case=full_depth_cases())
def test_rrf_full_depth_matches_reference_on_completed_rankings(case):
    """rrf_full_depth equals the reference rrf of the rankings completed in ascending order."""
    got = rserini.rrf_full_depth(
        case["num_docs"], case["rankings"], case["k"], case["weights"], case["top"]
    )
    want = ref.rrf_full_depth(
        case["num_docs"], case["rankings"], case["k"], case["weights"], case["top"]
    )
    assert got == want
    if case["rankings"]:
        top = case["num_docs"] if case["top"] is None else case["top"]
        assert len(got) == min(top, case["num_docs"])


def test_rrf_full_depth_completes_rankings_in_ascending_order():
    """Unlisted documents continue each ranking in ascending id order."""
    # Ranking 0 is 3,0,1,2,4; ranking 1 is 0,1,2,3,4.
    fused = rserini.rrf_full_depth(5, [[3], []])
    assert [doc for doc, _ in fused] == [0, 3, 1, 2, 4]
    assert dict(fused)[0] == pytest.approx(1 / 62 + 1 / 61, rel=1e-15)
    assert dict(fused)[3] == pytest.approx(1 / 61 + 1 / 64, rel=1e-15)


def test_rrf_full_depth_top_truncates():
    """``top`` keeps the best documents only; a ``top`` beyond the collection keeps them all."""
    rankings = [[4, 1, 7], [7, 4, 1]]
    full = rserini.rrf_full_depth(10, rankings)
    assert len(full) == 10
    assert rserini.rrf_full_depth(10, rankings, top=3) == full[:3]
    assert rserini.rrf_full_depth(10, rankings, top=0) == []
    assert rserini.rrf_full_depth(10, rankings, top=50) == full
    assert [doc for doc, _ in full[:3]] == [4, 7, 1]


def test_rrf_full_depth_without_rankings_is_empty():
    """No rankings fuse to nothing, whatever the collection size."""
    assert rserini.rrf_full_depth(5, []) == []


def test_rrf_full_depth_rejects_documents_out_of_range():
    """A listed document outside ``0..num_docs`` raises QueryError naming it."""
    with pytest.raises(QueryError, match="document 5 is out of range for 5 documents"):
        rserini.rrf_full_depth(5, [[0, 5]])


# What searches return, fused as it comes


def test_rrf_takes_hits_pairs_and_docids_alike(tiny_index):
    """Hits, (docid, score) pairs and docid lists of the same rankings fuse identically."""
    queries = ["network routing", "plants energy"]
    by_docid = [[h.docid for h in tiny_index.search(q, k=10)] for q in queries]
    want = rserini.rrf(by_docid)
    assert want
    assert rserini.rrf([tiny_index.search(q, k=10) for q in queries]) == want
    assert rserini.rrf([tiny_index.search_pairs(q, k=10) for q in queries]) == want
    assert rserini.rrf(tiny_index.batch_search_pairs(queries, k=10)) == want
    ids, _ = tiny_index.batch_search(queries, k=10)
    assert rserini.rrf(tiny_index.docids(ids)) == want


@pytest.mark.parametrize(
    ("rankings", "what"),
    [
        ([[1.5]], "item 0 of ranking 0 is a float"),
        ([["a", None]], "item 1 of ranking 0 is a NoneType"),
        ([["a"], [{"docid": "a"}]], "item 0 of ranking 1 is a dict"),
        ([[True]], "item 0 of ranking 0 is a bool"),
        ([[(1.0, "a")]], "item 0 of ranking 0 is a tuple"),
        ([[("a", 1.0, 2)]], "item 0 of ranking 0 is a tuple"),
        (["ab"], "ranking 0 is a str"),
    ],
)
def test_rrf_names_the_accepted_shapes_for_any_other_item(rankings, what):
    with pytest.raises(TypeError, match=what) as info:
        rserini.rrf(rankings)
    assert "(docid, score) pair" in str(info.value)
    assert "Hit" in str(info.value)
