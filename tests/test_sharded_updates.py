"""Adding and deleting documents of a sharded index: each document lands in the shard
its docid's hash names, the rankings stay one index's of the same final documents bit
for bit, the manifest follows (and may lag a crash, which open tolerates and the next
commit repairs), and bad input fails as it fails on one index, changing nothing."""

from __future__ import annotations

import gc
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rserini
from rserini.distributed import MANIFEST, ShardedIndex, build_shards, shard_of
from rserini.distributed import updates as updates_module
from rserini.distributed.manifest import Manifest, meta_sha256, read_manifest
from rserini.distributed.shard import ShardServer
from rserini.distributed.updates import manifest_lags
from rserini.exceptions import DocumentError, IndexLockedError, QueryError, UnknownDocidError
from sharding import write_corpus

QUERIES = ["apple banana", "cherry", "the date fig", "zebra apple elder"]
OPTIONS = [
    {},
    {"variant": "bm25+", "length": "exact", "k1": 0.9, "b": 0.4},
    {"model": "qld", "mu": 30.0},
    {"algorithm": "maxscore", "k1": 25.0, "b": 1.0},
]
VOCAB = ["apple", "banana", "cherry", "date", "elder", "fig", "the", "a", "zebra"]
texts = st.lists(st.sampled_from(VOCAB), max_size=6).map(" ".join)


def docs(n: int, start: int = 0) -> list[tuple[str, str]]:
    return [
        (f"d{i}", " ".join(VOCAB[(i * j + i) % len(VOCAB)] for j in range(1 + i % 5)))
        for i in range(start, start + n)
    ]


def build(tmp: Path, initial: list[tuple[str, str]], shards: int, **options: object) -> Path:
    corpus = write_corpus(tmp / "c" / "d.jsonl", initial)
    return build_shards(corpus, tmp / "s", shards, **options)  # type: ignore[arg-type]


def assert_same_rankings(sharded: ShardedIndex, single: rserini.Index) -> None:
    for options in OPTIONS:
        for k in (3, 1000):
            expected = single.batch_search_pairs(QUERIES, k, **options)
            assert sharded.batch_search_pairs(QUERIES, k, **options) == expected, options


def assert_manifest_matches(folder: Path) -> None:
    """The manifest validates, and records each shard folder's current state."""
    manifest = read_manifest(folder)
    for entry in manifest.shards:
        shard = rserini.Index.load(folder / entry.path)
        assert entry.meta_sha256 == meta_sha256(folder / entry.path)
        assert entry.generation == shard.info()["generation"]
        assert entry.documents == len(shard)
    assert not manifest_lags(folder)


def assert_routed(folder: Path, num_shards: int, docids: list[str]) -> None:
    for docid in docids:
        for s in range(num_shards):
            present = docid in rserini.Index.load(folder / f"shard-{s:05d}")
            assert present == (s == shard_of(docid, num_shards)), (docid, s)


@st.composite
def changes(draw):
    """An initial corpus and two batches of changes, each deleting existing docids and
    adding new ones or re-adding deleted ones (a replacement)."""
    pool = draw(st.lists(texts, min_size=1, max_size=4))  # few texts: cross-shard ties
    n = draw(st.integers(0, 20))
    initial = [(f"doc{i}", draw(st.sampled_from(pool))) for i in range(n)]
    live = [d for d, _ in initial]
    batches, fresh = [], n
    for _ in range(2):
        deleted = draw(st.lists(st.sampled_from(live), unique=True)) if live else []
        readded = draw(st.lists(st.sampled_from(deleted), unique=True)) if deleted else []
        new = [f"doc{fresh + i}" for i in range(draw(st.integers(0, 6)))]
        fresh += len(new)
        added = [(d, draw(texts)) for d in [*readded, *new]]
        batches.append((deleted, added))
        live = [d for d in live if d not in deleted] + [d for d, _ in added]
    return initial, batches


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=changes(), shards=st.integers(1, 5))
def test_updates_give_one_index_rankings_and_land_where_the_hash_says(data, shards):
    initial, batches = data
    with tempfile.TemporaryDirectory() as tmp:
        folder = build(Path(tmp), initial or [("seed", "apple")], shards)
        single = rserini.Index.build(initial or [("seed", "apple")], progress=False)
        with ShardedIndex.open(folder) as index, ShardedIndex.open(folder) as reader:
            assert_same_rankings(reader, single)  # the reader's statistics are cached
            for deleted, added in batches:
                assert_same_rankings(index, single)
                for index_like in (index, single):
                    if deleted:
                        index_like.delete(deleted)
                    index_like.add(added)
                assert index.has_pending_changes == bool(deleted or added)
                index.commit()
                single.commit()
                assert not index.has_pending_changes
                assert_same_rankings(index, single)
                assert_routed(folder, shards, [d for d, _ in added])
                assert_manifest_matches(folder)
            reader.refresh()
            assert_same_rankings(reader, single)
        with ShardedIndex.open(folder) as reopened:  # the rewritten manifest validates
            assert_same_rankings(reopened, single)


def test_a_reader_sees_a_commit_after_refresh(tmp_path: Path):
    folder = build(tmp_path, docs(30), 3)
    single = rserini.Index.build(docs(30), progress=False)
    with ShardedIndex.open(folder) as writer, ShardedIndex.open(folder) as reader:
        before = reader.batch_search_pairs(QUERIES, 10)
        writer.add(docs(5, start=30))
        writer.delete(["d1", "d2"])
        writer.commit()
        single.add(docs(5, start=30))
        single.delete(["d1", "d2"])
        single.commit()
        assert reader.batch_search_pairs(QUERIES, 10) == before  # its snapshot, whole
        rounds = reader.stats_rounds
        reader.refresh()
        assert_same_rankings(reader, single)
        assert reader.stats_rounds > rounds  # the cached statistics were not served
        assert reader.batch_search_pairs(QUERIES, 10) != before


def test_duplicates_fail_the_commit_as_on_one_index_and_change_no_shard(tmp_path: Path):
    folder = build(tmp_path, docs(20), 3)
    manifest = (folder / MANIFEST).read_bytes()
    single = rserini.Index.build(docs(20), progress=False)
    with ShardedIndex.open(folder) as index:
        for batch in ([("new", "apple"), ("d3", "cherry")], [("x", "a"), ("y", "b"), ("x", "c")]):
            index.add(batch)
            single.add(batch)
            with pytest.raises(DocumentError) as on_one:
                single.commit()
            with pytest.raises(DocumentError) as sharded:
                index.commit()
            assert str(sharded.value) == str(on_one.value)
            assert not index.has_pending_changes  # discarded, as one index discards them
            assert (folder / MANIFEST).read_bytes() == manifest
        assert_same_rankings(index, single)
        # A replacement (delete, then add) and duplicates="keep" as on one index.
        for index_like in (index, single):
            index_like.delete("d3")
            index_like.add([("d3", "zebra zebra")])
            index_like.commit()
            index_like.add([("d4", "fig fig"), ("d4", "fig")], duplicates="keep")
            index_like.commit()
        assert_same_rankings(index, single)
        assert_manifest_matches(folder)
        # One commit's additions share one policy.
        index.add([("p", "a")])
        single.add([("p", "a")])
        with pytest.raises(QueryError) as on_one:
            single.add([("q", "a")], duplicates="keep")
        with pytest.raises(QueryError) as sharded:
            index.add([("q", "a")], duplicates="keep")
        assert str(sharded.value) == str(on_one.value)
        index.rollback()
        assert not index.has_pending_changes


def test_unknown_docids_and_queued_ones_on_delete(tmp_path: Path):
    folder = build(tmp_path, docs(10), 2)
    single = rserini.Index.build(docs(10), progress=False)
    with ShardedIndex.open(folder) as index:
        for index_like in (index, single):
            with pytest.raises(UnknownDocidError) as err:
                index_like.delete(["d1", "nope"])
            assert "nope" in str(err.value)
            assert not index_like.has_pending_changes  # nothing queued, d1 included
            index_like.add([("fresh", "apple")])
            index_like.delete(["fresh"])  # a queued addition leaves the queue
            assert not index_like.has_pending_changes
            index_like.delete("d1")
            index_like.commit()
            with pytest.raises(UnknownDocidError):
                index_like.delete("d1")  # deleted already
            index_like.rollback()
        with pytest.raises(UnknownDocidError) as on_one:
            single.delete("nope")
        with pytest.raises(UnknownDocidError) as sharded:
            index.delete("nope")
        assert str(sharded.value) == str(on_one.value)
        index.rollback()
        assert_same_rankings(index, single)


def test_bad_types_raise_type_errors_as_index_add_does(tmp_path: Path):
    folder = build(tmp_path, docs(10), 2)
    single = rserini.Index.build(docs(10), progress=False)
    with ShardedIndex.open(folder) as index:
        for bad in (5, [5], [("a", 1)], [{"id": "a", "contents": 3}], [("a", "b", "c")]):
            with pytest.raises(TypeError) as on_one:
                single.add(bad)  # type: ignore[arg-type]
            with pytest.raises(TypeError) as sharded:
                index.add(bad)  # type: ignore[arg-type]
            assert str(sharded.value) == str(on_one.value)
        with pytest.raises(DocumentError, match="no id"):
            index.add([{"contents": "apple"}])
        with pytest.raises(QueryError, match="unknown duplicates policy"):
            index.add([("a", "b")], duplicates="sometimes")  # type: ignore[arg-type]
        for bad in (5, [5], [b"d1"]):
            with pytest.raises(TypeError):
                index.delete(bad)  # type: ignore[arg-type]
        assert not index.has_pending_changes
        # Every document shape Index.add takes: pairs, lists, dicts (JSONL's rule for
        # the id: a number kept as written), BEIR dicts, Documents.
        shapes = [
            ("t1", "apple"),
            ["t2", "banana"],
            {"id": 7, "contents": "cherry"},
            {"_id": "t3", "title": "date", "text": "fig"},
            rserini.Document("t4", "the zebra"),
        ]
        index.add(shapes)
        single.add(shapes)
        index.commit()
        single.commit()
        assert_same_rankings(index, single)
        assert_routed(folder, 2, ["t1", "t2", "7", "t3", "t4"])


def test_an_index_built_without_store_takes_additions(tmp_path: Path):
    folder = build(tmp_path, docs(12), 3, store=False)
    single = rserini.Index.build(docs(12), store=False, progress=False)
    with ShardedIndex.open(folder) as index:
        index.add(docs(6, start=12))
        index.delete(["d0"])
        index.commit()
    single.add(docs(6, start=12))
    single.delete(["d0"])
    single.commit()
    with ShardedIndex.open(folder) as index:
        assert_same_rankings(index, single)
    assert not read_manifest(folder).store


def test_one_writer_at_a_time(tmp_path: Path):
    folder = build(tmp_path, docs(10), 2)
    with ShardedIndex.open(folder) as first, ShardedIndex.open(folder) as second:
        first.add([("a", "apple")])
        with pytest.raises(IndexLockedError, match="another writer") as err:
            second.add([("b", "banana")])
        assert err.value.path == str(folder / "write.lock")
        with pytest.raises(IndexLockedError):
            second.delete("d1")
        first.commit()  # releases the lock
        second.add([("b", "banana")])
        with pytest.raises(IndexLockedError):
            first.add([("c", "cherry")])
        second.rollback()
        first.delete("a")
        first.close()  # closing discards and releases too
        second.delete("a")
        second.commit()
        assert "a" not in rserini.Index.load(folder / f"shard-{shard_of('a', 2):05d}")
    dropped = ShardedIndex.open(folder)
    dropped.add([("c", "cherry")])
    del dropped  # a writer dropped without commit or rollback releases the lock
    gc.collect()
    with ShardedIndex.open(folder) as third:
        third.add([("c", "cherry")])
        third.commit()


def test_a_crash_before_the_manifest_leaves_an_index_that_opens_and_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # "Consistent": every shard folder is one committed state (shards save atomically);
    # the manifest records it or an earlier generation of it; open serves the shards'
    # latest states, and the next commit brings the manifest up to date.
    folder = build(tmp_path, docs(30), 3)
    single = rserini.Index.build(docs(30), progress=False)
    before = read_manifest(folder)
    write_manifest = updates_module.write_manifest

    def crash(at: Path, manifest: Manifest) -> Path:
        if any(s.pending for s in manifest.shards):  # the announcement goes through
            return write_manifest(at, manifest)
        raise OSError("disk full")

    with ShardedIndex.open(folder) as index:
        monkeypatch.setattr(updates_module, "write_manifest", crash)
        index.add(docs(8, start=30))
        index.delete(["d5"])
        with pytest.raises(OSError, match="disk full"):
            index.commit()
        monkeypatch.undo()
        assert not index.has_pending_changes
        single.add(docs(8, start=30))
        single.delete(["d5"])
        single.commit()
        assert_same_rankings(index, single)  # it serves what the shards committed
    announced = read_manifest(folder)  # behind its shards, announcing their changes
    assert [replace(s, pending=None) for s in announced.shards] == list(before.shards)
    assert sum(s.pending is not None for s in announced.shards) >= 2
    assert manifest_lags(folder)
    with ShardedIndex.open(folder) as reopened:  # newer shards are accepted
        assert_same_rankings(reopened, single)
        reopened.commit()  # nothing queued: the manifest catches up
    assert_manifest_matches(folder)
    # A shard *older* than its entry is refused, as one of another build is.
    old = tmp_path / "old"
    build(old, docs(30), 3)
    for name in ("shard-00000",):
        target = folder / name
        for f in target.iterdir():
            f.unlink()
        for f in (old / "s" / name).iterdir():
            (target / f.name).write_bytes(f.read_bytes())
    with pytest.raises(rserini.IndexCorruptedError, match=r"shard 0 .*another build"):
        ShardedIndex.open(folder)


def plant_shard_of_another_build(tmp_path: Path, folder: Path, shard: int) -> None:
    """Builds the same corpus again elsewhere, changes its shard ``shard`` (deletions and
    an addition routed to it, committed: a later generation) and copies it over
    ``folder``'s shard ``shard``."""
    other = build(tmp_path / "other", docs(30), 3)
    path = other / f"shard-{shard:05d}"
    index = rserini.Index.load(path)
    index.delete(index.docids(list(range(3))))
    planted = next(f"x{i}" for i in range(1000) if shard_of(f"x{i}", 3) == shard)
    index.add([(planted, "alpha beta planted")])
    index.commit()
    target = folder / path.name
    shutil.rmtree(target)
    shutil.copytree(path, target)


def test_a_later_shard_of_another_build_is_refused(tmp_path: Path) -> None:
    folder = build(tmp_path, docs(30), 3)
    plant_shard_of_another_build(tmp_path, folder, 1)
    with pytest.raises(rserini.IndexCorruptedError, match=r"shard 1 .*another build"):
        ShardedIndex.open(folder)


def test_a_later_shard_of_another_build_is_refused_while_a_change_is_announced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after the manifest announced a change to shard 1 and before the shard
    saved it: only that change's outcome would be accepted, not another build's shard,
    and a commit does not write it into the manifest either."""
    folder = build(tmp_path, docs(30), 3)

    def crash(*_: object) -> None:
        raise OSError("the process died")

    with ShardedIndex.open(folder) as index:
        monkeypatch.setattr(ShardServer, "apply", crash)
        monkeypatch.setattr(updates_module, "rewrite_manifest", crash)
        index.add([(next(f"y{i}" for i in range(1000) if shard_of(f"y{i}", 3) == 1), "x")])
        with pytest.raises(OSError, match="died"):
            index.commit()
        monkeypatch.undo()
    plant_shard_of_another_build(tmp_path, folder, 1)
    assert read_manifest(folder).shards[1].pending is not None
    with pytest.raises(rserini.IndexCorruptedError, match=r"shard 1 .*another build"):
        ShardedIndex.open(folder)
    with pytest.raises(rserini.IndexCorruptedError, match=r"shard 1 .*another build"):
        updates_module.rewrite_manifest(folder)
