"""A memory budget changes how an index is built, never what it holds."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rserini import Index


def corpus(n: int, seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(3000)] + ["Running", "jumps", "the", "café", "naïve"]
    docs = []
    for i in range(n):
        words = rng.choices(
            vocab, weights=[1 / (r + 1) for r in range(len(vocab))], k=rng.randrange(0, 60)
        )
        docs.append({"id": f"doc{(i * 7919) % n:05d}", "contents": " ".join(words)})
    return docs


QUERIES = ["w1 w2 w3", "running jumps", "w2999 café", "the", "naive naïve w17", "absent"]


def hits(index: Index) -> list[list[tuple[str, float]]]:
    return [[(h.docid, h.score) for h in index.search(q, k=100)] for q in QUERIES]


def content_stats(index: Index) -> dict[str, object]:
    """Statistics but the store's size: its compressed blocks are cut where a budget
    ended a run, and hold the same documents."""
    return {key: value for key, value in index.stats().items() if key != "store_bytes"}


@pytest.mark.parametrize("store", [False, True])
def test_a_tiny_budget_builds_the_same_index(tmp_path: Path, store: bool) -> None:
    docs = corpus(3000)
    whole = Index.build(docs, store=store, progress=False)
    tiny = Index.build(docs, store=store, progress=False, memory_mb=0)
    small = Index.build(docs, store=store, progress=False, memory_mb=0.05)
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    from_file = Index.from_jsonl(path, store=store, progress=False, memory_mb=0, threads=1)
    # The store keeps each file line as written: compare with a file build.
    file_whole = Index.from_jsonl(path, store=store, progress=False)
    assert content_stats(from_file) == content_stats(file_whole)
    assert hits(from_file) == hits(whole)
    for other in (tiny, small):
        assert content_stats(other) == content_stats(whole)
        assert other.stats()["num_segments"] == 1
        assert hits(other) == hits(whole)
        ids = list(range(len(docs)))
        assert other.docids(ids) == whole.docids(ids)
    if store:
        for other, reference in ((tiny, whole), (small, whole), (from_file, file_whole)):
            assert [other.doc(d["id"]) for d in docs] == [reference.doc(d["id"]) for d in docs]


def test_duplicates_are_caught_across_budgeted_segments() -> None:
    docs = corpus(1000)
    docs.append(dict(docs[3]))
    with pytest.raises(Exception, match="duplicate docid"):
        Index.build(docs, progress=False, memory_mb=0)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_a_bad_budget_is_refused(bad: float) -> None:
    with pytest.raises(Exception, match="memory_mb"):
        Index.build([("a", "text")], progress=False, memory_mb=bad)


def test_cli_takes_a_memory_budget(tmp_path: Path) -> None:
    docs = corpus(500)
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "rserini",
            "index",
            "--input",
            str(path),
            "--index",
            str(tmp_path / "idx"),
            "--memory-mb",
            "0",
            "-q",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.returncode == 0
    loaded = Index.load(tmp_path / "idx")
    assert hits(loaded) == hits(Index.build(docs, progress=False))
    help_text = subprocess.run(
        [sys.executable, "-m", "rserini", "index", "--help"], capture_output=True, text=True
    ).stdout
    assert "--memory-mb" in help_text
