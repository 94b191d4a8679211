"""Query speed of the models beyond BM25 (QLD, RM3, Rocchio), rserini vs Pyserini.

    python benches/models.py [CORPUS_DIR] [--queries N]

CORPUS_DIR is a BEIR folder (default ../shared/data/scifact), indexed as title + " " + text.
Both sides run the judged queries (qrels/test.tsv), one at a time on one thread, through
Pyserini's ``LuceneSearcher.search`` and ``rserini.pyserini.LuceneSearcher.search`` (the
same call, the same printed scores), with ``set_bm25(0.9, 0.4)``, ``set_qld(1000)``, and
BM25 with ``set_rm3()`` and with ``set_rocchio()`` (Pyserini's defaults), at k = 10 and
k = 1000, after a warm-up over every query. Pyserini runs in a child process (``--worker``)
with its JVM at -Xmx4g; its index is Anserini's ``IndexCollection`` with
``-storeDocvectors`` (which its RM3 and Rocchio need); rserini's feedback re-analyzes the
stored text of the feedback documents.
Prints one line per model and depth: queries per second of each side and their ratio.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODELS = ("bm25", "qld", "rm3", "rocchio")
DEPTHS = (10, 1000)


def read_corpus(folder: Path) -> list[tuple[str, str]]:
    from rserini.parity import read_corpus as read

    return read(folder)[0]


def read_topics(folder: Path, limit: int | None) -> list[str]:
    from rserini.formats import read_qrels, read_queries

    judged = read_qrels(folder / "qrels" / "test.tsv")
    texts = [text for qid, text in read_queries(folder / "queries.jsonl") if qid in judged]
    return texts[:limit] if limit else texts


def time_models(searcher: object, texts: list[str]) -> dict[str, float]:
    """QPS per ``model@k`` of a Pyserini-shaped searcher."""
    s: Any = searcher
    setters: dict[str, Callable[[], object]] = {
        "bm25": lambda: s.set_bm25(0.9, 0.4),
        "qld": lambda: s.set_qld(1000.0),
        "rm3": lambda: (s.set_bm25(0.9, 0.4), s.set_rm3()),
        "rocchio": lambda: (s.unset_rm3(), s.set_rocchio()),
    }
    out = {}
    for model in MODELS:
        setters[model]()
        for k in DEPTHS:
            for text in texts:  # warm-up
                s.search(text, k)
            start = time.perf_counter()
            for text in texts:
                s.search(text, k)
            out[f"{model}@{k}"] = len(texts) / (time.perf_counter() - start)
    return out


def pyserini_worker(spec_path: str) -> None:
    from rserini.parity._java import boot

    boot("4g")
    from jnius import autoclass

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    work = Path(spec["work"])
    args = ["-collection", "JsonCollection", "-input", str(work / "collection"), "-index"]
    args += [str(work / "index"), "-generator", "DefaultLuceneDocumentGenerator"]
    args += ["-threads", "1", "-storeDocvectors", "-quiet"]
    autoclass("io.anserini.index.IndexCollection").main(args)
    from pyserini.search.lucene import LuceneSearcher

    result = time_models(LuceneSearcher(str(work / "index")), spec["texts"])
    (work / "result.json").write_text(json.dumps(result), encoding="utf-8")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", nargs="?", type=Path, default=Path("../shared/data/scifact"))
    p.add_argument("--queries", type=int, default=None, help="keep the first N queries")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        pyserini_worker(args.worker)
        return
    import rserini
    from rserini.pyserini import LuceneSearcher

    docs = read_corpus(args.corpus)
    texts = read_topics(args.corpus, args.queries)
    mine = time_models(
        LuceneSearcher(rserini.Index.build(docs, analyzer="lucene-english", progress=False)),
        texts,
    )
    with tempfile.TemporaryDirectory(prefix="rserini-bench-models-") as tmp:
        work = Path(tmp)
        (work / "collection").mkdir()
        with open(work / "collection" / "docs.jsonl", "w", encoding="utf-8") as out:
            for docid, contents in docs:
                out.write(json.dumps({"id": docid, "contents": contents}) + "\n")
        spec = work / "spec.json"
        spec.write_text(json.dumps({"work": str(work), "texts": texts}), encoding="utf-8")
        subprocess.run(
            [sys.executable, __file__, "--worker", str(spec)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=3600,
        )
        theirs = json.loads((work / "result.json").read_text(encoding="utf-8"))
    print(f"{args.corpus.name}: {len(docs):,} documents, {len(texts)} queries, 1 thread")
    print(f"{'model':<10} {'rserini QPS':>12} {'Pyserini QPS':>13} {'ratio':>7}")
    for name in mine:
        ratio = mine[name] / theirs[name]
        print(f"{name:<10} {mine[name]:>12,.0f} {theirs[name]:>13,.0f} {ratio:>6.1f}x")


if __name__ == "__main__":
    main()
