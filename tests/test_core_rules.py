"""The core's rules that Python code applies itself (a sharded index queues changes over
many indexes; the command line shows the defaults) are the index's own: the same verdict
and the same message, read from the extension rather than restated."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini._core import check_added_docids, check_query
from rserini.exceptions import DocumentError, QueryError

IDS = ["a", "b", "c", "d"]


def outcome(run: Callable[[], object]) -> str | None:
    """``None`` if ``run()`` passes, else the message of the rserini error it raises."""
    try:
        run()
    except (DocumentError, QueryError) as e:
        return f"{type(e).__name__}: {e}"
    return None


@pytest.fixture(scope="module")
def index() -> rserini.Index:
    return rserini.Index.build([("d1", "the fox"), ("d2", "a dog")], progress=False)


@pytest.mark.parametrize("query", ["", " ", "\t\n", "\u3000", "\x1c\x1f", "the", "fox dog"])
def test_check_query_refuses_what_a_search_refuses(index: rserini.Index, query: str) -> None:
    assert outcome(lambda: check_query(query)) == outcome(lambda: index.search_pairs(query))


@settings(max_examples=150, deadline=None)
@given(
    existing=st.lists(st.sampled_from(IDS), unique=True, min_size=1),
    deleted=st.lists(st.sampled_from(IDS), unique=True),
    added=st.lists(st.sampled_from(["", *IDS]), min_size=1, max_size=6),
    duplicates=st.sampled_from(["error", "keep"]),
)
def test_check_added_docids_gives_the_commits_verdict(
    existing: list[str], deleted: list[str], added: list[str], duplicates: str
) -> None:
    deleted = [d for d in deleted if d in existing]
    index = rserini.Index.build([(d, "w") for d in existing], progress=False)

    def commit() -> None:
        index.delete(deleted)
        index.add([(d, "w") for d in added], duplicates=duplicates)  # type: ignore[arg-type]
        index.commit()

    live = set(existing) - set(deleted)
    assert outcome(lambda: check_added_docids(added, duplicates, live)) == outcome(commit)


def test_an_unknown_duplicates_policy_is_refused_as_add_refuses_it() -> None:
    index = rserini.Index.build([("a", "w")], progress=False)
    got = outcome(lambda: check_added_docids(["b"], "drop", set()))
    assert got is not None
    assert got == outcome(lambda: index.add([("b", "w")], duplicates="drop"))  # type: ignore[arg-type]


def test_the_exported_choices_and_defaults_are_the_ones_the_index_takes(
    index: rserini.Index,
) -> None:
    for name in rserini.ALGORITHMS:
        assert index.search_pairs("fox", algorithm=name) == index.search_pairs("fox")
    assert outcome(lambda: index.search_pairs("fox", algorithm="fastest")) is not None
    for method in (rserini.Index.build, rserini.Index.from_jsonl):
        parameters = inspect.signature(method).parameters
        assert parameters["memory_mb"].default == rserini.DEFAULT_MEMORY_MB
    parameters = inspect.signature(rserini.Index.from_jsonl).parameters
    assert parameters["max_line_bytes"].default == rserini.DEFAULT_MAX_LINE_BYTES
