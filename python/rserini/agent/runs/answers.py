"""The answer columns of an agent run, as Pi-Serini computes them: accuracy, calibration
error and citation precision and recall.

- *Accuracy* is the share of all queries judged correct; a run that did not complete, has
  no answer or whose verdict did not parse counts as wrong. *Completed-only accuracy*
  divides by the completed runs.
- *Calibration error* pairs each parsed verdict with the answer's own confidence (the last
  line-initial ``Confidence: NN%``, 100 when there is none), sorts by confidence, cuts
  bins of β = 100 (the last one partial) and is
  ``100 * sqrt(Σ_b (n_b / N) * (mean confidence_b - accuracy_b)²)``; it needs at least 100
  judged answers.
- *Citation precision and recall* are ``|C ∩ P| / |C|`` and ``|C ∩ P| / |P|`` of the cited
  set C against the positives P, averaged over the judged answers citing at least one
  document; *citation coverage* is the share of queries whose answer cites.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from rserini.agent.runs.citations import NUMERIC_DOCID
from rserini.agent.runs.judge import Judge, Verdict
from rserini.agent.runs.metrics import positives
from rserini.agent.runs.trajectory import record_views

__all__ = [
    "CALIBRATION_BIN",
    "CALIBRATION_MIN",
    "AnswerEvaluation",
    "answer_confidence",
    "calibration_error",
    "citation_metrics",
    "evaluate_answers",
    "final_response",
]

CALIBRATION_BIN = 100
"""β, the calibration bin size."""
CALIBRATION_MIN = 100
"""Judged answers needed for a calibration error."""

_CONFIDENCE = re.compile(
    r"(?:^|\n)\s*(?:\*\*)?confidence(?:\*\*)?\s*:\s*(\d+(?:\.\d+)?)\s*%?", re.I | re.M
)


def answer_confidence(response: str, default: float | None = 100.0) -> float | None:
    """The answer's own confidence in percent, clamped to 0-100: the last line-initial
    ``Confidence: NN%`` (``**`` allowed around the word only); ``default`` when there is
    none; ``None`` for an empty response."""
    if not response.strip():
        return None
    found = _CONFIDENCE.findall(response)
    if not found:
        return default
    return max(0.0, min(100.0, float(found[-1])))


def calibration_error(
    confidences: Sequence[float], correct: Sequence[bool], beta: int = CALIBRATION_BIN
) -> float:
    """RMS calibration error in percent (confidences in percent).

    Raises
    ------
    ValueError
        For empty or unaligned inputs.
    """
    if not confidences or len(confidences) != len(correct):
        raise ValueError("confidences and correctness must be non-empty and aligned")
    pairs = sorted(
        ((c / 100, 1.0 if ok else 0.0) for c, ok in zip(confidences, correct, strict=True)),
        key=lambda p: p[0],
    )
    total = 0.0
    for start in range(0, len(pairs), beta):
        chunk = pairs[start : start + beta]
        mean_confidence = sum(c for c, _ in chunk) / len(chunk)
        accuracy = sum(ok for _, ok in chunk) / len(chunk)
        total += len(chunk) / len(pairs) * (mean_confidence - accuracy) ** 2
    return math.sqrt(total) * 100


def citation_metrics(cited: Sequence[str], relevant: set[str]) -> tuple[float, float]:
    """(precision, recall) of the cited docids; ``(0, 0)`` without citations, recall 0
    without positives."""
    if not cited:
        return 0.0, 0.0
    hits = len(set(cited) & relevant)
    return hits / len(cited), (hits / len(relevant) if relevant else 0.0)


@dataclass(frozen=True)
class AnswerEvaluation:
    """The answer columns of one run (fractions in [0, 1]; ``None`` when undefined).

    Attributes
    ----------
    judge
        The judge's ``PROVIDER:MODEL``.
    queries, completed, judged
        Queries evaluated, completed runs, verdicts that parsed.
    accuracy, completed_accuracy
        Correct over all queries; over completed runs.
    calibration
        RMS calibration error in percent (``None`` under :data:`CALIBRATION_MIN` verdicts).
    citation_precision, citation_recall, citation_coverage
        See the module doc.
    per_query
        ``{qid: {"correct", "confidence", "verdict", ...}}``.
    """

    judge: str
    queries: int
    completed: int
    judged: int
    accuracy: float
    completed_accuracy: float | None
    calibration: float | None
    citation_precision: float | None
    citation_recall: float | None
    citation_coverage: float
    per_query: dict[str, dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}

    def to_text(self) -> str:
        def pct(value: float | None) -> str:
            return "-" if value is None else f"{100 * value:.2f}"

        calibration = (
            f"{self.calibration:.2f}"
            if self.calibration is not None
            else f"- (needs {CALIBRATION_MIN} judged answers, has {self.judged})"
        )
        return (
            f"answers judged by {self.judge}: {self.queries} queries, {self.completed} "
            f"completed, {self.judged} verdicts\n"
            f"  {'accuracy %':<28}{pct(self.accuracy):>9}\n"
            f"  {'completed-only accuracy %':<28}{pct(self.completed_accuracy):>9}\n"
            f"  {'calibration error':<28}{calibration:>9}\n"
            f"  {'citation precision %':<28}{pct(self.citation_precision):>9}\n"
            f"  {'citation recall %':<28}{pct(self.citation_recall):>9}\n"
            f"  {'citation coverage %':<28}{pct(self.citation_coverage):>9}\n"
        )


def final_response(record: Mapping[str, Any]) -> str:
    """The run's answer as Pi-Serini's judge reads it: the last ``result`` entry when it
    is an ``output_text``."""
    entries = record.get("result") or []
    last = entries[-1] if entries else None
    if isinstance(last, Mapping) and last.get("type") == "output_text":
        output = last.get("output")
        return output if isinstance(output, str) else ""
    return ""


def evaluate_answers(
    records: Mapping[str, Mapping[str, Any]],
    qrels: Mapping[str, Mapping[str, int]],
    judge: Judge,
    *,
    queries: Sequence[str] | None = None,
    questions: Mapping[str, str] | None = None,
    answers: Mapping[str, str] | None = None,
    threshold: int = 1,
    citation_pattern: str = NUMERIC_DOCID,
    progress: Callable[[int, int], None] | None = None,
    concurrency: int = 1,
) -> AnswerEvaluation:
    """Judges every completed answer and computes the answer columns.

    Parameters
    ----------
    records
        ``{qid: record}``.
    qrels
        Positives of the citation metrics (relevance ``>= threshold``).
    judge
        The LLM judge.
    queries
        The query set (default: the records'); a query without a record is wrong.
    questions
        Question texts (default: each record's ``metadata.query``).
    answers
        Gold answers (gold-answer judging); a query without one is judged reference-free.
    progress
        Called with (done, total) after each query.
    concurrency
        Verdicts asked at once.
    """
    qids = tuple(records) if queries is None else tuple(dict.fromkeys(queries))
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1 (got {concurrency})")
    lock = threading.Lock()
    done = 0

    def judged_row(qid: str) -> dict[str, Any]:
        nonlocal done
        record = records.get(qid, {})
        response = final_response(record)
        metadata = record.get("metadata")
        question = (questions or {}).get(qid) or (
            str(metadata.get("query", "")) if isinstance(metadata, Mapping) else ""
        )
        row: dict[str, Any] = {
            "completed": record.get("status") == "completed",
            "response_confidence": answer_confidence(response, None),
            "calibration_confidence": answer_confidence(response),
        }
        if row["completed"] and response:
            verdict, row["judgment"] = judge.judge(question, response, (answers or {}).get(qid))
            cited = record_views(record, citation_pattern)["cited"]
            relevant = positives({d: r for d, r in qrels.get(qid, {}).items() if r > 0}, threshold)
            precision, recall = citation_metrics(cited, relevant)
            row["citations"] = {"cited": cited, "precision": precision, "recall": recall}
        else:
            verdict = Verdict(None, None, error="Response incomplete or unavailable for judging.")
        row["verdict"] = verdict.to_dict()
        row["correct"] = verdict.correct is True
        with lock:
            done += 1
            if progress is not None:
                progress(done, len(qids))
        return row

    if concurrency == 1:
        rows = [judged_row(q) for q in qids]
    else:
        with ThreadPoolExecutor(concurrency, thread_name_prefix="rserini-judge") as pool:
            rows = list(pool.map(judged_row, qids))
    per_query = dict(zip(qids, rows, strict=True))
    completed_rows = [r for r in rows if r["completed"]]
    # Parsed verdicts pair with the answer's confidence for the calibration error.
    pairs = [
        (r["calibration_confidence"], bool(r["verdict"]["correct"]))
        for r in rows
        if not r["verdict"]["parse_error"]
        and r["verdict"]["correct"] is not None
        and r["calibration_confidence"] is not None
    ]
    judged = sum(
        1 for r in rows if not r["verdict"]["parse_error"] and r["verdict"]["correct"] is not None
    )
    citing = [
        (r["citations"]["precision"], r["citations"]["recall"])
        for r in rows
        if r.get("citations", {}).get("cited")
    ]
    correct_count = sum(r["correct"] for r in rows)
    completed = len(completed_rows)
    completed_correct = sum(r["correct"] for r in completed_rows)
    n = len(qids)
    return AnswerEvaluation(
        judge=judge.model.name,
        queries=n,
        completed=completed,
        judged=judged,
        accuracy=correct_count / n if n else 0.0,
        completed_accuracy=completed_correct / completed if completed else None,
        calibration=calibration_error([c for c, _ in pairs], [ok for _, ok in pairs])
        if len(pairs) >= CALIBRATION_MIN
        else None,
        citation_precision=sum(p for p, _ in citing) / len(citing) if citing else None,
        citation_recall=sum(r for _, r in citing) / len(citing) if citing else None,
        citation_coverage=len(citing) / n if n else 0.0,
        per_query=per_query,
    )
