"""The project cache (``.rserini/``) planted by a hostile repository: links, FIFOs,
devices and foreign folders are refused, never followed, read without end or deleted."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hang_guard import run_python

from rserini.project_index import ProjectIndex
from rserini.safe_fs import MARK, is_own

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX links and FIFOs")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("hello world\n")
    return repo


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    (victim / "index").mkdir(parents=True)
    (victim / "index" / "meta.json").write_text('{"my": "config"}')
    (victim / "index" / "thesis.tex").write_text("precious")
    return victim


def _tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def test_a_linked_cache_folder_is_neither_written_nor_deleted(tmp_path: Path) -> None:
    # N1: a `.rserini` link shipped in a cloned repository, pointing at a folder whose
    # `index/` holds a foreign meta.json, had that folder deleted.
    repo, victim = _repo(tmp_path), _victim(tmp_path)
    before = _tree(victim)
    (repo / ".rserini").symlink_to(victim)
    opened = ProjectIndex.open(repo)
    assert [h.path for h in opened.search("hello")] == ["a.txt"]
    assert _tree(victim) == before
    assert opened.refresh.note is not None and "symbolic link" in opened.refresh.note
    empty = tmp_path / "empty"
    empty.mkdir()
    (repo / ".rserini").unlink()
    (repo / ".rserini").symlink_to(empty)
    ProjectIndex.open(repo)
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize("target", ["foreign", "empty"])
def test_a_linked_index_folder_is_refused(tmp_path: Path, target: str) -> None:
    repo = _repo(tmp_path)
    outside = _victim(tmp_path) / "index" if target == "foreign" else tmp_path / "empty"
    outside.mkdir(exist_ok=True)
    before = _tree(outside)
    (repo / ".rserini").mkdir()
    (repo / ".rserini" / "index").symlink_to(outside)
    opened = ProjectIndex.open(repo)
    assert len(opened.search("hello")) == 1
    assert _tree(outside) == before
    assert "symbolic link" in (opened.refresh.note or "")


def test_a_cache_that_is_a_file_or_fifo_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".rserini").write_text("mine")
    opened = ProjectIndex.open(repo)
    assert len(opened.search("hello")) == 1
    assert (repo / ".rserini").read_text() == "mine"
    (repo / ".rserini").unlink()
    os.mkfifo(repo / ".rserini")
    assert "FIFO" in (ProjectIndex.open(repo).refresh.note or "")


def test_a_foreign_index_folder_in_an_unmarked_cache_is_kept(tmp_path: Path) -> None:
    # rserini did not make this `.rserini`: its `index/` is not rserini's to delete.
    repo = _repo(tmp_path)
    index = repo / ".rserini" / "index"
    index.mkdir(parents=True)
    (index / "meta.json").write_text('{"my": "config"}')
    (index / "thesis.tex").write_text("precious")
    opened = ProjectIndex.open(repo)
    assert len(opened.search("hello")) == 1
    assert (index / "thesis.tex").read_text() == "precious"
    assert "did not create" in (opened.refresh.note or "")


def test_the_cache_rserini_made_is_marked_and_rebuilt(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    ProjectIndex.open(repo)
    assert is_own(repo / ".rserini") and (repo / ".rserini" / MARK).is_file()
    # A damaged index in rserini's own cache is replaced.
    (repo / ".rserini" / "index" / "meta.json").write_text('{"my": "config"}')
    (repo / ".rserini" / "manifest.json").unlink()
    again = ProjectIndex.open(repo)
    assert again.refresh.note is None and len(again.search("hello")) == 1
    assert ProjectIndex.open(repo).refresh.rebuilt is None


SEARCH = textwrap.dedent(
    """
    import sys
    from rserini.project_index import ProjectIndex
    opened = ProjectIndex.open(sys.argv[1])
    print(len(opened.search("hello")), opened.refresh.rebuilt)
    """
)


def test_a_fifo_or_device_as_manifest_neither_hangs_nor_reads_without_end(tmp_path: Path) -> None:
    # N2: a FIFO manifest hung forever; a link to /dev/zero read until memory ran out.
    repo = _repo(tmp_path)
    (repo / ".rserini").mkdir()
    manifest = repo / ".rserini" / "manifest.json"
    os.mkfifo(manifest)
    done = run_python(SEARCH, str(repo), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "1"
    manifest.unlink(missing_ok=True)
    manifest.symlink_to("/dev/zero")
    done = run_python(SEARCH, str(repo), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "1"
    for meta in [repo / ".rserini" / "index" / "meta.json"]:
        meta.unlink()
        os.mkfifo(meta)
        done = run_python(SEARCH, str(repo), timeout=60)
        assert done.returncode == 0, done.stderr
