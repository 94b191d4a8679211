"""``rserini run`` writes through ``eval.retrieve_ranked`` and ``formats.write_run``, and
``rserini info`` prints ``Index.info()``: the files and lines are those the command wrote
with its own loop before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rserini
from rserini.eval import retrieve, retrieve_ranked
from rserini.formats import write_run
from support import cli

DOCS = [
    ("a", "apple banana"),
    ("b", "apple"),
    ("a", "apple banana cherry"),  # a duplicate docid, kept as Lucene keeps it
    ("c", "banana cherry"),
    ("d", "apple"),  # tied with b
    ("q2", "cherry apple"),  # the id of a query: --remove-query drops it
    ("e", "durian"),
]
QUERIES = [("q1", "apple"), ("q2", "cherry apple"), ("q3", "zzz"), ("q4", "banana")]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("run") / "idx"
    rserini.Index.build(DOCS, duplicates="keep", progress=False).save(path)
    return path


def reference_run(
    index: rserini.Index, k: int, remove_query: bool, tag: str, search: str, **params: object
) -> str:
    """The lines ``rserini run`` wrote with its own loop."""
    texts = [t for _, t in QUERIES]
    depth = k + 1 if remove_query else k
    ids, scores = getattr(index, search)(texts, k=depth, threads=1, **params)
    out = []
    for (qid, _), row_docids, row_scores in zip(QUERIES, index.docids(ids), scores, strict=True):
        rank = 0
        for docid, score in zip(row_docids, row_scores[np.isfinite(row_scores)], strict=True):
            if remove_query and docid == qid:
                continue
            rank += 1
            if rank > k:
                break
            out.append(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")
    return "".join(out)


@pytest.mark.parametrize(
    ("flags", "search", "params"),
    [
        ([], "batch_search", {}),
        (["--remove-query", "--k", "2"], "batch_search", {}),
        (["--model", "tfidf", "--tag", "x"], "batch_search", {"model": "tfidf"}),
        (["--qld", "--mu", "10"], "batch_search", {"model": "qld", "mu": 10.0}),
        (
            ["--variant", "bm25+", "--length", "exact", "--k1", "1.2", "--b", "0.75"],
            "batch_search",
            {"variant": "bm25+", "length": "exact", "k1": 1.2, "b": 0.75},
        ),
        (["--rm3", "--fb-docs", "2"], "batch_search_rm3", {"fb_docs": 2}),
        (["--rocchio", "--remove-query"], "batch_search_rocchio", {}),
    ],
)
def test_run_writes_what_its_own_loop_wrote(
    saved: Path, tmp_path: Path, flags: list[str], search: str, params: dict[str, object]
) -> None:
    queries = tmp_path / "q.tsv"
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES))
    output = tmp_path / "run.trec"
    out = cli("run", "--index", saved, "--queries", queries, "--output", output, "-q", *flags)
    assert out.returncode == 0, out.stderr
    k = int(flags[flags.index("--k") + 1]) if "--k" in flags else 1000
    tag = flags[flags.index("--tag") + 1] if "--tag" in flags else "rserini"
    expected = reference_run(
        rserini.Index.load(saved), k, "--remove-query" in flags, tag, search, **params
    )
    assert output.read_text(encoding="utf-8") == expected
    assert expected.count(" a ") >= 2 or "--model" in flags  # both copies of "a" are written


def test_retrieve_ranked_keeps_the_index_order_and_retrieve_the_scores(saved: Path) -> None:
    index = rserini.Index.load(saved)
    ranked = retrieve_ranked(index, QUERIES, 3, remove_query=True)
    assert list(ranked) == [q for q, _ in QUERIES] and ranked["q3"] == []
    assert [d for d, _ in ranked["q1"]] == ["b", "d", "a"]  # tie of b and d by docid
    assert all(d != "q2" for d, _ in ranked["q2"])
    ranked = retrieve_ranked(index, QUERIES, 4)
    assert [d for d, _ in ranked["q4"]] == ["a", "c", "a"]  # both copies of "a"
    run = retrieve(index, QUERIES, 4)  # a run to evaluate holds a docid once
    assert list(run) == list(ranked) and run["q3"] == {}
    assert list(run["q4"]) == ["a", "c"] and run["q4"]["a"] == ranked["q4"][2][1]


def test_write_run_checks_every_id_before_touching_the_file(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_text("kept\n")
    with pytest.raises(rserini.DocumentError, match="docid"):
        write_run({"q1": [("a", 2.0)], "q2": [("b", 1.0), ("bad id", 0.5)]}, path)
    with pytest.raises(rserini.QueryError, match="query id"):
        write_run({"q 1": {"a": 1.0}}, path)
    assert path.read_text() == "kept\n"
    # Pairs are written as given; a mapping is ranked by score, then docid.
    assert write_run({"q": [("b", 1.0), ("a", 1.0), ("b", 0.5)], "r": {"y": 1, "x": 1}}, path)
    assert path.read_text().splitlines() == [
        "q Q0 b 1 1.000000 rserini",
        "q Q0 a 2 1.000000 rserini",
        "q Q0 b 3 0.500000 rserini",
        "r Q0 x 1 1.000000 rserini",
        "r Q0 y 2 1.000000 rserini",
    ]


def test_info_describes_the_folder_as_rserini_info_prints_it(tmp_path: Path) -> None:
    path = tmp_path / "idx"
    index = rserini.Index.build(
        [("d1", "routers forward packets"), ("d2", "the of and"), ("d3", "packets")],
        progress=False,
    )
    with pytest.raises(ValueError, match="never saved"):
        index.info()
    index.save(path)
    info = index.info()
    assert list(info) == [
        "path", "format_version", "written_by", "generation", "analyzer", "documents",
        "deleted", "terms", "postings", "avgdl", "bytes", "postings_bytes", "store_bytes",
        "segments",
    ]  # fmt: skip
    assert info["format_version"] == rserini.INDEX_FORMAT_VERSION
    assert info["written_by"] == f"rserini {rserini.__version__}"
    assert (info["documents"], info["deleted"], info["generation"]) == (3, 0, 1)
    assert info["avgdl"] == pytest.approx(4 / 3)  # every document; Lucene's mean is 2
    assert info["bytes"] == sum(
        p.stat().st_size for p in path.iterdir() if p.name not in ("meta.json", "write.lock")
    )
    assert info["segments"] == [{"name": "seg000001", "documents": 3, "deleted": 0}]
    # Another writer commits: info() describes the folder as loading it would now.
    other = rserini.Index.load(path)
    other.delete(["d2"])
    other.commit()
    later = index.info()
    assert (later["generation"], later["documents"]) == (2, 2)
    assert later["segments"] == other.info()["segments"]
    assert index.stats()["num_docs"] == 3  # the snapshot itself is unchanged
    out = cli("info", "--index", path, "--json")
    assert out.returncode == 0, out.stderr
    assert later["path"] == path
    assert json.loads(out.stdout) == {**later, "path": str(path), "avgdl": round(later["avgdl"], 3)}
