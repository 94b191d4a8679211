"""Bad input raises the documented exception, with a message that says what is wrong."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rserini
from rserini.exceptions import (
    AnalyzerError,
    DocumentError,
    IndexCorruptedError,
    IndexVersionError,
    ParseError,
    QueryError,
    RseriniError,
    UnknownDocidError,
)

DATA_FILES = [
    f"seg000001.{kind}"
    for kind in (
        "docids",
        "lengths",
        "norms",
        "docrank",
        "terms",
        "terminfo",
        "blocks",
        "postings",
        "store",
    )
]


def build(docs, **kwargs) -> rserini.Index:
    """An index of ``docs`` without a progress bar."""
    return rserini.Index.build(docs, progress=False, **kwargs)


@pytest.fixture(scope="module")
def index() -> rserini.Index:
    """A small index to query."""
    return build([("d1", "routers forward packets"), ("d2", "plants grow in soil")])


def test_exception_hierarchy():
    """Input errors are also ValueErrors, unknown docids KeyErrors, all RseriniErrors."""
    for cls in (AnalyzerError, QueryError, DocumentError, ParseError):
        assert issubclass(cls, ValueError)
        assert issubclass(cls, RseriniError)
    assert issubclass(ParseError, DocumentError)
    assert issubclass(UnknownDocidError, KeyError)
    assert issubclass(IndexVersionError, IndexCorruptedError)
    assert issubclass(IndexCorruptedError, RseriniError)


# ---------------------------------------------------------------------------
# Queries and model parameters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", " ", "   \t\n ", "\u3000"])
def test_empty_or_blank_query(index, query):
    """An empty or whitespace-only query is a QueryError saying it is empty."""
    with pytest.raises(QueryError, match="the query is empty"):
        index.search(query)


@pytest.mark.parametrize("k", [0, -5])
def test_non_positive_k(index, k):
    """k <= 0 is a QueryError that quotes the bad k, in search and batch_search."""
    message = re.escape(f"k must be a positive number of hits (got {k})")
    with pytest.raises(QueryError, match=message):
        index.search("packets", k)
    with pytest.raises(QueryError, match=message):
        index.batch_search(["packets"], k)


def test_huge_k_in_search_is_fine(index):
    """search with a k far beyond the collection returns the matching documents."""
    assert [h.docid for h in index.search("packets", 2**62)] == ["d1"]


@pytest.mark.parametrize("k", [2**62, 2**63 - 1])
def test_huge_k_in_batch_search_is_capped_at_the_corpus_size(k):
    """A huge k neither crashes nor allocates (n, k) arrays: columns stop at the corpus size.

    Run in a subprocess so that an abort cannot take the test session down.
    """
    script = (
        "import rserini\n"
        "index = rserini.Index.build([('d1', 'packets'), ('d2', 'x')], progress=False)\n"
        "try:\n"
        f"    ids, scores = index.batch_search(['packets'], k={k})\n"
        "    print('shape', ids.shape, scores.shape, index.docids(ids))\n"
        "except BaseException as e:\n"
        "    print('unexpected', type(e).__module__, type(e).__name__, e)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "shape (1, 2) (1, 2) [['d1']]", run.stdout


@pytest.mark.parametrize("k1", [-0.1, -1e-300, math.nan, math.inf, -math.inf])
def test_bad_k1(index, k1):
    """A negative or non-finite k1 is a QueryError."""
    with pytest.raises(QueryError, match="k1 must be a finite number >= 0"):
        index.search("packets", k1=k1)
    with pytest.raises(QueryError, match="k1 must be a finite number >= 0"):
        index.batch_search(["packets"], k1=k1)


@pytest.mark.parametrize("b", [-0.01, 1.01, 2.0, math.nan, math.inf])
def test_b_outside_unit_interval(index, b):
    """b outside [0, 1] (or NaN) is a QueryError."""
    with pytest.raises(QueryError, match="b must be between 0 and 1"):
        index.search("packets", b=b)


@pytest.mark.parametrize("delta", [-0.5, math.nan, math.inf])
def test_bad_delta(index, delta):
    """A negative or non-finite delta is a QueryError."""
    with pytest.raises(QueryError, match="delta must be between 0 and 1000"):
        index.search("packets", variant="bm25+", delta=delta)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model": "bm26"}, 'unknown model "bm26"'),
        ({"model": "BM25"}, 'unknown model "BM25"'),
        ({"variant": "okapi"}, 'unknown BM25 variant "okapi"'),
        ({"variant": "bm25plus"}, "choose one of lucene, robertson, atire, bm25l, bm25+"),
        ({"length": "approximate"}, 'unknown length mode "approximate"'),
    ],
)
def test_unknown_model_variant_or_length(index, kwargs, message):
    """Unknown model, variant and length names are QueryErrors listing the choices."""
    with pytest.raises(QueryError, match=re.escape(message)):
        index.search("packets", **kwargs)
    with pytest.raises(QueryError, match=re.escape(message)):
        index.batch_search(["packets"], **kwargs)
    with pytest.raises(QueryError, match=re.escape(message)):
        index.explain("packets", "d1", **kwargs)


def test_query_of_wrong_type(index):
    """A query that is not a str is a TypeError."""
    with pytest.raises(TypeError, match="query must be a str, got int"):
        index.search(5)
    with pytest.raises(TypeError, match="query must be a str, got bytes"):
        index.batch_search(["ok", b"bytes"])


def test_batch_search_of_a_single_string(index):
    """batch_search given one str (not a list) is a TypeError pointing to search()."""
    with pytest.raises(TypeError, match=r"not a single str; use search\(\) for one query"):
        index.batch_search("routers")


def test_threads_zero(index):
    """threads=0 is a QueryError, in batch_search and in build."""
    with pytest.raises(QueryError, match="threads must be at least 1"):
        index.batch_search(["packets"], threads=0)
    with pytest.raises(QueryError, match="threads must be at least 1"):
        build([("d1", "text")], threads=0)


def test_explain_unknown_docid(index):
    """explain of a docid not in the index is an UnknownDocidError, also a KeyError."""
    with pytest.raises(UnknownDocidError, match='unknown docid "nope"') as info:
        index.explain("packets", "nope")
    assert isinstance(info.value, KeyError)
    assert str(info.value) == 'unknown docid "nope": it is not in this index'
    with pytest.raises(KeyError):
        index.explain("packets", "D1")


def test_docids_of_unknown_internal_id(index):
    """Mapping an internal id that is not in the index is a ValueError naming it."""
    with pytest.raises(ValueError, match="internal id 7 is not in this index"):
        index.docids(np.array([0, 7]))
    with pytest.raises(ValueError, match="internal id -2 is not in this index"):
        index.docids([-2])


# ---------------------------------------------------------------------------
# Analyzers
# ---------------------------------------------------------------------------


def test_unknown_analyzer_preset(tmp_path):
    """An unknown preset is an AnalyzerError listing the presets, wherever it is named."""
    message = 'unknown analyzer "klingon"; choose one of lucene-english, plain, code, whitespace'
    with pytest.raises(AnalyzerError, match=re.escape(message)):
        rserini.Analyzer("klingon")
    with pytest.raises(AnalyzerError, match=re.escape(message)):
        build([("d1", "text")], analyzer="klingon")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "d1", "contents": "text"}\n', encoding="utf-8")
    with pytest.raises(AnalyzerError, match=re.escape(message)):
        rserini.Index.from_jsonl(corpus, analyzer="klingon", progress=False)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tokenizer": "spacy"}, 'unknown tokenizer "spacy"'),
        ({"stemmer": "lancaster"}, 'unknown stemmer "lancaster"'),
        ({"stopwords": "french"}, 'unknown stopword list "french"'),
    ],
)
def test_unknown_analyzer_options(kwargs, message):
    """Unknown tokenizer, stemmer or stopword list names are AnalyzerErrors."""
    with pytest.raises(AnalyzerError, match=re.escape(message)):
        rserini.Analyzer("plain", **kwargs)


# ---------------------------------------------------------------------------
# Documents given as Python objects
# ---------------------------------------------------------------------------


def test_duplicate_docids():
    """A docid given twice is a DocumentError naming it and both positions."""
    docs = [("d1", "a"), ("d2", "b"), ("d1", "c")]
    message = 'duplicate docid "d1" (documents #0 and #2)'
    with pytest.raises(DocumentError, match=re.escape(message)):
        build(docs)


def test_duplicate_docids_across_batches():
    """Duplicates are caught even when 20,000 documents separate them."""
    docs = [(f"d{i}", "text") for i in range(20_001)] + [("d7", "again")]
    message = 'duplicate docid "d7" (documents #7 and #20001)'
    with pytest.raises(DocumentError, match=re.escape(message)):
        build(docs)


def test_duplicate_docids_in_dicts():
    """Duplicates among dict documents (int ids become strings) are DocumentErrors too."""
    docs = [{"id": 1, "contents": "a"}, {"_id": "1", "title": "t", "text": "b"}]
    with pytest.raises(DocumentError, match='duplicate docid "1"'):
        build(docs)


@pytest.mark.parametrize("doc", [("", "text"), {"id": "", "contents": "text"}])
def test_empty_docid(doc):
    """An empty docid is a DocumentError."""
    with pytest.raises(DocumentError, match="document #1 has an empty docid"):
        build([("d0", "fine"), doc])


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ((1, "text"), "document #0: the docid must be a str, got int"),
        ((None, "text"), "document #0: the docid must be a str, got NoneType"),
        (("d1", None), "document #0: the text must be a str, got NoneType"),
        (("d1", b"bytes"), "document #0: the text must be a str, got bytes"),
        ({"id": "d1", "contents": 5}, 'field "contents" must be a string, got int'),
        ({"id": 1.5, "contents": "x"}, 'field "id" must be a string, got float'),
        ({"_id": "d1", "title": "t", "text": ["x"]}, 'field "text" must be a string, got list'),
    ],
)
def test_docid_or_text_of_wrong_type(doc, message):
    """A docid or text that is not a str is a TypeError naming the field and the type."""
    with pytest.raises(TypeError, match=re.escape(message)):
        build([doc])


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (42, "document #1 is a int; give (docid, text) pairs or dicts"),
        ("d1 text", "document #1 is a str; give (docid, text) pairs or dicts"),
        (("d1", "text", "extra"), "document #1 is a tuple; give (docid, text) pairs or dicts"),
        (None, "document #1 is a NoneType; give (docid, text) pairs or dicts"),
    ],
)
def test_document_neither_pair_nor_dict(item, message):
    """A docs item that is neither a pair nor a dict is a TypeError naming its position."""
    with pytest.raises(TypeError, match=re.escape(message)):
        build([("d0", "fine"), item])


def test_docs_not_iterable():
    """docs that cannot be iterated are a TypeError."""
    with pytest.raises(TypeError):
        build(42)


def test_dict_without_id_or_text():
    """A dict with no id, or no text, is a ValueError saying which shapes are accepted."""
    with pytest.raises(ValueError, match=re.escape("document #0 has no id")):
        build([{"contents": "text"}])
    with pytest.raises(ValueError, match=re.escape('document #0 ("d1") has no text')):
        build([{"id": "d1"}])


def test_empty_corpus_builds_an_empty_index():
    """No documents is not an error: the index has 0 docs and every search finds nothing."""
    empty = build([])
    assert len(empty) == 0
    assert empty.stats()["num_docs"] == 0
    assert empty.search("anything") == []
    assert empty.search("anything", model="tfidf") == []
    assert empty.search("anything", variant="bm25+", length="exact") == []
    ids, scores = empty.batch_search(["anything", "else"], k=3)
    assert ids.shape == scores.shape == (2, 0)  # columns stop at the corpus size
    assert empty.docids(ids) == [[], []]
    with pytest.raises(UnknownDocidError):
        empty.explain("anything", "d1")


def test_empty_corpus_survives_save_and_load(tmp_path):
    """An empty index saves and loads back empty."""
    build([]).save(tmp_path / "ix")
    loaded = rserini.Index.load(tmp_path / "ix")
    assert len(loaded) == 0
    assert loaded.search("anything") == []


# ---------------------------------------------------------------------------
# JSONL corpora
# ---------------------------------------------------------------------------


def write_lines(path: Path, lines: list[str]) -> Path:
    """Writes ``lines`` as a UTF-8 JSONL file."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def from_jsonl(path: Path) -> rserini.Index:
    """Index.from_jsonl without a progress bar."""
    return rserini.Index.from_jsonl(path, progress=False)


def test_jsonl_broken_json_names_file_and_line(tmp_path):
    """Broken JSON is a ParseError whose path and 1-based line (blank lines counted) locate it."""
    good = json.dumps({"id": "d1", "contents": "x"})
    corpus = write_lines(
        tmp_path / "corpus.jsonl",
        [good, "", json.dumps({"id": "d2", "contents": "y"}), '{"id": "d3", "contents": ', good],
    )
    with pytest.raises(ParseError, match="malformed JSON") as info:
        from_jsonl(corpus)
    assert info.value.line == 4
    assert Path(info.value.path) == corpus
    assert str(info.value).startswith(f"{corpus}:4: ")
    assert isinstance(info.value, DocumentError)


def test_jsonl_error_in_second_file_of_folder(tmp_path):
    """In a folder, the ParseError names the damaged file, not the folder."""
    write_lines(tmp_path / "a.jsonl", [json.dumps({"id": "d1", "contents": "x"})])
    bad = write_lines(tmp_path / "b.jsonl", [json.dumps({"id": "d2", "contents": "y"}), "[1, 2]"])
    with pytest.raises(ParseError, match="expected a JSON object per line") as info:
        from_jsonl(tmp_path)
    assert Path(info.value.path) == bad
    assert info.value.line == 2


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"id": "d1"}, 'missing field "contents"'),
        ({"_id": "d1"}, 'missing field "text"'),
        ({"title": "t", "text": "x"}, "no document id"),
        ({"id": "d1", "contents": 5}, 'field "contents" must be a string'),
    ],
)
def test_jsonl_missing_or_bad_fields(tmp_path, line, message):
    """A line without its id or text field is a ParseError naming the field."""
    ok = json.dumps({"id": "d0", "contents": "fine"})
    corpus = write_lines(tmp_path / "corpus.jsonl", [ok, json.dumps(line)])
    with pytest.raises(ParseError, match=re.escape(message)) as info:
        from_jsonl(corpus)
    assert info.value.line == 2
    assert Path(info.value.path) == corpus


def test_jsonl_non_utf8_line(tmp_path):
    """A line that is not UTF-8 is a ParseError naming its line."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b'{"id": "d1", "contents": "x"}\n{"id": "d2", "contents": "caf\xe9"}\n')
    with pytest.raises(ParseError, match="not valid UTF-8") as info:
        from_jsonl(corpus)
    assert info.value.line == 2
    assert Path(info.value.path) == corpus


def test_jsonl_duplicate_docids(tmp_path):
    """Duplicate docids in a JSONL corpus are a DocumentError."""
    line = json.dumps({"id": "d1", "contents": "x"})
    corpus = write_lines(tmp_path / "corpus.jsonl", [line, line])
    with pytest.raises(DocumentError, match='duplicate docid "d1"'):
        from_jsonl(corpus)


def test_jsonl_empty_folder(tmp_path):
    """A folder without corpus files is a DocumentError saying what it looked for."""
    (tmp_path / "notes.txt").write_text("not a corpus", encoding="utf-8")
    with pytest.raises(DocumentError, match=r"holds no \.jsonl, \.jsonl\.gz or \.json file"):
        from_jsonl(tmp_path)


def test_jsonl_missing_path(tmp_path):
    """A corpus path that does not exist is a FileNotFoundError naming it."""
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        from_jsonl(missing)


# ---------------------------------------------------------------------------
# Saving and loading
# ---------------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path, index) -> Path:
    """The small index saved into a fresh folder."""
    path = tmp_path / "index"
    index.save(path)
    return path


def test_load_missing_folder(tmp_path):
    """Loading a folder that does not exist is a FileNotFoundError naming it."""
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        rserini.Index.load(missing)


def test_load_folder_without_meta(tmp_path):
    """A folder without meta.json is an IndexCorruptedError naming meta.json."""
    (tmp_path / "stuff.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(IndexCorruptedError, match="not a \\(complete\\) rserini index") as info:
        rserini.Index.load(tmp_path)
    assert Path(info.value.path) == tmp_path / "meta.json"


def test_load_meta_of_another_version(saved):
    """A meta.json of another format version is an IndexVersionError asking to rebuild."""
    meta_path = saved / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["format_version"] = 999
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(IndexVersionError, match=r"format version 999.*rebuild the index"):
        rserini.Index.load(saved)


def test_saved_index_loads_back(saved, index):
    """The undamaged saved index loads and searches like the original (control case)."""
    loaded = rserini.Index.load(saved)
    assert loaded.search("packets soil") == index.search("packets soil")
    names = sorted(p.name for p in saved.iterdir())
    assert names == sorted([*DATA_FILES, "meta.json", "write.lock"])


@pytest.mark.parametrize("name", DATA_FILES)
@pytest.mark.parametrize("keep", [0, 10, "half", -1])
def test_load_truncated_file(saved, name, keep):
    """A truncated data file is an IndexCorruptedError whose path and message name it."""
    path = saved / name
    data = path.read_bytes()
    cut = {"half": len(data) // 2, -1: len(data) - 1}.get(keep, keep)
    path.write_bytes(data[:cut])
    with pytest.raises(IndexCorruptedError, match=re.escape(name)) as info:
        rserini.Index.load(saved)
    assert Path(info.value.path) == path


@pytest.mark.parametrize("name", DATA_FILES)
def test_load_any_flipped_byte(saved, name):
    """Flipping any single byte of a data file is an IndexCorruptedError naming that file."""
    path = saved / name
    original = path.read_bytes()
    for position in range(len(original)):
        damaged = bytearray(original)
        damaged[position] ^= 0x01
        path.write_bytes(bytes(damaged))
        with pytest.raises(IndexCorruptedError, match=re.escape(name)) as info:
            rserini.Index.load(saved)
        assert Path(info.value.path) == path, position
    path.write_bytes(original)
    rserini.Index.load(saved)


@pytest.mark.parametrize("name", DATA_FILES)
def test_load_missing_data_file(saved, name):
    """A deleted data file is an IndexCorruptedError naming it."""
    (saved / name).unlink()
    with pytest.raises(IndexCorruptedError, match=re.escape(name)):
        rserini.Index.load(saved)


def test_save_into_non_index_folder_refuses_and_touches_nothing(tmp_path, index):
    """Saving into a non-empty folder that is not an index is a FileExistsError; files stay."""
    folder = tmp_path / "precious"
    folder.mkdir()
    (folder / "thesis.tex").write_text("years of work", encoding="utf-8")
    (folder / "sub").mkdir()
    (folder / "sub" / "data.bin").write_bytes(b"\x00\x01")
    with pytest.raises(FileExistsError, match="not an rserini index"):
        index.save(folder)
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == [
        "sub",
        "sub/data.bin",
        "thesis.tex",
    ]
    assert (folder / "thesis.tex").read_text(encoding="utf-8") == "years of work"
    assert (folder / "sub" / "data.bin").read_bytes() == b"\x00\x01"


def test_save_over_an_existing_index_replaces_it(saved):
    """Saving into a folder that holds an index replaces it (not an error)."""
    other = build([("x1", "entirely different words")])
    other.save(saved)
    loaded = rserini.Index.load(saved)
    assert len(loaded) == 1
    assert [h.docid for h in loaded.search("words")] == ["x1"]
