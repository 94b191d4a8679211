"""Opening Lucene indexes written by Anserini/Pyserini with ``Index.load``: the committed
fixtures of ``tests/data/lucene`` (Lucene 9.9.1, 9.3.0 and 8.11.0; see its README), read
without writing to them, damage reported as a precise error naming the file.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import rserini
from lucene_fixtures import LUCENE_DATA, folder_digest
from rserini.exceptions import IndexCorruptedError, IndexVersionError


def test_a_lucene_9_9_index_opens_and_is_left_untouched() -> None:
    folder = LUCENE_DATA / "9.9.1" / "adi-1seg-raw"
    before = folder_digest(folder)
    index = rserini.Index.load(folder)
    assert len(index) == 82
    assert index.stats()["num_docs"] == 82
    hits = index.search("information retrieval systems", k=5)
    assert len(hits) == 5
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert folder_digest(folder) == before


def test_deletions_are_read() -> None:
    index = rserini.Index.load(LUCENE_DATA / "9.3.0" / "adi-3files-2threads-raw-del5")
    assert len(index) == 82
    stats = index.stats()
    assert stats["num_deleted"] == 5
    assert stats["num_segments"] == 2
    assert index.doc("17")["id"] == "17"


def test_a_compound_file_segment_with_deletions_opens() -> None:
    index = rserini.Index.load(LUCENE_DATA / "9.3.0" / "adi-3files-2threads-cfs-drop3")
    assert len(index) == 79
    assert "80" not in index and "79" in index


def test_a_multifield_index_searches_its_title_field() -> None:
    index = rserini.Index.load(LUCENE_DATA / "9.9.1" / "adi-3files-2threads-fields-title-raw")
    assert index.field_names() == ["contents", "title"]
    title_only = index.search("retrieval", k=5, fields={"title": 1.0})
    assert title_only and all(h.score > 0 for h in title_only)
    with pytest.raises(rserini.QueryError, match='no field "abstract"'):
        index.search("retrieval", fields={"abstract": 1.0})


def test_a_lucene_8_index_is_a_version_error_naming_both_versions() -> None:
    with pytest.raises(IndexVersionError, match=r"Lucene 8\.11\.0.*Lucene 9\.0 to 9\.11"):
        rserini.Index.load(LUCENE_DATA / "8.11.0" / "adi-1seg-raw")


@pytest.mark.parametrize("name", ["_0.fdt", "_0.nvd", "_0_Lucene99_0.doc", "segments_1"])
def test_a_damaged_file_is_a_corruption_error_naming_it(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "index"
    shutil.copytree(LUCENE_DATA / "9.9.1" / "adi-1seg-raw", folder)
    path = folder / name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(IndexCorruptedError, match=re.escape(name)) as info:
        rserini.Index.load(folder)
    assert not isinstance(info.value, IndexVersionError)


def test_a_truncated_file_is_a_corruption_error(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    shutil.copytree(LUCENE_DATA / "9.9.1" / "adi-1seg-raw", folder)
    path = folder / "_0.si"
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(IndexCorruptedError, match=re.escape("_0.si")):
        rserini.Index.load(folder)
