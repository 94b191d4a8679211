"""What Pyserini itself gives on an existing Lucene index: runs, documents, statistics.

:func:`pyserini_outputs` starts a child process (``python -m
rserini.parity.lucene_expected SPEC.json OUT.json``), so the JVM never lives in the
caller, opens the folder with Pyserini's ``LuceneSearcher`` and ``LuceneIndexReader`` and
records, as plain JSON:

- ``runs``: for each run, ``{"model", "k1", "b", "mu", "fields", "k", "hits": {qid: [[docid,
  score], ...]}}``, scores as Pyserini returns them (Anserini's rounded floats; Pyserini
  prints them with ``%.6f``), each written as the shortest decimal that reads back as
  that float32. ``fields`` is ``None`` for the default ``contents`` search,
  else the boosts passed to ``search(q, k, fields=...)``;
- ``docs``: ``{docid: {"raw", "contents", "lucene_docid", "vector"}}`` (``vector``: the
  document vector where the index has one, else ``None``);
- ``order``: the external docid of each Lucene docid, ``None`` for a deleted document;
- ``stats``: Pyserini's ``LuceneIndexReader.stats()`` plus Lucene's own counts per field
  (``max_doc``, ``num_docs``, ``segments``, ``doc_count``, ``sum_total_term_freq``,
  ``sum_doc_freq``) and the Lucene version of the newest segment.

:func:`pyserini_outputs_many` does the same for many indexes in one child process (one
JVM), first building with Anserini's ``IndexCollection`` (in that JVM) those it is asked
to build: the JVM start and Pyserini's import are paid once for a whole grid of indexes.
Runs may also be RM3 and Rocchio (``"model": "rm3" | "rocchio"`` over BM25 ``k1``, ``b``,
with the keyword arguments of Pyserini's ``set_rm3``/``set_rocchio``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "BM25_SETTINGS",
    "FEEDBACK",
    "QLD_MU",
    "default_runs",
    "feedback_runs",
    "pyserini_outputs",
    "pyserini_outputs_many",
]

BM25_SETTINGS: tuple[tuple[float, float], ...] = ((0.9, 0.4), (1.2, 0.75), (25.0, 1.0))
"""The (k1, b) pairs the parity tests use: Pyserini's default, Lucene's, and an extreme."""
QLD_MU = 1000.0
"""Pyserini's default Dirichlet prior."""
MULTIFIELD_BOOSTS: dict[str, float] = {"contents": 1.0, "title": 0.5}
"""The boosts of the multifield run (a BEIR multifield index: ``contents`` and ``title``)."""


def default_runs(fields: Sequence[str] = (), k: int = 1000) -> list[dict[str, Any]]:
    """BM25 at :data:`BM25_SETTINGS` and QLD at :data:`QLD_MU` on ``contents``; with extra
    ``fields`` also BM25 (0.9, 0.4) over ``contents`` and those fields (boosts from
    :data:`MULTIFIELD_BOOSTS`, else 1.0)."""
    runs: list[dict[str, Any]] = [
        {"model": "bm25", "k1": k1, "b": b, "fields": None, "k": k} for k1, b in BM25_SETTINGS
    ]
    runs.append({"model": "qld", "mu": QLD_MU, "fields": None, "k": k})
    if fields:
        boosts = {"contents": 1.0} | {f: MULTIFIELD_BOOSTS.get(f, 1.0) for f in fields}
        runs.append({"model": "bm25", "k1": 0.9, "b": 0.4, "fields": boosts, "k": k})
    return runs


FEEDBACK: dict[str, dict[str, Any]] = {
    "rm3": {"fb_terms": 10, "fb_docs": 10, "original_query_weight": 0.5},
    "rocchio": {
        "top_fb_terms": 10,
        "top_fb_docs": 10,
        "bottom_fb_terms": 10,
        "bottom_fb_docs": 10,
        "alpha": 1.0,
        "beta": 0.75,
        "gamma": 0.0,
        "use_negative": False,
    },
}
"""Pyserini's default RM3 and Rocchio settings, as the keyword arguments of ``set_rm3`` and
``set_rocchio``."""


def feedback_runs(k: int = 1000) -> list[dict[str, Any]]:
    """RM3 and Rocchio at :data:`FEEDBACK` over BM25 (0.9, 0.4) on ``contents``."""
    return [
        {"model": model, "k1": 0.9, "b": 0.4, "fields": None, "k": k, **options}
        for model, options in FEEDBACK.items()
    ]


def pyserini_outputs(
    index: Path,
    queries: Sequence[tuple[str, str]],
    runs: Sequence[Mapping[str, Any]],
    docids: Sequence[str] = (),
    *,
    fields: Sequence[str] = ("contents",),
    max_heap: str = "2g",
    timeout: float = 1800,
) -> dict[str, Any]:
    """Pyserini's outputs on the Lucene index ``index`` (see the module docs).

    Parameters
    ----------
    index
        A Lucene index folder; it is only read.
    queries
        ``(qid, text)`` pairs.
    runs
        Run descriptions as :func:`default_runs` makes them.
    docids
        External docids whose documents are recorded.
    fields
        The fields whose Lucene statistics are recorded.
    max_heap
        The child JVM's ``-Xmx``.
    timeout
        Seconds before the child is stopped.

    Raises
    ------
    RuntimeError
        If the child fails, with its output's tail.
    """
    with tempfile.TemporaryDirectory(prefix="pyserini-outputs-") as tmp:
        out = Path(tmp) / "out.json"
        job = {
            "index": str(index),
            "queries": [list(q) for q in queries],
            "runs": [dict(r) for r in runs],
            "docids": list(docids),
            "fields": list(fields),
            "out": str(out),
        }
        _child([job], max_heap, timeout)
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result


def pyserini_outputs_many(
    jobs: Sequence[Mapping[str, Any]], *, max_heap: str = "2g", timeout: float = 3600
) -> None:
    """Pyserini's outputs on many indexes, in one child process.

    Parameters
    ----------
    jobs
        Each a mapping with ``index``, ``queries``, ``runs``, ``docids`` and ``fields`` as
        the parameters of :func:`pyserini_outputs`, ``out`` (the JSON file the outputs go
        to) and optionally ``build`` (the fields of a
        :class:`~rserini.parity.lucene_build.LuceneBuild`) with ``data_root``: the index is
        first built there by ``IndexCollection`` (and merged into a compound file) in the
        same JVM, and the outputs also hold ``"build_seconds"``.
    max_heap, timeout
        As for :func:`pyserini_outputs`, for the whole batch.

    Raises
    ------
    RuntimeError
        If the child fails, with its output's tail.
    """
    _child([dict(job) for job in jobs], max_heap, timeout)


def _child(jobs: list[dict[str, Any]], max_heap: str, timeout: float) -> None:
    with tempfile.TemporaryDirectory(prefix="pyserini-outputs-") as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps({"jobs": jobs, "max_heap": max_heap}), encoding="utf-8")
        env = dict(os.environ)
        python_dir = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = python_dir + os.pathsep + env.get("PYTHONPATH", "")
        child = subprocess.run(
            [sys.executable, "-m", "rserini.parity.lucene_expected", str(spec_path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
        missing = [job["out"] for job in jobs if not Path(job["out"]).is_file()]
        if child.returncode != 0 or missing:
            tail = (child.stdout + child.stderr)[-3000:]
            where = ", ".join(job["index"] for job in jobs)[:500]
            raise RuntimeError(f"Pyserini failed on {where} ({child.returncode}):\n{tail}")


def _lucene_stats(index: str, fields: Sequence[str]) -> tuple[dict[str, Any], list[str | None]]:
    from jnius import autoclass

    paths = autoclass("java.nio.file.Paths")
    directory = autoclass("org.apache.lucene.store.FSDirectory").open(paths.get(index))
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(directory)
    try:
        live = autoclass("org.apache.lucene.index.MultiBits").getLiveDocs(reader)
        fields_reader = reader.storedFields()
        order: list[str | None] = []
        for doc in range(reader.maxDoc()):
            if live is not None and not live.get(doc):
                order.append(None)
            else:
                order.append(str(fields_reader.document(doc).get("id")))
        infos = autoclass("org.apache.lucene.index.SegmentInfos").readLatestCommit(directory)
        stats: dict[str, Any] = {
            "max_doc": int(reader.maxDoc()),
            "num_docs": int(reader.numDocs()),
            "segments": int(reader.leaves().size()),
            "min_segment_lucene": str(infos.getMinSegmentLuceneVersion().toString()),
            "commit_lucene": str(infos.getCommitLuceneVersion().toString()),
            "fields": {
                name: {
                    "doc_count": int(reader.getDocCount(name)),
                    "sum_total_term_freq": int(reader.getSumTotalTermFreq(name)),
                    "sum_doc_freq": int(reader.getSumDocFreq(name)),
                }
                for name in fields
            },
        }
        return stats, order
    finally:
        reader.close()


def _build(job: dict[str, Any]) -> float:
    """Builds ``job["build"]`` into ``job["index"]`` with ``IndexCollection`` in this JVM."""
    from jnius import autoclass

    from rserini.parity.lucene_build import (
        LuceneBuild,
        input_ids,
        merge_in_this_jvm,
        write_inputs,
    )

    spec = LuceneBuild(**(job["build"] | {"fields": tuple(job["build"]["fields"])}))
    with tempfile.TemporaryDirectory(prefix="lucene-input-") as inputs:
        write_inputs(spec, Path(job["data_root"]), Path(inputs))
        start = time.perf_counter()
        args = [*spec.options(), "-input", inputs, "-index", job["index"]]
        autoclass("io.anserini.index.IndexCollection").main(args)
        if spec.compound:
            ids = input_ids(Path(inputs))
            merge_in_this_jvm(job["index"], ids[len(ids) - spec.drop :])
        return time.perf_counter() - start


def _json_mapper() -> Any:
    """Jackson (in Anserini's jar) writing Anserini's hits as JSON, their Lucene documents
    left out: one call per batch instead of two JNI calls per hit."""
    from jnius import autoclass

    mapper = autoclass("com.fasterxml.jackson.databind.ObjectMapper")()
    document = autoclass("java.lang.Class").forName("org.apache.lucene.document.Document")
    mapper.configOverride(document).setIsIgnoredType(autoclass("java.lang.Boolean")("true"))
    return mapper


def _search(searcher: Any, run: dict[str, Any], queries: list[list[str]]) -> dict[str, Any]:
    """``run`` over ``queries``: ``{qid: [[docid, score], ...]}``, by the Java call of
    Pyserini's ``LuceneSearcher.batch_search`` (``batch_search`` or
    ``batch_search_fields`` of Anserini's searcher), the hits converted in one piece;
    each score is the shortest decimal of Anserini's float."""
    from jnius import autoclass

    model = run["model"]
    if model == "qld":
        searcher.set_qld(float(run["mu"]))
    else:
        searcher.set_bm25(float(run["k1"]), float(run["b"]))
    options = {key: run[key] for key in FEEDBACK.get(model, {})}
    if model == "rm3":
        searcher.set_rm3(**options)
    elif model == "rocchio":
        searcher.set_rocchio(**options)
    try:
        texts, qids = autoclass("java.util.ArrayList")(), autoclass("java.util.ArrayList")()
        for qid, text in queries:
            qids.add(qid)
            texts.add(text)
        k, threads = int(run["k"]), 2
        if run.get("fields"):
            boosts = autoclass("java.util.HashMap")()
            for field, boost in run["fields"].items():
                boosts.put(field, autoclass("java.lang.Float")(boost))
            found = searcher.object.batch_search_fields(texts, qids, k, threads, boosts)
        else:
            found = searcher.object.batch_search(texts, qids, k, threads)
        hits = json.loads(_json_mapper().writeValueAsString(found))
        return {qid: [[h["docid"], h["score"]] for h in hits[qid]] for qid, _ in queries}
    finally:
        if model == "rm3":
            searcher.unset_rm3()
        elif model == "rocchio":
            searcher.unset_rocchio()


def _outputs(job: dict[str, Any]) -> dict[str, Any]:
    from pyserini.index.lucene import LuceneIndexReader
    from pyserini.search.lucene import LuceneSearcher

    from rserini.parity._java import PYSERINI_VERSION

    index = job["index"]
    searcher = LuceneSearcher(index)
    reader = LuceneIndexReader(index)
    start = time.perf_counter()
    runs = [dict(run) | {"hits": _search(searcher, run, job["queries"])} for run in job["runs"]]
    search_seconds = time.perf_counter() - start
    docs: dict[str, Any] = {}
    for docid in job["docids"]:
        doc = searcher.doc(docid)
        if doc is None:
            docs[docid] = None
            continue
        try:
            vector = reader.get_document_vector(docid)
        except Exception:  # the index has no document vectors
            vector = None
        docs[docid] = {
            "raw": doc.raw(),
            "contents": doc.contents(),
            "lucene_docid": int(reader.convert_collection_docid_to_internal_docid(docid)),
            "vector": vector,
        }
    stats, order = _lucene_stats(index, job["fields"])
    stats["pyserini"] = {k: int(v) for k, v in reader.stats().items()}
    searcher.close()
    return {
        "pyserini_version": PYSERINI_VERSION,
        "stats": stats,
        "order": order,
        "docs": docs,
        "runs": runs,
        "search_seconds": search_seconds,
    }


def main(argv: Sequence[str]) -> int:
    """``python -m rserini.parity.lucene_expected SPEC.json``: each job of the spec's
    ``jobs``, its outputs written to the job's ``out``."""
    if len(argv) != 1:
        print("usage: python -m rserini.parity.lucene_expected SPEC.json", file=sys.stderr)
        return 2
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    from rserini.parity._java import boot

    boot(spec.get("max_heap", "2g"))
    for job in spec["jobs"]:
        built = {"build_seconds": _build(job)} if job.get("build") else {}
        result = _outputs(job) | built
        Path(job["out"]).write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
