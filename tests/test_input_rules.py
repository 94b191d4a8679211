"""One input rule and one discovery rule: what a JSON line means and which files a path
stands for are decided by the core, and everything that reads a corpus (``rserini index``,
``Index.from_jsonl``, the parity harness, ``rserini.formats``, ``rserini.tune``) agrees."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rserini
from rserini import tune
from rserini.formats import (
    beir_collection,
    beir_files,
    corpus_files,
    document_fields,
    read_documents,
)
from rserini.parity import read_corpus

# Every shape a line may take; the comment says what each one is indexed as.
SHAPES = [
    {"id": "p1", "contents": "pyserini shape"},  # contents
    {"_id": "b1", "title": "Beir", "text": "shape"},  # title + " " + text
    {"_id": "b2", "contents": "beir id with contents"},  # contents, not a blank
    {"docid": "c1", "contents": "docid field"},  # kept, not dropped
    {"id": "p2", "title": "Title", "text": "body"},  # title + " " + text, not a blank
    {"_id": "b3", "title": None, "text": "no title"},  # " no title"
]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def beir_folder(folder: Path, *, gz: bool = False) -> Path:
    body = "".join(json.dumps(row) + "\n" for row in SHAPES).encode()
    folder.mkdir(parents=True)
    if gz:
        (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(body))
    else:
        (folder / "corpus.jsonl").write_bytes(body)
    write_jsonl(folder / "queries.jsonl", [{"_id": "q1", "text": "shape"}])
    (folder / "qrels").mkdir()
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tb1\t1\n")
    return folder


EXPECTED = [
    ("p1", "pyserini shape"),
    ("b1", "Beir shape"),
    ("b2", "beir id with contents"),
    ("c1", "docid field"),
    ("p2", "Title body"),
    ("b3", " no title"),
]


def test_every_reader_reads_every_shape_alike(tmp_path: Path) -> None:
    corpus = write_jsonl(tmp_path / "docs.jsonl", SHAPES)
    assert [document_fields(json.dumps(row)) for row in SHAPES] == EXPECTED
    assert read_documents(corpus) == EXPECTED
    index = rserini.Index.from_jsonl(corpus, progress=False)
    assert [(d, index.contents(d)) for d, _ in EXPECTED] == EXPECTED
    # The parity harness once read {"_id", "contents"} as a blank and dropped {"docid"}.
    docs, issues = read_corpus(corpus)
    assert docs == EXPECTED
    assert issues.missing_docids == [] and issues.empty_documents == []


def test_numeric_ids_are_kept_as_written_everywhere(tmp_path: Path) -> None:
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text('{"id": 1E2, "contents": "a"}\n{"_id": 7, "title": "b", "text": "c"}\n')
    expected = [("1E2", "a"), ("7", "b c")]
    assert read_documents(corpus) == expected
    assert read_corpus(corpus)[0] == expected
    assert rserini.Index.from_jsonl(corpus, progress=False).docids([0, 1]) == ["1E2", "7"]


def test_document_fields_errors() -> None:
    with pytest.raises(rserini.DocumentError, match="no document id"):
        document_fields('{"contents": "x"}')
    with pytest.raises(rserini.DocumentError, match="missing field"):
        document_fields('{"id": "x"}')
    with pytest.raises(rserini.DocumentError, match="malformed JSON"):
        document_fields("{nope")
    with pytest.raises(TypeError, match='"contents" must be a string'):
        document_fields('{"id": "x", "contents": 3}')
    assert rserini._core.DOCID_FIELDS == ("id", "_id", "docid")


@pytest.mark.parametrize("gz", [False, True])
def test_a_beir_folder_is_its_corpus_alone(tmp_path: Path, gz: bool) -> None:
    folder = beir_folder(tmp_path / "mini", gz=gz)
    corpus = folder / ("corpus.jsonl.gz" if gz else "corpus.jsonl")
    assert corpus_files(folder) == [corpus]
    assert beir_files(folder) == (corpus, folder / "queries.jsonl", folder / "qrels/test.tsv")
    assert beir_files(folder, "dev") == (corpus, folder / "queries.jsonl", None)
    assert beir_files(tmp_path) is None
    assert read_documents(folder) == EXPECTED
    assert read_corpus(folder)[0] == EXPECTED
    assert beir_collection(folder).corpus == corpus


def test_rserini_index_reads_a_beir_folder_s_corpus_not_its_queries(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "mini")
    index_dir = tmp_path / "idx"
    out = subprocess.run(
        [sys.executable, "-m", "rserini", "index", "--input", folder, "--index", index_dir, "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    index = rserini.Index.load(index_dir)
    assert sorted(index.docids(list(range(len(index))))) == sorted(d for d, _ in EXPECTED)
    assert "q1" not in index


def test_a_folder_holding_both_corpus_files_is_refused(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "mini")
    (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(b"{}\n"))
    for read in (corpus_files, beir_files, read_documents, beir_collection):
        with pytest.raises(rserini.DocumentError, match="keep one"):
            read(folder)


def test_tune_and_parity_find_a_beir_folder_s_queries_and_qrels_alike(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "mini")
    index, queries, qrels, name = tune.open_collection(folder)
    assert (len(index), queries, qrels, name) == (6, [("q1", "shape")], {"q1": {"b1": 1}}, "mini")
    # A corpus file is not a BEIR folder: its queries and qrels must be given.
    with pytest.raises(rserini.RseriniError, match="--queries and --qrels"):
        tune.open_collection(folder / "corpus.jsonl")
