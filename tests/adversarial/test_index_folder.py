"""Hostile index folders: foreign files, planted links, FIFOs, oversized and edited files.
rserini refuses them with a precise exception, without blocking, without touching anything
outside the folder, and without deleting what is not its own. Cases that could hang or
exhaust memory run in a fresh interpreter (with a timeout, and an address-space limit)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import rserini
from rserini import Index
from support import outcome, sealed_meta

# Segment number, payload length, CRC32 of the payload, format version, magic.
FOOTER = struct.Struct("<QQII4s")
GiB = 1 << 30


def saved(tmp_path: Path, name: str = "idx") -> Path:
    folder = tmp_path / name
    Index.build([("a", "apple pie"), ("b", "banana split")], progress=False).save(folder)
    return folder


def committed_twice(tmp_path: Path) -> Path:
    folder = saved(tmp_path)
    index = Index.load(folder)
    index.add([("c", "cherry tart")])
    index.commit()
    return folder


def meta_of(folder: Path) -> dict:
    return json.loads((folder / "meta.json").read_text(encoding="utf-8"))


def write_meta(folder: Path, meta: dict) -> None:
    (folder / "meta.json").write_text(sealed_meta(meta), encoding="utf-8")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


# Saving into a folder that is not an index.


def test_save_over_a_foreign_meta_json_raises_and_deletes_nothing(tmp_path: Path) -> None:
    """A folder whose meta.json is someone else's is not replaced: FileExistsError, and its
    .*.tmp and seg*.<kind> files survive."""
    folder = tmp_path / "project"
    folder.mkdir()
    files = {
        "meta.json": b'{"name": "my project", "version": 3}',
        ".draft.tmp": b"unsaved notes",
        ".meta.json.tmp": b"an editor's swap file",
        "seg000001.docids": b"my own data",
        "seg000002.7.del": b"more of it",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    index = Index.build([("a", "apple")], progress=False)
    with pytest.raises(FileExistsError, match="not an rserini index"):
        index.save(folder)
    assert snapshot(folder) == files


def test_commit_keeps_temporaries_that_are_not_its_own(tmp_path: Path) -> None:
    """A commit removes what a crashed save of its own left behind, never another program's
    .*.tmp files."""
    folder = saved(tmp_path)
    (folder / ".notes.tmp").write_bytes(b"mine")
    (folder / ".seg000009.postings.4242-0.tmp").write_bytes(b"left by a crashed save")
    (folder / ".seg000009.postings.tmp").write_bytes(b"left by an older version")
    index = Index.load(folder)
    index.add([("c", "cherry")])
    index.commit()
    names = set(os.listdir(folder))
    assert ".notes.tmp" in names
    assert ".seg000009.postings.4242-0.tmp" not in names
    assert ".seg000009.postings.tmp" not in names
    assert (folder / ".notes.tmp").read_bytes() == b"mine"


# Planted links.


@pytest.mark.parametrize("name", [".meta.json.tmp", ".seg000002.docids.tmp", "seg000002.docids"])
def test_a_planted_link_never_makes_a_commit_write_outside_the_folder(
    tmp_path: Path, name: str
) -> None:
    """Links under the names a commit writes are replaced or removed, never written through."""
    folder = saved(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    (folder / name).symlink_to(victim)
    index = Index.load(folder)
    index.add([("c", "cherry")])
    index.commit()
    assert victim.read_bytes() == b"precious"
    reloaded = Index.load(folder)
    reloaded.verify()
    assert sorted(d for d in "abc" if d in reloaded) == ["a", "b", "c"]


@pytest.mark.parametrize("mmap", [True, False])
def test_an_index_file_that_is_a_link_is_refused_even_to_an_identical_copy(
    tmp_path: Path, mmap: bool
) -> None:
    """Links inside an index folder are not followed on read."""
    folder = saved(tmp_path)
    copy = tmp_path / "elsewhere.norms"
    target = folder / "seg000001.norms"
    copy.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(copy)
    with pytest.raises(rserini.IndexCorruptedError, match="symbolic link") as info:
        Index.load(folder, mmap=mmap)
    assert Path(info.value.path) == target


def test_a_linked_meta_json_is_refused(tmp_path: Path) -> None:
    folder = saved(tmp_path)
    real = tmp_path / "meta-elsewhere.json"
    (folder / "meta.json").rename(real)
    (folder / "meta.json").symlink_to(real)
    with pytest.raises(rserini.IndexCorruptedError, match="symbolic link"):
        Index.load(folder)


def test_a_dangling_write_lock_link_creates_nothing_outside(tmp_path: Path) -> None:
    folder = saved(tmp_path)
    target = tmp_path / "outside" / "created-by-rserini"
    target.parent.mkdir()
    (folder / "write.lock").unlink()
    (folder / "write.lock").symlink_to(target)
    index = Index.load(folder)
    with pytest.raises(rserini.IndexCorruptedError, match="symbolic link"):
        index.add([("c", "cherry")])
    assert not target.exists()
    assert os.listdir(target.parent) == []


def test_an_index_folder_that_is_itself_a_link_works(tmp_path: Path) -> None:
    """The folder given may be a link; only links inside it are refused."""
    folder = saved(tmp_path)
    link = tmp_path / "link-to-idx"
    link.symlink_to(folder, target_is_directory=True)
    index = Index.load(link)
    index.add([("c", "cherry")])
    index.commit()
    assert "c" in Index.load(folder)


# FIFOs and other special files: refused at once, never waited on.


@pytest.mark.parametrize("name", ["meta.json", "seg000001.norms", "seg000001.postings"])
def test_an_index_file_that_is_a_fifo_is_refused_without_blocking(
    tmp_path: Path, name: str
) -> None:
    folder = saved(tmp_path)
    (folder / name).unlink()
    os.mkfifo(folder / name)
    for mmap in (True, False):
        code = "rserini.Index.load(ARGS[0], mmap=ARGS[1] == 'True')"
        assert outcome(code, folder, mmap, timeout=30) == "IndexCorruptedError"


def test_a_fifo_write_lock_is_refused_without_blocking(tmp_path: Path) -> None:
    folder = saved(tmp_path)
    (folder / "write.lock").unlink()
    os.mkfifo(folder / "write.lock")
    code = "rserini.Index.load(ARGS[0]).add([('c', 'cherry')])"
    assert outcome(code, folder, timeout=30) == "IndexCorruptedError"


# Sizes: nothing is read beyond what meta.json expects.


@pytest.mark.parametrize("name", ["meta.json", "seg000001.postings"])
def test_a_file_linked_to_dev_zero_is_refused_not_read(tmp_path: Path, name: str) -> None:
    """Read without mmap, /dev/zero would fill memory: the link is refused first."""
    folder = saved(tmp_path)
    (folder / name).unlink()
    (folder / name).symlink_to("/dev/zero")
    code = "rserini.Index.load(ARGS[0], mmap=False)"
    assert outcome(code, folder, timeout=30, address_space=2 * GiB) == "IndexCorruptedError"


def test_an_oversized_meta_json_is_refused_before_reading(tmp_path: Path) -> None:
    folder = saved(tmp_path)
    with open(folder / "meta.json", "r+b") as f:
        f.truncate(64 << 20)  # sparse: reading it would take 64 MiB
    with pytest.raises(rserini.IndexCorruptedError, match="more than"):
        Index.load(folder)


def test_a_data_file_larger_than_listed_is_refused_before_reading(tmp_path: Path) -> None:
    """A listed file grown to 8 GiB (sparse) fails on its size, not after reading it."""
    folder = saved(tmp_path)
    with open(folder / "seg000001.postings", "r+b") as f:
        f.truncate(8 * GiB)
    code = "rserini.Index.load(ARGS[0], mmap=False)"
    assert outcome(code, folder, timeout=30, address_space=2 * GiB) == "IndexCorruptedError"


def test_a_listed_file_too_large_for_memory_is_a_memory_error(tmp_path: Path) -> None:
    """meta.json and the file agree on 8 GiB: reading it without mmap under a 2 GiB limit
    raises MemoryError instead of aborting the interpreter."""
    folder = saved(tmp_path)
    path = folder / "seg000001.store"
    size = 8 * GiB
    with open(path, "r+b") as f:
        f.truncate(size - FOOTER.size)
        f.seek(0, os.SEEK_END)
        f.write(FOOTER.pack(1, size - FOOTER.size, 0, rserini.INDEX_FORMAT_VERSION, b"RSRN"))
    meta = meta_of(folder)
    entry = next(f for s in meta["segments"] for f in s["files"] if f["name"] == path.name)
    entry["bytes"], entry["crc32"] = size, 0
    write_meta(folder, meta)
    code = "rserini.Index.load(ARGS[0], mmap=False)"
    assert outcome(code, folder, timeout=30, address_space=2 * GiB) == "MemoryError"


# meta.json's own checksum and listing.


def test_a_segment_listed_twice_is_refused_by_load_and_verify(tmp_path: Path) -> None:
    folder = committed_twice(tmp_path)
    index = Index.load(folder)
    meta = meta_of(folder)
    first = meta["segments"][0]
    meta["segments"].append(json.loads(json.dumps(first)))
    meta["num_docs"] += first["num_docs"] - first["num_deleted"]
    write_meta(folder, meta)
    with pytest.raises(rserini.IndexCorruptedError, match="listed twice"):
        Index.load(folder)
    with pytest.raises(rserini.IndexCorruptedError, match="listed twice"):
        index.verify()


@pytest.mark.parametrize("mmap", [True, False])
def test_a_segments_files_copied_under_a_new_segment_name_are_refused(
    tmp_path: Path, mmap: bool
) -> None:
    """The files of a segment copied to the next segment's name and listed (meta.json
    resealed) would serve each of its documents twice: every file records its segment."""
    folder = committed_twice(tmp_path)
    index = Index.load(folder)
    meta = meta_of(folder)
    last = meta["segments"][-1]
    copy = json.loads(json.dumps(last))
    copy["name"] = f"seg{meta['next_segment']:06d}"
    for entry in [*copy["files"], *([copy["deletions"]] if copy["deletions"] else [])]:
        name = copy["name"] + entry["name"].removeprefix(last["name"])
        (folder / name).write_bytes((folder / entry["name"]).read_bytes())
        entry["name"] = name
    meta["segments"].append(copy)
    meta["next_segment"] += 1
    meta["num_docs"] += copy["num_docs"] - copy["num_deleted"]
    write_meta(folder, meta)
    message = f"belongs to segment {last['name']}, not {copy['name']}"
    with pytest.raises(rserini.IndexCorruptedError, match=message) as info:
        Index.load(folder, mmap=mmap)
    assert Path(info.value.path).name.startswith(copy["name"] + ".")
    with pytest.raises(rserini.IndexCorruptedError, match=message):
        index.verify()


def test_a_segment_numbered_past_next_segment_is_refused(tmp_path: Path) -> None:
    """A new segment could take a listed segment's name and replace its files."""
    folder = committed_twice(tmp_path)
    meta = meta_of(folder)
    meta["next_segment"] = 1
    write_meta(folder, meta)
    with pytest.raises(rserini.IndexCorruptedError, match="not one this index gave out"):
        Index.load(folder)


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace('"generation": 1', '"generation": 2'),
        lambda t: t.replace('"num_docs": 2,', '"num_docs": 3,', 1),
        lambda t: t.replace('"checksum"', '"checksumx"'),
        lambda t: t[: t.index('"checksum"')].rstrip().rstrip(",") + "\n}\n",
    ],
    ids=["generation", "num_docs", "checksum-key", "checksum-removed"],
)
def test_an_edited_meta_json_fails_its_checksum(tmp_path: Path, edit) -> None:
    folder = saved(tmp_path)
    text = (folder / "meta.json").read_text(encoding="utf-8")
    edited = edit(text)
    assert edited != text and json.loads(edited)
    (folder / "meta.json").write_text(edited, encoding="utf-8")
    with pytest.raises(rserini.IndexCorruptedError, match="checksum") as info:
        Index.load(folder)
    assert Path(info.value.path) == folder / "meta.json"


def test_meta_json_is_sealed_as_documented(tmp_path: Path) -> None:
    """The checksum is the CRC32 of the bytes before its key; sealed_meta reproduces it."""
    folder = committed_twice(tmp_path)
    text = (folder / "meta.json").read_text(encoding="utf-8")
    assert text == sealed_meta(json.loads(text))


def test_rserini_search_in_a_repository_with_a_planted_cache_writes_nothing_outside(
    tmp_path: Path,
) -> None:
    """A cloned repository carrying .rserini/index/ with planted links: `rserini search`
    rebuilds its cache without writing through them."""
    repo = tmp_path / "repo"
    cache = repo / ".rserini" / "index"
    Index.build([("old.py", "stale")], analyzer="code", progress=False).save(cache)
    (repo / "main.py").write_text("def route_packets(): return 'router'\n")
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    for name in [".meta.json.tmp", ".seg000001.docids.tmp", ".seg000001.postings.tmp"]:
        (cache / name).symlink_to(victim)
    proc = subprocess.run(
        [sys.executable, "-m", "rserini", "search", "--quiet", "route packets"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "main.py" in proc.stdout
    assert victim.read_bytes() == b"precious"
    assert not any(p.is_symlink() for p in cache.iterdir())
