"""A data file truncated in place by another program (D16).

The decision: a memory-mapped index (``Index.load``'s default) keeps Lucene's and
tantivy's semantics, where the reading process dies with ``SIGBUS`` when it touches the
missing pages; checking every access instead would cost the speed that mapping is for.
``Index.load(path, mmap=False)`` reads every file into memory, checked, once: a file
truncated after the load changes nothing, and one truncated before it is an
``IndexCorruptedError``. These tests keep the documented behaviour true.
"""

from __future__ import annotations

import signal
import textwrap
from pathlib import Path

import pytest
from hang_guard import run_python

import rserini

DOCS = [(f"d{i}", f"apple banana cherry {i} " + "filler " * (i % 50)) for i in range(20_000)]

SCRIPT = textwrap.dedent(
    """
    import os, sys
    import rserini
    folder, mmap = sys.argv[1], sys.argv[2] == "mmap"
    index = rserini.Index.load(folder, mmap=mmap)
    before = index.search_pairs("apple banana", k=50)
    for name in os.listdir(folder):
        if name.endswith((".postings", ".store", ".docids")):
            with open(os.path.join(folder, name), "r+b") as f:
                f.truncate(0)  # in place, as `cp` over it or `truncate` would
    after = index.search_pairs("apple banana", k=50)
    texts = [index.doc(docid) for docid, _ in after[:5]]
    print("same" if after == before and all(texts) else "different")
    """
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "idx"
    rserini.Index.build(DOCS, progress=False).save(path)
    return path


def test_a_file_truncated_under_a_mapped_index_is_sigbus(folder: Path) -> None:
    out = run_python(SCRIPT, str(folder), "mmap", timeout=60)
    assert out.returncode == -signal.SIGBUS, (out.returncode, out.stderr[-2000:])


def test_an_index_read_into_memory_survives_truncation(folder: Path) -> None:
    out = run_python(SCRIPT, str(folder), "read", timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "same"


@pytest.mark.parametrize("mmap", [True, False])
def test_a_file_truncated_before_loading_is_corrupted(folder: Path, mmap: bool) -> None:
    postings = next(folder.glob("*.postings"))
    with open(postings, "r+b") as f:
        f.truncate(postings.stat().st_size // 2)
    with pytest.raises(rserini.IndexCorruptedError):
        rserini.Index.load(folder, mmap=mmap)
