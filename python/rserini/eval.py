"""Evaluation with the field's standard metrics, computed by ``ir_measures``.

Every metric is computed by ``ir_measures``' ``pytrec_eval`` provider, which runs
``trec_eval``'s own C code: nDCG@k, R@k, P@k, AP (MAP), AP@k, RR (MRR), Success@k, Rprec,
Bpref, infAP, NumRet, NumRel, NumQ and the set measures. Metrics that ``trec_eval`` does not
implement (``ERR@20``, ``Judged@10``, ...) are refused rather than computed by other code.
The conventions are ``trec_eval``'s:

- Only judged queries count. A query of the run that the qrels do not mention is ignored
  (and listed in :attr:`Evaluation.unjudged`).
- A judged query without any result in the run (:attr:`Evaluation.missing`) counts as 0
  by default, as ``trec_eval -c`` (Pyserini's BEIR and MS MARCO evaluations, and
  ``ir_measures``, do the same). ``missing="skip"`` averages over the judged queries the
  run answers instead, as ``trec_eval`` without ``-c``.
- The rank column is ignored: each query's documents are sorted by score descending, ties
  broken by docid *descending* (``trec_eval``'s order; rserini's own runs break ties by
  docid ascending, so tied documents may swap places).
- ``MRR@k`` (``RR@k``) is ``trec_eval -M k -m recip_rank``: the reciprocal rank over the
  first ``k`` documents in that order. (``ir_measures`` by default computes ``RR@k`` with
  MS MARCO's script, which breaks ties by docid ascending; the two agree without ties.)

Metric names are ``ir_measures``' (``nDCG@10``, ``R@100``, ``AP``, ``RR@10``, ``P@10``),
with the common aliases ``MAP``, ``MRR``, ``Recall@k``, ``NDCG@k``, or ``trec_eval``'s
(``ndcg_cut.10``, ``recall.100``, ``map``, ``recip_rank``, ``P.10``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from rserini.exceptions import RseriniError
from rserini.formats import RankedRun, Run

if TYPE_CHECKING:
    from rserini.searchable import Searchable

DEFAULT_METRICS: tuple[str, ...] = ("nDCG@10", "R@100", "R@1000", "MAP", "MRR@10", "P@10")
"""The metrics ``rserini eval`` reports by default."""
MISSING_POLICIES: tuple[str, ...] = ("zero", "skip")
"""How judged queries absent from a run are averaged: as 0 (``trec_eval -c``) or not at all."""
MissingPolicy = Literal["zero", "skip"]

INSTALL_HINT = "pip install 'rserini[eval]'"

# Case-insensitive spellings of measure names, mapped to ir_measures' names.
_ALIASES = {
    "ndcg": "nDCG",
    "map": "AP",
    "ap": "AP",
    "mrr": "RR",
    "rr": "RR",
    "r": "R",
    "recall": "R",
    "p": "P",
    "precision": "P",
    "success": "Success",
    "bpref": "Bpref",
    "rprec": "Rprec",
}
_NAME = re.compile(r"^(?P<base>[A-Za-z_]+)(?P<params>\([^)]*\))?(?:@(?P<cutoff>\d+))?$")

__all__ = [
    "DEFAULT_METRICS",
    "INSTALL_HINT",
    "MISSING_POLICIES",
    "Evaluation",
    "EvaluationError",
    "Evaluator",
    "Feedback",
    "evaluate",
    "parse_metric",
    "retrieve",
    "retrieve_ranked",
]


class EvaluationError(RseriniError, ValueError):
    """An evaluation that cannot run: unknown metric, empty run or qrels, no judged query."""


def _ir_measures() -> Any:
    try:
        import ir_measures
    except ImportError:
        raise RseriniError(f"evaluation needs the ir-measures package: {INSTALL_HINT}") from None
    return ir_measures


def parse_metric(name: str) -> Any:
    """The ``ir_measures`` measure a metric name denotes.

    Parameters
    ----------
    name
        ``ir_measures`` syntax (``nDCG@10``, ``AP``, ``RR(rel=2)@10``), an alias
        (``MAP``, ``MRR@10``, ``Recall@100``, ``NDCG@10``, case-insensitive) or a
        ``trec_eval`` name (``ndcg_cut.10``, ``map``, ``recip_rank``, ``P.10``).

    Returns
    -------
    ir_measures.measures.Measure
        The measure.

    Raises
    ------
    EvaluationError
        For a name neither syntax knows.
    """
    irm = _ir_measures()
    text = name.strip()
    match = _NAME.match(text)
    candidates = []
    if match:
        base = _ALIASES.get(match["base"].lower(), match["base"])
        candidates.append(
            base + (match["params"] or "") + (f"@{match['cutoff']}" if match["cutoff"] else "")
        )
    candidates.append(text)
    for candidate in candidates:
        try:
            return irm.parse_measure(candidate)
        except Exception:  # ir_measures raises NameError, ValueError or AssertionError
            continue
    # trec_eval's names (ndcg_cut.10), also as pytrec_eval spells them (ndcg_cut_10).
    for candidate in (text, re.sub(r"_(\d+)$", r".\1", text)):
        try:
            parsed = irm.parse_trec_measure(candidate)
        except Exception:  # ir_measures raises NameError, ValueError or KeyError
            continue
        if len(parsed) == 1:
            return parsed[0]
    raise EvaluationError(
        f"unknown metric {name!r}: use ir_measures names such as nDCG@10, R@100, R@1000, MAP "
        "(AP), MRR@10 (RR@10), P@10, Success@10, Bpref, or trec_eval names such as ndcg_cut.10"
    )


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`; ``evaluation["nDCG@10"]`` is the aggregate value.

    Attributes
    ----------
    metrics
        The metric names, as given.
    aggregate
        ``{metric: value}`` averaged over :attr:`queries`.
    per_query
        ``{qid: {metric: value}}`` for every averaged query (judged-query order), or
        ``None`` unless asked for.
    queries
        The number of queries averaged.
    missing
        Judged queries without any result in the run: 0 under ``missing="zero"``,
        left out under ``"skip"``.
    unjudged
        Queries of the run that the qrels do not judge (ignored).
    missing_policy
        ``"zero"`` or ``"skip"``.
    """

    metrics: tuple[str, ...]
    aggregate: dict[str, float]
    per_query: dict[str, dict[str, float]] | None
    queries: int
    missing: tuple[str, ...] = ()
    unjudged: tuple[str, ...] = ()
    missing_policy: str = "zero"

    def __getitem__(self, metric: str) -> float:
        return self.aggregate[metric]

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict of everything."""
        return {
            "metrics": list(self.metrics),
            "aggregate": dict(self.aggregate),
            "queries": self.queries,
            "missing_policy": self.missing_policy,
            "missing": list(self.missing),
            "unjudged": list(self.unjudged),
            "per_query": self.per_query,
        }

    def to_text(self, *, per_query: bool = False, digits: int = 4) -> str:
        """``trec_eval``-style lines: ``metric<TAB>qid<TAB>value``, then ``all`` lines.

        Parameters
        ----------
        per_query
            Also list every query's values (needs ``per_query=True`` in :func:`evaluate`).
        digits
            Decimals shown.

        Returns
        -------
        str
            The table, one line per value, ending with a newline.
        """
        width = max(len(m) for m in self.metrics)
        lines = []
        if per_query:
            if self.per_query is None:
                raise ValueError("this evaluation has no per-query values")
            for qid, values in self.per_query.items():
                lines += [f"{m:<{width}}\t{qid}\t{values[m]:.{digits}f}" for m in self.metrics]
        lines += [f"{m:<{width}}\tall\t{self.aggregate[m]:.{digits}f}" for m in self.metrics]
        return "\n".join(lines) + "\n"


@dataclass
class _Group:
    """Measures computed by one ir_measures evaluator on one form of the run."""

    names: list[str]
    measures: list[Any]
    truncate: int | None  # trec_eval -M: keep only this many documents per query
    evaluator: Any = None
    by_measure: dict[Any, str] = field(default_factory=dict)


class Evaluator:
    """Evaluates many runs against the same qrels and metrics (what :func:`evaluate` uses).

    Building the ``trec_eval`` evaluators once makes each later call cheap, which is
    what a parameter grid needs.

    Parameters
    ----------
    qrels
        ``{qid: {docid: relevance}}``; every query in it is a judged query.
    metrics
        Metric names (see :func:`parse_metric`).
    missing
        ``"zero"`` (default, ``trec_eval -c``) or ``"skip"``: how judged queries that the
        run does not answer are averaged.

    Raises
    ------
    EvaluationError
        For an unknown metric or policy, no metric, a metric given twice, or qrels without
        any judgement.
    """

    def __init__(
        self,
        qrels: Mapping[str, Mapping[str, int]],
        metrics: Sequence[str] = DEFAULT_METRICS,
        *,
        missing: MissingPolicy | str = "zero",
    ) -> None:
        irm = _ir_measures()
        if missing not in MISSING_POLICIES:
            raise EvaluationError(f"unknown missing-query policy {missing!r}: 'zero' or 'skip'")
        if isinstance(metrics, str):
            metrics = [metrics]
        if not metrics:
            raise EvaluationError("no metric to compute")
        self.metrics: tuple[str, ...] = tuple(metrics)
        self.missing: str = missing
        self.qrels: dict[str, dict[str, int]] = {q: dict(d) for q, d in qrels.items() if d}
        if not self.qrels:
            raise EvaluationError("the qrels hold no judgement")
        self.measures = {}
        for name in self.metrics:
            measure = parse_metric(name)
            if measure in self.measures.values():
                raise EvaluationError(f"metric {name!r} is given twice")
            self.measures[name] = measure

        groups: dict[tuple[str, int | None], _Group] = {}
        for name, measure in self.measures.items():
            truncate = None
            computed = measure
            if measure.NAME == "RR" and measure.params.get("cutoff") is not None:
                truncate = int(measure.params["cutoff"])
                params = {k: v for k, v in measure.params.items() if k != "cutoff"}
                computed = type(measure)(**params)
            if not irm.pytrec_eval.supports(computed):
                raise EvaluationError(
                    f"metric {name!r} ({measure}) is not one of trec_eval's: use nDCG@k, R@k, "
                    "P@k, AP/MAP, AP@k, RR/MRR@k, Success@k, Rprec, Bpref, infAP"
                )
            group = groups.setdefault(("pytrec_eval", truncate), _Group([], [], truncate))
            group.names.append(name)
            group.measures.append(computed)
            group.by_measure[computed] = name
        self._groups = list(groups.values())
        for group in self._groups:
            try:
                group.evaluator = irm.pytrec_eval.evaluator(group.measures, self.qrels)
            except Exception as e:  # e.g. pytrec_eval missing from the environment
                raise EvaluationError(f"cannot compute {', '.join(group.names)}: {e}") from None

    def __call__(
        self, run: Mapping[str, Mapping[str, float]], *, per_query: bool = False
    ) -> Evaluation:
        """Evaluates one run; see :func:`evaluate`."""
        judged = self.qrels
        answered = {q: dict(docs) for q, docs in run.items() if docs}
        if not answered:
            raise EvaluationError("the run holds no result")
        unjudged = tuple(q for q in answered if q not in judged)
        in_run = {q: docs for q, docs in answered.items() if q in judged}
        if not in_run:
            raise EvaluationError(
                f"no query of the run is judged in the qrels (run: {_sample(answered)}; qrels: "
                f"{_sample(judged)}): are they of the same collection?"
            )
        missing = tuple(q for q in judged if q not in in_run)
        averaged = list(judged) if self.missing == "zero" else [q for q in judged if q in in_run]

        values: dict[str, dict[str, float]] = {q: {} for q in averaged}
        for group in self._groups:
            group_run = in_run
            if group.truncate is not None:
                group_run = {q: dict(_trec_order(d)[: group.truncate]) for q, d in in_run.items()}
            for metric in group.evaluator.iter_calc(group_run):
                row = values.get(metric.query_id)
                if row is not None:
                    row[group.by_measure[metric.measure]] = float(metric.value)
        for row in values.values():
            for name, measure in self.measures.items():
                if name not in row:  # a query trec_eval reports nothing for: empty ranking
                    row[name] = float(getattr(measure, "DEFAULT", 0.0))
        aggregate = {}
        for name, measure in self.measures.items():
            column = [values[q][name] for q in averaged]
            if hasattr(measure, "aggregator"):  # the mean, or a sum for NumRet and friends
                agg = measure.aggregator()
                for value in column:
                    agg.add(value)
                aggregate[name] = float(agg.result())
            else:
                aggregate[name] = sum(column) / len(column) if column else 0.0
        return Evaluation(
            metrics=self.metrics,
            aggregate=aggregate,
            per_query=values if per_query else None,
            queries=len(averaged),
            missing=missing,
            unjudged=unjudged,
            missing_policy=self.missing,
        )


def _trec_order(docs: Mapping[str, float]) -> list[tuple[str, float]]:
    """``trec_eval``'s ranking: score descending, ties by docid descending."""
    return sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)


def _sample(ids: Iterable[str], n: int = 3) -> str:
    ids = list(ids)
    shown = ", ".join(repr(q) for q in ids[:n])
    return f"{len(ids)} queries, e.g. {shown}" if ids else "no query"


def evaluate(
    run: Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    metrics: Sequence[str] = DEFAULT_METRICS,
    per_query: bool = False,
    *,
    missing: MissingPolicy | str = "zero",
) -> Evaluation:
    """Evaluates a run against relevance judgements, as ``trec_eval`` would.

    Parameters
    ----------
    run
        ``{qid: {docid: score}}`` (e.g. from :func:`rserini.formats.read_run` or
        :func:`retrieve`). A query with an empty dict has no result.
    qrels
        ``{qid: {docid: relevance}}``; relevance >= 1 is relevant, graded gains for nDCG.
    metrics
        Metric names (see :func:`parse_metric`); default :data:`DEFAULT_METRICS`.
    per_query
        Also return each query's values.
    missing
        ``"zero"`` (default): a judged query without results counts as 0, as
        ``trec_eval -c``; ``"skip"``: it is left out of the averages, as plain
        ``trec_eval``.

    Returns
    -------
    Evaluation
        Aggregates (``result["nDCG@10"]``), optional per-query values, and the judged
        queries the run misses and the run's unjudged queries.

    Raises
    ------
    EvaluationError
        For an unknown metric, an empty run or qrels, or a run none of whose queries is
        judged.
    RseriniError
        If ``ir_measures`` is not installed (``pip install 'rserini[eval]'``).
    """
    return Evaluator(qrels, metrics, missing=missing)(run, per_query=per_query)


Feedback = Literal["rm3", "rocchio"]
"""Pseudo-relevance feedback over Lucene BM25: :meth:`~rserini.Index.batch_search_rm3` or
:meth:`~rserini.Index.batch_search_rocchio`."""


def retrieve_ranked(
    index: Searchable,
    queries: Sequence[tuple[str, str]],
    k: int = 1000,
    *,
    remove_query: bool = False,
    threads: int | None = None,
    feedback: Feedback | None = None,
    **params: Any,
) -> RankedRun:
    """Runs queries on an index; each query's hits as the index ranks them.

    Parameters
    ----------
    index
        A :class:`~rserini.searchable.Searchable`: an :class:`rserini.Index`, or a
        :class:`rserini.distributed.ShardedIndex` (without feedback).
    queries
        ``(qid, text)`` pairs.
    k
        Results per query.
    remove_query
        Drop a hit whose docid equals its query id (BEIR collections whose queries are
        also documents, as Pyserini's ``--remove-query``): ``k + 1`` are searched and the
        query's own document is dropped, so ``k`` remain.
    threads
        Search threads (default: all cores).
    feedback
        ``"rm3"`` or ``"rocchio"`` to search with pseudo-relevance feedback (its
        parameters in ``params``).
    **params
        Scoring parameters of :meth:`rserini.Index.batch_search` (``k1``, ``b``,
        ``variant``, ``length``, ``model``, ``delta``), or of the feedback search.

    Returns
    -------
    RankedRun
        Every query, in order: ``[(docid, score), ...]``, best first, in which a docid
        indexed twice (an index built with ``duplicates="keep"``) appears twice, as in
        Lucene's runs; a query matching no document has an empty list. ``rserini run``
        writes this with :func:`rserini.formats.write_run`.
    """
    if not queries:
        return {}
    texts = [text for _, text in queries]
    depth = k + 1 if remove_query else k
    if feedback is None:
        ids, scores = index.batch_search(texts, k=depth, threads=threads, **params)
    else:
        search = getattr(index, f"batch_search_{feedback}", None)
        if search is None:  # a sharded index: feedback reads the documents of one index
            raise RseriniError("feedback runs on one index: merge the shards first")
        ids, scores = search(texts, k=depth, threads=threads, **params)
    rows = cast("list[list[str]]", index.docids(ids))  # 2-D ids give a list per query
    return {
        qid: [
            (docid, score)
            for docid, score in zip(docids, row_scores, strict=False)
            if not (remove_query and docid == qid)
        ][:k]
        for (qid, _), docids, row_scores in zip(queries, rows, scores.tolist(), strict=True)
    }


def retrieve(
    index: Searchable, queries: Sequence[tuple[str, str]], k: int = 1000, **options: Any
) -> Run:
    """:func:`retrieve_ranked` as a run to evaluate: ``{qid: {docid: score}}``.

    Parameters are :func:`retrieve_ranked`'s (``remove_query``, ``threads``,
    ``feedback`` and the scoring parameters). A docid indexed twice is one entry of its
    query's dict; every query is a key, a query matching no document an empty dict.
    """
    return {qid: dict(hits) for qid, hits in retrieve_ranked(index, queries, k, **options).items()}
