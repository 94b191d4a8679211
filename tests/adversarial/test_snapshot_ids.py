"""``batch_search`` ids stay bound to the snapshot that produced them.

Internal ids are positions in one snapshot: after a commit the same number can name
another document. ``docids()`` reads a ``batch_search`` ids array (or any view of it, its
copies and its ``tolist()``) through its own snapshot, so the documented pattern stays
right across commits; ids that lost their snapshot (unpickled) are refused.
"""

from __future__ import annotations

import copy
import pickle
import threading
from pathlib import Path

import numpy as np
import pytest

import rserini

DOCS = [("a", "apple one"), ("b", "banana two"), ("c", "apple cherry"), ("d", "date")]


@pytest.fixture(params=["memory", "folder"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> rserini.Index:
    index = rserini.Index.build(DOCS, progress=False)
    if request.param == "folder":
        index.save(tmp_path / "idx")
        index = rserini.Index.load(tmp_path / "idx")
    return index


def change(index: rserini.Index) -> None:
    """Commits that renumber: "a" deleted, a new document matching "apple", and a
    merge that closes the gap, so that every old id names another document."""
    index.delete(["a"])
    index.add([("e", "apple apple elderberry")])
    index.commit()
    index.optimize()
    assert index.docids([0, 1, 2, 3]) == ["b", "c", "d", "e"]


def test_ids_read_after_a_commit_name_the_documents_found(index: rserini.Index) -> None:
    ids, _ = index.batch_search(["apple", "banana"], k=3)
    found = index.docids(ids)
    assert found == [["a", "c"], ["b"]]
    change(index)
    assert index.docids(ids) == found
    assert index.docids(ids[0]) == ["a", "c"]  # a row: a view
    assert index.docids(ids[:, :1]) == [["a"], ["b"]]  # a slice: a view
    assert index.docids(np.asarray(ids)) == found  # the same array
    assert index.docids(ids.T[0]) == ["a", "b"]  # a view of a view
    # A fresh search sees the commit.
    new, _ = index.batch_search(["apple"], k=3)
    assert index.docids(new) == [["e", "c"]]


def test_copies_and_lists_of_the_ids_are_read_in_the_snapshot_searched(
    index: rserini.Index,
) -> None:
    """``ids.copy()`` and ``ids.tolist()`` once gave other documents after a commit."""
    ids, _ = index.batch_search(["apple", "banana"], k=3)
    found = [["a", "c"], ["b"]]
    copies = {
        "copy": ids.copy(),
        "tolist": ids.tolist(),
        "astype": ids.astype(np.int64),
        "deepcopy": copy.deepcopy(ids),
        "list deepcopy": copy.deepcopy(ids.tolist()),
        "list copy": copy.copy(ids.tolist()),
        "view of a copy": np.asarray(ids.copy()),
    }
    row = ids.tolist()[0]
    assert copies["tolist"] == [[0, 2, -1], [1, -1, -1]] and isinstance(copies["tolist"], list)
    change(index)
    assert index.docids(np.array(ids)) != found == index.docids(ids)  # plain numbers
    for how, ids_copy in copies.items():
        assert index.docids(ids_copy) == found, how
    assert index.docids(row) == ["a", "c"]


def test_ids_that_lost_their_snapshot_are_refused(index: rserini.Index) -> None:
    ids, _ = index.batch_search(["apple"], k=2)
    for lost in (pickle.loads(pickle.dumps(ids)), pickle.loads(pickle.dumps(ids.tolist()))):
        assert np.asarray(lost).tolist() == [[0, 2]]
        with pytest.raises(ValueError, match="lost the snapshot"):
            index.docids(lost)


def test_ids_survive_several_commits(index: rserini.Index) -> None:
    ids, _ = index.batch_search(["apple"], k=4)
    for i in range(5):
        index.delete([DOCS[i % 4][0] if i < 4 else "x0"])
        index.add([(f"x{i}", "apple " * (i + 2))])
        index.commit()
    index.optimize()
    assert index.docids([0, 2]) != ["a", "c"]  # the ids now name other documents
    assert index.docids(ids) == [["a", "c"]]


def test_ids_of_another_index_are_read_in_that_index() -> None:
    one = rserini.Index.build(DOCS, progress=False)
    other = rserini.Index.build([("z", "apple")], progress=False)
    ids, _ = one.batch_search(["apple"], k=2)
    assert other.docids(ids) == [["a", "c"]]


def test_plain_ids_are_read_in_the_current_snapshot(index: rserini.Index) -> None:
    """Ids the caller made (or copied out as plain numbers: ``np.array(ids)``) carry no
    snapshot: the current one reads them."""
    assert index.docids([0, 1]) == ["a", "b"]
    assert index.docids(np.array([[2, -1]], dtype=np.int64)) == [["c"]]
    with pytest.raises(ValueError, match="internal id 99 is not in this index"):
        index.docids([99])


def test_concurrent_writer_never_makes_ids_name_other_documents() -> None:
    """A thread commits while another maps every batch_search's ids: all stay right."""
    index = rserini.Index.build(
        [(f"d{i}", f"common w{i % 10}") for i in range(300)], progress=False
    )
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            i = 0
            while not stop.is_set():
                index.delete([f"d{i}"])
                index.add([(f"d{i}", f"common w{i % 10}"), (f"n{i}", "common noise")])
                index.commit()
                i = (i + 1) % 300
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    thread = threading.Thread(target=writer)
    thread.start()
    wrong = 0
    try:
        for _ in range(200):
            ids, _ = index.batch_search(["w3", "w7"], k=50)
            for want, row in zip(("w3", "w7"), index.docids(ids), strict=True):
                wrong += sum(int(docid[1:]) % 10 != int(want[1]) for docid in row)
    finally:
        stop.set()
        thread.join(60)
    assert not errors
    assert wrong == 0
