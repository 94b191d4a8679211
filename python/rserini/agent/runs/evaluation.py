"""The retrieval columns of an agent run: coverage of five docid sets, and the surfaced
ranking's nDCG and recall (pi-serini's ``evaluate_run_with_pi`` and ``eval_retrieval``).

Per query, P is the set of documents judged at least ``threshold``:

- *coverage* of each set (surfaced, previewed, opened, cited, agent) is ``|set ∩ P| / |P|``;
  a query with empty P has none, and is left out: *macro* is the mean over the others,
  *micro* is ``Σ|set ∩ P| / Σ|P|``;
- the *ranking* is the surfaced docids in first-seen order: nDCG@k (graded gains, ideal over
  every document with ``rel > 0``) and recall@k. A query with empty P is left out of their
  means too (``unjudged="skip"``, as trec_eval), or counts 0 (``"zero"``, as
  ``eval_retrieval``).

The query set is the run's records, or a given list (a listed query without a record has
empty sets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rserini.agent.runs.citations import NUMERIC_DOCID
from rserini.agent.runs.metrics import Gain, coverage, ndcg, positives, recall
from rserini.agent.runs.trajectory import record_views
from rserini.exceptions import RseriniError

__all__ = ["SETS", "RunEvaluation", "evaluate_records"]

SETS: tuple[str, ...] = ("surfaced", "previewed", "opened", "cited", "agent")
"""The docid sets, from the system's widest to the answer's narrowest."""
_SET_LABELS = {
    "surfaced": "surfaced (system)",
    "previewed": "previewed",
    "opened": "opened",
    "cited": "cited (answer)",
    "agent": "agent (opened + cited)",
}


@dataclass(frozen=True)
class RunEvaluation:
    """Coverage and ranking metrics of one run against one set of qrels.

    Attributes
    ----------
    label
        What the qrels are (``evidence``, ``gold``).
    queries
        The queries evaluated (in order).
    judged
        How many of them have at least one positive document.
    macro, micro
        ``{set: recall}`` as fractions in [0, 1] (``None`` without any judged query).
    ranking
        ``{"nDCG@10": value, "R@100": value, ...}``, means over the ranking's queries.
    ranking_queries
        How many queries those means are over.
    per_query
        ``{qid: {metric: value or None}}``.
    """

    label: str
    queries: tuple[str, ...]
    judged: int
    macro: dict[str, float | None]
    micro: dict[str, float | None]
    ranking: dict[str, float]
    ranking_queries: int
    per_query: dict[str, dict[str, float | None]]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of everything."""
        return {
            "label": self.label,
            "queries": len(self.queries),
            "judged": self.judged,
            "macro": dict(self.macro),
            "micro": dict(self.micro),
            "ranking": dict(self.ranking),
            "ranking_queries": self.ranking_queries,
            "per_query": self.per_query,
        }

    def to_text(self) -> str:
        """The table: coverage in percent (2 decimals), ranking metrics to 4 decimals."""

        def pct(value: float | None) -> str:
            return "-" if value is None else f"{100 * value:.2f}"

        lines = [
            f"{self.label}: {len(self.queries)} queries, {self.judged} with positives",
            f"{'recall of':<24}{'macro %':>9}{'micro %':>9}",
        ]
        for name in SETS:
            lines.append(
                f"{_SET_LABELS[name]:<24}{pct(self.macro[name]):>9}{pct(self.micro[name]):>9}"
            )
        lines.append(f"surfaced ranking ({self.ranking_queries} queries)")
        lines += [f"  {name:<22}{value:>9.4f}" for name, value in self.ranking.items()]
        return "\n".join(lines) + "\n"


def evaluate_records(
    records: Mapping[str, Mapping[str, Any]],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    label: str = "evidence",
    queries: Sequence[str] | None = None,
    threshold: int = 1,
    gain: Gain = "exponential",
    ndcg_cutoffs: Sequence[int] = (10,),
    recall_cutoffs: Sequence[int] = (100, 1000),
    unjudged: Literal["skip", "zero"] = "skip",
    citation_pattern: str = NUMERIC_DOCID,
) -> RunEvaluation:
    """Evaluates run records (``{qid: record}``, see :func:`rserini.agent.runs.read_runs`).

    Parameters
    ----------
    records
        The per-query run records.
    qrels
        ``{qid: {docid: relevance}}``.
    label
        Name of the qrels in the table.
    queries
        The query set (default: the records' ids, in order).
    threshold
        Least relevance of a positive document (pi-serini's ``tR``; 2 for MS MARCO).
    gain
        nDCG gain: ``exponential`` (``2**rel - 1``) or ``linear`` (``rel``).
    ndcg_cutoffs, recall_cutoffs
        The k of nDCG@k and R@k.
    unjudged
        Queries without positives in the ranking means: ``skip`` or count as ``zero``.
    citation_pattern
        Docid pattern of citations re-derived from a record's answer.

    Raises
    ------
    RseriniError
        For an empty query set, a cutoff or threshold below 1 or an unknown ``unjudged``
        policy.
    """
    if unjudged not in ("skip", "zero"):
        raise RseriniError(f"unknown unjudged-query policy {unjudged!r}: 'skip' or 'zero'")
    if any(k < 1 for k in (*ndcg_cutoffs, *recall_cutoffs)):
        raise RseriniError("metric cutoffs must be at least 1")
    if threshold < 1:
        raise RseriniError(f"the relevance threshold must be at least 1 (got {threshold})")
    qids = tuple(records) if queries is None else tuple(dict.fromkeys(queries))
    if not qids:
        raise RseriniError("no query to evaluate")
    metric_names = [f"nDCG@{k}" for k in ndcg_cutoffs] + [f"R@{k}" for k in recall_cutoffs]
    hits = dict.fromkeys(SETS, 0)
    relevant_total = 0
    coverages: dict[str, list[float]] = {name: [] for name in SETS}
    ranking_rows: list[dict[str, float]] = []
    per_query: dict[str, dict[str, float | None]] = {}
    for qid in qids:
        judged = {d: r for d, r in qrels.get(qid, {}).items() if r > 0}
        relevant = positives(judged, threshold)
        record = records.get(qid)
        views = (
            record_views(record, citation_pattern)
            if record is not None
            else {name: [] for name in SETS}
        )
        row: dict[str, float | None] = {}
        for name in SETS:
            value = coverage(views[name], relevant)
            row[name] = value
            if value is not None:
                coverages[name].append(value)
                hits[name] += len(relevant.intersection(views[name]))
        relevant_total += len(relevant)
        ranking = views["surfaced"]
        metrics = {f"nDCG@{k}": ndcg(ranking, judged, k, gain) for k in ndcg_cutoffs}
        metrics |= {f"R@{k}": recall(ranking, relevant, k) for k in recall_cutoffs}
        row |= metrics
        per_query[qid] = row
        if relevant or unjudged == "zero":
            ranking_rows.append(metrics)
    n_judged = len(coverages["surfaced"])
    macro = {n: (sum(v) / len(v) if v else None) for n, v in coverages.items()}
    micro = {n: (hits[n] / relevant_total if relevant_total else None) for n in SETS}
    means = {
        m: (sum(r[m] for r in ranking_rows) / len(ranking_rows) if ranking_rows else 0.0)
        for m in metric_names
    }
    return RunEvaluation(
        label=label,
        queries=qids,
        judged=n_judged,
        macro=macro,
        micro=micro,
        ranking=means,
        ranking_queries=len(ranking_rows),
        per_query=per_query,
    )
