"""The cached chunk index of a project folder: manifest, incremental refresh, search."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rserini import Index, rrf
from rserini.project import load_chunk_documents
from rserini.project_index import ProjectIndex
from rserini.safe_fs import own_dir
from rserini.searchable import ranked

AGE_NS = 100 * 10**9


def write(root: Path, rel: str, data: str | bytes, *, age_ns: int = AGE_NS) -> None:
    """Writes a file dated ``age_ns`` ago: out of the racy window unless told otherwise."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    when = time.time_ns() - age_ns
    os.utime(path, ns=(when, when))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "src/engine.py", "def computeBm25Score():\n    return 1\n")
    write(tmp_path, "notes.md", "Dynamic pruning with block max wand.\n" * 20)
    write(tmp_path, "docs/guide.txt", "How to tune the score of a query.\n")
    write(tmp_path, "Cargo.lock", "# @generated\n")
    write(tmp_path, "blob.bin", b"\x00binary score")
    return tmp_path


def generation(root: Path) -> int:
    return int(json.loads((root / ".rserini" / "index" / "meta.json").read_text())["generation"])


def open_(root: Path, **kw: object) -> ProjectIndex:
    return ProjectIndex.open(root, **kw)  # type: ignore[arg-type]


def fresh_pairs(root: Path, query: str) -> list[tuple[str, float]]:
    """The ranking of a from-scratch build of the same files."""
    copy = root.parent / f"{root.name}-fresh"
    shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".rserini"))
    try:
        return ranked(open_(copy).index, query, 100)
    finally:
        shutil.rmtree(copy)


def test_first_open_builds_chunks_and_writes_the_cache(project: Path) -> None:
    p = open_(project)
    r = p.refresh
    assert r.rebuilt == "no manifest"
    assert (r.files, r.read, r.reindexed) == (3, 4, 3)  # Cargo.lock is skipped by name, unread
    assert r.chunks == 1 + 2 + 1  # notes.md has 20 lines: 12 + 8
    assert (r.skipped.generated, r.skipped.binary) == (1, 1)
    assert p.index.contents("docs/guide.txt:1-1") == "How to tune the score of a query.\n"
    assert "notes.md:13-20" in p.index
    cache = project / ".rserini"
    assert (cache / ".gitignore").read_text() == "*\n"
    manifest = json.loads((cache / "manifest.json").read_text())
    assert manifest["generation"] == generation(project)
    entry = manifest["files"]["notes.md"]
    assert entry["chunks"] == [[1, 12], [13, 20]]
    assert entry["size"] == (project / "notes.md").stat().st_size
    assert entry["mtime_ns"] == (project / "notes.md").stat().st_mtime_ns
    assert len(entry["hash"]) == 64 and "racy" not in entry
    assert "Cargo.lock" not in manifest["files"]  # skipped by name, never read
    blob = manifest["files"]["blob.bin"]
    assert blob == {
        "size": 13,
        "mtime_ns": blob["mtime_ns"],
        "hash": blob["hash"],
        "skip": "binary",
    }


def test_unchanged_files_are_not_read(project: Path) -> None:
    open_(project)
    before = generation(project)
    r = open_(project).refresh
    assert (r.rebuilt, r.read, r.reindexed, r.removed) == (None, 0, 0, 0)
    assert (r.files, r.chunks, r.skipped.generated, r.skipped.binary) == (3, 4, 1, 1)
    assert generation(project) == before


def test_an_edit_re_reads_and_re_indexes_only_that_file(project: Path) -> None:
    open_(project)
    write(project, "src/engine.py", "def computeTfidfWeight():\n    return 2\n", age_ns=AGE_NS // 2)
    p = open_(project)
    assert (p.refresh.read, p.refresh.reindexed, p.refresh.removed) == (1, 1, 0)
    assert [h.docid for h in p.search("tfidf")] == ["src/engine.py:1-2"]
    assert p.search("bm25") == []
    assert ranked(p.index, "score weight tune", 100) == fresh_pairs(project, "score weight tune")


def test_touch_re_indexes_nothing(project: Path) -> None:
    open_(project)
    before = generation(project)
    os.utime(project / "notes.md")  # now: a new stat, the same bytes
    r = open_(project).refresh
    assert (r.read, r.reindexed, r.removed) == (1, 0, 0)
    assert generation(project) == before
    # Touched just now, so within the racy window: read once more, still nothing to do.
    r = open_(project).refresh
    assert (r.read, r.reindexed) == (1, 0)
    assert generation(project) == before


def test_same_bytes_written_again_change_nothing(project: Path) -> None:
    open_(project)
    before = generation(project)
    write(project, "docs/guide.txt", "How to tune the score of a query.\n", age_ns=AGE_NS // 3)
    r = open_(project).refresh
    assert (r.read, r.reindexed) == (1, 0)
    assert generation(project) == before
    assert open_(project).refresh.read == 0  # the new stat was recorded


def test_a_deleted_file_loses_its_chunks(project: Path) -> None:
    open_(project)
    (project / "notes.md").unlink()
    p = open_(project)
    assert (p.refresh.read, p.refresh.removed, p.refresh.chunks) == (0, 1, 2)
    assert "notes.md:1-12" not in p.index and "notes.md:13-20" not in p.index
    assert p.search("wand") == []
    assert (
        "notes.md" not in json.loads((project / ".rserini" / "manifest.json").read_text())["files"]
    )


def test_a_file_turning_generated_or_binary_loses_its_chunks(project: Path) -> None:
    open_(project)
    write(project, "docs/guide.txt", "// @generated by hand\ntune\n", age_ns=AGE_NS // 2)
    write(project, "src/engine.py", b"\x00", age_ns=AGE_NS // 2)
    p = open_(project)
    r = p.refresh
    assert (r.read, r.reindexed, r.removed) == (2, 0, 2)
    assert (r.skipped.generated, r.skipped.binary, r.files) == (2, 2, 1)
    assert p.search("tune") == [] and len(p.index) == 2


def test_incremental_changes_equal_a_fresh_build(project: Path) -> None:
    open_(project)
    write(project, "notes.md", "pruning\n" * 30, age_ns=AGE_NS // 2)  # three chunks now
    write(project, "new/extra.rs", "fn score_pruning() {}\n")
    (project / "docs" / "guide.txt").unlink()
    p = open_(project)
    assert (p.refresh.read, p.refresh.reindexed, p.refresh.removed) == (2, 2, 1)
    for query in ("pruning score", "wand", "tune query", "computeBm25Score"):
        assert ranked(p.index, query, 100) == fresh_pairs(project, query)


def test_an_old_whole_file_cache_is_rebuilt_once(project: Path) -> None:
    old = Index.from_source_tree(project, progress=False)
    old.save(project / ".rserini" / "index")
    assert "notes.md" in old
    p = open_(project)
    assert p.refresh.rebuilt == "a cache of whole files, from an older version"
    assert "notes.md" not in p.index and "notes.md:1-12" in p.index
    again = open_(project).refresh
    assert (again.rebuilt, again.read) == (None, 0)


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda m: m.write_text("{not json"), "unreadable manifest"),
        (
            lambda m: m.write_text(json.dumps({**json.loads(m.read_text()), "generation": 99})),
            "the index and the manifest disagree",
        ),
        (
            lambda m: m.write_text(json.dumps({**json.loads(m.read_text()), "files": {"x": 1}})),
            "unreadable manifest",
        ),
    ],
)
def test_a_damaged_manifest_rebuilds(project: Path, damage, reason: str) -> None:  # type: ignore[no-untyped-def]
    open_(project)
    damage(project / ".rserini" / "manifest.json")
    p = open_(project)
    assert p.refresh.rebuilt == reason
    assert [h.docid for h in p.search("bm25")] == ["src/engine.py:1-2"]
    assert open_(project).refresh.rebuilt is None


def test_other_settings_rebuild(project: Path) -> None:
    open_(project)
    p = open_(project, chunk_lines=5)
    assert p.refresh.rebuilt == "other settings"
    assert "notes.md:16-20" in p.index
    assert open_(project, analyzer="plain").refresh.rebuilt == "other settings"


def test_manifest_entries_that_disagree_with_the_index_rebuild(project: Path) -> None:
    open_(project)
    manifest = project / ".rserini" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["files"]["src/engine.py"]["chunks"] = [[1, 1]]  # a docid the index does not hold
    data["files"]["src/engine.py"]["size"] = 0
    data["files"]["src/engine.py"]["hash"] = "0" * 64
    manifest.write_text(json.dumps(data))
    p = open_(project)
    assert p.refresh.rebuilt is not None and p.refresh.rebuilt.startswith("the update failed")
    assert "src/engine.py:1-2" in p.index


def test_search_gives_spans_scores_and_the_first_matching_line(project: Path) -> None:
    p = open_(project)
    hits = p.search("return bm25", k=5)
    assert [(h.rank, h.docid, h.path, h.start_line, h.end_line) for h in hits] == [
        (1, "src/engine.py:1-2", "src/engine.py", 1, 2)
    ]
    assert hits[0].line == "def computeBm25Score():"
    assert hits[0].score == ranked(p.index, "return bm25", 5)[0][1] > 0
    assert set(hits[0].to_dict()) == {
        "rank",
        "docid",
        "score",
        "path",
        "start_line",
        "end_line",
        "line",
    }
    fused = p.search("score pruning", model="rrf")
    bm25 = [d for d, _ in ranked(p.index, "score pruning", 50)]
    tfidf = [d for d, _ in ranked(p.index, "score pruning", 50, model="tfidf")]
    assert [(h.docid, h.score) for h in fused] == rrf([bm25, tfidf])[:10]
    assert {h.docid for h in fused} == set(bm25) | set(tfidf)


def test_racy_files_are_read_again(tmp_path: Path) -> None:
    write(tmp_path, "fresh.txt", "just written\n", age_ns=0)
    assert open_(tmp_path).refresh.read == 1
    entry = json.loads((tmp_path / ".rserini" / "manifest.json").read_text())["files"]["fresh.txt"]
    assert entry["racy"] is True
    r = open_(tmp_path).refresh
    assert (r.read, r.reindexed) == (1, 0)


def test_an_empty_project_searches_to_nothing(tmp_path: Path) -> None:
    p = open_(tmp_path)
    assert (p.refresh.files, p.refresh.chunks) == (0, 0)
    assert p.search("anything") == []


def rserini(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rserini", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_counts_the_files_it_re_reads(project: Path) -> None:
    first = rserini("search", "score", cwd=project)
    assert first.returncode == 0, first.stderr
    assert "rebuilt the index (no manifest): 4 files read" in first.stderr
    assert (
        "rserini: 0 re-read, 0 re-indexed, 0 removed" in rserini("search", "x", cwd=project).stderr
    )
    write(project, "docs/guide.txt", "How to tune the score of a long query.\n", age_ns=AGE_NS // 2)
    edited = rserini("search", "long", "query", cwd=project)
    assert "rserini: 1 re-read, 1 re-indexed, 0 removed" in edited.stderr
    assert edited.stdout.split()[:2] == ["docs/guide.txt:1-1", edited.stdout.split()[1]]
    assert edited.stdout.rstrip().endswith("How to tune the score of a long query.")


def test_a_locked_cache_is_searched_as_it_was(project: Path) -> None:
    open_(project)
    writer = Index.load(project / ".rserini" / "index")
    writer.add([("held", "the writer lock")])  # another process would hold it so
    write(project, "docs/guide.txt", "a brand new guide\n", age_ns=AGE_NS // 2)
    try:
        p = open_(project)
        assert p.refresh.note is not None and "another process" in p.refresh.note
        assert p.search("brand") == [] and [h.docid for h in p.search("tune")] == [
            "docs/guide.txt:1-1"
        ]
    finally:
        writer.rollback()
    p = open_(project)
    assert (p.refresh.note, p.refresh.reindexed) == (None, 1)
    assert [h.docid for h in p.search("brand")] == ["docs/guide.txt:1-1"]


def test_an_unwritable_cache_still_searches(project: Path) -> None:
    (project / ".rserini").write_text("a file where the cache folder would go\n")
    p = open_(project)
    assert p.refresh.note is not None and p.refresh.note.startswith("not cached")
    assert [h.docid for h in p.search("bm25")] == ["src/engine.py:1-2"]


def test_a_foreign_folder_in_place_of_the_index_is_replaced(project: Path) -> None:
    # Only inside a cache rserini made (and marked); see tests/adversarial for others.
    own_dir(project / ".rserini")
    junk = project / ".rserini" / "index"
    junk.mkdir()
    (junk / "notes.txt").write_text("not an index\n")  # Index.save refuses such a folder
    p = open_(project)
    assert (p.refresh.rebuilt, p.refresh.note) == ("no manifest", None)
    assert not (junk / "notes.txt").exists()
    assert [h.docid for h in p.search("bm25")] == ["src/engine.py:1-2"]
    assert open_(project).refresh.rebuilt is None


WORDS = ["score", "pruning", "wand", "tune", "query", "getUserById", "chunk", "x"]
NAMES = ["a.txt", "b/c.py", "b/d.md"]


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(NAMES),
            st.sampled_from(["write", "delete", "touch"]),
            st.lists(st.lists(st.sampled_from(WORDS), max_size=4), max_size=30),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_sequence_of_changes_searches_as_a_fresh_build(
    tmp_path_factory: pytest.TempPathFactory,
    steps: list[tuple[str, str, list[list[str]]]],
) -> None:
    root = tmp_path_factory.mktemp("project")
    base = time.time_ns() - AGE_NS
    for i, (name, op, lines) in enumerate(steps):
        path = root / name
        if op == "write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(" ".join(words) + "\n" for words in lines))
        elif op == "delete":
            path.unlink(missing_ok=True)
        if path.exists():
            when = base + (i + 1) * 1_000_000  # a new stat at every step
            os.utime(path, ns=(when, when))
        p = open_(root)
        assert p.refresh.rebuilt is None or i == 0
        docs = load_chunk_documents(root)
        fresh = Index.build([(d.docid, d.text) for d in docs], analyzer="code", progress=False)
        assert len(p.index) == len(fresh) == len(docs) and all(d.docid in p.index for d in docs)
        for query in ("score pruning", "get user", "wand tune query chunk"):
            for model in ("bm25", "tfidf", "rrf"):
                assert ranked(p.index, query, 50, model=model) == ranked(  # type: ignore[arg-type]
                    fresh,
                    query,
                    50,
                    model=model,  # type: ignore[arg-type]
                )
