"""The conversion cache of Lucene folders: the second open reads the entry, ranks as the
conversion in memory, a new commit or a damaged entry is converted again, concurrent
processes agree, the Lucene folder is never touched, and ``cache=False`` writes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import rserini
from lucene_fixtures import LUCENE_DATA
from rserini.pyserini import LuceneSearcher
from support import cli

ONE_SEGMENT = LUCENE_DATA / "9.9.1" / "adi-1seg-raw"
FIELDS = LUCENE_DATA / "9.9.1" / "adi-3files-2threads-fields-title-raw"
DELETIONS = LUCENE_DATA / "9.3.0" / "adi-3files-2threads-raw-del5"
QUERIES = ["information retrieval", "library catalog indexing", "computer documentation"]


def rankings(index: rserini.Index) -> list[Any]:
    """Every query's top 1000 (BM25, QLD, RM3 and, where there are fields, both fields)."""
    runs: list[dict[str, Any]] = [
        {},
        {"model": "qld"},
        {"feedback": rserini.Rm3()},
    ]
    if "title" in index.field_names():
        runs.append({"fields": {"contents": 1.0, "title": 0.5}})
    return [index.search_pairs(q, 1000, **run) for run in runs for q in QUERIES]


def entries(root: Path) -> list[Path]:
    """The cache entries under the cache folder ``root``."""
    folder = root / "lucene"
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def identity(entry: Path) -> tuple[int, int]:
    stat = (entry / "meta.json").stat()
    return stat.st_ino, stat.st_mtime_ns


def digest(folder: Path) -> dict[str, tuple[str, int, int]]:
    """SHA-256, size and modification time of every file of ``folder``."""
    return {
        p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.iterdir())
    }


@pytest.mark.parametrize("folder", [ONE_SEGMENT, FIELDS, DELETIONS], ids=lambda p: p.name)
def test_the_second_open_reads_the_cache_and_ranks_as_the_conversion(
    tmp_path: Path, folder: Path
) -> None:
    before = digest(folder)
    expected = rankings(rserini.Index.load(folder, cache=False))
    first = rserini.Index.load(folder, cache=tmp_path)
    [entry] = entries(tmp_path)
    written = identity(entry)
    second = rserini.Index.load(folder, cache=tmp_path)
    assert identity(entry) == written, "the second open rewrote the entry"
    assert rankings(first) == expected
    assert rankings(second) == expected
    assert second.path is None, "an index opened from the cache is not saved into it"
    assert digest(folder) == before, "the Lucene folder changed"


def test_the_facade_and_its_documents_from_the_cache(tmp_path: Path) -> None:
    uncached = LuceneSearcher(FIELDS, cache=False)
    LuceneSearcher(FIELDS, cache=tmp_path)
    [entry] = entries(tmp_path)
    written = identity(entry)
    cached = LuceneSearcher(FIELDS, cache=tmp_path)
    assert identity(entry) == written
    for q in QUERIES:
        for fields in (None, {"contents": 1.0, "title": 0.5}):
            a, b = uncached.search(q, 1000, fields=fields), cached.search(q, 1000, fields=fields)
            assert [(h.docid, h.score) for h in a] == [(h.docid, h.score) for h in b]
    hit = cached.search(QUERIES[0], 1)[0]
    assert cached.doc(hit.docid).raw() == uncached.doc(hit.docid).raw()
    assert cached.num_docs == uncached.num_docs


def test_a_new_commit_is_converted_again(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    shutil.copytree(ONE_SEGMENT, folder)
    root = tmp_path / "cache"
    rserini.Index.load(folder, cache=root)
    shutil.rmtree(folder)
    shutil.copytree(DELETIONS, folder)
    index = rserini.Index.load(folder, cache=root)
    assert len(entries(root)) == 2
    assert rankings(index) == rankings(rserini.Index.load(folder, cache=False))


def test_a_damaged_entry_is_converted_again(tmp_path: Path) -> None:
    rserini.Index.load(DELETIONS, cache=tmp_path)
    [entry] = entries(tmp_path)
    damaged = entry / "seg000001.lengths"
    data = bytearray(damaged.read_bytes())
    data[5] ^= 0x20
    damaged.write_bytes(bytes(data))
    written = identity(entry)
    index = rserini.Index.load(DELETIONS, cache=tmp_path)
    assert identity(entry) != written, "the damaged entry was used"
    assert rankings(index) == rankings(rserini.Index.load(DELETIONS, cache=False))


def test_two_processes_opening_at_once_agree(tmp_path: Path) -> None:
    code = textwrap.dedent(
        """
        import json, sys
        import rserini
        index = rserini.Index.load(sys.argv[1], cache=sys.argv[2])
        print(json.dumps([index.search_pairs(q, 1000) for q in sys.argv[3:]]))
        """
    )
    args = [sys.executable, "-c", code, str(FIELDS), str(tmp_path), *QUERIES]
    children = [subprocess.Popen(args, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [child.communicate(timeout=120)[0] for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert outputs[0] == outputs[1]
    expected = rserini.Index.load(FIELDS, cache=False)
    assert json.loads(outputs[0]) == [
        list(map(list, expected.search_pairs(q, 1000))) for q in QUERIES
    ]
    assert len(entries(tmp_path)) == 1


def test_no_cache_writes_nothing_and_the_default_follows_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "cache"
    monkeypatch.setenv("RSERINI_CACHE", str(root))
    rserini.Index.load(ONE_SEGMENT, cache=False)
    LuceneSearcher(ONE_SEGMENT, cache=False)
    result = cli("search", "--index", ONE_SEGMENT, "--no-cache", "library")
    assert result.returncode == 0, result.stderr
    assert not root.exists()
    rserini.Index.load(ONE_SEGMENT)
    assert len(entries(root)) == 1


def test_a_cache_that_cannot_be_written_warns_and_converts_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    with pytest.warns(RuntimeWarning, match="converted in memory"):
        index = rserini.Index.load(ONE_SEGMENT, cache=blocked)
    assert rankings(index) == rankings(rserini.Index.load(ONE_SEGMENT, cache=False))
    assert blocked.read_text() == "in the way"


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not bind root")
def test_a_read_only_cache_warns(tmp_path: Path) -> None:
    tmp_path.chmod(0o555)
    try:
        with pytest.warns(RuntimeWarning, match="converted in memory"):
            index = rserini.Index.load(ONE_SEGMENT, cache=tmp_path / "cache")
    finally:
        tmp_path.chmod(0o755)
    assert len(index) == len(rserini.Index.load(ONE_SEGMENT, cache=False))
