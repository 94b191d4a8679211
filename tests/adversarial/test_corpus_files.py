"""Hostile corpora: FIFOs and link cycles in a corpus folder, endless lines, byte order
marks, numeric ids, BEIR folders. Cases that could hang or exhaust memory run in a fresh
interpreter (with a timeout, and an address-space limit)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rserini
from rserini import Index
from support import outcome

GiB = 1 << 30


def docs_file(path: Path, ids: list[str], prefix: str = "") -> Path:
    lines = [json.dumps({"id": d, "contents": f"{prefix}words of {d}"}) for d in ids]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def ids_of(index: Index) -> list[str]:
    return sorted(index.docids(list(range(len(index)))))


# Special files and links in a corpus folder.


def test_a_fifo_in_a_corpus_folder_is_refused_without_blocking(tmp_path: Path) -> None:
    docs_file(tmp_path / "a.jsonl", ["a1"])
    os.mkfifo(tmp_path / "b.jsonl")
    code = "rserini.Index.from_jsonl(ARGS[0], progress=False)"
    assert outcome(code, tmp_path, timeout=30) == "DocumentError"
    with pytest.raises(rserini.DocumentError, match="a FIFO"):
        Index.from_jsonl(tmp_path, progress=False)


def test_a_link_cycle_in_a_corpus_folder_is_walked_once(tmp_path: Path) -> None:
    """sub/up -> .. would otherwise be followed without end, or until a duplicate docid."""
    docs_file(tmp_path / "a.jsonl", ["a1", "a2"])
    (tmp_path / "sub").mkdir()
    docs_file(tmp_path / "sub" / "b.jsonl", ["b1"])
    (tmp_path / "sub" / "up").symlink_to("..", target_is_directory=True)
    code = "print(len(rserini.Index.from_jsonl(ARGS[0], progress=False)))"
    assert outcome(code, tmp_path, timeout=30) == "ok"
    assert ids_of(Index.from_jsonl(tmp_path, progress=False)) == ["a1", "a2", "b1"]


def test_a_file_reached_through_two_links_is_read_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    docs_file(data / "a.jsonl", ["a1"])
    (data / "same.jsonl").symlink_to(data / "a.jsonl")
    (data / "again").symlink_to(data, target_is_directory=True)
    assert ids_of(Index.from_jsonl(data, progress=False)) == ["a1"]


def test_linked_folders_and_files_of_a_corpus_are_followed(tmp_path: Path) -> None:
    """Data sets are often linked into place: links to other folders and files are read,
    and a file reached both ways is read once."""
    store = tmp_path / "store"
    store.mkdir()
    docs_file(store / "x.jsonl", ["x1"])
    docs_file(store / "y.jsonl", ["y1"])
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "linked").symlink_to(store, target_is_directory=True)
    (corpus / "y.jsonl").symlink_to(store / "y.jsonl")
    assert ids_of(Index.from_jsonl(corpus, progress=False)) == ["x1", "y1"]


# Line length and memory.


def test_a_line_past_the_default_limit_is_a_parse_error(tmp_path: Path) -> None:
    """One 65 MiB line in a small .jsonl.gz: ParseError naming the line, not 65 MiB kept."""
    path = tmp_path / "bomb.jsonl.gz"
    line = b'{"id": "big", "contents": "' + b"a " * (65 << 19) + b'"}\n'
    path.write_bytes(gzip.compress(b'{"id": "d1", "contents": "small"}\n' + line, 1))
    with pytest.raises(rserini.ParseError, match="max_line_bytes") as info:
        Index.from_jsonl(path, progress=False)
    assert (Path(info.value.path), info.value.line) == (path, 2)


def test_max_line_bytes_is_configurable(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    line = json.dumps({"id": "long", "contents": "x" * 2000})
    path.write_text(json.dumps({"id": "short", "contents": "y"}) + "\n" + line + "\n")
    with pytest.raises(rserini.ParseError) as info:
        Index.from_jsonl(path, progress=False, max_line_bytes=len(line) - 1)
    assert info.value.line == 2
    index = Index.from_jsonl(path, progress=False, max_line_bytes=len(line))
    assert ids_of(index) == ["long", "short"]
    base = Index.build([("z", "zzz")], progress=False)
    base.save(tmp_path / "idx")
    writer = Index.load(tmp_path / "idx")
    with pytest.raises(rserini.ParseError):
        writer.add_jsonl(path, max_line_bytes=100)
    assert writer.add_jsonl(path, max_line_bytes=len(line)) == 2


def test_a_line_too_long_for_memory_is_a_memory_error(tmp_path: Path) -> None:
    """With the limit lifted, a 4 GiB line under a 1.5 GiB address-space limit raises
    MemoryError instead of aborting the interpreter."""
    path = tmp_path / "endless.jsonl"
    with open(path, "wb") as f:
        f.truncate(4 * GiB)  # sparse: NUL bytes, no newline
    code = "rserini.Index.from_jsonl(ARGS[0], progress=False, max_line_bytes=1 << 40)"
    assert outcome(code, path, timeout=60, address_space=3 * GiB // 2) == "MemoryError"


# What a line and a folder mean.


def test_a_byte_order_mark_opening_a_file_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"id": "d1", "contents": "hello"}).encode())
    index = Index.from_jsonl(path, progress=False, store=True)
    assert ids_of(index) == ["d1"]
    assert index.doc("d1") == {"id": "d1", "contents": "hello"}


def test_a_byte_order_mark_elsewhere_is_still_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'{"id": "d1", "contents": "a"}\n\xef\xbb\xbf{"id": "d2", "contents": "b"}')
    with pytest.raises(rserini.ParseError) as info:
        Index.from_jsonl(path, progress=False)
    assert info.value.line == 2


def test_numeric_ids_keep_their_exact_text(tmp_path: Path) -> None:
    """2**70 and 2**70 + 1 stay two documents; -0, 1E2 and 1.50 are kept as written."""
    path = tmp_path / "n.jsonl"
    ids = [str(2**70), str(2**70 + 1), "-0", "1E2", "1.50", "7"]
    path.write_text("".join(f'{{"id": {i}, "contents": "w{n}"}}\n' for n, i in enumerate(ids)))
    assert ids_of(Index.from_jsonl(path, progress=False)) == sorted(ids)
    from_dicts = Index.build([{"_id": 2**70, "title": "", "text": "t"}], progress=False)
    assert ids_of(from_dicts) == [str(2**70)]


def beir_folder(root: Path, corpus_name: str = "corpus.jsonl") -> Path:
    root.mkdir()
    lines = [json.dumps({"_id": d, "title": "", "text": f"document {d}"}) for d in ("1", "2")]
    data = ("\n".join(lines) + "\n").encode()
    (root / corpus_name).write_bytes(gzip.compress(data) if corpus_name.endswith(".gz") else data)
    queries = [json.dumps({"_id": q, "text": f"query {q}"}) for q in ("1", "3")]
    (root / "queries.jsonl").write_text("\n".join(queries) + "\n")
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\t1\t1\n")
    return root


@pytest.mark.parametrize("corpus_name", ["corpus.jsonl", "corpus.jsonl.gz"])
def test_a_beir_folder_means_its_corpus_file(tmp_path: Path, corpus_name: str) -> None:
    """queries.jsonl beside corpus.jsonl[.gz] is not read as documents (its ids clash)."""
    folder = beir_folder(tmp_path / "beir", corpus_name)
    assert ids_of(Index.from_jsonl(folder, progress=False)) == ["1", "2"]


def test_rserini_index_of_a_beir_folder_indexes_its_corpus(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "beir")
    command = ["index", "--input", str(folder), "--index", str(tmp_path / "idx"), "--quiet"]
    proc = subprocess.run(
        [sys.executable, "-m", "rserini", *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert ids_of(Index.load(tmp_path / "idx")) == ["1", "2"]


def test_a_folder_of_beir_folders_takes_each_corpus(tmp_path: Path) -> None:
    (tmp_path / "all").mkdir()
    beir_folder(tmp_path / "all" / "one")
    two = tmp_path / "all" / "two"
    two.mkdir()
    docs_file(two / "corpus.jsonl", ["t1"])
    assert ids_of(Index.from_jsonl(tmp_path / "all", progress=False)) == ["1", "2", "t1"]


def test_rserini_index_takes_max_line_bytes(tmp_path: Path) -> None:
    path = docs_file(tmp_path / "c.jsonl", ["d1", "d2"])
    base = [sys.executable, "-m", "rserini", "index", "--input", str(path), "--quiet"]
    for limit, error in [(20, "rserini: error:"), (100, "")]:
        proc = subprocess.run(
            [*base, "--index", str(tmp_path / f"idx{limit}"), "--max-line-bytes", str(limit)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == (1 if error else 0), proc.stderr
        assert error in proc.stderr and ("line longer than 20 bytes" in proc.stderr) == bool(error)
    assert ids_of(Index.load(tmp_path / "idx100")) == ["d1", "d2"]
