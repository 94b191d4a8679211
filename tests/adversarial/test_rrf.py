"""Reciprocal-rank fusion at the edges: repeats within a ranking, huge collections.

``rrf`` counts a document once per ranking, at its first (best) rank, as RRF is
defined; ``rrf_full_depth`` needs memory for its inputs and ``top``, not for every
document of the collection, and raises ``MemoryError`` rather than aborting.
"""

from __future__ import annotations

import textwrap

import pytest
from hang_guard import run_python
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
import rserini
from rserini.exceptions import QueryError

SETTINGS = settings(max_examples=150, derandomize=True, database=None, deadline=None)


def test_a_repeat_counts_once() -> None:
    assert rserini.rrf([["a", "a", "a"]]) == [("a", 1 / 61)]
    assert rserini.rrf([[7, 7]], k=0) == [(7, 1.0)]


def test_a_repeat_keeps_its_place() -> None:
    """The repeat is not counted, but the items after it keep their ranks."""
    fused = rserini.rrf([["a", "b", "a", "c"], ["c"]])
    assert fused == [("c", 1 / 64 + 1 / 61), ("a", 1 / 61), ("b", 1 / 62)]


def test_a_repeat_counts_in_each_ranking() -> None:
    fused = rserini.rrf([["a", "a"], ["b", "a", "a"]], weights=[2.0, 1.0])
    assert fused == [("a", 2 / 61 + 1 / 62), ("b", 1 / 61)]


def test_depth_counts_positions_repeats_included() -> None:
    assert rserini.rrf([["a", "a", "b"]], depth=2) == [("a", 1 / 61)]


def test_full_depth_repeat_counts_once() -> None:
    # Completed: [1, 1, 0, 2]: 1 at rank 0 only, 0 at rank 2, 2 at rank 3.
    assert rserini.rrf_full_depth(3, [[1, 1]]) == [(1, 1 / 61), (0, 1 / 63), (2, 1 / 64)]


ranking = st.lists(st.integers(0, 30), max_size=15)


@SETTINGS
@given(
    rankings=st.lists(st.lists(st.sampled_from("abcdef"), max_size=10), max_size=4),
    depth=st.none() | st.integers(0, 12),
)
def test_rrf_with_repeats_matches_the_reference(
    rankings: list[list[str]], depth: int | None
) -> None:
    assert rserini.rrf(rankings, depth=depth) == ref.rrf(rankings, depth=depth)


@SETTINGS
@given(
    num_docs=st.integers(1, 31),
    rankings=st.lists(ranking, min_size=1, max_size=4),
    signed=st.booleans(),
    weights=st.lists(st.floats(-3.0, 3.0, allow_subnormal=False), min_size=4, max_size=4),
    top=st.none() | st.integers(0, 40),
    k=st.sampled_from([60.0, 0.0, 1.0]),
)
def test_full_depth_matches_the_reference(
    num_docs: int,
    rankings: list[list[int]],
    signed: bool,
    weights: list[float],
    top: int | None,
    k: float,
) -> None:
    """Any weights, negative included, repeats included: exactly the definition."""
    rankings = [[d % num_docs for d in r] for r in rankings]
    w = [(x if signed else abs(x)) + 0.0 for x in weights[: len(rankings)]]
    got = rserini.rrf_full_depth(num_docs, rankings, k=k, weights=w, top=top)
    assert got == ref.rrf_full_depth(num_docs, rankings, k=k, weights=w, top=top)


def test_full_depth_over_four_billion_documents_is_small_and_fast() -> None:
    """num_docs = 2**32 - 1 and top=10: memory for the inputs, not for the collection."""
    code = textwrap.dedent(
        """
        import time
        import rserini
        # The peak is reset first: a child started from a large test process inherits
        # that process's peak RSS (ru_maxrss), which would measure the parent.
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        start = time.perf_counter()
        fused = rserini.rrf_full_depth(2**32 - 1, [[7, 3], [3, 9]], top=4)
        seconds = time.perf_counter() - start
        status = open("/proc/self/status").read().split("VmHWM:")[1]
        peak_mb = int(status.split()[0]) / 1024
        print(fused)
        print(seconds < 1.0, peak_mb < 500)
        """
    )
    out = run_python(code, timeout=60)
    assert out.returncode == 0, out.stderr
    fused, bounds = out.stdout.splitlines()
    # Documents past 20 score less than those before (ranks only grow), so the
    # best four are those of the same fusion over 20 documents.
    assert fused == str(ref.rrf_full_depth(20, [[7, 3], [3, 9]], top=4))
    assert bounds == "True True"


def test_full_depth_beyond_memory_is_a_memory_error() -> None:
    """Every one of four billion documents asked for: MemoryError, the process lives."""
    code = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        import rserini
        try:
            rserini.rrf_full_depth(2**32 - 1, [[1]])
        except MemoryError as e:
            print("MemoryError", e)
        print(rserini.rrf_full_depth(3, [[1]]))
        """
    )
    out = run_python(code, timeout=60)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first.startswith("MemoryError out of memory")
    assert second == str(rserini.rrf_full_depth(3, [[1]]))


@pytest.mark.parametrize("num_docs", [-1, 2**32, 2**70])
def test_full_depth_num_docs_out_of_range(num_docs: int) -> None:
    with pytest.raises(OverflowError):
        rserini.rrf_full_depth(num_docs, [[0]])


def test_full_depth_unknown_document() -> None:
    with pytest.raises(QueryError, match="document 5 is out of range for 5 documents"):
        rserini.rrf_full_depth(5, [[5]])


def test_empty_inputs() -> None:
    assert rserini.rrf([]) == []
    assert rserini.rrf([[], []]) == []
    assert rserini.rrf_full_depth(10, []) == []
    assert rserini.rrf_full_depth(1, [[]]) == [(0, 1 / 61)]
    assert rserini.rrf_full_depth(10, [[3]], top=0) == []
