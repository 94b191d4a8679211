"""Crafted, checksum-valid ``LexicalRetriever`` files and hostile ``from_dict`` input.

N8: a resealed file with short docids, metadata that is not JSON, or ``k1`` as a string
or NaN raised ``IndexError`` (at search), ``JSONDecodeError`` or ``TypeError``, or loaded
and ranked by docid order. The file format's checksum holds for any content its writer
chose, so the loader checks the structure itself: every crafted file either loads into a
retriever that searches, or raises :class:`IndexCorruptedError`.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rserini import IndexCorruptedError
from rserini._core import _lexical_save
from rserini.retrieval import Document, LexicalRetriever

DOCS = [Document(f"d{i}", f"alpha beta gamma {i} delta" * (1 + i % 3)) for i in range(6)]


def _fitted(n: int = 6) -> LexicalRetriever:
    retriever = LexicalRetriever()
    retriever.index(DOCS[:n])
    return retriever


def _meta(retriever: LexicalRetriever, path: Path) -> dict[str, Any]:
    retriever.save(path)
    # The metadata as save() writes it, rebuilt from the same fields.
    return {
        "format": "rserini-lexical",
        "schema": LexicalRetriever.SCHEMA_VERSION,
        "k1": retriever._bm25.k1,
        "b": retriever._bm25.b,
        "docids": list(retriever._docids),
        "units": [dict(u) for u in retriever._units],
    }


def _reseal(path: Path, meta_text: str, retriever: LexicalRetriever) -> None:
    _lexical_save(str(path), meta_text, retriever._tfidf._arm, retriever._bm25._arm)


def _loads_and_searches_or_refuses(path: Path) -> None:
    try:
        loaded = LexicalRetriever.load(path)
    except IndexCorruptedError:
        return
    for hit in loaded.search_detailed("alpha gamma", 10):
        assert isinstance(hit.docid, str)
    assert all(isinstance(d, str) for d in loaded.search("beta", 3))


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda m: m.update(docids=m["docids"][:-1]), "documents"),
        (lambda m: m.update(units=m["units"][:2]), "documents"),
        (lambda m: m.update(k1=math.nan), "k1"),
        (lambda m: m.update(k1="x"), "k1"),
        (lambda m: m.update(b=math.inf), "b"),
        (lambda m: m.update(k1=True), "k1"),
        (lambda m: m.update(docids={"a": 1}), "docids"),
        (lambda m: m["units"][0].update(start_line="3"), "malformed"),
        (lambda m: m["units"][1].update(docid="other"), "malformed"),
        (lambda m: m.pop("units"), "documents"),
    ],
)
def test_crafted_metadata_is_index_corruption(tmp_path: Path, edit: Any, why: str) -> None:
    path = tmp_path / "r.bin"
    retriever = _fitted()
    meta = _meta(retriever, path)
    edit(meta)
    _reseal(path, json.dumps(meta), retriever)
    with pytest.raises(IndexCorruptedError, match=why):
        LexicalRetriever.load(path)


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", "null", '"x"', "{"])
def test_metadata_that_is_not_an_object(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.bin"
    retriever = _fitted()
    _reseal(path, text, retriever)
    with pytest.raises(IndexCorruptedError):
        LexicalRetriever.load(path)


def test_arms_of_another_size_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.bin"
    big, small = _fitted(6), _fitted(3)
    meta = _meta(big, path)
    _lexical_save(str(path), json.dumps(meta), big._tfidf._arm, small._bm25._arm)
    with pytest.raises(IndexCorruptedError):
        LexicalRetriever.load(path)
    _reseal(path, json.dumps(meta), small)
    with pytest.raises(IndexCorruptedError, match="documents"):
        LexicalRetriever.load(path)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["format", "schema", "k1", "b", "docids", "units"]
UNIT_FIELDS = ["docid", "source_path", "start_line", "end_line", "context"]


@st.composite
def structural_edits(draw: st.DrawFn) -> list[tuple[str, ...]]:
    """Edits of the metadata's structure: fields replaced, removed, lists cut,
    extended or reordered, unit fields replaced or removed."""
    kinds = st.sampled_from(["replace", "remove", "cut", "extend", "swap", "unit", "unit_remove"])
    return draw(
        st.lists(
            st.tuples(kinds, st.sampled_from(FIELDS), st.integers(0, 7)), min_size=1, max_size=4
        )
    )


def _apply(meta: dict[str, Any], edits: list[tuple[str, str, int]], data: st.DataObject) -> None:
    for kind, field, i in edits:
        if kind == "replace":
            meta[field] = data.draw(JSON)
        elif kind == "remove":
            meta.pop(field, None)
        elif isinstance(meta.get(field), list) and meta[field]:
            items = meta[field]
            if kind == "cut":
                del items[i % len(items) :]
            elif kind == "extend":
                items.append(copy.deepcopy(items[i % len(items)]))
            elif kind == "swap":
                j = i % len(items)
                items[0], items[j] = items[j], items[0]
            elif isinstance(items[i % len(items)], dict):
                unit = items[i % len(items)]
                name = data.draw(st.sampled_from(UNIT_FIELDS))
                if kind == "unit":
                    unit[name] = data.draw(JSON)
                else:
                    unit.pop(name, None)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=structural_edits(), data=st.data())
def test_structurally_fuzzed_files_load_and_search_or_are_refused(
    tmp_path: Path, edits: list[tuple[str, str, int]], data: st.DataObject
) -> None:
    path = tmp_path / "fuzz.bin"
    retriever = _fitted()
    meta = _meta(retriever, path)
    _apply(meta, edits, data)
    _reseal(path, json.dumps(meta), retriever)
    _loads_and_searches_or_refuses(path)


# from_dict: documented ValueError / KeyError, never IndexError or OverflowError later.


def test_from_dict_refuses_inconsistent_input() -> None:
    good = _fitted().to_dict()
    for edit in [
        lambda d: d.update(units=d["units"][:2]),
        lambda d: d.update(docids=d["docids"][:1]),
        lambda d: d["bm25"].update(k1=math.nan),
        lambda d: d["bm25"].update(b="x"),
    ]:
        data = copy.deepcopy(good)
        edit(data)
        with pytest.raises(ValueError):
            LexicalRetriever.from_dict(data)
    data = copy.deepcopy(good)
    data["bm25"]["n_docs"] = -1
    with pytest.raises((ValueError, KeyError)):
        LexicalRetriever.from_dict(data)
    assert LexicalRetriever.from_dict(copy.deepcopy(good)).search("alpha", 2)
