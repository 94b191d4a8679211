"""``merge_topk`` (the top k of a collection from its parts' top k, under the index's tie
rule) against a sort, over rankings of tuples and ``Columns``; and ``Columns`` themselves:
``batch_search_columns`` equals ``batch_search_pairs``, pickles, and refuses bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini import Columns, merge_topk
from support import TINY

# Few docids and scores, so that ties in score (and equal docids) are common.
hits = st.tuples(
    st.sampled_from(["a", "b", "é", "ab", "b\x00", "z"]), st.sampled_from([0.5, 1.0, 2.0, -1.0])
)


def ranked(pairs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """The tie rule: score descending, then docid ascending by UTF-8 bytes."""
    return sorted(pairs, key=lambda p: (-p[1], p[0].encode()))


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.lists(hits, max_size=12), max_size=5), k=st.integers(1, 40))
def test_merge_equals_sorting_the_union(parts: list[list[tuple[str, float]]], k: int) -> None:
    parts = [ranked(p) for p in parts]
    want = ranked([h for p in parts for h in p])[:k]
    assert merge_topk(parts, k) == want
    columns = [pack([p]) for p in parts]
    if columns:
        assert merge_topk(columns, k).to_pairs() == [want]


def pack(rows: list[list[tuple[str, float]]]) -> Columns:
    """Rankings as ``Columns``, built in Python."""
    docids = [d.encode() for row in rows for d, _ in row]
    return Columns(
        np.cumsum([0] + [len(r) for r in rows], dtype=np.int64),
        np.array([s for row in rows for _, s in row], dtype=np.float32),
        np.cumsum([0] + [len(d) for d in docids], dtype=np.int64),
        np.frombuffer(b"".join(docids), dtype=np.uint8),
    )


def test_the_merged_tuples_are_the_parts_own() -> None:
    a, b = [("x", 2.0), ("y", 1.0)], [("w", 1.0)]
    merged = merge_topk([a, b], 2)
    assert merged == [("x", 2.0), ("w", 1.0)]
    assert merged[0] is a[0] and merged[1] is b[0]
    assert merge_topk([], 5) == []
    assert merge_topk([[], []], 5) == []


def test_columns_merge_row_by_row() -> None:
    index = rserini.Index.build(TINY, progress=False)
    queries = ["network", "plants energy", "", "nothing at all"]
    shallow = index.batch_search_columns(queries, 2)
    deep = index.batch_search_columns(queries, 10)
    assert shallow.rows == 4
    assert deep.to_pairs() == index.batch_search_pairs(queries, 10)
    assert (shallow.scores.dtype, shallow.row_offsets.dtype) == (np.float32, np.int64)
    assert (shallow.docid_offsets.dtype, shallow.docid_bytes.dtype) == (np.int64, np.uint8)
    merged = merge_topk([shallow, deep], 3)
    want = [ranked(a + b)[:3] for a, b in zip(shallow.to_pairs(), deep.to_pairs(), strict=True)]
    assert merged.to_pairs() == want
    again = pickle.loads(pickle.dumps(deep))
    assert again.to_pairs() == deep.to_pairs()
    empty = index.batch_search_columns([], 5)
    assert empty.rows == 0 and empty.to_pairs() == []


def test_bad_input_is_refused() -> None:
    index = rserini.Index.build(TINY, progress=False)
    columns = index.batch_search_columns(["network"], 5)
    two_rows = index.batch_search_columns(["network", "plants"], 5)
    with pytest.raises(ValueError, match="same number of rows"):
        merge_topk([columns, two_rows], 5)
    with pytest.raises(ValueError, match="part 1 is not in rank order"):
        merge_topk([[("a", 2.0)], [("a", 1.0), ("b", 3.0)]], 5)
    with pytest.raises(ValueError, match="not in rank order"):
        merge_topk([pack([[("b", 1.0), ("a", 1.0)]])], 5)
    with pytest.raises(rserini.QueryError, match="k must be"):
        merge_topk([[("a", 1.0)]], 0)
    with pytest.raises(TypeError, match="k must be an int"):
        merge_topk([[("a", 1.0)]], 1.5)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="one kind"):
        merge_topk([columns, [("a", 1.0)]], 5)  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"\(docid: str, score: float\) tuples"):
        merge_topk([[("a", 1.0, 3)]], 5)  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"\(docid: str, score: float\) tuples"):
        merge_topk([[(1, 1.0)]], 5)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="scores must be a 1-D numpy array of float32"):
        merge_topk([columns._replace(scores=columns.scores.astype(np.float64))], 5)
    with pytest.raises(ValueError, match="inconsistent Columns"):
        merge_topk([columns._replace(row_offsets=np.array([0, 99], dtype=np.int64))], 5)
    with pytest.raises(ValueError, match="inconsistent Columns"):
        merge_topk([columns._replace(docid_bytes=columns.docid_bytes[:-1])], 5)
    with pytest.raises(rserini.QueryError, match="k must be"):
        index.batch_search_columns(["network"], 0)
    with pytest.raises(TypeError, match="not a single str"):
        index.batch_search_columns("network")  # type: ignore[arg-type]
