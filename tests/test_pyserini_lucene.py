"""rserini.pyserini on Lucene index folders: ``LuceneSearcher`` (BM25 at three settings, QLD,
stored documents, ids) and ``IndexReader`` give what Pyserini 1.6.0 gives on the same
folders (its outputs recorded with the fixtures of tests/data/lucene, and live Pyserini on
fresh builds: marker ``parity``); ``from_prebuilt_index`` opens a real Lucene index from a
cache laid out as Pyserini's, offline, and after a download from a local HTTP server; the
folders are never modified."""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import io
import json
import tarfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lucene_fixtures import (
    LUCENE_DATA,
    LuceneBuild,
    committed_indexes,
    expected_outputs,
    folder_digest,
    lucene_index,  # noqa: F401 (a fixture)
)
from rserini.lucene import prebuilt
from rserini.lucene.prebuilt import ChecksumError, DownloadError, PrebuiltIndex
from rserini.pyserini import IndexReader, LuceneSearcher, NotSupportedError
from support import collection, http_server, run_with_pyserini

# The Lucene 9 fixtures (a Lucene 8 index is a version error: tests/test_lucene_index.py).
VERSIONS = ("9.9.1", "9.3.0")
COMMITTED = [(v, name) for v, name, _ in committed_indexes() if not v.startswith("8.")]


def queries() -> list[tuple[str, str]]:
    lines = (collection("adi") / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [(q["_id"], q["text"]) for q in map(json.loads, lines)]


def searched(searcher: LuceneSearcher, run: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """``run``'s setting searched with ``searcher``: ``{qid: [[docid, score], ...]}``."""
    if run["model"] == "bm25":
        searcher.set_bm25(run["k1"], run["b"])
    else:
        searcher.set_qld(run["mu"])
    qs = queries()
    hits = searcher.batch_search([t for _, t in qs], [q for q, _ in qs], k=run["k"])
    return {qid: [[h.docid, h.score] for h in found] for qid, found in hits.items()}


@pytest.mark.parametrize(("version", "name"), COMMITTED)
def test_rankings_and_scores_are_pyserinis(version: str, name: str) -> None:
    folder = LUCENE_DATA / version / name
    before = folder_digest(folder)
    expected = expected_outputs(name, version)
    searcher = LuceneSearcher(folder)
    assert searcher.num_docs == expected["index"]["stats"]["num_docs"]
    runs = [r for r in expected["runs"] if not r["fields"]]
    assert runs
    for run in runs:
        got = searched(searcher, run)
        top10 = sum(got[q][:10] == hits[:10] for q, hits in run["hits"].items())
        whole = sum(got[q] == hits for q, hits in run["hits"].items())
        assert (top10, whole) == (len(run["hits"]), len(run["hits"])), run["model"]
    assert folder_digest(folder) == before


@pytest.mark.parametrize(("version", "name"), COMMITTED)
def test_documents_and_ids_are_pyserinis(version: str, name: str) -> None:
    folder = LUCENE_DATA / version / name
    expected = expected_outputs(name, version)
    searcher, reader = LuceneSearcher(folder), IndexReader(folder)
    for docid, want in expected["docs"].items():
        document = searcher.doc(docid)
        if want is None:
            assert document is None and reader.doc_raw(docid) is None
            assert reader.get_document_vector(docid) is None
            continue
        assert document is not None and document.docid() == docid
        assert (document.raw(), document.contents()) == (want["raw"], want["contents"])
        assert (reader.doc_raw(docid), reader.doc_contents(docid)) == (
            want["raw"],
            want["contents"],
        )
        assert reader.get_document_vector(docid) == want["vector"]
    for docid, internal in expected["index"]["lucene_docids"].items():
        assert reader.convert_collection_docid_to_internal_docid(docid) == internal
        assert reader.convert_internal_docid_to_collection_docid(internal) == docid
        by_id = searcher.doc(internal)
        assert by_id is not None and by_id.docid() == docid
    assert reader.convert_collection_docid_to_internal_docid("no-such-doc") == -1
    assert searcher.doc(10**6) is None and searcher.doc(-1) is None


@pytest.mark.parametrize(("version", "name"), COMMITTED)
def test_index_reader_stats_are_pyserinis(version: str, name: str) -> None:
    expected = expected_outputs(name, version)
    assert (
        IndexReader(LUCENE_DATA / version / name).stats() == expected["index"]["stats"]["pyserini"]
    )


def test_feedback_needs_stored_text_on_a_lucene_index() -> None:
    searcher = LuceneSearcher(LUCENE_DATA / "9.9.1" / "adi-3files-2threads-cfs-drop3")
    with pytest.raises(NotSupportedError, match="neither -storeContents nor -storeRaw"):
        searcher.set_rm3()
    with pytest.raises(NotSupportedError, match="neither -storeContents nor -storeRaw"):
        searcher.set_rocchio()
    raw_only = LuceneSearcher(LUCENE_DATA / "9.9.1" / "adi-1seg-raw")
    assert not raw_only.contents_stored()
    raw_only.set_rm3()  # the contents of the raw JSON are fed back
    assert raw_only.search("library catalog", k=5)


@pytest.mark.parametrize("version", VERSIONS)
def test_multifield_search_is_pyserinis(version: str) -> None:
    """Pyserini's search(q, k, fields={"contents": 1.0, "title": 0.5}) on a -fields title
    index."""
    name = "adi-3files-2threads-fields-title-raw"
    searcher = LuceneSearcher(LUCENE_DATA / version / name)
    runs = [r for r in expected_outputs(name, version)["runs"] if r["fields"]]
    assert len(runs) == 1
    run = runs[0]
    searcher.set_bm25(run["k1"], run["b"])
    qs = queries()
    got = searcher.batch_search(
        [t for _, t in qs], [q for q, _ in qs], k=run["k"], fields=run["fields"]
    )
    for qid, want in run["hits"].items():
        assert [[h.docid, h.score] for h in got[qid]] == want, qid
    one = searcher.search(qs[0][1], k=run["k"], fields=run["fields"])
    assert [[h.docid, h.score] for h in one] == run["hits"][qs[0][0]]
    searcher.set_qld()
    with pytest.raises(NotSupportedError, match="fields= searches with BM25"):
        searcher.search("library", fields=run["fields"])


# -- IndexReader against live Pyserini -------------------------------------------------------

TERMS = ["information", "retrieval", "systems", "library", "the", "computer", "zzzunseen"]


def pyserini(script: str) -> Any:
    """Runs ``script`` (which prints one JSON line last) with Pyserini in a child process."""
    return json.loads(run_with_pyserini("import json\n" + script).strip().splitlines()[-1])


READER_SCRIPT = """
from pyserini.index.lucene import LuceneIndexReader
terms, docids = {terms!r}, {docids!r}
def reader_outputs(folder):
  r = LuceneIndexReader(folder)
  def counts(t):
      try:
          return list(r.get_term_counts(t))
      except Exception:
          return None
  def postings(t, analyzer):
      try:
          found = r.get_postings_list(t) if analyzer else r.get_postings_list(t, analyzer=None)
      except Exception:
          return "error"
      return None if found is None else [[p.docid, p.tf] for p in found]
  return {{
      "stats": r.stats(),
      "counts": [counts(t) for t in terms],
      "plain_counts": [list(r.get_term_counts(t, analyzer=None)) for t in terms],
      "postings": [postings(t, True) for t in terms],
      "analyzed_postings": [postings(r.analyze(t)[0], False) if r.analyze(t) else None
                            for t in terms],
      "weights": [[r.compute_bm25_term_weight(d, t) for t in terms[:4]] for d in docids],
      "weights_k1b": [[r.compute_bm25_term_weight(d, t, k1=1.2, b=0.75) for t in terms[:4]]
                      for d in docids],
      "analyzed_weights": [{{t: r.compute_bm25_term_weight(d, t, analyzer=None)
                            for t in sorted(r.get_document_vector(d) or {{}})}}
                           for d in docids],
      "ids": [r.convert_collection_docid_to_internal_docid(d) for d in docids],
      "docids": [r.convert_internal_docid_to_collection_docid(i) for i in range(5)],
      "raw": [r.doc_raw(d) for d in docids],
      "contents": [r.doc_contents(d) for d in docids],
      "vectors": [r.get_document_vector(d) for d in docids],
  }}
"""


def reader_outputs(reader: IndexReader, terms: list[str], docids: list[str]) -> dict[str, Any]:
    """What :data:`READER_SCRIPT`'s ``reader_outputs`` gives, from rserini's reader."""

    def counts(t: str) -> list[int] | None:
        try:
            return list(reader.get_term_counts(t))
        except ValueError:
            return None

    def postings(t: str, analyzed: bool) -> list[list[int]] | str | None:
        try:
            found = reader.get_postings_list(t) if analyzed else reader.get_postings_list(t, None)
        except ValueError:
            return "error"
        return None if found is None else [[p.docid, p.tf] for p in found]

    return {
        "stats": reader.stats(),
        "counts": [counts(t) for t in terms],
        "plain_counts": [list(reader.get_term_counts(t, analyzer=None)) for t in terms],
        "postings": [postings(t, True) for t in terms],
        "analyzed_postings": [
            postings(reader.analyze(t)[0], False) if reader.analyze(t) else None for t in terms
        ],
        "weights": [[reader.compute_bm25_term_weight(d, t) for t in terms[:4]] for d in docids],
        "weights_k1b": [
            [reader.compute_bm25_term_weight(d, t, k1=1.2, b=0.75) for t in terms[:4]]
            for d in docids
        ],
        "analyzed_weights": [
            {
                t: reader.compute_bm25_term_weight(d, t, analyzer=None)
                for t in sorted(reader.get_document_vector(d) or {})
            }
            for d in docids
        ],
        "ids": [reader.convert_collection_docid_to_internal_docid(d) for d in docids],
        "docids": [reader.convert_internal_docid_to_collection_docid(i) for i in range(5)],
        "raw": [reader.doc_raw(d) for d in docids],
        "contents": [reader.doc_contents(d) for d in docids],
        "vectors": [reader.get_document_vector(d) for d in docids],
    }


# Stored contents, positions and document vectors: the reader's and feedback's text is the
# stored contents field (the committed folders below store only the raw JSON).
CONTENTS_BUILD = LuceneBuild(
    "adi",
    files=3,
    threads=2,
    store_raw=True,
    store_contents=True,
    store_positions=True,
    store_docvectors=True,
)
READERS = {
    "1seg-raw": LUCENE_DATA / "9.9.1" / "adi-1seg-raw",
    "raw-pos-dv": LUCENE_DATA / "9.3.0" / "adi-3files-2threads-raw-pos-dv",  # vectors from raw
    "raw-del5": LUCENE_DATA / "9.3.0" / "adi-3files-2threads-raw-del5",  # deleted documents
}
"""The committed folders read live, beside ``contents-pos-dv`` (:data:`CONTENTS_BUILD`)."""
READER_DOCIDS = ["1", "17", "41", "82"]

FEEDBACK_SCRIPT = """
from pyserini.search.lucene import LuceneSearcher
def feedback_outputs(folder, qs):
  s = LuceneSearcher(folder)
  out = {{}}
  s.set_rm3()
  out["rm3"] = {{q: [[h.docid, h.score] for h in s.search(t, k=1000)] for q, t in qs}}
  s.unset_rm3()
  s.set_rocchio()
  out["rocchio"] = {{q: [[h.docid, h.score] for h in s.search(t, k=1000)] for q, t in qs}}
  return out
"""


@pytest.fixture(scope="module")
def live_pyserini(lucene_index: Any) -> dict[str, Any]:  # noqa: F811
    """Pyserini's ``LuceneIndexReader`` outputs on every folder of :data:`READERS` and its
    RM3 and Rocchio runs on :data:`CONTENTS_BUILD`, from one child JVM."""
    folders = READERS | {"contents-pos-dv": lucene_index(CONTENTS_BUILD)}
    script = (
        READER_SCRIPT.format(terms=TERMS, docids=READER_DOCIDS)
        + FEEDBACK_SCRIPT.format()
        + f"folders = { {k: str(v) for k, v in folders.items()}!r}\n"
        + f"qs = {queries()!r}\n"
        + "print(json.dumps({'folders': {k: reader_outputs(v) for k, v in folders.items()},"
        + " 'feedback': feedback_outputs(folders['contents-pos-dv'], qs)}))\n"
    )
    befores = {name: folder_digest(folder) for name, folder in folders.items()}
    return {"paths": folders, "befores": befores, **pyserini(script)}


@pytest.mark.parity
@pytest.mark.parametrize("name", [*READERS, "contents-pos-dv"])
def test_index_reader_is_live_pyserinis(live_pyserini: dict[str, Any], name: str) -> None:
    folder = live_pyserini["paths"][name]
    want = live_pyserini["folders"][name]
    got = reader_outputs(IndexReader(folder), TERMS, READER_DOCIDS)
    for key in want:
        assert got[key] == want[key], key
    assert folder_digest(folder) == live_pyserini["befores"][name]


@pytest.mark.parity
def test_rm3_and_rocchio_are_live_pyserinis(live_pyserini: dict[str, Any]) -> None:
    folder = live_pyserini["paths"]["contents-pos-dv"]
    want = live_pyserini["feedback"]
    qs = queries()
    searcher = LuceneSearcher(folder)
    searcher.set_rm3()
    rm3 = {q: [[h.docid, h.score] for h in searcher.search(t, k=1000)] for q, t in qs}
    searcher.unset_rm3()
    searcher.set_rocchio()
    rocchio = {q: [[h.docid, h.score] for h in searcher.search(t, k=1000)] for q, t in qs}
    for model, got in (("rm3", rm3), ("rocchio", rocchio)):
        assert sum(got[q][:10] == want[model][q][:10] for q, _ in qs) == len(qs), model
        same = sum(got[q] == want[model][q] for q, _ in qs)
        assert same >= 0.995 * len(qs), (model, same)


# -- prebuilt names over a real Lucene index -------------------------------------------------

FIXTURE = LUCENE_DATA / "9.9.1" / "adi-1seg-raw"
TOP = "lucene-inverted.adi-test.20250101.abcdef"


def fixture_tarball() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(FIXTURE, arcname=TOP)
    return buffer.getvalue()


TARBALL = fixture_tarball()


class Handler(http.server.BaseHTTPRequestHandler):
    """``/good``: the tarball; ``/cut``: half of it under the whole length."""

    def do_GET(self) -> None:
        if self.path not in ("/good", "/cut"):
            self.send_error(404, "Not Found")
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(TARBALL)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(TARBALL if self.path == "/good" else TARBALL[: len(TARBALL) // 2])
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with http_server(Handler) as url:
        yield url


@pytest.fixture
def named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``named(url, md5=None)``: the name ``adi-test`` served at ``url`` in a fresh
    Pyserini cache; returns the cache folder."""
    cache = tmp_path / "pyserini-cache"
    monkeypatch.setenv("PYSERINI_CACHE", str(cache))

    def make(url: str, md5: str | None = None) -> Path:
        index = PrebuiltIndex(
            name="adi-test",
            tarball=f"{TOP}.tar.gz",
            md5=md5 or hashlib.md5(TARBALL).hexdigest(),
            urls=(url,),
            size=len(TARBALL),
            documents=82,
            total_terms=3345,
        )
        monkeypatch.setattr(prebuilt, "prebuilt_indexes", lambda: {"adi-test": index})
        return cache

    return make


def refuse_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access: {args}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


def test_prebuilt_opens_the_cached_copy_offline(
    named: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = named("http://127.0.0.1:9/unused")
    folder = cache / "indexes" / f"{TOP}.{hashlib.md5(TARBALL).hexdigest()}"
    folder.parent.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(TARBALL)) as archive:
        archive.extractall(folder.parent, filter="data")
    (folder.parent / TOP).rename(folder)
    refuse_network(monkeypatch)
    searcher = LuceneSearcher.from_prebuilt_index("adi-test")
    direct = LuceneSearcher(FIXTURE)
    assert searcher.num_docs == 82
    want = [(h.docid, h.score) for h in direct.search("information retrieval", k=20)]
    assert [(h.docid, h.score) for h in searcher.search("information retrieval", k=20)] == want
    assert IndexReader.from_prebuilt_index("adi-test").stats()["documents"] == 82
    stale = dataclasses.replace(prebuilt.prebuilt_index("adi-test"), total_terms=3344)
    monkeypatch.setattr(prebuilt, "prebuilt_indexes", lambda: {"adi-test": stale})
    with pytest.raises(ValueError, match=r"total_terms is 3345 in .*, 3344 in Pyserini's table"):
        IndexReader.from_prebuilt_index("adi-test")


def test_prebuilt_downloads_then_searches(
    named: Any, server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    named(f"{server}/good")
    searcher = LuceneSearcher.from_prebuilt_index("adi-test")
    assert TOP in capsys.readouterr().err  # the progress bar
    document = searcher.doc("41")
    direct = LuceneSearcher(FIXTURE).doc("41")
    assert document is not None and direct is not None and document.raw() == direct.raw()
    refuse_network(monkeypatch)
    assert LuceneSearcher.from_prebuilt_index("adi-test", download=False).num_docs == 82


def test_prebuilt_bad_md5_and_interrupted_download(named: Any, server: str) -> None:
    cache = named(f"{server}/good", md5="0" * 32)
    with pytest.raises(ChecksumError, match=r"expected 0+"):
        LuceneSearcher.from_prebuilt_index("adi-test")
    named(f"{server}/cut")
    with pytest.raises(DownloadError, match="interrupted"):
        LuceneSearcher.from_prebuilt_index("adi-test")
    assert [p.name for p in (cache / "indexes").iterdir()] == []


# -- IndexReader over an rserini index of the same documents ---------------------------------


def test_index_reader_agrees_across_both_kinds_of_index(tmp_path: Path) -> None:
    """An rserini index of the documents of the one-segment fixture answers every
    IndexReader call as the Lucene folder does (internal ids mapped to docids)."""
    from rserini import Index
    from rserini.parity.lucene_build import read_beir_corpus

    docs = [(d["_id"], d["title"] + " " + d["text"]) for d in read_beir_corpus(collection("adi"))]
    Index.build(docs, progress=False).save(tmp_path / "rserini")
    ours, lucene = IndexReader(tmp_path / "rserini"), IndexReader(FIXTURE)
    assert (ours.lucene, lucene.lucene) == (False, True)
    assert ours.stats() == lucene.stats()

    def named(reader: IndexReader, term: str) -> list[tuple[str | None, int]] | None:
        found = reader.get_postings_list(term)
        if found is None:
            return None
        return [(reader.convert_internal_docid_to_collection_docid(p.docid), p.tf) for p in found]

    for term in [*TERMS[:4], "zzzunseen"]:
        assert ours.get_term_counts(term) == lucene.get_term_counts(term)
        assert named(ours, term) == named(lucene, term)
        for docid in ("1", "17", "41"):
            weight = ours.compute_bm25_term_weight(docid, term)
            assert weight == lucene.compute_bm25_term_weight(docid, term)
    vector = ours.get_document_vector("17")
    assert vector is not None and sum(vector.values()) == len(ours.analyze(docs[16][1]))
    assert lucene.get_document_vector("17") == {}  # no document vectors in the folder
    document = ours.doc("17")
    assert document is not None and document.contents() == docs[16][1]
    assert ours.convert_collection_docid_to_internal_docid("no-such-doc") == -1
    with pytest.raises(ValueError, match="analyzes to no term"):
        ours.get_term_counts("the")
