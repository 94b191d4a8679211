"""Every index command on every folder it may meet: an index, a sharded folder (routed to
ShardedIndex), a Lucene index (read, never written), an empty or foreign folder and a path
that does not exist (each named for what it is, never "corrupted")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import rserini
from sharding import folder_bytes, write_corpus
from support import TINY
from test_cli import rserini as cli

LUCENE = Path(__file__).resolve().parent / "data" / "lucene" / "9.9.1" / "adi-1seg-raw"


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    corpus = write_corpus(tmp_path / "corpus.jsonl", TINY)
    assert cli("index", "--input", corpus, "--index", tmp_path / "single").returncode == 0
    out = cli("index", "--input", corpus, "--index", tmp_path / "sharded", "--shards", "2")
    assert out.returncode == 0, out.stderr
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("x")
    shutil.copytree(LUCENE, tmp_path / "lucene")
    write_corpus(tmp_path / "more.jsonl", [("d9", "Gliders ride thermals over the ridge.")])
    return tmp_path


def ok(*args: str | Path) -> str:
    out = cli(*args)
    assert out.returncode == 0, out.stderr
    assert "corrupt" not in out.stdout + out.stderr
    return out.stdout


def refused(*args: str | Path) -> str:
    out = cli(*args)
    assert out.returncode != 0, out.stdout
    assert "Traceback" not in out.stderr and "corrupt" not in out.stderr, out.stderr
    return out.stderr


def test_sharded_folder_info_delete_append_and_verify(folders: Path) -> None:
    sharded = folders / "sharded"
    info = json.loads(ok("info", "--index", sharded, "--json", "--verify"))
    assert info["shards"] == 2 and info["documents"] == len(TINY)
    assert sum(s["documents"] for s in info["shard_info"]) == len(TINY)
    assert "shards: 2" in ok("info", "--index", sharded)

    out = ok("delete", "--index", sharded, "d1", "d3")
    assert f"deleted 2 documents; {len(TINY) - 2} remain" in out
    out = ok("index", "--append", "--input", folders / "more.jsonl", "--index", sharded)
    assert "added 1 documents to 2 shard(s)" in out and f"{len(TINY) - 1} documents" in out

    hits = json.loads(ok("search", "--index", sharded, "--json", "gliders thermals"))["hits"]
    assert [h["docid"] for h in hits] == ["d9"]
    assert ok("search", "--index", sharded, "--json", "routers packets").count('"d1"') == 0
    # The same changes on the single index give the same scores.
    ok("delete", "--index", folders / "single", "d1", "d3")
    ok("index", "--append", "--input", folders / "more.jsonl", "--index", folders / "single")
    single = json.loads(ok("search", "--index", folders / "single", "--json", "gliders"))
    assert (
        single["hits"] == json.loads(ok("search", "--index", sharded, "--json", "gliders"))["hits"]
    )
    assert ok("info", "--index", sharded, "--verify").count("verified") == 1


def test_a_sharded_folder_refuses_what_does_not_apply(folders: Path) -> None:
    err = refused(
        "index", "--append", "--shards", "2", "--input", folders / "more.jsonl",
        "--index", folders / "sharded",
    )  # fmt: skip
    assert "drop --shards" in err
    err = refused("delete", "--index", folders / "sharded", "nope")
    assert "nope" in err


def test_a_lucene_index_is_searched_and_never_written(folders: Path) -> None:
    lucene = folders / "lucene"
    before = folder_bytes(lucene)
    assert ok("search", "--index", lucene, "--k", "3", "--no-text", "information retrieval")
    for args in (
        ("delete", "--index", lucene, "1"),
        ("index", "--append", "--input", folders / "more.jsonl", "--index", lucene),
    ):
        err = refused(*args)
        assert "is a Lucene index (segments_1)" in err and "never writes to" in err
        assert "rserini index --input CORPUS --index NEW_FOLDER" in err
    info = cli("info", "--index", lucene)  # described, or named as a Lucene index
    assert "corrupt" not in info.stdout + info.stderr and "Traceback" not in info.stderr
    assert info.returncode == 0 or "is a Lucene index (segments_1)" in info.stderr
    assert folder_bytes(lucene) == before
    assert sorted(p.name for p in lucene.iterdir()) == sorted(p.name for p in LUCENE.iterdir())


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("empty", "is an empty folder, not an index: build one with `rserini index"),
        ("notes", "is not an rserini index (it has no meta.json or sharded.json)"),
        ("absent", "no such index folder"),
        ("corpus.jsonl", "is a file, not an index folder"),
    ],
)
def test_every_command_names_what_a_non_index_is(folders: Path, name: str, message: str) -> None:
    path = folders / name
    for args in (
        ("info", "--index", path),
        ("delete", "--index", path, "d1"),
        ("index", "--append", "--input", folders / "more.jsonl", "--index", path),
        ("search", "--index", path, "words"),
        ("explain", "--index", path, "--docid", "d1", "words"),
        ("run", "--index", path, "--queries", folders / "q.tsv", "--output", folders / "r"),
    ):
        err = refused(*args)
        assert message in err, (args, err)
    assert not (folders / "r").exists()
    if name in ("empty", "notes"):
        assert sorted(p.name for p in path.iterdir()) == ([] if name == "empty" else ["todo.txt"])


def test_the_python_loader_still_reports_a_damaged_index(folders: Path) -> None:
    (folders / "single" / "meta.json").unlink()  # its segment files remain: a damaged index
    out = cli("info", "--index", folders / "single")
    assert out.returncode == 1 and "meta.json is corrupted" in out.stderr, out.stderr
    with pytest.raises(rserini.IndexCorruptedError):
        rserini.Index.load(folders / "single")
