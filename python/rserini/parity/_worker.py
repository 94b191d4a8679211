"""The Pyserini side of a parity check, run in its own process (``python -m
rserini.parity._worker SPEC.json``) so that the JVM never lives in the caller.

The spec is a JSON object; every key is optional except ``work``:

- ``work``: folder for the outputs below.
- ``max_heap``: the JVM's ``-Xmx`` (default ``"4g"``).
- ``collection``: a folder of JSONL files of ``{"id", "contents"}`` to index with Anserini's
  ``IndexCollection`` (``JsonCollection``, ``DefaultLuceneDocumentGenerator``) into
  ``work/index``; ``threads`` indexing threads (default 1).
- ``index``: an existing Lucene index to search instead.
- ``analyze``: a JSONL file of strings; each is analyzed with Pyserini's default analyzer
  (``pyserini.analysis.Analyzer(get_lucene_analyzer())``) into one JSON list per line of
  ``work/tokens.jsonl``.
- ``queries``: a JSONL file of ``[qid, text]``; ``settings``: ``[[k1, b], ...]``; ``k``:
  hits per query. Each query is run with ``LuceneSearcher.search(text, k)`` after
  ``set_bm25(k1, b)``, and again as the Lucene query Anserini builds, sorted as Anserini
  sorts, to read the unrounded scores. ``work/run-<i>.tsv`` gets ``qid docid
  pyserini_score raw_score`` per hit (scores as exact decimal floats).
- ``mode``: ``{"model": "qld", "mu": M}`` searches with ``set_qld(M)`` (and Lucene's
  ``LMDirichletSimilarity(M)`` for the raw scores) instead of BM25; ``{"model": "rm3",
  "fb_terms": T, "fb_docs": D, "original_query_weight": W}`` adds ``set_rm3(T, D, W)`` to
  BM25 (the index then stores document vectors, which Pyserini's RM3 needs; the raw score
  column repeats Pyserini's, as the expanded query is not rebuilt here); ``{"model":
  "rocchio", "top_fb_terms": ..., "use_negative": ...}`` likewise adds ``set_rocchio``.
- Index statistics go to ``work/stats.json``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from rserini.parity._java import PYSERINI_VERSION, boot

FIELD = "contents"


def _index(collection: str, index: Path, threads: int, docvectors: bool = False) -> float:
    from jnius import autoclass

    start = time.perf_counter()
    args = [
        "-collection",
        "JsonCollection",
        "-input",
        collection,
        "-index",
        str(index),
        "-generator",
        "DefaultLuceneDocumentGenerator",
        "-threads",
        str(threads),
        "-quiet",
    ]
    if docvectors:
        args.append("-storeDocvectors")
    autoclass("io.anserini.index.IndexCollection").main(args)
    return time.perf_counter() - start


def _stats(index: Path) -> dict[str, Any]:
    from jnius import autoclass

    paths = autoclass("java.nio.file.Paths")
    directory = autoclass("org.apache.lucene.store.FSDirectory").open(paths.get(str(index)))
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(directory)
    try:
        return {
            "num_docs": int(reader.numDocs()),
            "doc_count": int(reader.getDocCount(FIELD)),
            "sum_total_term_freq": int(reader.getSumTotalTermFreq(FIELD)),
            "lucene": str(autoclass("org.apache.lucene.util.Version").LATEST.toString()),
        }
    finally:
        reader.close()


def _analyze(texts_path: str, out_path: Path) -> None:
    from pyserini.analysis import Analyzer, get_lucene_analyzer

    analyzer = Analyzer(get_lucene_analyzer())
    with open(texts_path, encoding="utf-8") as src, open(out_path, "w", encoding="utf-8") as out:
        for line in src:
            tokens = analyzer.analyze(json.loads(line))
            out.write(json.dumps(tokens, ensure_ascii=False) + "\n")


def _search(
    index: Path,
    queries_path: str,
    settings: list[list[float]],
    k: int,
    work: Path,
    mode: dict[str, Any],
) -> None:
    from jnius import autoclass
    from pyserini.search.lucene import LuceneSearcher

    queries = []
    with open(queries_path, encoding="utf-8") as f:
        for line in f:
            qid, text = json.loads(line)
            queries.append((qid, text))
    searcher = LuceneSearcher(str(index))
    analyzer = searcher.object.get_analyzer()
    generator = autoclass("io.anserini.search.query.BagOfWordsQueryGenerator")()
    sort_field = autoclass("org.apache.lucene.search.SortField")
    sort_type = autoclass("org.apache.lucene.search.SortField$Type")
    sort = autoclass("org.apache.lucene.search.Sort")(
        sort_field.FIELD_SCORE, sort_field("id", sort_type.STRING_VAL)
    )
    lucene = autoclass("org.apache.lucene.search.IndexSearcher")(searcher.object.reader)
    bm25 = autoclass("org.apache.lucene.search.similarities.BM25Similarity")
    dirichlet = autoclass("org.apache.lucene.search.similarities.LMDirichletSimilarity")
    for i, (k1, b) in enumerate(settings):
        if mode.get("model") == "qld":
            searcher.set_qld(float(mode["mu"]))
            lucene.setSimilarity(dirichlet(float(mode["mu"])))
        else:
            searcher.set_bm25(float(k1), float(b))
            lucene.setSimilarity(bm25(float(k1), float(b)))
        feedback = mode.get("model") in ("rm3", "rocchio")
        if mode.get("model") == "rm3":
            searcher.set_rm3(
                int(mode["fb_terms"]), int(mode["fb_docs"]), float(mode["original_query_weight"])
            )
        if mode.get("model") == "rocchio":
            counts = ("top_fb_terms", "top_fb_docs", "bottom_fb_terms", "bottom_fb_docs")
            weights = ("alpha", "beta", "gamma")
            searcher.set_rocchio(
                *(int(mode[c]) for c in counts),
                *(float(mode[w]) for w in weights),
                use_negative=bool(mode["use_negative"]),
            )
        if feedback:
            with open(work / f"run-{i}.tsv", "w", encoding="utf-8") as out:
                for qid, text in queries:
                    for hit in searcher.search(text, k):
                        out.write(f"{qid}\t{hit.docid}\t{hit.score!r}\t{hit.score!r}\n")
            searcher.unset_rm3()
            searcher.unset_rocchio()
            continue
        with open(work / f"run-{i}.tsv", "w", encoding="utf-8") as out:
            for qid, text in queries:
                hits = searcher.search(text, k)
                query = generator.buildQuery(FIELD, analyzer, text)
                raw = lucene.search(query, k, sort, True).scoreDocs
                if len(raw) != len(hits):
                    raise RuntimeError(f"query {qid!r}: {len(hits)} hits but {len(raw)} raw")
                for hit, doc in zip(hits, raw, strict=True):
                    if hit.lucene_docid != doc.doc:
                        raise RuntimeError(f"query {qid!r}: raw order differs from Pyserini's")
                    out.write(f"{qid}\t{hit.docid}\t{hit.score!r}\t{doc.score!r}\n")


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Carries out ``spec`` (see the module docs); returns what goes to ``stats.json``."""
    work = Path(spec["work"])
    work.mkdir(parents=True, exist_ok=True)
    runtime = boot(spec.get("max_heap", "4g"))
    stats: dict[str, Any] = {
        "pyserini": PYSERINI_VERSION,
        "java": runtime.major,
        "java_origin": runtime.origin,
    }
    import pyserini

    stats["pyserini"] = getattr(pyserini, "__version__", PYSERINI_VERSION)
    index = Path(spec["index"]) if spec.get("index") else work / "index"
    if spec.get("collection"):
        docvectors = spec.get("mode", {}).get("model") in ("rm3", "rocchio")
        stats["index_seconds"] = _index(
            spec["collection"], index, int(spec.get("threads", 1)), docvectors
        )
    if spec.get("analyze"):
        start = time.perf_counter()
        _analyze(spec["analyze"], work / "tokens.jsonl")
        stats["analyze_seconds"] = time.perf_counter() - start
    if spec.get("queries"):
        stats.update(_stats(index))
        start = time.perf_counter()
        _search(index, spec["queries"], spec["settings"], spec["k"], work, spec.get("mode", {}))
        stats["search_seconds"] = time.perf_counter() - start
    with open(work / "stats.json", "w", encoding="utf-8") as f:
        json.dump(stats, f)
    return stats


def main(argv: list[str]) -> int:
    """Entry point: ``python -m rserini.parity._worker SPEC.json``."""
    if len(argv) != 1:
        print("usage: python -m rserini.parity._worker SPEC.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        run(json.load(f))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
