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


def test_fixtures_of_every_version_since_the_first_are_committed() -> None:
    versions = range(1, rserini.INDEX_FORMAT_VERSION + 1)
    assert [DATA / f"index_v{v}" for v in versions] == FIXTURES


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_older_fixture_saved_elsewhere_is_written_in_the_current_format(
    fixture: Path, tmp_path: Path
) -> None:
    expected = json.loads((DATA / f"{fixture.name}.expected.json").read_text(encoding="utf-8"))
    index = rserini.Index.load(fixture)
    index.save(tmp_path / "copy")
    meta = json.loads((tmp_path / "copy" / "meta.json").read_text(encoding="utf-8"))
    assert meta["format_version"] == rserini.INDEX_FORMAT_VERSION
    copy = rserini.Index.load(tmp_path / "copy")
    copy.verify()
    for query, hits in expected["searches"].items():
        assert [[h.docid, h.score] for h in copy.search(query, k=10)] == hits


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_commit_into_an_older_folder_rewrites_every_file(fixture: Path, tmp_path: Path) -> None:
    """Files of an older format are never listed by a newer meta.json: a commit rewrites them."""
    folder = tmp_path / fixture.name
    shutil.copytree(fixture, folder)
    old_files = {p.name for p in folder.iterdir()}
    index = rserini.Index.load(folder)
    index.add([("new", "packets of energy")])
    index.delete("d1")
    index.commit()
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    assert meta["format_version"] == rserini.INDEX_FORMAT_VERSION
    listed = {f["name"] for s in meta["segments"] for f in [*s["files"], s["deletions"]] if f}
    assert {p.name for p in folder.iterdir()} == listed | {"meta.json", "write.lock"}
    if fixture.name != f"index_v{rserini.INDEX_FORMAT_VERSION}":
        assert not listed & old_files
    reloaded = rserini.Index.load(folder)
    reloaded.verify()
    assert "new" in reloaded and "d1" not in reloaded
    assert len(reloaded) == len(index)
    assert [h.docid for h in reloaded.search("packets energy", k=5)] == [
        h.docid for h in index.search("packets energy", k=5)
    ]
