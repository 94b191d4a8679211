"""Multifield indexes of rserini's own: built with ``fields=`` (``rserini index --fields``),
searched with boosts (``fields=``, ``rserini run --fields``, ``rserini search
--search-fields``), saved and loaded with their fields. Equal to a reference: the sum over
fields of each field's BM25 under its own statistics, times its boost. (Pyserini's own
rankings on the same documents: tests/test_lucene_parity.py.)"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from reference import bm25_scores
from rserini.cli import main
from rserini.exceptions import DocumentError, QueryError
from rserini.pyserini import LuceneSearcher

WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"])
DOC = st.tuples(st.lists(WORDS, max_size=12), st.none() | st.lists(WORDS, max_size=4))


def documents(rows: list[tuple[list[str], list[str] | None]]) -> list[dict[str, Any]]:
    docs = []
    for i, (words, title) in enumerate(rows):
        doc: dict[str, Any] = {"id": f"d{(i * 7) % 97:02d}-{i}", "contents": " ".join(words)}
        if title is not None:
            doc["title"] = " ".join(title)
        docs.append(doc)
    return docs


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(DOC, min_size=1, max_size=25),
    query=st.lists(WORDS, min_size=1, max_size=4),
    boosts=st.tuples(st.sampled_from([1.0, 0.5, 2.0]), st.sampled_from([1.0, 0.5, 1.7])),
)
def test_a_multifield_search_is_the_boosted_sum_of_each_fields_bm25(
    rows: list[tuple[list[str], list[str] | None]], query: list[str], boosts: tuple[float, float]
) -> None:
    docs = documents(rows)
    index = rserini.Index.build(
        docs, analyzer="whitespace", fields=["title"], store=False, progress=False
    )
    fields = {"contents": boosts[0], "title": boosts[1]}
    hits = index.search_pairs(" ".join(query), k=1000, fields=fields)
    expected: dict[int, float] = {}
    for name, boost in fields.items():
        texts = [d.get(name, "").split() for d in docs]
        for i, score in bm25_scores(texts, query).items():
            expected[i] = expected.get(i, 0.0) + boost * score
    assert {d for d, _ in hits} == {docs[i]["id"] for i in expected}
    for docid, score in hits:
        i = next(i for i, d in enumerate(docs) if d["id"] == docid)
        assert score == pytest.approx(expected[i], rel=2e-6, abs=1e-6)
    # Best first, ties by docid.
    assert hits == sorted(hits, key=lambda h: (-h[1], h[0]))


def test_fields_are_saved_loaded_pickled_and_changed(tmp_path: Path) -> None:
    docs = [
        {"id": "a", "contents": "cats and dogs", "title": "cats"},
        {"id": "b", "contents": "dogs only here", "title": "dogs dogs"},
        {"id": "c", "contents": "birds", "title": None},
    ]
    fields = {"contents": 1.0, "title": 0.5}
    index = rserini.Index.build(docs, fields=["title"], progress=False)
    expected = index.search_pairs("cats dogs", fields=fields)
    index.save(tmp_path / "ix")
    assert sorted(p.name for p in (tmp_path / "ix" / "fields").iterdir()) == ["title"]
    loaded = rserini.Index.load(tmp_path / "ix")
    assert loaded.field_names() == ["contents", "title"]
    assert loaded.search_pairs("cats dogs", fields=fields) == expected
    assert loaded.info()["fields"] == ["contents", "title"]
    assert pickle.loads(pickle.dumps(index)).search_pairs("cats dogs", fields=fields) == expected
    with pytest.raises(QueryError, match=r'no field "tilte": its fields are contents, title'):
        loaded.search("cats", fields={"tilte": 1.0})
    # Changes reach every field; the index equals a fresh build of its documents.
    loaded.add([{"id": "d", "contents": "a cat", "title": "dogs and cats"}])
    loaded.delete(["b"])
    loaded.commit()
    added = {"id": "d", "contents": "a cat", "title": "dogs and cats"}
    fresh = rserini.Index.build([docs[0], docs[2], added], fields=["title"], progress=False)
    again = rserini.Index.load(tmp_path / "ix")
    assert again.search_pairs("cats dogs", fields=fields) == fresh.search_pairs(
        "cats dogs", fields=fields
    )


def test_bad_fields_are_precise_errors() -> None:
    with pytest.raises(ValueError, match="main field"):
        rserini.Index.build([("a", "x")], fields=["contents"], progress=False)
    with pytest.raises(ValueError, match="ASCII letters"):
        rserini.Index.build([("a", "x")], fields=["../up"], progress=False)
    with pytest.raises(DocumentError, match=r'document "a": field "tags" must be a string'):
        rserini.Index.build(
            [{"id": "a", "contents": "x", "tags": ["list"]}], fields=["tags"], progress=False
        )
    # A pair has no title: the field is empty.
    pairs = rserini.Index.build([("a", "x y")], fields=["title"], progress=False)
    assert pairs.search_pairs("x", fields={"title": 1.0}) == []


def test_the_command_line_builds_and_searches_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    rows = [
        {"id": "a", "contents": "retrieval of text", "title": "text retrieval"},
        {"id": "b", "contents": "text about cats", "title": "cats"},
        {"id": "c", "contents": "retrieval systems", "title": ""},
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\ttext retrieval\nq2\tcats\n", encoding="utf-8")
    ix = tmp_path / "ix"
    build = ["index", "--input", str(corpus), "--index", str(ix), "-q"]
    assert main([*build, "--fields", "title"]) == 0
    index = rserini.Index.load(ix)
    boosts = {"contents": 1.0, "title": 0.5}
    expected = index.batch_search_pairs(["text retrieval", "cats"], k=10, fields=boosts)
    run = tmp_path / "run.txt"
    argv = ["run", "--index", str(ix), "--queries", str(queries), "--output", str(run), "-q"]
    assert main([*argv, "--fields", "contents=1.0", "title=0.5"]) == 0
    lines = [line.split() for line in run.read_text().splitlines()]
    got = [[(d, float(s)) for q, _, d, _, s, _ in lines if q == qid] for qid in ("q1", "q2")]
    assert [[d for d, _ in hits] for hits in got] == [[d for d, _ in h] for h in expected]
    # As Pyserini writes it: the facade's rounded scores over the same fields.
    assert main([*argv, "--pyserini", "--fields", "contents=1.0", "title=0.5"]) == 0
    searcher = LuceneSearcher(str(ix))
    facade = searcher.search("text retrieval", 10, fields=boosts)
    q1 = [line.split() for line in run.read_text().splitlines() if line.startswith("q1 ")]
    assert [(d, s) for _, _, d, _, s, _ in q1] == [(h.docid, f"{h.score:.6f}") for h in facade]
    capsys.readouterr()
    search = ["search", "text", "retrieval", "--index", str(ix), "--json"]
    assert main([*search, "--search-fields", "title=1"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [h["docid"] for h in found["hits"]] == ["a"]
    assert main(["info", "--index", str(ix)]) == 0
    assert "fields: contents, title" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--append adds"):
        main(["index", "--append", "--input", str(corpus), "--index", str(ix), "--fields", "x"])
    with pytest.raises(SystemExit, match="BM25, not --model tfidf"):
        main([*search, "--search-fields", "title=1", "--model", "tfidf"])
    with pytest.raises(SystemExit):
        main([*search, "--search-fields", "title"])
    assert "NAME=BOOST" in capsys.readouterr().err
