"""Searching Lucene indexes built by Anserini gives Pyserini's own rankings and scores.

Two sources of truth: the committed fixtures with Pyserini 1.6.0's recorded outputs (every
Lucene version, checked without a JVM), and indexes of real collections built in the
session by the installed Pyserini and searched by it live (marker ``parity``). Every file
of each Lucene folder is byte-identical after rserini read it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rserini
from lucene_fixtures import (
    LuceneBuild,
    committed_indexes,
    expected_outputs,
    folder_digest,
    lucene_index,
)
from rserini.pyserini import adjust_ties
from support import collection

__all__ = ["lucene_index"]  # the session fixture, registered here


def read_queries(name: str) -> list[tuple[str, str]]:
    text = (collection(name) / "queries.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [(str(q["_id"]), q["text"]) for q in rows]


def rserini_run(
    index: rserini.Index, queries: Sequence[tuple[str, str]], run: Mapping[str, Any], rounded: bool
) -> dict[str, list[tuple[str, float]]]:
    """One run as Pyserini returns it: ``{qid: [(docid, score), ...]}``, the scores
    Anserini's rounded and tie-adjusted floats on Lucene 9 indexes, raw on Lucene 8."""
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
        raw = row_scores[row_ids >= 0]
        printed = adjust_ties(raw) if rounded else raw.astype(np.float32)
        out[qid] = [(str(d), float(s)) for d, s in zip(row_docids, printed, strict=False)]
    return out


def agreement(
    theirs: Mapping[str, Sequence[Sequence[Any]]], ours: Mapping[str, Sequence[Sequence[Any]]]
) -> dict[str, float]:
    """Share of queries with the same top 10, share of hits equal in the top 1000 (docid
    and float32 score), largest score difference."""
    same10 = hits = equal = 0
    worst = 0.0
    for qid, their_hits in theirs.items():
        our_hits = ours.get(qid, [])
        same10 += [d for d, _ in their_hits[:10]] == [d for d, _ in our_hits[:10]]
        hits += max(len(their_hits), len(our_hits))
        for (d1, s1), (d2, s2) in zip(their_hits, our_hits, strict=False):
            equal += d1 == d2 and np.float32(s1) == np.float32(s2)
            worst = max(worst, abs(float(s1) - float(s2)))
    return {
        "top10": same10 / max(len(theirs), 1),
        "top1000": equal / max(hits, 1),
        "max_diff": worst,
    }


def assert_pyserinis(
    folder: Path,
    queries: Sequence[tuple[str, str]],
    runs: Sequence[Mapping[str, Any]],
    rounded: bool = True,
    exact: bool = True,
) -> None:
    before = folder_digest(folder)
    index = rserini.Index.load(folder)
    for run in runs:
        found = agreement(run["hits"], rserini_run(index, queries, run, rounded))
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


LIVE_BUILDS = [
    LuceneBuild(
        "scifact", files=3, threads=2, store_docvectors=True, store_raw=True, fields=("title",)
    ),
    LuceneBuild("cacm", files=1, threads=1),
    LuceneBuild("adi", files=3, threads=2, store_docvectors=True, store_raw=True, replaced=5),
]


@pytest.mark.parity
@pytest.mark.parametrize("spec", LIVE_BUILDS, ids=lambda s: s.name)
def test_live_pyserini_on_a_fresh_build(
    spec: LuceneBuild, lucene_index: Callable[[LuceneBuild], Path]
) -> None:
    folder = lucene_index(spec)
    queries = read_queries(spec.collection)
    assert_pyserinis(folder, queries, live_runs(folder, spec), exact=False)


@cache
def live_runs(folder: Path, spec: LuceneBuild) -> list[dict[str, Any]]:
    """Pyserini's default runs (:func:`default_runs`) on the Lucene index ``folder`` built
    as ``spec``, once per session."""
    from rserini.parity.lucene_expected import default_runs, pyserini_outputs

    queries = read_queries(spec.collection)
    runs: list[dict[str, Any]] = pyserini_outputs(folder, queries, default_runs(spec.fields))[
        "runs"
    ]
    return runs


RM3 = {"model": "rm3", "fb_terms": 10, "fb_docs": 10, "original_query_weight": 0.5}
ROCCHIO = {
    "model": "rocchio",
    "top_fb_terms": 10,
    "top_fb_docs": 10,
    "bottom_fb_terms": 10,
    "bottom_fb_docs": 10,
    "alpha": 1.0,
    "beta": 0.75,
    "gamma": 0.0,
    "use_negative": False,
}


@pytest.mark.parity
@pytest.mark.parametrize("mode", [RM3, ROCCHIO], ids=["rm3", "rocchio"])
@pytest.mark.parametrize("spec", [LIVE_BUILDS[0], LIVE_BUILDS[2]], ids=lambda s: s.name)
def test_live_feedback_on_a_lucene_index_with_document_vectors(
    spec: LuceneBuild, mode: dict[str, Any], lucene_index: Callable[[LuceneBuild], Path]
) -> None:
    from rserini.parity import Tolerances, compare

    folder = lucene_index(spec)
    before = folder_digest(folder)
    report = compare(collection(spec.collection), settings=[(0.9, 0.4)], k=1000, mode=mode,
                     lucene_index=folder)  # fmt: skip
    assert report.failures(Tolerances.acceptance()) == []
    (setting,) = report.settings
    assert setting.same_topk == setting.queries == report.queries
    assert setting.max_score_diff == 0.0
    assert folder_digest(folder) == before


@pytest.mark.parity
def test_rserinis_own_multifield_build_gives_pyserinis_rankings(
    lucene_index: Callable[[LuceneBuild], Path], tmp_path: Path
) -> None:
    """``rserini index --fields title`` and Anserini's ``-fields title`` over the same
    JsonCollection lines: ``fields={"contents": 1.0, "title": 0.5}`` gives Pyserini's
    top 1000 and printed scores on every query."""
    from rserini.cli import main
    from rserini.parity.lucene_build import write_inputs
    from support import DATA

    spec = LIVE_BUILDS[0]
    (run,) = [r for r in live_runs(lucene_index(spec), spec) if r["fields"]]
    assert run["fields"] == {"contents": 1.0, "title": 0.5}
    write_inputs(spec, DATA, tmp_path / "input")
    build = ["index", "--input", str(tmp_path / "input"), "--index", str(tmp_path / "ix")]
    assert main([*build, "--fields", "title", "-q"]) == 0
    index = rserini.Index.load(tmp_path / "ix")
    queries = read_queries(spec.collection)
    found = agreement(run["hits"], rserini_run(index, queries, run, rounded=True))
    assert found == {"top10": 1.0, "top1000": 1.0, "max_diff": 0.0}
