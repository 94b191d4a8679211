"""Duplicate docids, Lucene's way: ``duplicates="error"`` (default) or ``"keep"``.

With ``"keep"`` every copy is indexed and ranked on its own (copies with equal scores
in the order they were added), lookups by docid read the first copy, and deleting a
docid deletes every copy, as Lucene's delete-by-term. ``rserini parity`` then measures
such corpora against Pyserini, which indexes every copy too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hang_guard import run_python

import rserini
from rserini import DocumentError, QueryError, UnknownDocidError
from rserini.pyserini import LuceneSearcher
from support import collection, require_pyserini

DOCS = [
    ("a", "apple pie"),
    ("b", "banana apple"),
    ("a", "apple apple tart"),  # same id, other text
    ("c", "cherry"),
    ("a", "apple pie"),  # an exact copy of the first
]


def cli(*args: object) -> Any:
    code = "import sys; from rserini.cli import main; sys.exit(main(sys.argv[1:]))"
    return run_python(code, *map(str, args), timeout=120)


def write_jsonl(path: Path, docs: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in docs))
    return path


# ---------------------------------------------------------------------------------------
# The default refuses, and says how to keep them


def test_build_refuses_duplicates_by_default(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r'duplicate docid "a" \(documents #0 and #2\)') as e:
        rserini.Index.build(DOCS, progress=False)
    assert 'duplicates="keep"' in str(e.value)
    with pytest.raises(DocumentError, match='duplicate docid "a"'):
        rserini.Index.from_jsonl(write_jsonl(tmp_path / "c.jsonl", DOCS), progress=False)


def test_add_refuses_an_existing_docid_by_default() -> None:
    index = rserini.Index.build(DOCS[:2], progress=False)
    index.add([("a", "again")])
    with pytest.raises(DocumentError, match='docid "a" is already in the index') as e:
        index.commit()
    assert 'duplicates="keep"' in str(e.value)


@pytest.mark.parametrize("policy", ["Keep", "ignore", ""])
def test_unknown_policy_is_a_query_error(policy: str) -> None:
    with pytest.raises(QueryError, match=f'unknown duplicates policy "{policy}"'):
        rserini.Index.build(DOCS, progress=False, duplicates=policy)
    index = rserini.Index.build(DOCS[:2], progress=False)
    with pytest.raises(QueryError, match="unknown duplicates policy"):
        index.add([("z", "z")], duplicates=policy)


@pytest.mark.parametrize("policy", [None, 1, True, b"keep"])
def test_policy_of_the_wrong_type_is_a_type_error(policy: object) -> None:
    with pytest.raises(TypeError):
        rserini.Index.build(DOCS, progress=False, duplicates=policy)


def test_empty_docids_are_refused_even_when_keeping() -> None:
    with pytest.raises(DocumentError, match="document #1 has an empty docid"):
        rserini.Index.build([("a", "x"), ("", "y")], progress=False, duplicates="keep")


# ---------------------------------------------------------------------------------------
# "keep": every copy indexed and ranked, lookups read the first


@pytest.fixture(params=["build", "from_jsonl", "add", "flushed"])
def kept(request: pytest.FixtureRequest, tmp_path: Path) -> rserini.Index:
    if request.param == "build":
        return rserini.Index.build(DOCS, progress=False, duplicates="keep")
    if request.param == "flushed":  # a segment per document, merged at the end
        return rserini.Index.build(DOCS, progress=False, duplicates="keep", memory_mb=0)
    if request.param == "from_jsonl":
        path = write_jsonl(tmp_path / "c.jsonl", DOCS)
        return rserini.Index.from_jsonl(path, progress=False, duplicates="keep")
    index = rserini.Index.build(DOCS[:2], progress=False)
    index.save(tmp_path / "idx")
    index = rserini.Index.load(tmp_path / "idx")
    index.add(DOCS[2:], duplicates="keep")
    index.commit()
    return rserini.Index.load(tmp_path / "idx")


def test_every_copy_is_indexed_and_ranked(kept: rserini.Index) -> None:
    assert len(kept) == 5
    hits = kept.search_pairs("apple", k=10)
    assert [d for d, _ in hits] == ["a", "a", "a", "b"]
    # Lucene BM25 of each copy on its own; the exact copies score alike.
    assert hits[0][1] > hits[1][1] == hits[2][1] == hits[3][1]
    ids, scores = kept.batch_search(["apple"], k=10)
    assert kept.docids(ids) == [["a", "a", "a", "b"]]
    assert scores[0][:4].tolist() == [s for _, s in hits]


def test_equal_copies_rank_in_the_order_added(kept: rserini.Index) -> None:
    """Among equal scores, one docid's copies come in the order they were added."""
    ids, _ = kept.batch_search(["pie"], k=10)
    row = [int(i) for i in ids[0] if i >= 0]
    assert kept.docids(row) == ["a", "a"] and row == sorted(row)


def test_lookups_read_the_first_copy(kept: rserini.Index) -> None:
    assert kept.contents("a") == "apple pie"
    assert kept.doc("a") == {"id": "a", "contents": "apple pie"}
    assert "a" in kept
    # "apple pie" (the first copy), not "apple apple tart" (the best-scoring one).
    scores = [score for _, score in kept.search_pairs("apple", k=10)]
    assert math.isclose(kept.explain("apple", "a").score, scores[1], rel_tol=1e-6)
    assert not math.isclose(kept.explain("apple", "a").score, scores[0], rel_tol=1e-6)


def test_delete_removes_every_copy(kept: rserini.Index) -> None:
    kept.delete("a")
    kept.commit()
    assert len(kept) == 2
    assert "a" not in kept
    assert kept.search_pairs("apple", k=10) == [("b", pytest.approx(0.3431, abs=1e-4))]
    with pytest.raises(UnknownDocidError):
        kept.contents("a")


def test_copies_survive_save_load_and_optimize(kept: rserini.Index, tmp_path: Path) -> None:
    before = kept.search_pairs("apple", k=10)
    kept.save(tmp_path / "saved")
    loaded = rserini.Index.load(tmp_path / "saved")
    assert loaded.search_pairs("apple", k=10) == before
    loaded.optimize()
    assert loaded.search_pairs("apple", k=10) == before
    loaded.verify()


def test_delete_of_a_queued_copy_with_keep_removes_all(tmp_path: Path) -> None:
    index = rserini.Index.build(DOCS[:2], progress=False)
    index.add([("a", "apple one"), ("a", "apple two"), ("d", "date")], duplicates="keep")
    index.delete("a")  # the indexed "a" and both queued copies
    index.commit()
    assert sorted(d for d, _ in index.search_pairs("apple date banana", k=10)) == ["b", "d"]


def test_one_commit_one_policy() -> None:
    index = rserini.Index.build(DOCS[:2], progress=False)
    index.add([("x", "x")], duplicates="keep")
    with pytest.raises(QueryError, match='added with duplicates="keep": commit'):
        index.add([("y", "y")])
    index.commit()
    index.add([("y", "y")])  # a new commit, a new policy
    index.commit()
    assert len(index) == 4


def test_cli_index_duplicates(tmp_path: Path) -> None:
    corpus = write_jsonl(tmp_path / "c.jsonl", DOCS)
    out = cli("index", "--input", corpus, "--index", tmp_path / "refused", "-q")
    assert out.returncode == 1 and out.stderr.startswith("rserini: error: duplicate docid")
    assert 'duplicates="keep"' in out.stderr
    out = cli(
        "index", "--input", corpus, "--index", tmp_path / "kept", "-q", "--duplicates", "keep"
    )
    assert out.returncode == 0, out.stderr
    assert len(rserini.Index.load(tmp_path / "kept")) == 5
    more = write_jsonl(tmp_path / "more.jsonl", [("c", "cherry again")])
    args = ["index", "--append", "--input", more, "--index", tmp_path / "kept", "-q"]
    assert cli(*args).returncode == 1
    assert cli(*args, "--duplicates", "keep").returncode == 0
    assert len(rserini.Index.load(tmp_path / "kept")) == 6


# ---------------------------------------------------------------------------------------
# The Pyserini facade and run --pyserini: as Pyserini does


def test_lucene_searcher_returns_every_copy(tmp_path: Path) -> None:
    rserini.Index.build(DOCS, progress=False, duplicates="keep").save(tmp_path / "idx")
    searcher = LuceneSearcher(str(tmp_path / "idx"))
    hits = searcher.search("apple", k=10)
    assert [h.docid for h in hits] == ["a", "a", "a", "b"]
    assert [h.docid for h in searcher.search("apple", k=10, remove_dups=True)] == ["a", "b"]
    document = searcher.doc("a")
    assert document is not None and document.contents() == "apple pie"
    assert searcher.num_docs == 5


def test_run_as_pyserini_writes_every_copy(tmp_path: Path) -> None:
    rserini.Index.build(DOCS, progress=False, duplicates="keep").save(tmp_path / "idx")
    (tmp_path / "q.tsv").write_text("q1\tapple\n")
    for flags in ([], ["--pyserini"]):
        output = tmp_path / f"run{len(flags)}.trec"
        args = ["run", "--index", tmp_path / "idx", "--queries", tmp_path / "q.tsv"]
        out = cli(*args, "--output", output, *flags)
        assert out.returncode == 0, out.stderr
        assert [line.split()[2] for line in output.read_text().splitlines()] == [
            "a", "a", "a", "b",
        ]  # fmt: skip


# ---------------------------------------------------------------------------------------
# avgdl: the mean each length mode scores with


def test_stats_report_the_mean_length_of_each_length_mode() -> None:
    index = rserini.Index.build(
        [("d1", "routers forward packets"), ("d2", "the of and"), ("d3", "packets")],
        progress=False,
    )
    stats = index.stats()
    assert stats["num_docs"] == 3 and stats["num_nonempty_docs"] == 2
    assert stats["avgdl"] == pytest.approx(4 / 3)  # every document, as before
    assert stats["avgdl_exact"] == pytest.approx(4 / 3)
    assert stats["avgdl_lucene"] == pytest.approx(2.0)  # documents with a term, as Lucene
    empty = rserini.Index.build([("e", "the")], progress=False).stats()
    assert empty["avgdl"] == 0.0


# ---------------------------------------------------------------------------------------
# Parity with a live Pyserini on a corpus with duplicate docids


@pytest.mark.parity
def test_parity_on_a_corpus_with_duplicate_docids(tmp_path: Path) -> None:
    """Both engines index every copy: rankings identical, bit for bit."""
    require_pyserini()
    source = collection("adi")
    rows = [json.loads(line) for line in (source / "corpus.jsonl").read_text().splitlines()]
    corpus = []
    for i, row in enumerate(rows):
        corpus.append(row)
        if i % 5 == 0:
            corpus.append(dict(row))  # an exact copy
        if i % 9 == 1:
            corpus.append(dict(row, text=row["text"][: len(row["text"]) // 2]))  # same id
    corpus += [dict(row) for row in rows[:10]]  # copies far from the first
    folder = tmp_path / "adi-dup"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (folder / "queries.jsonl").write_bytes((source / "queries.jsonl").read_bytes())
    (folder / "qrels").mkdir()
    for qrels in (source / "qrels").iterdir():
        (folder / "qrels" / qrels.name).write_bytes(qrels.read_bytes())
    report_path = tmp_path / "report.json"
    out = cli(
        "parity", "--corpus", folder, "--k1", "0.9", "1.2", "--b", "0.4", "0.75",
        "--acceptance", "--json", report_path, "-q",
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(report_path.read_text())
    assert report["documents"] == len(corpus)
    assert len(report["issues"]["duplicate_docids"]) == len(corpus) - len(rows)
    assert report["pyserini"]["doc_count"] == report["rserini"]["doc_count"]
    for setting in report["settings"]:
        assert setting["same_topk"] == setting["queries"] == 35
        assert setting["raw_bitwise_equal"] == 1.0
