"""Searching Lucene indexes built by Anserini gives Pyserini's own rankings and scores.

Two sources of truth: the committed fixtures with Pyserini 1.6.0's recorded outputs (every
Lucene version, checked without a JVM), and the acceptance grid (marker ``parity``): two
indexes of every collection of ../shared/data (adi, cacm, cranfield, npl, scifact) built in
the session by the installed Pyserini 1.6.0 and searched by it live
(``lucene_fixtures.GRID``). Per collection, build A is one segment (one input file, one
thread), flat, nothing stored; build B is two segments (three files, two threads) with
``-storeRaw -storePositions -storeDocvectors`` and ``-fields title`` where the collection
has titles (all but npl), adi's with five documents replaced (deleted). So each option is
on in one build and off in the other. On each: BM25 at (0.9, 0.4), (1.2, 0.75), (25, 1) and
QLD (mu 1000) on ``contents``, multifield BM25 ``{"contents": 1.0, "title": 0.5}``, and on
B RM3 and Rocchio (Pyserini's defaults), every query at k = 1000: the same top 10 on 100 %
of queries, >= 99.5 % of the top-1000 hits equal (docid and Pyserini's float score);
``doc().raw()``/``contents()`` equal; every file of each Lucene folder byte-identical
after rserini read it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rserini
from lucene_fixtures import (
    GRID,
    GridIndex,
    committed_indexes,
    expected_outputs,
    folder_digest,
    lucene_grid,
    read_queries,
)
from rserini.parity.lucene_expected import FEEDBACK
from rserini.pyserini import IndexReader, LuceneSearcher, adjust_ties

__all__ = ["lucene_grid"]  # the session fixture, registered here


def rserini_run(
    index: rserini.Index, queries: Sequence[tuple[str, str]], run: Mapping[str, Any]
) -> dict[str, list[tuple[str, float]]]:
    """One run as Pyserini returns it: ``{qid: [(docid, score), ...]}``, the scores
    Anserini's rounded and tie-adjusted floats (of a Lucene 9 index)."""
    options: dict[str, Any] = {"k": run["k"], "threads": 1}
    if run["model"] == "qld":
        options |= {"model": "qld", "mu": run["mu"]}
    else:
        options |= {"k1": run["k1"], "b": run["b"]}
    if run.get("fields"):
        options["fields"] = run["fields"]
    ids, scores = index.batch_search([text for _, text in queries], **options)
    docids = index.docids(ids)
    out = {}
    for (qid, _), row_ids, row_docids, row_scores in zip(queries, ids, docids, scores, strict=True):
        printed = adjust_ties(row_scores[row_ids >= 0])
        out[qid] = [(str(d), float(s)) for d, s in zip(row_docids, printed, strict=False)]
    return out


def agreement(
    theirs: Mapping[str, Sequence[Sequence[Any]]], ours: Mapping[str, Sequence[Sequence[Any]]]
) -> dict[str, float]:
    """Share of queries with the same top 10, share of hits equal in the top 1000 (docid
    and float32 score), largest difference of the float32 scores at equal ranks."""
    same10 = hits = equal = 0
    worst = 0.0
    for qid, their_hits in theirs.items():
        our_hits = ours.get(qid, [])
        same10 += [d for d, _ in their_hits[:10]] == [d for d, _ in our_hits[:10]]
        hits += max(len(their_hits), len(our_hits))
        for (d1, s1), (d2, s2) in zip(their_hits, our_hits, strict=False):
            equal += d1 == d2 and np.float32(s1) == np.float32(s2)
            worst = max(worst, abs(float(np.float32(s1)) - float(np.float32(s2))))
    return {
        "top10": same10 / max(len(theirs), 1),
        "top1000": equal / max(hits, 1),
        "max_diff": worst,
    }


def assert_pyserinis(
    folder: Path,
    queries: Sequence[tuple[str, str]],
    runs: Sequence[Mapping[str, Any]],
    exact: bool = True,
) -> None:
    before = folder_digest(folder)
    index = rserini.Index.load(folder)
    for run in runs:
        found = agreement(run["hits"], rserini_run(index, queries, run))
        label = {k: run.get(k) for k in ("model", "k1", "b", "mu", "fields")}
        assert found["top10"] == 1.0, (label, found)
        if exact:
            assert found["top1000"] == 1.0, (label, found)
        else:
            assert found["top1000"] >= 0.995, (label, found)
    assert folder_digest(folder) == before


# Lucene 8 indexes are a precise version error (tests/test_lucene_index.py).
COMMITTED = [c for c in committed_indexes() if not c[0].startswith("8.")]


@pytest.mark.parametrize(("version", "name", "folder"), COMMITTED, ids=lambda v: str(v))
def test_committed_fixtures_give_pyserinis_recorded_runs(
    version: str, name: str, folder: Path
) -> None:
    expected = expected_outputs(name, version)
    assert rserini.Index.load(folder).lucene_version == version
    assert_pyserinis(folder, read_queries("adi"), expected["runs"])


@pytest.mark.parametrize(("version", "name", "folder"), COMMITTED, ids=lambda v: str(v))
def test_committed_fixtures_give_pyserinis_documents(version: str, name: str, folder: Path) -> None:
    expected = expected_outputs(name, version)
    index = rserini.Index.load(folder)
    assert len(index) == expected["index"]["stats"]["num_docs"]
    for docid, doc in expected["docs"].items():
        if doc is None:
            assert docid not in index
            continue
        assert docid in index
        if doc["raw"] is None and doc["contents"] is None:
            continue  # nothing stored: Pyserini's Document holds no text either
        assert index.raw(docid) == doc["raw"]
        if doc["contents"] is not None:
            assert index.contents(docid) == doc["contents"]


@pytest.mark.parity
@pytest.mark.parametrize("name", [spec.name for spec in GRID])
def test_grid_gives_live_pyserinis_rankings_and_documents(
    name: str, lucene_grid: dict[str, GridIndex]
) -> None:
    grid = lucene_grid[name]
    live, spec = grid.outputs(), grid.spec
    segments = live["stats"]["segments"]
    assert segments == 1 if spec.threads == 1 else segments >= 2
    queries = read_queries(spec.collection)
    runs = [r for r in live["runs"] if r["model"] in ("bm25", "qld")]
    assert len(runs) == 4 + bool(spec.fields)
    assert all(len(r["hits"]) == len(queries) for r in runs)
    assert_pyserinis(grid.folder, queries, runs, exact=False)
    searcher, reader = LuceneSearcher(grid.folder), IndexReader(grid.folder)
    assert searcher.num_docs == live["stats"]["num_docs"]
    for docid, doc in live["docs"].items():
        ours = searcher.doc(docid)
        if doc is None:
            assert ours is None
            continue
        assert ours is not None and (ours.raw(), ours.contents()) == (doc["raw"], doc["contents"])
        assert (doc["raw"] is not None) == spec.store_raw
        assert reader.get_document_vector(docid) == doc["vector"]
    assert folder_digest(grid.folder) == grid.digest


@pytest.mark.parity
@pytest.mark.parametrize("name", [spec.name for spec in GRID if spec.store_docvectors])
@pytest.mark.parametrize("model", list(FEEDBACK))
def test_grid_feedback_is_live_pyserinis(
    name: str, model: str, lucene_grid: dict[str, GridIndex]
) -> None:
    grid = lucene_grid[name]
    (run,) = [r for r in grid.outputs()["runs"] if r["model"] == model]
    queries = read_queries(grid.spec.collection)
    searcher = LuceneSearcher(grid.folder)
    searcher.set_bm25(run["k1"], run["b"])
    options = {key: run[key] for key in FEEDBACK[model]}
    if model == "rm3":
        searcher.set_rm3(**options)
    else:
        searcher.set_rocchio(**options)
    qids = [q for q, _ in queries]
    found = searcher.batch_search([t for _, t in queries], qids, k=run["k"], threads=2)
    ours = {q: [(h.docid, h.score) for h in found[q]] for q in qids}
    result = agreement(run["hits"], ours)
    assert len(run["hits"]) == len(queries)
    assert result["top10"] == 1.0 and result["top1000"] >= 0.995, result
    assert folder_digest(grid.folder) == grid.digest


@pytest.mark.parity
def test_rserinis_own_multifield_build_gives_pyserinis_rankings(
    lucene_grid: dict[str, GridIndex], tmp_path: Path
) -> None:
    """``rserini index --fields title`` and Anserini's ``-fields title`` over the same
    JsonCollection lines (SciFact's B build of the grid): ``fields={"contents": 1.0,
    "title": 0.5}`` gives Pyserini's top 1000 and printed scores on every query."""
    from rserini.cli import main
    from rserini.parity.lucene_build import write_inputs
    from support import DATA

    (grid,) = [g for g in lucene_grid.values() if g.spec.collection == "scifact" and g.spec.fields]
    (run,) = [r for r in grid.outputs()["runs"] if r.get("fields")]
    assert run["fields"] == {"contents": 1.0, "title": 0.5}
    write_inputs(grid.spec, DATA, tmp_path / "input")
    build = ["index", "--input", str(tmp_path / "input"), "--index", str(tmp_path / "ix")]
    assert main([*build, "--fields", "title", "-q"]) == 0
    index = rserini.Index.load(tmp_path / "ix")
    queries = read_queries(grid.spec.collection)
    found = agreement(run["hits"], rserini_run(index, queries, run))
    assert found == {"top10": 1.0, "top1000": 1.0, "max_diff": 0.0}
