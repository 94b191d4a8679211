"""Every committed fixture index (one per format version) keeps loading and answering as
it did when it was written (tests/data/make_index_fixture.py writes them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import rserini

DATA = Path(__file__).resolve().parent / "data"
FIXTURES = sorted(DATA.glob("index_v*/"))


def test_there_is_a_fixture_for_the_current_format() -> None:
    assert DATA / f"index_v{rserini.INDEX_FORMAT_VERSION}" in FIXTURES


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_fixture_index_loads_and_answers_as_written(
    fixture: Path, mmap: bool, tmp_path: Path
) -> None:
    expected = json.loads((DATA / f"{fixture.name}.expected.json").read_text(encoding="utf-8"))
    folder = tmp_path / fixture.name
    shutil.copytree(fixture, folder)
    index = rserini.Index.load(folder, mmap=mmap)
    index.verify()
    assert sorted(d for d in expected["docids"] if d in index) == expected["docids"]
    assert len(index) == len(expected["docids"])
    stats = {k: v for k, v in index.stats().items() if k != "analyzer"}
    assert stats == expected["stats"]
    for docid, fields in expected["docs"].items():
        assert index.doc(docid) == fields
    for query, hits in expected["searches"].items():
        assert [[h.docid, h.score] for h in index.search(query, k=10)] == hits
