"""rserini.folders: what a folder given as an index is, and the messages for what is not
one; ShardedIndex.docs, which reads stored documents from the shard each docid hashes to."""

from __future__ import annotations

from pathlib import Path

import pytest

import rserini
from rserini.distributed import ShardedIndex, build_shards
from rserini.exceptions import NotAnIndexError
from rserini.folders import FolderKind, check_index_folder, folder_kind
from sharding import write_corpus
from support import TINY


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("folders")
    rserini.Index.build(TINY, progress=False).save(root / "index")
    build_shards(write_corpus(root / "corpus.jsonl", TINY), root / "sharded", 2, workers=1)
    for name in ("segments_9", "segments_a", "write.lock", "_0.cfs"):  # a Lucene index
        (root / "lucene").mkdir(exist_ok=True)
        (root / "lucene" / name).write_bytes(b"")
    (root / "empty").mkdir()
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("x")
    (root / "half").mkdir()  # an rserini index that lost its meta.json
    (root / "half" / "seg000001.docids").write_bytes(b"")
    return root


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("index", FolderKind.INDEX),
        ("sharded", FolderKind.SHARDED),
        ("lucene", FolderKind.LUCENE),
        ("empty", FolderKind.EMPTY),
        ("notes", FolderKind.FOREIGN),
        ("half", FolderKind.INDEX),
        ("corpus.jsonl", FolderKind.FILE),
        ("absent", FolderKind.MISSING),
    ],
)
def test_folder_kind(folders: Path, name: str, kind: FolderKind) -> None:
    assert folder_kind(folders / name) is kind


def test_messages_say_what_the_folder_is_never_corrupted(folders: Path) -> None:
    assert check_index_folder(folders / "index") is FolderKind.INDEX
    assert check_index_folder(folders / "sharded") is FolderKind.SHARDED
    with pytest.raises(NotAnIndexError, match=r"is a Lucene index \(segments_a\)") as e:
        check_index_folder(folders / "lucene")
    assert e.value.path == str(folders / "lucene")
    with pytest.raises(NotAnIndexError, match="is an empty folder, not an index: build one"):
        check_index_folder(folders / "empty")
    with pytest.raises(NotAnIndexError, match=r"has no meta\.json or sharded\.json"):
        check_index_folder(folders / "notes")
    with pytest.raises(NotADirectoryError, match="is a file, not an index folder"):
        check_index_folder(folders / "corpus.jsonl")
    with pytest.raises(FileNotFoundError, match=r"no such index folder: .*absent"):
        check_index_folder(folders / "absent")
    # A damaged rserini index is still reported as one by loading.
    with pytest.raises(rserini.IndexCorruptedError):
        rserini.Index.load(folders / "half")


def test_sharded_docs_match_the_single_index(folders: Path) -> None:
    single = rserini.Index.load(folders / "index")
    docids = [docid for docid, _ in reversed(TINY)]
    with ShardedIndex.open(folders / "sharded") as sharded:
        assert sharded.docs([*docids, "nope"]) == [*map(single.doc, docids), None]
        assert sharded.docs([]) == []
