"""The parity harness: the same documents and queries through Pyserini and rserini."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rserini._core import (
    DEFAULT_B,
    DEFAULT_K1,
    DOCID_FIELDS,
    Analyzer,
    Index,
    beir_files,
    corpus_files,
    document_fields,
    read_queries,
)
from rserini.exceptions import DocumentError, RseriniError
from rserini.parity._java import PyseriniUnavailableError, check_available
from rserini.parity._report import (
    EXAMPLES,
    CorpusIssues,
    ParityReport,
    QueryDiff,
    SettingReport,
    TokenDiff,
    TokenReport,
)
from rserini.pyserini import adjust_ties

StrPath = str | os.PathLike[str]

DEFAULT_SETTINGS: tuple[tuple[float, float], ...] = ((DEFAULT_K1, DEFAULT_B),)


class ParityError(RseriniError):
    """A parity check that cannot run: unreadable input, or the Pyserini side failed."""


# --------------------------------------------------------------------------------------
# Input


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")  # a byte order mark, as the core
            if raw.strip():
                yield number, raw


_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> tuple[str, bool]:
    """``text`` with lone surrogates (from JSON escapes) replaced by U+FFFD, and whether
    there were any."""
    cleaned, count = _SURROGATE.subn("\ufffd", text)
    return cleaned, count > 0


def _clean_json(value: Any) -> tuple[Any, bool]:
    """A parsed JSON value with :func:`_clean` applied to every string in it, and whether
    any had a lone surrogate."""
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, dict):
        items = [(_clean(k), _clean_json(v)) for k, v in value.items()]
        return {k: v for (k, _), (v, _) in items}, any(a or b for (_, a), (_, b) in items)
    if isinstance(value, list):
        cleaned = [_clean_json(v) for v in value]
        return [v for v, _ in cleaned], any(bad for _, bad in cleaned)
    return value, False


def read_corpus(path: StrPath) -> tuple[list[tuple[str, str]], CorpusIssues]:
    """Reads a corpus the way ``rserini index`` does, making it safe for both sides.

    The files and the rule per line are the core's (:func:`rserini.formats.corpus_files`,
    :func:`rserini.formats.document_fields`), so both sides index what
    :meth:`rserini.Index.from_jsonl` would; what it would refuse is mended instead (bytes
    that are not UTF-8, lone surrogates) or skipped (lines without an id), on both sides.

    Parameters
    ----------
    path
        A BEIR folder (``corpus.jsonl[.gz]``), a JSONL file (``.jsonl``, ``.jsonl.gz``,
        ``.json``) or a folder of them. Lines are ``{"id", "contents"}`` or BEIR's
        ``{"_id", "title", "text"}`` (indexed as ``title + " " + text``); the id may
        also be ``"docid"``.

    Returns
    -------
    tuple
        ``[(docid, contents), ...]`` in file order, and the issues found (see
        :class:`CorpusIssues`).

    Raises
    ------
    ParityError
        For a line that is not a JSON object, has no text field or a field of the
        wrong type.
    FileNotFoundError
        If the path does not exist.
    """
    issues = CorpusIssues()
    docs: list[tuple[str, str]] = []
    seen: set[str] = set()
    try:
        files = corpus_files(path)
    except DocumentError as e:
        raise ParityError(str(e)) from None
    for file in files:
        for number, raw in _lines(file):
            where = f"{file}:{number}"
            try:
                text, bad_bytes = raw.decode("utf-8"), False
            except UnicodeDecodeError:
                text, bad_bytes = raw.decode("utf-8", "replace"), True
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as e:
                raise ParityError(f"{where}: malformed JSON: {e}") from None
            if not isinstance(obj, dict):
                raise ParityError(f"{where}: expected a JSON object per line")
            if all(obj.get(key) is None for key in DOCID_FIELDS):
                issues.missing_docids.append(where)
                continue
            obj, surrogates = _clean_json(obj)
            if surrogates:  # the core's JSON parser refuses lone surrogates
                text = json.dumps(obj, ensure_ascii=False)
            try:
                docid, contents = document_fields(text)
            except (DocumentError, TypeError) as e:
                raise ParityError(f"{where}: {e}") from None
            if not docid.strip():
                issues.missing_docids.append(where)
                continue
            if bad_bytes or surrogates:
                issues.invalid_utf8.append(docid)
            if docid in seen:
                issues.duplicate_docids.append(docid)
            seen.add(docid)
            if not contents.strip():
                issues.empty_documents.append(docid)
            docs.append((docid, contents))
    if not docs:
        raise ParityError(f"{path}: no document")
    return docs, issues


# --------------------------------------------------------------------------------------
# The two sides


@dataclass
class _Hits:
    docids: list[str]
    scores: np.ndarray  # output scores, float32
    raw: np.ndarray  # unrounded scores, float32


def _pyserini_side(
    docs: Sequence[tuple[str, str]],
    queries: Sequence[tuple[str, str]],
    settings: Sequence[tuple[float, float]],
    k: int,
    work: Path,
    threads: int,
    max_heap: str,
    texts: Sequence[str] = (),
    mode: Mapping[str, Any] | None = None,
    index: Path | None = None,
) -> tuple[dict[str, Any], list[list[str]], list[dict[str, _Hits]]]:
    check_available()
    collection = work / "collection"
    collection.mkdir(parents=True, exist_ok=True)
    with open(collection / "docs.jsonl", "w", encoding="utf-8") as out:
        for docid, contents in docs:
            out.write(json.dumps({"id": docid, "contents": contents}, ensure_ascii=False) + "\n")
    with open(work / "texts.jsonl", "w", encoding="utf-8") as out:
        for text in texts:
            out.write(json.dumps(text, ensure_ascii=False) + "\n")
    spec: dict[str, Any] = {
        "work": str(work / "pyserini"),
        "max_heap": max_heap,
        "threads": threads,
        "k": k,
        "settings": [list(s) for s in settings],
        "mode": dict(mode or {}),
    }
    if texts:
        spec["analyze"] = str(work / "texts.jsonl")
    if docs:
        spec["collection"] = str(collection)
    if index is not None:
        spec["index"] = str(index)
    if queries:
        with open(work / "queries.jsonl", "w", encoding="utf-8") as out:
            for qid, text in queries:
                out.write(json.dumps([qid, text], ensure_ascii=False) + "\n")
        spec["queries"] = str(work / "queries.jsonl")
    with open(work / "spec.json", "w", encoding="utf-8") as f:
        json.dump(spec, f)
    log = work / "pyserini.log"
    with open(log, "w", encoding="utf-8") as out:
        result = subprocess.run(
            [sys.executable, "-m", "rserini.parity._worker", str(work / "spec.json")],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if result.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-15:]
        message = "\n  ".join(tail)
        if "PyseriniUnavailableError" in message:
            raise PyseriniUnavailableError(tail[-1].split(": ", 1)[-1])
        raise ParityError(f"the Pyserini side failed (log: {log}):\n  {message}")
    out_dir = Path(spec["work"])
    stats = json.loads((out_dir / "stats.json").read_text(encoding="utf-8"))
    tokens: list[list[str]] = []
    if texts:
        with open(out_dir / "tokens.jsonl", encoding="utf-8") as f:
            tokens = [json.loads(line) for line in f]
    runs = []
    for i in range(len(settings) if queries else 0):
        rows: dict[str, list[tuple[str, float, float]]] = {qid: [] for qid, _ in queries}
        with open(out_dir / f"run-{i}.tsv", encoding="utf-8") as f:
            for line in f:
                qid, docid, score, raw = line.rstrip("\n").split("\t")
                rows[qid].append((docid, float(score), float(raw)))
        runs.append(
            {
                qid: _Hits(
                    [d for d, _, _ in hits],
                    np.array([s for _, s, _ in hits], dtype=np.float32),
                    np.array([r for _, _, r in hits], dtype=np.float32),
                )
                for qid, hits in rows.items()
            }
        )
    return stats, tokens, runs


def _model_args(mode: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Index.search`` keywords of a comparison mode (see :func:`compare`)."""
    if mode.get("model") == "qld":
        return {"model": "qld", "mu": float(mode["mu"])}
    if mode.get("model") == "rm3":
        keys = ("fb_terms", "fb_docs", "original_query_weight")
        return {"rm3": {key: mode[key] for key in keys}}
    if mode.get("model") == "rocchio":
        keys = ("top_fb_terms", "top_fb_docs", "bottom_fb_terms", "bottom_fb_docs")
        keys += ("alpha", "beta", "gamma", "use_negative")
        return {"rocchio": {key: mode[key] for key in keys}}
    if mode.get("model", "bm25") != "bm25":
        raise ParityError(f"unknown parity mode {dict(mode)!r}")
    return {}


def _rserini_runs(
    index: Index,
    queries: Sequence[tuple[str, str]],
    settings: Sequence[tuple[float, float]],
    k: int,
    threads: int | None,
    mode: Mapping[str, Any] | None = None,
) -> list[dict[str, _Hits]]:
    texts = [text for _, text in queries]
    runs = []
    model = _model_args(mode or {})
    # Pyserini's unrounded feedback scores are not read: compare printed scores twice.
    feedback = "rm3" in model or "rocchio" in model
    for k1, b in settings:
        if "rm3" in model:
            ids, scores = index.batch_search_rm3(
                texts, k=k, threads=threads, k1=k1, b=b, **model["rm3"]
            )
        elif "rocchio" in model:
            ids, scores = index.batch_search_rocchio(
                texts, k=k, threads=threads, k1=k1, b=b, **model["rocchio"]
            )
        else:
            ids, scores = index.batch_search(texts, k=k, threads=threads, k1=k1, b=b, **model)
        docids = index.docids(ids)
        run = {}
        for (qid, _), row_ids, row_docids, row_scores in zip(
            queries, ids, docids, scores, strict=True
        ):
            raw = row_scores[row_ids >= 0]
            printed = adjust_ties(raw)
            run[qid] = _Hits(
                list(row_docids),
                printed,
                printed if feedback else raw.astype(np.float32),
            )
        runs.append(run)
    return runs


# --------------------------------------------------------------------------------------
# Comparison


def _token_diff(ident: str, theirs: Sequence[str], ours: Sequence[str]) -> TokenDiff:
    position = next(
        (i for i, (a, b) in enumerate(zip(theirs, ours, strict=False)) if a != b),
        min(len(theirs), len(ours)),
    )
    start = max(0, position - 2)
    return TokenDiff(
        ident, position, list(theirs[start : position + 4]), list(ours[start : position + 4])
    )


def _remove(hits: _Hits, qid: str) -> _Hits:
    keep = [i for i, d in enumerate(hits.docids) if d != qid]
    if len(keep) == len(hits.docids):
        return hits
    return _Hits([hits.docids[i] for i in keep], hits.scores[keep], hits.raw[keep])


def _kendall_tau(theirs: Sequence[str], ours: Sequence[str]) -> float:
    position = {d: i for i, d in enumerate(ours)}
    common = np.array([position[d] for d in theirs if d in position], dtype=np.int64)
    n = len(common)
    if n < 2:
        return 1.0
    inversions = int(np.triu(common[:, None] > common[None, :], 1).sum())
    return 1.0 - 4.0 * inversions / (n * (n - 1))


def _write_trec(run: Mapping[str, Mapping[str, float]], path: Path, tag: str) -> None:
    """Writes a run as Pyserini does: list order, scores with 6 decimals."""
    with open(path, "w", encoding="utf-8") as out:
        for qid, docs in run.items():
            for rank, (docid, score) in enumerate(docs.items(), start=1):
                out.write(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")


def _compare_setting(
    k1: float,
    b: float,
    theirs: Mapping[str, _Hits],
    ours: Mapping[str, _Hits],
    remove_query: bool,
    qrels: Mapping[str, Mapping[str, int]] | None,
    k: int,
    runs_dir: Path | None = None,
) -> SettingReport:
    same10 = samek = 0
    overlaps, taus, diffs, raw_diffs = [], [], [], []
    raw_equal = raw_total = 0
    examples: list[QueryDiff] = []
    runs: dict[str, dict[str, dict[str, float]]] = {"pyserini": {}, "rserini": {}}
    for qid, p in theirs.items():
        r = ours[qid]
        if remove_query:
            p, r = _remove(p, qid), _remove(r, qid)
        runs["pyserini"][qid] = dict(zip(p.docids, p.scores.tolist(), strict=True))
        runs["rserini"][qid] = dict(zip(r.docids, r.scores.tolist(), strict=True))
        same10 += p.docids[:10] == r.docids[:10]
        if p.docids == r.docids:
            samek += 1
            overlaps.append(1.0)
            taus.append(1.0)
            rank_p = rank_r = np.arange(len(p.docids))
        else:
            rank = next(
                (i for i, (a, c) in enumerate(zip(p.docids, r.docids, strict=False)) if a != c),
                min(len(p.docids), len(r.docids)),
            )
            if len(examples) < EXAMPLES:

                def at(h: _Hits, i: int) -> list[Any] | None:
                    return [h.docids[i], float(h.scores[i])] if i < len(h.docids) else None

                examples.append(QueryDiff(qid, rank + 1, at(p, rank), at(r, rank)))
            where = {d: i for i, d in enumerate(r.docids)}
            common = [d for d in p.docids if d in where]
            overlaps.append(len(common) / max(len(p.docids), len(r.docids)))
            taus.append(_kendall_tau(p.docids, r.docids))
            index_p = {d: i for i, d in enumerate(p.docids)}
            rank_p = np.array([index_p[d] for d in common], dtype=np.int64)
            rank_r = np.array([where[d] for d in common], dtype=np.int64)
        if len(rank_p):
            diffs.append(np.abs(p.scores[rank_p].astype(np.float64) - r.scores[rank_r]))
            raw_diffs.append(np.abs(p.raw[rank_p].astype(np.float64) - r.raw[rank_r]))
            raw_equal += int((p.raw[rank_p].view(np.uint32) == r.raw[rank_r].view(np.uint32)).sum())
            raw_total += len(rank_p)
    if runs_dir is not None:
        runs_dir.mkdir(parents=True, exist_ok=True)
        for side, run in runs.items():
            tag = f"{side}-k1={k1:g}-b={b:g}"
            _write_trec(run, runs_dir / f"{tag}.trec", tag)
    all_diffs = np.concatenate(diffs) if diffs else np.zeros(0)
    all_raw = np.concatenate(raw_diffs) if raw_diffs else np.zeros(0)
    metrics = None
    if qrels:
        from rserini.eval import evaluate

        names = ["nDCG@10", f"R@{k}"]
        metrics = {side: dict(evaluate(run, qrels, names).aggregate) for side, run in runs.items()}
    return SettingReport(
        k1=k1,
        b=b,
        queries=len(theirs),
        same_top10=same10,
        same_topk=samek,
        mean_overlap=float(np.mean(overlaps)) if overlaps else 1.0,
        mean_kendall_tau=float(np.mean(taus)) if taus else 1.0,
        min_kendall_tau=float(np.min(taus)) if taus else 1.0,
        max_score_diff=float(all_diffs.max()) if len(all_diffs) else 0.0,
        mean_score_diff=float(all_diffs.mean()) if len(all_diffs) else 0.0,
        max_raw_diff=float(all_raw.max()) if len(all_raw) else 0.0,
        raw_bitwise_equal=raw_equal / raw_total if raw_total else 1.0,
        metrics=metrics,
        examples=examples,
    )


def compare(
    corpus: StrPath,
    queries: StrPath | Sequence[tuple[str, str]] | None = None,
    qrels: StrPath | Mapping[str, Mapping[str, int]] | None = None,
    *,
    settings: Sequence[tuple[float, float]] = DEFAULT_SETTINGS,
    k: int = 1000,
    remove_query: bool = False,
    threads: int | None = None,
    work_dir: StrPath | None = None,
    max_heap: str = "4g",
    runs_dir: StrPath | None = None,
    mode: Mapping[str, Any] | None = None,
    lucene_index: StrPath | None = None,
) -> ParityReport:
    """Runs the same documents and queries through Pyserini and rserini and compares them.

    Pyserini indexes the documents with Anserini's ``IndexCollection`` (its default English
    analyzer) and searches with ``LuceneSearcher``; rserini indexes them with the
    ``lucene-english`` analyzer and searches in its Pyserini mode (Lucene BM25, Anserini's
    order and rounding, see :mod:`rserini.pyserini`). The Pyserini side runs in a child
    process.

    Parameters
    ----------
    corpus
        A BEIR folder, a JSONL file or a folder of JSONL files (see :func:`read_corpus`).
    queries
        A BEIR ``queries.jsonl`` or ``qid<TAB>text`` file, or ``(qid, text)`` pairs;
        default: the BEIR folder's ``queries.jsonl``.
    qrels
        TREC or BEIR qrels, or ``{qid: {docid: rel}}``, for nDCG@10 and R@k on both
        sides; default: the BEIR folder's ``qrels/test.tsv`` if any. Only judged queries
        are run when qrels are given.
    settings
        ``(k1, b)`` pairs; each is run on both sides.
    k
        Hits per query (Pyserini's ``--hits``).
    remove_query
        Drop a query's own docid from its hits, as Pyserini's ``--remove-query`` (after
        searching ``k``).
    threads
        Threads for rserini and for Anserini's indexer (default: 2).
    work_dir
        Where the Pyserini collection, index and runs go (kept); default: a temporary
        folder, removed afterwards.
    max_heap
        The JVM's ``-Xmx``.
    runs_dir
        Also write both sides' runs there as TREC files, the way Pyserini writes them
        (``pyserini-k1=0.9-b=0.4.trec``, ``rserini-k1=0.9-b=0.4.trec``, ...).
    mode
        The model both sides run instead of BM25: ``{"model": "qld", "mu": 1000.0}`` is
        Pyserini's ``set_qld(1000)`` (``settings`` then only sets the number of runs;
        give one pair).
    lucene_index
        A Lucene index folder (built by Anserini or Pyserini from ``corpus``) that both
        sides search instead of indexing: Pyserini's ``LuceneSearcher`` on it, and
        rserini's ``Index.load`` of it. Only the queries' tokens are compared then.

    Returns
    -------
    ParityReport
        The measurements; see :meth:`ParityReport.to_text` and
        :meth:`ParityReport.failures`.

    Raises
    ------
    PyseriniUnavailableError
        If Pyserini, pyjnius or Java 21+ is missing (naming the install command).
    ParityError
        For unreadable input or a failure of the Pyserini side.
    """
    corpus_path = Path(corpus)
    docs, issues = read_corpus(corpus_path)
    _, own_queries, own_qrels = beir_files(corpus_path) or (None, None, None)
    if queries is None:
        queries = own_queries
        if queries is None:
            raise ParityError(f"{corpus_path}: no queries.jsonl: give the queries")
    topics = (
        list(read_queries(queries)) if isinstance(queries, (str, os.PathLike)) else list(queries)
    )
    if qrels is None:
        qrels = own_qrels
    judged: Mapping[str, Mapping[str, int]] | None = None
    if qrels is not None:
        if isinstance(qrels, (str, os.PathLike)):
            from rserini.formats import read_qrels

            judged = read_qrels(qrels)
        else:
            judged = qrels
        topics = [(qid, text) for qid, text in topics if qid in judged]
    if not topics:
        raise ParityError("no query to run (none judged in the qrels?)")
    seen_qids: set[str] = set()
    for qid, _ in topics:
        if qid in seen_qids:
            raise ParityError(f"query id {qid!r} appears twice")
        seen_qids.add(qid)
    threads = threads or 2
    lucene = Path(lucene_index) if lucene_index is not None else None
    if lucene is not None:
        docs = []
    texts = [contents for _, contents in docs] + [text for _, text in topics]

    with tempfile.TemporaryDirectory(prefix="rserini-parity-") as tmp:
        work = Path(work_dir) if work_dir is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        stats, tokens, pyserini_runs = _pyserini_side(
            docs, topics, settings, k, work, threads, max_heap, texts, mode, lucene
        )
        pyserini_seconds = time.perf_counter() - start

    start = time.perf_counter()
    if lucene is not None:
        index = Index.load(lucene)
    else:
        index = Index.build(
            docs, analyzer="lucene-english", threads=threads, progress=False, duplicates="keep"
        )
    rserini_runs = _rserini_runs(index, topics, settings, k, threads, mode)
    rserini_seconds = time.perf_counter() - start
    ours = Analyzer("lucene-english").analyze_batch(texts)

    token_report = TokenReport(documents=len(docs), identical=0, queries=len(topics))
    ids = [d for d, _ in docs] + [f"query:{q}" for q, _ in topics]
    for i, (ident, theirs, mine) in enumerate(zip(ids, tokens, ours, strict=True)):
        if theirs == mine:
            if i < len(docs):
                token_report.identical += 1
            else:
                token_report.identical_queries += 1
            continue
        token_report.differing.append(ident)
        if len(token_report.examples) < EXAMPLES:
            token_report.examples.append(_token_diff(ident, theirs, mine))

    reports = [
        _compare_setting(
            float(k1),
            float(b),
            theirs,
            mine,
            remove_query,
            judged,
            k,
            Path(runs_dir) if runs_dir is not None else None,
        )
        for (k1, b), theirs, mine in zip(settings, pyserini_runs, rserini_runs, strict=True)
    ]
    rs_stats = index.stats()
    from rserini import __version__

    return ParityReport(
        corpus=str(corpus_path),
        documents=len(index) if lucene is not None else len(docs),
        queries=len(topics),
        k=k,
        remove_query=remove_query,
        issues=issues,
        tokens=token_report,
        settings=reports,
        pyserini=stats,
        rserini={
            "version": __version__,
            "num_docs": rs_stats.num_docs,
            "doc_count": rs_stats.num_nonempty_docs,
            "total_terms": rs_stats.total_terms,
        },
        seconds={"pyserini": pyserini_seconds, "rserini": rserini_seconds},
        mode=dict(mode or {}),
    )


def compare_analyzers(
    texts: Sequence[str], *, work_dir: StrPath | None = None
) -> list[tuple[str, list[str], list[str]]]:
    """Analyzes texts with Pyserini's default analyzer and with ``lucene-english``.

    Parameters
    ----------
    texts
        The texts.
    work_dir
        Where the files exchanged with the Pyserini process go (default: temporary).

    Returns
    -------
    list of (str, list of str, list of str)
        ``(text, pyserini_tokens, rserini_tokens)`` for each text whose streams differ.

    Raises
    ------
    PyseriniUnavailableError
        If Pyserini cannot run here.
    """
    cleaned = [_clean(t)[0] for t in texts]
    with tempfile.TemporaryDirectory(prefix="rserini-analyze-") as tmp:
        work = Path(work_dir) if work_dir is not None else Path(tmp)
        _, theirs, _ = _pyserini_side([], [], [], 1, work, 1, "1g", cleaned)
    ours = Analyzer("lucene-english").analyze_batch(cleaned)
    return [(t, a, b) for t, a, b in zip(cleaned, theirs, ours, strict=True) if a != b]
