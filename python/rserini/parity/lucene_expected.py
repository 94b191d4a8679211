"""What Pyserini itself gives on an existing Lucene index: runs, documents, statistics.

:func:`pyserini_outputs` starts a child process (``python -m
rserini.parity.lucene_expected SPEC.json OUT.json``), so the JVM never lives in the
caller, opens the folder with Pyserini's ``LuceneSearcher`` and ``LuceneIndexReader`` and
records, as plain JSON:

- ``runs``: for each run, ``{"model", "k1", "b", "mu", "fields", "k", "hits": {qid: [[docid,
  score], ...]}}``, scores as Pyserini returns them (Anserini's rounded floats; Pyserini
  prints them with ``%.6f``). ``fields`` is ``None`` for the default ``contents`` search,
  else the boosts passed to ``search(q, k, fields=...)``;
- ``docs``: ``{docid: {"raw", "contents", "lucene_docid", "vector"}}`` (``vector``: the
  document vector where the index has one, else ``None``);
- ``order``: the external docid of each Lucene docid, ``None`` for a deleted document;
- ``stats``: Pyserini's ``LuceneIndexReader.stats()`` plus Lucene's own counts per field
  (``max_doc``, ``num_docs``, ``segments``, ``doc_count``, ``sum_total_term_freq``,
  ``sum_doc_freq``) and the Lucene version of the newest segment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["BM25_SETTINGS", "QLD_MU", "default_runs", "pyserini_outputs"]

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
        spec = {
            "index": str(index),
            "queries": [list(q) for q in queries],
            "runs": [dict(r) for r in runs],
            "docids": list(docids),
            "fields": list(fields),
            "max_heap": max_heap,
        }
        spec_path = Path(tmp) / "spec.json"
        out_path = Path(tmp) / "out.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        env = dict(os.environ)
        python_dir = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = python_dir + os.pathsep + env.get("PYTHONPATH", "")
        child = subprocess.run(
            [sys.executable, "-m", "rserini.parity.lucene_expected", str(spec_path), str(out_path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
        if child.returncode != 0 or not out_path.is_file():
            tail = (child.stdout + child.stderr)[-3000:]
            raise RuntimeError(f"Pyserini failed on {index} ({child.returncode}):\n{tail}")
        result: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
        return result


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


def _run(spec: dict[str, Any]) -> dict[str, Any]:
    from rserini.parity._java import PYSERINI_VERSION, boot

    boot(spec.get("max_heap", "2g"))
    from pyserini.index.lucene import LuceneIndexReader
    from pyserini.search.lucene import LuceneSearcher

    index = spec["index"]
    searcher = LuceneSearcher(index)
    reader = LuceneIndexReader(index)
    runs = []
    for run in spec["runs"]:
        if run["model"] == "qld":
            searcher.set_qld(float(run["mu"]))
        else:
            searcher.set_bm25(float(run["k1"]), float(run["b"]))
        boosts = run.get("fields") or {}
        hits: dict[str, list[list[Any]]] = {}
        for qid, text in spec["queries"]:
            found = searcher.search(text, int(run["k"]), fields=boosts)
            hits[qid] = [[h.docid, float(h.score)] for h in found]
        runs.append(dict(run) | {"hits": hits})
    docs: dict[str, Any] = {}
    for docid in spec["docids"]:
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
    stats, order = _lucene_stats(index, spec["fields"])
    stats["pyserini"] = {k: int(v) for k, v in reader.stats().items()}
    return {
        "pyserini_version": PYSERINI_VERSION,
        "stats": stats,
        "order": order,
        "docs": docs,
        "runs": runs,
    }


def main(argv: Sequence[str]) -> int:
    """``python -m rserini.parity.lucene_expected SPEC.json OUT.json``."""
    if len(argv) != 2:
        print("usage: python -m rserini.parity.lucene_expected SPEC.json OUT.json", file=sys.stderr)
        return 2
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    result = _run(spec)
    Path(argv[1]).write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
