"""BM25 parameter tuning: a k1 x b grid over one index, scored with :mod:`rserini.eval`.

k1 and b are query-time parameters in rserini, so a grid reuses a single index: each cell
is one :meth:`~rserini.Index.batch_search` of every tuning query (parallel, GIL released)
and one ``trec_eval`` evaluation.

- :func:`grid` scores every cell of ``k1s x bs`` and returns a :class:`Grid` (``.rows``,
  ``.best``, ``.to_csv()``).
- :func:`tune` adds what a trustworthy choice needs: a seeded sample of the judged queries
  to tune on, an optional finer grid around the best cell, and the chosen cell against
  the default (:data:`DEFAULT_K1`, :data:`DEFAULT_B`: rserini's and Pyserini's) on the
  tuning sample and on
  the held-out rest.
- :func:`plot` draws the grid as a heatmap marking the best cell and the default.

Of several cells with the best value, the one nearest the default wins (distance in
``|ln(k1 / DEFAULT_K1)| + |b - DEFAULT_B|``), so a plateau does not move the choice at
random.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rserini._core import DEFAULT_B, DEFAULT_K1, Bm25
from rserini.eval import EvaluationError, Evaluator, MissingPolicy, parse_metric, retrieve
from rserini.exceptions import QueryError, RseriniError
from rserini.formats import (
    Qrels,
    Queries,
    StrPath,
    beir_collection,
    beir_files,
    read_qrels,
    read_queries,
)

if TYPE_CHECKING:
    from rserini._core import Index

DEFAULT_DEPTH = 1000
"""Results per query for a metric without a cutoff (MAP, MRR, Bpref...)."""
PLOT_HINT = "pip install 'rserini[plot]'"
CORPUS_FORMS = (
    "--corpus takes a BEIR folder (corpus.jsonl or corpus.jsonl.gz, queries.jsonl, "
    "qrels/test.tsv) or a JSONL corpus with --queries and --qrels"
)

ProgressCallback = Callable[[int, int, "dict[str, Any]"], None]

__all__ = [
    "DEFAULT_B",
    "DEFAULT_DEPTH",
    "DEFAULT_K1",
    "Grid",
    "TuneReport",
    "grid",
    "metric_depth",
    "open_collection",
    "parse_values",
    "plot",
    "split_queries",
    "tune",
]


def parse_values(spec: str) -> list[float]:
    """Parameter values from ``start:stop:count``, ``start:stop:count:log`` or ``a,b,c``.

    ``start:stop:count`` is ``numpy.linspace(start, stop, count)``; with ``:log`` the
    values are evenly spaced on a log scale (``numpy.geomspace``), which suits k1. Values
    are rounded to 4 decimals, sorted and deduplicated.

    Parameters
    ----------
    spec
        The specification, e.g. ``"0.5:30:10"``, ``"0.5:30:10:log"``, ``"0.9,1.2,25"``.

    Returns
    -------
    list of float
        The values, ascending.

    Raises
    ------
    ValueError
        For a malformed specification, a count below 1, a non-finite value, or a log
        range that is not positive.
    """
    text = spec.strip()
    if ":" in text:
        parts = text.split(":")
        log = len(parts) == 4 and parts[3].strip().lower() == "log"
        if len(parts) not in (3, 4) or (len(parts) == 4 and not log):
            raise ValueError(f"{spec!r}: expected start:stop:count or start:stop:count:log")
        try:
            start, stop, count = float(parts[0]), float(parts[1]), int(parts[2])
        except ValueError:
            raise ValueError(
                f"{spec!r}: start and stop must be numbers, count an integer"
            ) from None
        if count < 1:
            raise ValueError(f"{spec!r}: count must be at least 1")
        if log and (start <= 0 or stop <= 0):
            raise ValueError(f"{spec!r}: a log range needs start and stop > 0")
        if count == 1:
            values = [start]
        elif log:
            ratio = math.log(stop / start) / (count - 1)
            values = [start * math.exp(ratio * i) for i in range(count)]
        else:
            values = [start + (stop - start) * i / (count - 1) for i in range(count)]
    else:
        try:
            values = [float(v) for v in text.split(",") if v.strip()]
        except ValueError:
            raise ValueError(f"{spec!r}: expected numbers separated by commas") from None
        if not values:
            raise ValueError(f"{spec!r}: no value")
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"{spec!r}: values must be finite")
    return sorted({round(v, 4) + 0.0 for v in values})


def metric_depth(metric: str) -> int:
    """How many results per query a metric needs: its cutoff, else :data:`DEFAULT_DEPTH`.

    Parameters
    ----------
    metric
        A metric name (see :func:`rserini.eval.parse_metric`).

    Returns
    -------
    int
        ``10`` for ``nDCG@10``, ``1000`` for ``MAP``.
    """
    cutoff = parse_metric(metric).params.get("cutoff")
    return int(cutoff) if cutoff is not None else DEFAULT_DEPTH


def _default_distance(k1: float, b: float) -> float:
    return abs(math.log((k1 + 1e-9) / DEFAULT_K1)) + abs(b - DEFAULT_B)


def _check_params(k1s: Sequence[float], bs: Sequence[float]) -> tuple[list[float], list[float]]:
    k1s = sorted({float(v) for v in k1s})
    bs = sorted({float(v) for v in bs})
    if not k1s or not bs:
        raise QueryError("the grid needs at least one k1 and one b")
    for k1 in k1s:
        Bm25(k1=k1)
    for b in bs:
        Bm25(b=b)
    return k1s, bs


def _cell(scoring: Bm25 | None, k1: float, b: float) -> dict[str, Any]:
    """The scoring keywords of one cell: ``scoring`` with the cell's k1 and b."""
    if scoring is None:
        return {"k1": k1, "b": b}
    return {"scoring": Bm25(k1, b, scoring.variant, scoring.length, scoring.delta)}


@dataclass
class Grid:
    """Every cell of a k1 x b grid.

    Attributes
    ----------
    metric
        The metric name.
    k1s, bs
        The axes, ascending.
    rows
        One dict per cell, ``{"k1", "b", metric}``, k1 major.
    queries
        The number of queries each cell averages.
    depth
        Results retrieved per query.
    seconds
        Wall time of the whole grid (search and evaluation).
    stage
        ``"grid"``, or ``"refine"`` for a finer grid around a best cell.
    """

    metric: str
    k1s: list[float]
    bs: list[float]
    rows: list[dict[str, float]]
    queries: int
    depth: int
    seconds: float
    stage: str = "grid"

    @property
    def best(self) -> dict[str, float]:
        """The best cell (ties: nearest the default)."""
        return min(self.rows, key=lambda r: (-r[self.metric], _default_distance(r["k1"], r["b"])))

    def value(self, k1: float, b: float) -> float:
        """The metric at one cell.

        Raises
        ------
        KeyError
            If ``(k1, b)`` is not a cell of the grid.
        """
        for row in self.rows:
            if row["k1"] == k1 and row["b"] == b:
                return row[self.metric]
        raise KeyError(f"no cell k1={k1}, b={b} in the grid")

    def matrix(self) -> list[list[float]]:
        """The values as rows of b (ascending) by columns of k1 (ascending)."""
        index = {(r["k1"], r["b"]): r[self.metric] for r in self.rows}
        return [[index[(k1, b)] for k1 in self.k1s] for b in self.bs]

    def to_csv(self, path: StrPath | None = None) -> str:
        """The cells as CSV (``stage,k1,b,<metric>``); written to ``path`` when given."""
        lines = [f"stage,k1,b,{self.metric}"]
        lines += [
            f"{self.stage},{r['k1']:.10g},{r['b']:.10g},{r[self.metric]:.6f}" for r in self.rows
        ]
        text = "\n".join(lines) + "\n"
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict of everything."""
        return {
            "stage": self.stage,
            "metric": self.metric,
            "k1s": self.k1s,
            "bs": self.bs,
            "queries": self.queries,
            "depth": self.depth,
            "seconds": round(self.seconds, 3),
            "best": self.best,
            "rows": self.rows,
        }


class _Bar:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, label: str) -> None:
        self.total = total
        self.label = label
        self.start = time.perf_counter()
        self.shown = 0

    def __call__(self, done: int, total: int, row: dict[str, Any]) -> None:
        width = 24
        filled = width * done // max(total, 1)
        elapsed = time.perf_counter() - self.start
        eta = elapsed / done * (total - done) if done else 0.0
        metric = next((k for k in row if k not in ("k1", "b")), "")
        line = (
            f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
            f"k1={row.get('k1', 0):g} b={row.get('b', 0):g} {metric} {row.get(metric, 0):.4f} "
            f"{elapsed:.1f}s eta {eta:.1f}s"
        )
        sys.stderr.write("\r" + line.ljust(self.shown))
        self.shown = len(line)
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _judged_queries(
    queries: Sequence[tuple[str, str]], qrels: Mapping[str, Mapping[str, int]]
) -> tuple[Queries, Qrels]:
    seen: set[str] = set()
    for qid, _ in queries:
        if qid in seen:
            raise EvaluationError(f"topic {qid!r} appears twice: query ids must be unique")
        seen.add(qid)
    judged = [(q, t) for q, t in queries if qrels.get(q)]
    if not judged:
        raise EvaluationError(
            "no query of the topics is judged in the qrels: are they of the same collection?"
        )
    return judged, {q: dict(qrels[q]) for q, _ in judged}


def grid(
    index: Index,
    queries: Sequence[tuple[str, str]],
    qrels: Mapping[str, Mapping[str, int]],
    k1s: Sequence[float],
    bs: Sequence[float],
    *,
    metric: str = "nDCG@10",
    k: int | None = None,
    remove_query: bool = False,
    missing: MissingPolicy | str = "zero",
    threads: int | None = None,
    progress: bool | ProgressCallback = False,
    stage: str = "grid",
    scoring: Bm25 | None = None,
    **params: Any,
) -> Grid:
    """Scores every cell of ``k1s x bs`` on one index.

    Only judged queries are run: topics the qrels do not mention are dropped, and judged
    queries without a topic are not evaluated (the average is over topics ∩ qrels).

    Parameters
    ----------
    index
        The index; it is searched, never rebuilt.
    queries
        ``(qid, text)`` topics.
    qrels
        ``{qid: {docid: relevance}}``.
    k1s, bs
        The axes (k1 >= 0, 0 <= b <= 1); sorted and deduplicated.
    metric
        The metric to maximise (see :func:`rserini.eval.parse_metric`).
    k
        Results per query; default :func:`metric_depth` of the metric.
    remove_query
        Drop a hit whose docid equals its query id (see :func:`rserini.eval.retrieve`).
    missing
        How judged queries without results are averaged (see :func:`rserini.eval.evaluate`).
    threads
        Search threads (default: all cores).
    progress
        ``True`` for a progress bar on stderr, or a callback ``(done, total, row)``.
    stage
        The label of the grid's rows (``"grid"`` or ``"refine"``).
    scoring
        The BM25 of every cell (variant, length mode, delta) as a :class:`rserini.Bm25`,
        each cell with its own k1 and b; or give ``variant=``, ``length=`` and ``delta=``
        in ``params`` instead.
    **params
        Other scoring parameters of :meth:`rserini.Index.batch_search` (``variant``,
        ``length``, ``delta``).

    Returns
    -------
    Grid
        Every cell's value.

    Raises
    ------
    QueryError
        For an empty axis, k1 < 0 or b outside [0, 1].
    EvaluationError
        For an unknown metric or no judged topic.
    """
    k1s, bs = _check_params(k1s, bs)
    judged, judged_qrels = _judged_queries(queries, qrels)
    evaluator = Evaluator(judged_qrels, [metric], missing=missing)
    depth = k if k is not None else metric_depth(metric)
    total = len(k1s) * len(bs)
    callback: ProgressCallback | None = None
    if callable(progress):
        callback = progress
    elif progress:
        callback = _Bar(total, stage)
    start = time.perf_counter()
    rows: list[dict[str, float]] = []
    queries_averaged = 0
    for k1 in k1s:
        for b in bs:
            run = retrieve(
                index,
                judged,
                depth,
                remove_query=remove_query,
                threads=threads,
                **_cell(scoring, k1, b),
                **params,
            )
            result = _evaluate(evaluator, run)
            queries_averaged = result.queries
            rows.append({"k1": k1, "b": b, metric: result[metric]})
            if callback is not None:
                callback(len(rows), total, rows[-1])
    return Grid(
        metric=metric,
        k1s=k1s,
        bs=bs,
        rows=rows,
        queries=queries_averaged,
        depth=depth,
        seconds=time.perf_counter() - start,
        stage=stage,
    )


def _evaluate(evaluator: Evaluator, run: Mapping[str, Mapping[str, float]]) -> Any:
    """Evaluates a run of judged topics; a run without any hit is an error, not a 0."""
    if not any(run.values()):
        raise EvaluationError(
            "no tuning query matches any document: check the topics against the corpus"
        )
    return evaluator(run)


def split_queries(
    queries: Sequence[tuple[str, str]], sample: int | None, seed: int = 0
) -> tuple[Queries, Queries]:
    """A seeded sample of queries to tune on, and the held-out rest.

    Parameters
    ----------
    queries
        ``(qid, text)`` pairs.
    sample
        How many to tune on; ``None`` (or at least ``len(queries)``) keeps them all.
    seed
        The seed of :class:`random.Random`: the same seed and topics give the same sample
        on every platform.

    Returns
    -------
    tuple of (list, list)
        ``(tuning, held_out)``, both in the original order.

    Raises
    ------
    ValueError
        If ``sample`` is below 1.
    """
    queries = list(queries)
    if sample is None or sample >= len(queries):
        return queries, []
    if sample < 1:
        raise ValueError(f"the sample needs at least one query, got {sample}")
    chosen = set(random.Random(seed).sample(range(len(queries)), sample))
    tuning = [q for i, q in enumerate(queries) if i in chosen]
    held_out = [q for i, q in enumerate(queries) if i not in chosen]
    return tuning, held_out


def _refine_axis(values: list[float], best: float, steps: int, lo: float, hi: float) -> list[float]:
    i = values.index(best)
    if len(values) == 1:
        return [best]
    left = values[max(i - 1, 0)]
    right = values[min(i + 1, len(values) - 1)]
    fine = [left + (right - left) * j / (steps - 1) for j in range(steps)] if steps > 1 else []
    return sorted({min(max(round(v, 4) + 0.0, lo), hi) for v in [*fine, best]})


@dataclass
class TuneReport:
    """What :func:`tune` found.

    Attributes
    ----------
    metric
        The metric maximised.
    grid
        The coarse grid, on the tuning queries.
    refined
        The finer grid around the coarse best cell, or ``None``.
    best
        The chosen cell ``{"k1", "b", metric}`` (best of both grids) on the tuning queries.
    default
        The default cell ``{"k1": DEFAULT_K1, "b": DEFAULT_B, metric}`` on the tuning queries.
    held_out
        ``{"queries", "default", "best"}``: both cells on the held-out queries, or ``None``
        when every judged query was used for tuning.
    tuning_qids, held_out_qids
        The judged queries of each part.
    unmatched_qids
        Judged queries of the qrels without a topic (not evaluated).
    unjudged
        The number of topics the qrels do not judge (not run).
    sample, seed
        The sampling parameters.
    """

    metric: str
    grid: Grid
    refined: Grid | None
    best: dict[str, float]
    default: dict[str, float]
    held_out: dict[str, float] | None
    tuning_qids: list[str]
    held_out_qids: list[str]
    unmatched_qids: list[str] = field(default_factory=list)
    unjudged: int = 0
    sample: int | None = None
    seed: int = 0
    name: str = ""

    @property
    def rows(self) -> list[dict[str, object]]:
        """Every cell of both grids, with its ``stage``."""
        grids = [self.grid] + ([self.refined] if self.refined is not None else [])
        return [{"stage": g.stage, **row} for g in grids for row in g.rows]

    @property
    def seconds(self) -> float:
        """Wall time of the grids."""
        return self.grid.seconds + (self.refined.seconds if self.refined is not None else 0.0)

    def on_edge(self) -> bool:
        """Whether the chosen cell lies on a border of the coarse grid where the range could
        extend (k1 above 0, b inside (0, 1)): the optimum may lie outside, widen the range."""
        k1s, bs = self.grid.k1s, self.grid.bs
        k1, b = self.best["k1"], self.best["b"]
        k1_edge = len(k1s) > 1 and ((k1 == k1s[0] and k1 > 0) or k1 == k1s[-1])
        b_edge = len(bs) > 1 and b in (bs[0], bs[-1]) and 0 < b < 1
        return k1_edge or b_edge

    def to_csv(self, path: StrPath | None = None) -> str:
        """Every cell of both grids as CSV; written to ``path`` when given."""
        text = self.grid.to_csv()
        if self.refined is not None:
            text += "".join(self.refined.to_csv().splitlines(keepends=True)[1:])
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict of everything."""
        return {
            "name": self.name,
            "metric": self.metric,
            "best": self.best,
            "default": self.default,
            "held_out": self.held_out,
            "sample": self.sample,
            "seed": self.seed,
            "tuning_queries": len(self.tuning_qids),
            "held_out_queries": len(self.held_out_qids),
            "unmatched_qids": self.unmatched_qids,
            "unjudged_topics": self.unjudged,
            "best_on_grid_edge": self.on_edge(),
            "seconds": round(self.seconds, 3),
            "grid": self.grid.to_dict(),
            "refined": self.refined.to_dict() if self.refined is not None else None,
            "tuning_qids": self.tuning_qids,
            "held_out_qids": self.held_out_qids,
        }

    def to_json(self, path: StrPath | None = None) -> str:
        """:meth:`to_dict` as indented JSON; written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=1) + "\n"
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def summary(self) -> str:
        """A few lines for a terminal: grid size and time, best cell, default vs best."""
        m = self.metric
        best, default = self.best, self.default
        g = self.grid
        cells = f"{len(g.k1s)} x {len(g.bs)} = {len(g.rows)} cells in {g.seconds:.2f}s"
        if self.refined is not None:
            r = self.refined
            cells += f", refined {len(r.k1s)} x {len(r.bs)} in {r.seconds:.2f}s"
        head = f"{self.name}: " if self.name else ""
        lines = [
            f"{head}{m} over k1 x b, {len(self.tuning_qids)} tuning queries"
            + (f" (sample, seed {self.seed})" if self.held_out_qids else "")
            + f", depth {g.depth}: {cells}",
            f"best: k1={best['k1']:g} b={best['b']:g} {m} {best[m]:.4f}; default "
            f"k1={DEFAULT_K1:g} b={DEFAULT_B:g}: {default[m]:.4f} ({best[m] - default[m]:+.4f})",
        ]
        if self.on_edge():
            lines.append("note: the best cell lies on the edge of the grid; widen the range")
        table = [("", "queries", "default", "best", "gain")]
        table.append(
            (
                "tuning",
                str(len(self.tuning_qids)),
                f"{default[m]:.4f}",
                f"{best[m]:.4f}",
                f"{best[m] - default[m]:+.4f}",
            )
        )
        if self.held_out is not None:
            h = self.held_out
            table.append(
                (
                    "held-out",
                    str(int(h["queries"])),
                    f"{h['default']:.4f}",
                    f"{h['best']:.4f}",
                    f"{h['best'] - h['default']:+.4f}",
                )
            )
        lines += [f"{a:<9}{b:>8}{c:>9}{d:>9}{e:>9}" for a, b, c, d, e in table]
        return "\n".join(lines) + "\n"


def tune(
    index: Index,
    queries: Sequence[tuple[str, str]],
    qrels: Mapping[str, Mapping[str, int]],
    k1s: Sequence[float],
    bs: Sequence[float],
    *,
    metric: str = "nDCG@10",
    sample: int | None = None,
    seed: int = 0,
    refine: bool = False,
    refine_steps: int = 5,
    k: int | None = None,
    remove_query: bool = False,
    missing: MissingPolicy | str = "zero",
    threads: int | None = None,
    progress: bool = False,
    name: str = "",
    scoring: Bm25 | None = None,
    **params: Any,
) -> TuneReport:
    """Tunes k1 and b on a sample of the judged queries and checks the choice on the rest.

    Parameters
    ----------
    index, queries, qrels, k1s, bs, metric, k, remove_query, missing, threads, scoring, params
        As for :func:`grid`.
    sample
        Tune on this many judged queries drawn with ``seed`` (see :func:`split_queries`)
        and evaluate the default and the chosen cell on the others; ``None`` tunes on all.
    seed
        The sampling seed.
    refine
        Also score a finer grid (``refine_steps`` values per axis) spanning the
        neighbours of the best coarse cell.
    refine_steps
        Values per axis of the finer grid.
    progress
        Progress bars on stderr.
    name
        A label for the report (e.g. the collection's name).

    Returns
    -------
    TuneReport
        The grids, the chosen cell, and default vs chosen on tuning and held-out queries.

    Raises
    ------
    QueryError
        For invalid k1 or b values.
    EvaluationError
        For an unknown metric or topics none of which is judged.
    """
    k1s, bs = _check_params(k1s, bs)
    judged, judged_qrels = _judged_queries(queries, qrels)
    topic_ids = {q for q, _ in queries}
    unmatched = [q for q, docs in qrels.items() if docs and q not in topic_ids]
    unjudged = sum(1 for q, _ in queries if not qrels.get(q))
    tuning, held_out = split_queries(judged, sample, seed)
    common = {
        "metric": metric,
        "k": k,
        "remove_query": remove_query,
        "missing": missing,
        "threads": threads,
        "scoring": scoring,
        **params,
    }

    coarse = grid(index, tuning, judged_qrels, k1s, bs, progress=progress, **common)
    best = coarse.best
    refined = None
    if refine:
        fine_k1s = _refine_axis(coarse.k1s, best["k1"], refine_steps, 0.0, math.inf)
        fine_bs = _refine_axis(coarse.bs, best["b"], refine_steps, 0.0, 1.0)
        refined = grid(
            index,
            tuning,
            judged_qrels,
            fine_k1s,
            fine_bs,
            progress=progress,
            stage="refine",
            **common,
        )
        if refined.best[metric] > best[metric]:
            best = refined.best

    def score(part: Queries, k1: float, b: float) -> float:
        part_qrels = {q: judged_qrels[q] for q, _ in part}
        evaluator = Evaluator(part_qrels, [metric], missing=missing)
        depth = k if k is not None else metric_depth(metric)
        run = retrieve(
            index,
            part,
            depth,
            remove_query=remove_query,
            threads=threads,
            **_cell(scoring, k1, b),
            **params,
        )
        return _evaluate(evaluator, run)[metric]

    default = {"k1": DEFAULT_K1, "b": DEFAULT_B, metric: score(tuning, DEFAULT_K1, DEFAULT_B)}
    held = None
    if held_out:
        held = {
            "queries": len(held_out),
            "default": score(held_out, DEFAULT_K1, DEFAULT_B),
            "best": score(held_out, best["k1"], best["b"]),
        }
    return TuneReport(
        metric=metric,
        grid=coarse,
        refined=refined,
        best=dict(best),
        default=default,
        held_out=held,
        tuning_qids=[q for q, _ in tuning],
        held_out_qids=[q for q, _ in held_out],
        unmatched_qids=unmatched,
        unjudged=unjudged,
        sample=sample,
        seed=seed,
        name=name,
    )


def open_collection(
    corpus: StrPath | None = None,
    *,
    index: StrPath | None = None,
    queries: StrPath | None = None,
    qrels: StrPath | None = None,
    split: str = "test",
    analyzer: str = "lucene-english",
    threads: int | None = None,
    progress: bool = False,
) -> tuple[Index, Queries, Qrels, str]:
    """The index, topics and qrels of a collection, for tuning.

    Parameters
    ----------
    corpus
        A BEIR collection folder (``corpus.jsonl[.gz]``, ``queries.jsonl``,
        ``qrels/<split>.tsv``), or JSONL corpus files (then ``queries`` and ``qrels`` are
        required). It is indexed in memory.
    index
        A saved index to load instead of a corpus (``queries`` and ``qrels`` required).
    queries, qrels
        Topics (``queries.jsonl`` or ``qid<TAB>text``) and qrels (TREC or BEIR TSV);
        they override a BEIR folder's own.
    split
        The qrels split of a BEIR folder.
    analyzer, threads, progress
        Indexing options of :meth:`rserini.Index.from_jsonl`.

    Returns
    -------
    tuple
        ``(index, queries, qrels, name)``; ``name`` is the folder or file stem.

    Raises
    ------
    RseriniError
        For neither or both of ``corpus`` and ``index``, or missing topics or qrels.
    FileNotFoundError
        For a missing file.
    """
    from rserini._core import Index

    if (corpus is None) == (index is None):
        raise RseriniError("give either a corpus or a saved index")
    for given, what in ((corpus, CORPUS_FORMS), (index, "a saved index folder")):
        if given is not None and not os.path.exists(given):
            raise FileNotFoundError(f"no such folder or file: {given} ({what})")
    if corpus is not None and beir_files(corpus, split) is not None:
        beir = beir_collection(corpus, split=split, queries=queries, qrels=qrels)
        built = Index.from_jsonl(beir.corpus, analyzer=analyzer, threads=threads, progress=progress)
        return built, beir.queries(), beir.qrels(), beir.name
    if queries is None or qrels is None:
        raise RseriniError(
            f"--queries and --qrels are needed unless --corpus is a BEIR folder; {corpus or index} "
            f"is not one (a BEIR folder holds corpus.jsonl or corpus.jsonl.gz, queries.jsonl, "
            f"qrels/{split}.tsv)"
        )
    for path, what in ((queries, "--queries"), (qrels, "--qrels")):
        if not os.path.exists(path):
            raise FileNotFoundError(f"no such file: {path} ({what})")
    if index is not None:
        loaded = Index.load(index)
        name = Path(index).name
    else:
        assert corpus is not None
        loaded = Index.from_jsonl(corpus, analyzer=analyzer, threads=threads, progress=progress)
        name = Path(corpus).name.split(".")[0]
    return loaded, read_queries(queries), read_qrels(qrels), name


def plot(report: TuneReport | Grid, path: StrPath, *, title: str | None = None) -> Path:
    """Draws the grid as a heatmap PNG, marking the best cell and the default cell.

    Columns are k1, rows b (ascending upwards); each cell shows its value when the grid
    is small enough to read. A refined grid, if any, is drawn in a second panel.

    Parameters
    ----------
    report
        A :class:`TuneReport` or a single :class:`Grid`.
    path
        The image to write (PNG; parent folders are created).
    title
        The figure title (default: the report's name and metric).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    RseriniError
        If matplotlib is not installed (``pip install 'rserini[plot]'``).
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise RseriniError(f"plotting needs matplotlib: {PLOT_HINT}") from None

    if isinstance(report, Grid):
        grids, default, name = [report], None, ""
    else:
        grids = [report.grid] + ([report.refined] if report.refined is not None else [])
        default, name = report.default, report.name
    metric = grids[0].metric
    figure = Figure(figsize=(6.4 * len(grids) + 0.4, 5.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, len(grids), squeeze=False)[0]
    for ax, g in zip(axes, grids, strict=True):
        _draw_grid(figure, ax, g, default)
    queries = grids[0].queries
    figure.suptitle(
        title or f"{name + ': ' if name else ''}BM25 {metric} over k1 x b ({queries} queries)"
    )
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    out.write_bytes(_palette_png(buffer.getvalue()))
    return out


def _palette_png(data: bytes) -> bytes:
    """The image as a 256-colour PNG (a third of the size, no visible change), if Pillow can."""
    try:
        from PIL import Image
    except ImportError:  # Pillow ships with matplotlib; keep the full-colour image otherwise
        return data
    with Image.open(io.BytesIO(data)) as image:
        small = image.convert("RGB").quantize(colors=256)
        buffer = io.BytesIO()
        small.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _axis_position(values: list[float], value: float, log: bool) -> float:
    """Where ``value`` (within the range of ``values``) falls on their categorical axis."""
    if len(values) == 1 or value <= values[0]:
        return 0.0
    for i in range(len(values) - 1):
        lo, hi = values[i], values[i + 1]
        if lo <= value <= hi:
            if log and lo > 0:
                frac = math.log(value / lo) / math.log(hi / lo)
            else:
                frac = (value - lo) / (hi - lo)
            return i + frac
    return float(len(values) - 1)


def _looks_geometric(values: list[float]) -> bool:
    if len(values) < 3 or values[0] <= 0:
        return False
    ratios = [b / a for a, b in itertools.pairwise(values)]
    diffs = [b - a for a, b in itertools.pairwise(values)]

    def spread(xs: list[float]) -> float:
        return (max(xs) - min(xs)) / (sum(xs) / len(xs))

    return spread(ratios) < spread(diffs)


def _draw_grid(figure: Any, ax: Any, g: Grid, default: dict[str, float] | None) -> None:
    from matplotlib.patches import Rectangle

    data = g.matrix()
    flat = [v for row in data for v in row]
    lo, hi = min(flat), max(flat)
    image = ax.imshow(data, origin="lower", aspect="auto", cmap="viridis", vmin=lo, vmax=hi)
    figure.colorbar(image, ax=ax, label=g.metric, shrink=0.9)
    step_x = max(1, math.ceil(len(g.k1s) / 12))
    step_y = max(1, math.ceil(len(g.bs) / 12))
    ax.set_xticks(range(0, len(g.k1s), step_x))
    ax.set_xticklabels([f"{v:.3g}" for v in g.k1s[::step_x]], rotation=45)
    ax.set_yticks(range(0, len(g.bs), step_y))
    ax.set_yticklabels([f"{v:.3g}" for v in g.bs[::step_y]])
    ax.set_xlabel("k1")
    ax.set_ylabel("b")
    ax.set_title("refined around the best cell" if g.stage == "refine" else f"{g.stage}")
    if len(g.k1s) <= 14 and len(g.bs) <= 14:
        size = 7 if max(len(g.k1s), len(g.bs)) <= 10 else 5.5
        for yi, row in enumerate(data):
            for xi, v in enumerate(row):
                light = (v - lo) / (hi - lo) > 0.6 if hi > lo else False
                colour = "black" if light else "white"
                ax.text(xi, yi, f"{v:.3f}", ha="center", va="center", fontsize=size, color=colour)
    m = g.metric
    best = g.best
    xi, yi = g.k1s.index(best["k1"]), g.bs.index(best["b"])
    ax.add_patch(Rectangle((xi - 0.5, yi - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    best_label = f"best k1={best['k1']:g}, b={best['b']:g}: {best[m]:.4f}"
    ax.plot([], [], "s", mfc="none", mec="red", mew=2, linestyle="none", label=best_label)
    inside = g.k1s[0] <= DEFAULT_K1 <= g.k1s[-1] and g.bs[0] <= DEFAULT_B <= g.bs[-1]
    label = f"default k1={DEFAULT_K1:g}, b={DEFAULT_B:g}"
    if default is not None:
        label += f": {default[m]:.4f}"
    x, y = [], []
    if inside:
        x = [_axis_position(g.k1s, DEFAULT_K1, _looks_geometric(g.k1s))]
        y = [_axis_position(g.bs, DEFAULT_B, False)]
    else:
        label += " (outside this grid)"
    ax.plot(x, y, "o", ms=15, mfc="none", mec="white", mew=3.5, linestyle="none")
    ax.plot(x, y, "o", ms=15, mfc="none", mec="black", mew=1.5, linestyle="none", label=label)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=8, frameon=False)
