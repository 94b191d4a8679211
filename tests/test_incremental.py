"""Incremental updates: add, delete, commit and optimize against fresh builds; locks; snapshots."""

from __future__ import annotations

import itertools
import json
import math
import os
import pickle
import re
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rserini
from rserini import Index

ANALYZER = "plain"
VOCAB = ["apple", "banana", "cherry", "date", "elder", "fig", "grape", "honey"]
QUERIES = [
    "apple",
    "banana cherry",
    "fig fig grape",
    "honey apple date elder",
    "kiwi",
    "kiwi cherry cherry",
    "apple banana cherry date elder fig grape honey",
]
BM25_CONFIGS: list[dict[str, object]] = [
    {"variant": variant, "length": length}
    for variant in ("lucene", "robertson", "atire", "bm25l", "bm25+")
    for length in ("lucene", "exact")
] + [{"k1": 1.2, "b": 0.75}, {"k1": 0.0, "b": 0.0, "length": "exact"}, {"b": 1.0}]

Docs = list[tuple[str, str]]


def build(docs: Docs) -> Index:
    return Index.build(docs, analyzer=ANALYZER, progress=False)


def ranked(index: Index, query: str, k: int, **kwargs: object) -> list[tuple[str, float]]:
    return [(h.docid, h.score) for h in index.search(query, k=k, **kwargs)]


def assert_tfidf_close(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    """Same scores to 1e-6 relative; same docids in order except within near-tied runs."""
    assert len(got) == len(want), (got, want)
    for (_, a), (_, b) in zip(got, want, strict=True):
        assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9), (got, want)
    start = 0
    for i in range(1, len(want) + 1):
        if i == len(want) or not math.isclose(
            want[i][1], want[i - 1][1], rel_tol=1e-6, abs_tol=1e-9
        ):
            assert {d for d, _ in got[start:i]} == {d for d, _ in want[start:i]}, (got, want)
            start = i


def assert_matches_fresh_build(index: Index, live: Docs, deleted: set[str]) -> None:
    """The changed index answers exactly like a fresh build over its live documents."""
    fresh = build(live)
    assert len(index) == len(live)
    got_stats, want_stats = index.stats(), fresh.stats()
    for key in ("num_docs", "num_nonempty_docs", "total_terms", "avgdl"):
        assert got_stats[key] == want_stats[key], key
    assert got_stats["num_segments"] <= 8
    deep = len(live) + 3
    for query in QUERIES:
        for k in (deep, 2):
            for config in BM25_CONFIGS:
                got = ranked(index, query, k, **config)
                assert got == ranked(fresh, query, k, **config), (query, k, config)
                # Docid strings are cached per snapshot: a stale one would show here.
                assert index.search_pairs(query, k, **config) == got
                assert not {d for d, _ in got} & deleted
        got = ranked(index, query, deep, model="tfidf")
        assert_tfidf_close(got, ranked(fresh, query, deep, model="tfidf"))
        assert not {d for d, _ in got} & deleted
    if live:
        ids, scores = index.batch_search(QUERIES, k=deep)
        want_ids, want_scores = fresh.batch_search(QUERIES, k=deep)
        assert index.docids(ids) == fresh.docids(want_ids)
        assert np.array_equal(scores, want_scores)
    for docid, text in live:
        assert docid in index
        assert index.doc(docid) == {"id": docid, "contents": text}
    for docid in deleted:
        assert docid not in index
        with pytest.raises(rserini.UnknownDocidError):
            index.doc(docid)


def assert_folder_is_clean(folder: Path) -> None:
    """The folder holds exactly the files meta.json lists, plus meta.json and write.lock."""
    meta = json.loads((folder / "meta.json").read_text())
    listed = {f["name"] for s in meta["segments"] for f in s["files"]}
    listed |= {s["deletions"]["name"] for s in meta["segments"] if s["deletions"]}
    assert set(os.listdir(folder)) == listed | {"meta.json", "write.lock"}


texts = st.one_of(
    st.lists(st.sampled_from(VOCAB), max_size=10).map(" ".join),
    st.sampled_from(["", "?!", "   "]),
)


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_changed_index_equals_a_fresh_build_of_its_live_documents(data: st.DataObject) -> None:
    """After every commit, optimize and reload, results equal a fresh build's exactly."""
    on_disk = data.draw(st.booleans(), label="on_disk")
    counter = iter(range(10**6))
    committed: Docs = [(f"d{next(counter)}", t) for t in data.draw(st.lists(texts, max_size=8))]
    deleted: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "idx"
        index = build(committed)
        if on_disk:
            index.save(folder)
            if data.draw(st.booleans(), label="load after save"):
                index = Index.load(folder, mmap=data.draw(st.booleans(), label="mmap"))
        assert_matches_fresh_build(index, committed, deleted)
        for _ in range(data.draw(st.integers(1, 6), label="commits")):
            adds: Docs = []
            deletes: set[str] = set()
            dropped: set[str] = set()
            for _ in range(data.draw(st.integers(0, 4), label="operations")):
                if data.draw(st.booleans(), label="add?"):
                    batch = []
                    for text in data.draw(st.lists(texts, min_size=1, max_size=6)):
                        readd = sorted(deleted - {d for d, _ in adds})
                        if readd and data.draw(st.booleans(), label="re-add a deleted docid"):
                            docid = data.draw(st.sampled_from(readd))
                            deleted.discard(docid)
                        else:
                            docid = f"d{next(counter)}"
                        batch.append((docid, text))
                        adds.append((docid, text))
                    index.add(batch)
                else:
                    pool = sorted({d for d, _ in committed} - deletes) + [d for d, _ in adds]
                    if not pool:
                        continue
                    chosen = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))
                    index.delete(chosen[0] if len(chosen) == 1 else chosen)
                    for docid in chosen:
                        if any(d == docid for d, _ in adds):
                            adds = [(d, t) for d, t in adds if d != docid]
                            dropped.add(docid)
                        elif docid not in dropped:
                            deletes.add(docid)
                # Pending changes are invisible until the commit.
                assert len(index) == len(committed)
                assert all(d not in index for d, _ in adds)
                assert all(d in index for d in deletes)
            index.commit()
            committed = [(d, t) for d, t in committed if d not in deletes] + adds
            deleted |= deletes | dropped
            assert_matches_fresh_build(index, committed, deleted)
            if data.draw(st.integers(0, 3), label="optimize?") == 0:
                index.optimize()
                assert index.stats()["num_segments"] <= 1
                assert index.stats()["num_deleted"] == 0
                assert_matches_fresh_build(index, committed, deleted)
            if on_disk:
                assert_folder_is_clean(folder)
                if data.draw(st.booleans(), label="reload"):
                    index = Index.load(folder, mmap=data.draw(st.booleans(), label="mmap"))
                    index.verify()
                    assert_matches_fresh_build(index, committed, deleted)


def test_many_commits_merge_segments_and_span_full_posting_blocks(tmp_path: Path) -> None:
    """Hundreds of documents over many commits: the merge policy and bit-packed blocks."""
    rng = np.random.default_rng(11)

    def text() -> str:
        return " ".join(rng.choice(VOCAB, size=int(rng.integers(0, 12))))

    live = [(f"doc{i:04d}", text()) for i in range(400)]
    deleted: set[str] = set()
    index = build(live)
    index.save(tmp_path / "idx")
    serial = 400
    segments_seen = set()
    for step in range(14):
        victims = sorted(
            rng.choice([d for d, _ in live], size=int(rng.integers(1, 60)), replace=False)
        )
        new = [(f"doc{serial + i:04d}", text()) for i in range(int(rng.integers(1, 200)))]
        serial += len(new)
        index.delete(victims)
        index.add(new)
        index.commit()
        live = [(d, t) for d, t in live if d not in set(victims)] + new
        deleted |= set(victims)
        segments_seen.add(index.stats()["num_segments"])
        if step % 5 == 4:
            index = Index.load(tmp_path / "idx", mmap=step % 2 == 0)
        assert_matches_fresh_build(index, live, deleted)
    assert max(segments_seen) >= 5  # several segments were live at some point
    index.optimize()
    assert index.stats()["num_segments"] == 1
    assert_matches_fresh_build(index, live, deleted)
    assert_folder_is_clean(tmp_path / "idx")


def test_merge_policy_rewrites_deleted_heavy_segments_and_caps_their_number(
    tmp_path: Path,
) -> None:
    """Up to 30 % deleted stays as a deletions file; more is rewritten; at most 8 segments."""
    docs = [(f"d{i:02d}", f"apple {VOCAB[i % 8]}") for i in range(20)]
    index = build(docs)
    index.save(tmp_path / "idx")
    index.delete([f"d{i:02d}" for i in range(6)])
    index.commit()
    stats = index.stats()
    assert (stats["num_docs"], stats["num_deleted"], stats["num_segments"]) == (14, 6, 1)
    meta = json.loads((tmp_path / "idx" / "meta.json").read_text())
    (segment,) = meta["segments"]
    assert segment["num_deleted"] == 6
    assert re.fullmatch(r"seg\d{6}\.\d+\.del", segment["deletions"]["name"])
    assert (tmp_path / "idx" / segment["deletions"]["name"]).exists()
    index.delete("d06")
    index.commit()
    stats = index.stats()
    assert (stats["num_docs"], stats["num_deleted"], stats["num_segments"]) == (13, 0, 1)
    assert not any(name.endswith(".del") for name in os.listdir(tmp_path / "idx"))
    counts = []
    for i in range(12):
        index.add([(f"n{i}", "banana")])
        index.commit()
        counts.append(index.stats()["num_segments"])
    assert max(counts) == 8 and len(index) == 25
    assert Index.load(tmp_path / "idx").stats()["num_segments"] == counts[-1]
    assert_folder_is_clean(tmp_path / "idx")


def test_pending_changes_are_invisible_until_commit(tmp_path: Path) -> None:
    """add and delete change nothing a search, len or `in` can see before commit."""
    index = build([("a", "apple banana"), ("b", "banana cherry"), ("c", "cherry")])
    index.save(tmp_path / "idx")
    before = ranked(index, "apple banana cherry", 10)
    index.add([("n", "apple apple")])
    index.delete(["a", "c"])
    assert ranked(index, "apple banana cherry", 10) == before
    assert len(index) == 3 and "n" not in index and "a" in index
    assert index.doc("a") == {"id": "a", "contents": "apple banana"}
    assert Index.load(tmp_path / "idx").search("apple")[0].docid == "a"
    index.commit()
    fresh = build([("b", "banana cherry"), ("n", "apple apple")])
    assert ranked(index, "apple banana cherry", 10) == ranked(fresh, "apple banana cherry", 10)
    assert len(index) == 2 and "n" in index and "a" not in index
    assert {h.docid for h in Index.load(tmp_path / "idx").search("apple cherry")} == {"b", "n"}


def test_unknown_docid_and_duplicate_adds_are_rejected(tmp_path: Path) -> None:
    """Deleting an unknown docid raises UnknownDocidError; adding an existing one DocumentError."""
    index = build([("a", "apple"), ("b", "banana")])
    index.save(tmp_path / "idx")
    with pytest.raises(rserini.UnknownDocidError):
        index.delete("zz")
    with pytest.raises(rserini.UnknownDocidError):
        index.delete(["a", "zz"])
    index.commit()
    assert len(index) == 2  # the failed delete queued nothing, "a" included
    with pytest.raises(rserini.DocumentError):
        index.add([("a", "apple again")])
        index.commit()
    with pytest.raises(rserini.DocumentError):
        index.add([("n", "new"), ("n", "twice")])
        index.commit()
    assert len(index) == 2 and index.contents("a") == "apple"
    other = Index.load(tmp_path / "idx")  # the failed commits released the lock
    other.add([("n", "new")])
    other.commit()
    assert len(Index.load(tmp_path / "idx")) == 3


def test_deleted_docid_can_be_added_again_after_commit(tmp_path: Path) -> None:
    """A docid deleted and committed can be re-added with new text."""
    index = build([("a", "apple"), ("b", "banana"), ("c", "cherry")])
    index.save(tmp_path / "idx")
    index.delete("a")
    index.commit()
    assert "a" not in index
    with pytest.raises(rserini.UnknownDocidError):
        index.doc("a")
    with pytest.raises(rserini.UnknownDocidError):
        index.delete("a")
    index.add([("a", "grape")])
    index.commit()
    assert index.contents("a") == "grape"
    assert [h.docid for h in index.search("grape")] == ["a"]
    assert index.search("apple") == []
    reloaded = Index.load(tmp_path / "idx")
    assert reloaded.doc("a") == {"id": "a", "contents": "grape"}


def test_delete_then_add_of_the_same_docid_in_one_commit_replaces_it() -> None:
    """commit applies deletions first, then additions: delete + add is a replace."""
    index = build([("a", "apple"), ("b", "banana")])
    index.delete("a")
    index.add([("a", "grape")])
    index.commit()
    assert "a" in index
    assert index.contents("a") == "grape"
    assert [h.docid for h in index.search("grape")] == ["a"]
    assert index.search("apple") == []


def test_add_then_delete_before_commit_drops_the_document() -> None:
    """A document added and deleted before the commit never appears."""
    index = build([("a", "apple")])
    index.add([("n", "banana")])
    index.delete("n")
    index.commit()
    assert "n" not in index and len(index) == 1
    assert index.search("banana") == []


def test_second_writer_in_the_same_process_is_locked_out(tmp_path: Path) -> None:
    """A second Index object on the folder gets IndexLockedError while the first has changes."""
    build([("a", "apple"), ("b", "banana")]).save(tmp_path / "idx")
    first = Index.load(tmp_path / "idx")
    second = Index.load(tmp_path / "idx")
    first.add([("x", "cherry")])
    with pytest.raises(rserini.IndexLockedError) as info:
        second.add([("y", "date")])
    assert Path(info.value.path).name == "write.lock"
    with pytest.raises(rserini.IndexLockedError):
        second.delete("a")
    with pytest.raises(rserini.IndexLockedError):
        second.optimize()
    with pytest.raises(rserini.IndexLockedError):
        build([("z", "zz")]).save(tmp_path / "idx")
    first.commit()
    third = Index.load(tmp_path / "idx")
    third.add([("y", "date")])
    third.commit()
    fresh = Index.load(tmp_path / "idx")
    assert all(d in fresh for d in ("a", "b", "x", "y"))


def test_writer_opened_before_another_commit_does_not_undo_it(tmp_path: Path) -> None:
    """A writer loaded before another writer's commit must not lose that commit when it commits."""
    build([("a", "apple"), ("b", "banana")]).save(tmp_path / "idx")
    first = Index.load(tmp_path / "idx")
    second = Index.load(tmp_path / "idx")
    first.add([("x", "cherry")])
    with pytest.raises(rserini.IndexLockedError):
        second.add([("y", "date")])
    first.commit()
    second.add([("y", "date")])
    second.commit()
    fresh = Index.load(tmp_path / "idx")
    assert "y" in fresh
    assert "x" in fresh, "the second writer's commit silently dropped the first writer's document"


def test_commit_without_changes_does_not_roll_back_another_writers_commit(tmp_path: Path) -> None:
    """commit() with nothing pending, on an older snapshot, must not republish that snapshot."""
    build([("a", "apple"), ("b", "banana")]).save(tmp_path / "idx")
    stale = Index.load(tmp_path / "idx")
    writer = Index.load(tmp_path / "idx")
    writer.add([("x", "cherry")])
    writer.commit()
    stale.commit()
    assert "x" in Index.load(tmp_path / "idx")


SECOND_WRITER = textwrap.dedent(
    """
    import sys
    import rserini
    index = rserini.Index.load(sys.argv[1])
    try:
        index.add([(sys.argv[2], "date")])
    except rserini.IndexLockedError:
        print("locked")
        sys.exit(0)
    index.commit()
    print("committed")
    """
)


def run_second_writer(folder: Path, docid: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", SECOND_WRITER, str(folder), docid],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout.strip()


def test_second_writer_in_another_process_is_locked_out(tmp_path: Path) -> None:
    """Another process gets IndexLockedError while we hold changes, and can write after commit."""
    build([("a", "apple"), ("b", "banana")]).save(tmp_path / "idx")
    index = Index.load(tmp_path / "idx")
    index.delete("a")
    assert run_second_writer(tmp_path / "idx", "y") == "locked"
    index.commit()
    assert run_second_writer(tmp_path / "idx", "y") == "committed"
    fresh = Index.load(tmp_path / "idx")
    assert "y" in fresh and "a" not in fresh and "b" in fresh
    # An index saved from memory locks its new folder as well.
    other = build([("p", "plum")])
    other.save(tmp_path / "other")
    other.add([("q", "quince")])
    assert run_second_writer(tmp_path / "other", "y") == "locked"
    other.commit()
    assert run_second_writer(tmp_path / "other", "y") == "committed"


def test_dropping_a_writer_with_pending_changes_releases_the_lock(tmp_path: Path) -> None:
    """The lock lives as long as the pending changes' owner; nothing is written without commit."""
    build([("a", "apple")]).save(tmp_path / "idx")
    meta = (tmp_path / "idx" / "meta.json").read_bytes()
    writer = Index.load(tmp_path / "idx")
    writer.add([("x", "cherry")])
    del writer
    assert (tmp_path / "idx" / "meta.json").read_bytes() == meta
    other = Index.load(tmp_path / "idx")
    other.add([("y", "date")])
    other.commit()
    assert "y" in Index.load(tmp_path / "idx")


@pytest.mark.parametrize("mmap", [True, False])
def test_reader_keeps_its_snapshot_after_commits_delete_its_files(
    tmp_path: Path, mmap: bool
) -> None:
    """A reader opened before commits answers as before even once its files are deleted."""
    docs = [(f"d{i}", " ".join(VOCAB[i % 8 : i % 8 + 3])) for i in range(30)]
    build(docs).save(tmp_path / "idx")
    reader = Index.load(tmp_path / "idx", mmap=mmap)
    before = {q: ranked(reader, q, 50) for q in QUERIES}
    before_docs = {d: reader.doc(d) for d, _ in docs}
    old_files = set(os.listdir(tmp_path / "idx")) - {"meta.json", "write.lock"}
    writer = Index.load(tmp_path / "idx")
    writer.delete([f"d{i}" for i in range(0, 30, 2)])
    writer.add([("new", "apple apple kiwi")])
    writer.commit()
    writer.optimize()
    assert not old_files & set(os.listdir(tmp_path / "idx"))
    for q in QUERIES:
        assert ranked(reader, q, 50) == before[q]
    for d, _ in docs:
        assert reader.doc(d) == before_docs[d]
    assert len(reader) == 30 and "new" not in reader
    reader.verify()  # checks the folder's current files
    live = [(d, t) for i, (d, t) in enumerate(docs) if i % 2] + [("new", "apple apple kiwi")]
    assert_matches_fresh_build(
        Index.load(tmp_path / "idx", mmap=mmap), live, {f"d{i}" for i in range(0, 30, 2)}
    )


def test_pickle_loads_the_latest_committed_state(tmp_path: Path) -> None:
    """Pickling pickles the folder: unpickling sees what was committed there."""
    index = build([("a", "apple"), ("b", "banana")])
    index.save(tmp_path / "idx")
    index.add([("c", "cherry")])
    index.commit()
    clone = pickle.loads(pickle.dumps(index))
    assert len(clone) == 3 and clone.contents("c") == "cherry"
    assert ranked(clone, "cherry apple", 10) == ranked(index, "cherry apple", 10)


def test_changes_queued_before_save_are_committed_into_the_folder(tmp_path: Path) -> None:
    """Changes added in memory, then saved and committed, reach the folder and stay."""
    index = build([("a", "apple"), ("b", "banana")])
    index.add([("x", "cherry")])
    index.save(tmp_path / "idx")
    index.commit()
    assert "x" in index
    assert "x" in Index.load(tmp_path / "idx")
    index.add([("z", "elder")])
    index.commit()
    assert "x" in index and "z" in index
    assert "x" in Index.load(tmp_path / "idx")


def test_in_memory_index_commits_without_touching_disk(tmp_path: Path) -> None:
    """An index that was never saved commits in memory and has no path."""
    index = build([("a", "apple")])
    index.add([("b", "banana")])
    index.commit()
    assert index.path is None and len(index) == 2
    index.save(tmp_path / "idx")
    assert Path(index.path) == tmp_path / "idx"
    assert len(Index.load(tmp_path / "idx")) == 2


@contextmanager
def collecting_errors() -> Iterator[list[BaseException]]:
    errors: list[BaseException] = []
    yield errors
    if errors:
        raise errors[0]


def test_concurrent_readers_see_only_committed_states(tmp_path: Path) -> None:
    """Readers during repeated commits see committed states only, never going back in time."""
    docs = [(f"d{i:02d}", f"apple {VOCAB[i % 8]}") for i in range(24)]
    states: list[Docs] = [docs]
    for step in range(24):
        current = states[-1]
        removed = {current[step % len(current)][0], current[(step * 7) % len(current)][0]}
        states.append(
            [(d, t) for d, t in current if d not in removed] + [(f"n{step}", "apple fig")]
        )
    query = "apple fig grape"
    order = {tuple(ranked(build(s), query, 100)): i for i, s in enumerate(states)}
    assert len(order) == len(states)  # every state has its own ranking
    index = build(docs)
    index.save(tmp_path / "idx")
    done = threading.Event()

    def writer() -> None:
        try:
            for before, after in itertools.pairwise(states):
                ids = {d for d, _ in after}
                index.delete([d for d, _ in before if d not in ids])
                index.add([(d, t) for d, t in after if d not in {b for b, _ in before}])
                index.commit()
        finally:
            done.set()

    def reader(load: bool) -> None:
        seen, last = 0, 0
        while not done.is_set() or seen < 5:
            target = Index.load(tmp_path / "idx", mmap=seen % 2 == 0) if load else index
            got = tuple(ranked(target, query, 100))
            assert got in order, got
            assert order[got] >= last, "a reader went back to an older state"
            last = order[got]
            assert len(target) in {len(s) for s in states[last:]}
            seen += 1

    with collecting_errors() as errors:

        def guarded(fn, *args) -> None:
            try:
                fn(*args)
            except BaseException as e:  # reported by collecting_errors
                errors.append(e)

        threads = [threading.Thread(target=guarded, args=(writer,))]
        threads += [threading.Thread(target=guarded, args=(reader, load)) for load in (0, 0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)
    assert tuple(ranked(Index.load(tmp_path / "idx"), query, 100)) == tuple(
        ranked(build(states[-1]), query, 100)
    )
