"""Building from every input shape, saving and loading, pickling."""

from __future__ import annotations

import gc
import gzip
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import rserini
from rserini import Index
from support import TINY, many_range_corpus


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def results(index: Index, query: str, **kwargs: object) -> list[tuple[str, float]]:
    return [(h.docid, h.score) for h in index.search(query, k=10, **kwargs)]


QUERIES = ["network packets", "energy plants", "Mars", "local area network domain", "zzz"]


def test_pairs_dicts_and_beir_dicts_build_the_same_index(tiny_index: Index) -> None:
    pyserini_shape = Index.build([{"id": d, "contents": t} for d, t in TINY], progress=False)
    beir_shape = Index.build(
        [{"_id": d, "title": t.split()[0], "text": " ".join(t.split()[1:])} for d, t in TINY],
        progress=False,
    )
    for q in QUERIES:
        assert results(pyserini_shape, q) == results(tiny_index, q)
        assert results(beir_shape, q) == results(tiny_index, q)


def test_generator_input_and_len(tiny_index: Index) -> None:
    index = Index.build(((d, t) for d, t in TINY), progress=False)
    assert len(index) == 4
    assert "d3" in index and "d9" not in index
    stats = index.stats()
    assert stats["num_docs"] == 4 and stats["num_terms"] > 10
    assert stats["avgdl"] == pytest.approx(stats["total_terms"] / 4)


def test_from_jsonl_file_gz_and_folder(tmp_path: Path, tiny_index: Index) -> None:
    rows = [{"_id": d, "title": "", "text": t} for d, t in TINY]
    plain = write_jsonl(tmp_path / "corpus.jsonl", rows)
    gz = tmp_path / "gz" / "corpus.jsonl.gz"
    gz.parent.mkdir()
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    folder = tmp_path / "parts"
    (folder / "sub").mkdir(parents=True)
    write_jsonl(folder / "a.jsonl", [{"id": d, "contents": t} for d, t in TINY[:2]])
    write_jsonl(folder / "sub" / "b.jsonl", [{"id": d, "contents": t} for d, t in TINY[2:]])
    (folder / "README.md").write_text("not a corpus file")
    for path in (plain, gz, folder):
        index = Index.from_jsonl(path, progress=False)
        assert len(index) == 4
        for q in QUERIES:
            assert results(index, q) == results(tiny_index, q), path


def test_save_load_round_trip_is_exact(tmp_path: Path, tiny_index: Index) -> None:
    tiny_index.save(tmp_path / "idx")
    loaded = Index.load(tmp_path / "idx")
    assert len(loaded) == len(tiny_index)
    assert loaded.stats() == tiny_index.stats()
    assert loaded.analyzer == tiny_index.analyzer
    for q in QUERIES:
        for kwargs in ({}, {"model": "tfidf"}, {"variant": "bm25+", "length": "exact"}):
            assert results(loaded, q, **kwargs) == results(tiny_index, q, **kwargs)
    # Saving over an existing index replaces it.
    other = Index.build([("x", "completely different")], progress=False)
    other.save(tmp_path / "idx")
    assert len(Index.load(tmp_path / "idx")) == 1


def test_large_index_round_trip_with_full_blocks(tmp_path: Path) -> None:
    """Enough documents that posting lists span several bit-packed blocks."""
    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(50)]
    docs = [
        (f"doc{i:05d}", " ".join(rng.choice(vocab, size=int(rng.integers(0, 40)))))
        for i in range(3000)
    ]
    index = Index.build(docs, analyzer="whitespace", progress=False)
    index.save(tmp_path / "big")
    loaded = Index.load(tmp_path / "big")
    for q in ["w1", "w2 w3 w3", "w49 w0 w7 w8"]:
        assert results(loaded, q) == results(index, q)
        hits = loaded.search(q, k=5000)
        expected = {d for d, t in docs if set(q.split()) & set(t.split())}
        assert {h.docid for h in hits} == expected


def test_pickle_uses_the_saved_path(tmp_path: Path, tiny_index: Index) -> None:
    tiny_index.save(tmp_path / "p")
    clone = pickle.loads(pickle.dumps(tiny_index))
    assert results(clone, "network") == results(tiny_index, "network")
    assert str(clone.path) == str(tmp_path / "p")


def test_pickle_of_an_in_memory_index_carries_its_bytes(tiny_index: Index) -> None:
    tiny_index.add([("d9", "a brand new network document")])
    tiny_index.delete("d2")
    tiny_index.commit()
    clone = pickle.loads(pickle.dumps(tiny_index))
    assert clone.path is None
    assert len(clone) == len(tiny_index) == 4
    for q in [*QUERIES, "brand new"]:
        assert results(clone, q) == results(tiny_index, q)
    assert clone.doc("d9") == tiny_index.doc("d9")
    assert clone.stats() == tiny_index.stats()


def test_empty_documents_and_empty_corpus() -> None:
    index = Index.build([("a", ""), ("b", "the of and"), ("c", "real words")], progress=False)
    assert index.stats()["num_nonempty_docs"] == 1
    assert [h.docid for h in index.search("real")] == ["c"]
    empty = Index.build([], progress=False)
    assert len(empty) == 0
    assert empty.search("anything") == []
    ids, scores = empty.batch_search(["a", "b"], k=3)
    assert ids.shape == (2, 0) and scores.shape == (2, 0)  # no column can hold a hit


def test_huge_document_and_unicode_docids() -> None:
    big = " ".join(["alpha"] * 200_000 + ["omega"])
    index = Index.build([("ünï/cødé 文档", big), ("small", "alpha beta")], progress=False)
    hit = index.search("omega")[0]
    assert hit.docid == "ünï/cødé 文档"
    explanation = index.explain("alpha", "ünï/cødé 文档")
    assert explanation.length == 200_001
    assert explanation.seen_length <= explanation.length


def test_explain_matches_search_scores(tiny_index: Index) -> None:
    for kwargs in ({}, {"model": "tfidf"}, {"variant": "atire", "k1": 1.2, "b": 0.75}):
        for hit in tiny_index.search("networks carry data between networks", **kwargs):
            e = tiny_index.explain("networks carry data between networks", hit.docid, **kwargs)
            assert e.score == hit.score
            assert sum(t.score for t in e.terms) == pytest.approx(hit.score, rel=1e-6)
            assert "bm25" in e.formula or "tfidf" in e.formula
            assert hit.docid in str(e)


def test_hit_unpacks_and_compares() -> None:
    hit = rserini.Hit("d", 1.5, 1)
    docid, score, rank = hit
    assert (docid, score, rank) == ("d", 1.5, 1)
    assert hit == rserini.Hit("d", 1.5, 1)


def test_search_pairs_are_the_hits_as_tuples(tiny_index: Index) -> None:
    query = "networks carry data between networks"
    for kwargs in ({}, {"model": "tfidf"}, {"variant": "atire", "k1": 25.0, "b": 1.0}):
        for k in (1, 3, 1000):
            hits = tiny_index.search(query, k, **kwargs)
            assert tiny_index.search_pairs(query, k, **kwargs) == [(h.docid, h.score) for h in hits]
    with pytest.raises(rserini.QueryError):
        tiny_index.search_pairs("", 10)


def test_batch_search_pairs_are_search_pairs_in_input_order(tiny_index: Index) -> None:
    queries = ["networks data", "", "carry", "networks carry data between networks", "zzz"]
    for kwargs in ({}, {"model": "tfidf"}, {"k1": 25.0, "b": 1.0, "algorithm": "maxscore"}):
        for k in (1, 2, 1000):
            want = [tiny_index.search_pairs(q, k, **kwargs) if q else [] for q in queries]
            for threads in (1, 2, None):
                got = tiny_index.batch_search_pairs(queries, k, threads=threads, **kwargs)
                assert got == want, (kwargs, k, threads)
    with pytest.raises(TypeError, match="single str"):
        tiny_index.batch_search_pairs("networks", 10)
    with pytest.raises(rserini.QueryError):
        tiny_index.batch_search_pairs(["networks"], 0)
    with pytest.raises(rserini.QueryError, match="threads"):
        tiny_index.batch_search_pairs(["networks"], 10, threads=0)


def test_batch_search_pairs_put_many_rankings_in_input_order() -> None:
    # Enough queries that the calling thread and its helpers each find some,
    # out of order, while the calling thread makes the tuples.
    index = Index.build(many_range_corpus(5_000), analyzer="whitespace")
    queries = [f"w{i % 300} w{(i * 7) % 300} w{i % 5}" for i in range(400)] + [""]
    for k in (10, 1000):
        want = [index.search_pairs(q, k) if q else [] for q in queries]
        for threads in (1, 2, 3, None):
            assert index.batch_search_pairs(queries, k, threads=threads) == want, (k, threads)


def test_search_results_stay_out_of_the_cycle_collector(tiny_index: Index) -> None:
    # A kept deep ranking must not make every garbage collection walk its hits.
    hits = tiny_index.search("networks data", 10)
    assert hits and not any(gc.is_tracked(h) for h in hits)
    gc.collect()
    assert [h.docid for h in hits] == [d for d, _ in tiny_index.search_pairs("networks data", 10)]
