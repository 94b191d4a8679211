"""What a parity check reports: the corpus's issues, the token and ranking differences
per setting, the tolerances they are held to, as text and JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

EXAMPLES = 5
"""How many examples of each kind of difference a report keeps."""


@dataclass
class CorpusIssues:
    """What in a corpus needed care so that both sides index the same documents.

    Attributes
    ----------
    duplicate_docids
        Docids seen more than once; every copy is indexed, on both sides, as Lucene
        indexes them (rserini with ``duplicates="keep"``).
    missing_docids
        Lines without a usable id (skipped on both sides), as ``"file:line"``.
    empty_documents
        Docids whose text is empty or blank: indexed on both sides, never retrieved
        (Anserini skips them as empty; in rserini they have no term).
    invalid_utf8
        Docids whose line had bytes that are not UTF-8, or lone surrogate escapes; each
        bad sequence is replaced by U+FFFD for both sides, as Java's decoder does.
    """

    duplicate_docids: list[str] = field(default_factory=list)
    missing_docids: list[str] = field(default_factory=list)
    empty_documents: list[str] = field(default_factory=list)
    invalid_utf8: list[str] = field(default_factory=list)

    def summary(self) -> list[str]:
        """One line per kind of issue found."""
        lines = []
        for name, items, what in (
            ("duplicate_docids", self.duplicate_docids, "every copy indexed on both sides"),
            ("missing_docids", self.missing_docids, "lines skipped on both sides"),
            ("empty_documents", self.empty_documents, "indexed on both sides, never matched"),
            ("invalid_utf8", self.invalid_utf8, "bad bytes replaced by U+FFFD on both sides"),
        ):
            if items:
                shown = ", ".join(repr(x) for x in items[:EXAMPLES])
                more = ", ..." if len(items) > EXAMPLES else ""
                lines.append(f"{name}: {len(items)} ({what}): {shown}{more}")
        return lines


@dataclass
class Tolerances:
    """Thresholds a parity check must meet; ``None`` checks nothing.

    Attributes
    ----------
    min_same_tokens
        Least fraction of documents whose token streams are identical.
    min_same_top10
        Least fraction of queries whose top 10 (docids and order) is identical.
    min_same_topk
        Least fraction of queries whose whole ranking is identical.
    max_score_diff
        Largest |difference| between the two sides' output (rounded) scores of a document.
    metric_digits
        The decimals to which every metric must agree.
    """

    min_same_tokens: float | None = None
    min_same_top10: float | None = None
    min_same_topk: float | None = None
    max_score_diff: float | None = None
    metric_digits: int | None = None

    @classmethod
    def acceptance(cls) -> Tolerances:
        """The bar rserini is held to: 99.9 % of token streams, 100 % of top 10s, 99.5 %
        of full rankings, scores within 1e-4, metrics equal to 4 decimals."""
        return cls(0.999, 1.0, 0.995, 1e-4, 4)


@dataclass
class TokenDiff:
    """A text whose token streams differ.

    Attributes
    ----------
    id
        The docid (or ``query:<qid>``).
    position
        Index of the first differing token.
    pyserini, rserini
        The tokens from a little before that position on.
    """

    id: str
    position: int
    pyserini: list[str]
    rserini: list[str]


@dataclass
class TokenReport:
    """How the token streams of the documents (and queries) compare.

    Attributes
    ----------
    documents
        Documents compared.
    identical
        Documents with identical streams.
    queries, identical_queries
        The same for the query texts.
    examples
        The first differing texts.
    differing
        Ids of all differing documents and queries.
    """

    documents: int
    identical: int
    queries: int = 0
    identical_queries: int = 0
    examples: list[TokenDiff] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)

    @property
    def fraction(self) -> float:
        """Fraction of documents with identical token streams."""
        return self.identical / self.documents if self.documents else 1.0


@dataclass
class QueryDiff:
    """A query whose rankings differ.

    Attributes
    ----------
    qid
        The query.
    rank
        First rank (1-based) where the docids differ.
    pyserini, rserini
        ``[docid, score]`` at that rank on each side (``None`` past the end).
    """

    qid: str
    rank: int
    pyserini: list[Any] | None
    rserini: list[Any] | None


@dataclass
class SettingReport:
    """The comparison for one (k1, b).

    Attributes
    ----------
    k1, b
        The BM25 parameters.
    queries
        Queries run.
    same_top10, same_topk
        Queries whose top 10, and whole ranking, are identical (docids and order).
    mean_overlap
        Mean over queries of |common docids| / max(hits on either side).
    mean_kendall_tau, min_kendall_tau
        Kendall's tau between the two rankings over their common documents.
    max_score_diff, mean_score_diff
        |difference| of the output (rounded, tie-adjusted) scores over common documents.
    max_raw_diff
        |difference| of the unrounded float32 scores over common documents.
    raw_bitwise_equal
        Fraction of common documents whose unrounded float32 scores are bitwise equal.
    metrics
        ``{"pyserini": {...}, "rserini": {...}}`` when qrels are given.
    examples
        The first differing queries.
    """

    k1: float
    b: float
    queries: int
    same_top10: int
    same_topk: int
    mean_overlap: float
    mean_kendall_tau: float
    min_kendall_tau: float
    max_score_diff: float
    mean_score_diff: float
    max_raw_diff: float
    raw_bitwise_equal: float
    metrics: dict[str, dict[str, float]] | None = None
    examples: list[QueryDiff] = field(default_factory=list)

    @property
    def top10_fraction(self) -> float:
        """Fraction of queries with an identical top 10."""
        return self.same_top10 / self.queries if self.queries else 1.0

    @property
    def topk_fraction(self) -> float:
        """Fraction of queries with an identical ranking."""
        return self.same_topk / self.queries if self.queries else 1.0


@dataclass
class ParityReport:
    """Everything a parity check measured.

    Attributes
    ----------
    corpus
        The corpus path.
    documents, queries
        How many of each were compared.
    k
        Hits searched per query.
    remove_query
        Whether a query's own docid was removed from its hits.
    issues
        What in the corpus needed care (duplicates, empty documents, bad bytes).
    tokens
        The token-stream comparison.
    settings
        One comparison per (k1, b).
    pyserini
        Pyserini's versions and index statistics.
    rserini
        rserini's version and index statistics.
    seconds
        Time spent on each side.
    """

    corpus: str
    documents: int
    queries: int
    k: int
    remove_query: bool
    issues: CorpusIssues
    tokens: TokenReport
    settings: list[SettingReport]
    pyserini: dict[str, Any]
    rserini: dict[str, Any]
    seconds: dict[str, float]
    mode: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole report."""
        out = asdict(self)
        out["tokens"]["fraction"] = self.tokens.fraction
        for setting, raw in zip(self.settings, out["settings"], strict=True):
            raw["top10_fraction"] = setting.top10_fraction
            raw["topk_fraction"] = setting.topk_fraction
        return out

    def failures(self, tolerances: Tolerances) -> list[str]:
        """The tolerances this report misses, one message each (empty when all are met)."""
        t = tolerances
        out = []
        if t.min_same_tokens is not None and self.tokens.fraction < t.min_same_tokens:
            out.append(
                f"identical token streams {self.tokens.fraction:.4%} < {t.min_same_tokens:.4%}"
            )
        for s in self.settings:
            name = f"k1={s.k1:g} b={s.b:g}"
            if t.min_same_top10 is not None and s.top10_fraction < t.min_same_top10:
                out.append(
                    f"{name}: identical top 10 {s.top10_fraction:.4%} < {t.min_same_top10:.4%}"
                )
            if t.min_same_topk is not None and s.topk_fraction < t.min_same_topk:
                out.append(
                    f"{name}: identical top {self.k} {s.topk_fraction:.4%} < {t.min_same_topk:.4%}"
                )
            if t.max_score_diff is not None and s.max_score_diff > t.max_score_diff:
                out.append(
                    f"{name}: score difference {s.max_score_diff:.3g} > {t.max_score_diff:g}"
                )
            if t.metric_digits is not None and s.metrics:
                for metric, ours in s.metrics["rserini"].items():
                    theirs = s.metrics["pyserini"][metric]
                    if round(ours, t.metric_digits) != round(theirs, t.metric_digits):
                        out.append(
                            f"{name}: {metric} {ours:.{t.metric_digits + 2}f} != Pyserini's "
                            f"{theirs:.{t.metric_digits + 2}f} to {t.metric_digits} decimals"
                        )
        return out

    def to_text(self) -> str:
        """A human-readable summary: a table per setting, then examples of differences."""
        lines = [
            f"parity: {self.corpus}: {self.documents:,} documents, {self.queries:,} queries, "
            f"k={self.k}{', --remove-query' if self.remove_query else ''}"
            f"{', mode ' + json.dumps(self.mode) if self.mode else ''}",
            f"pyserini {self.pyserini.get('pyserini', '?')} (Lucene "
            f"{self.pyserini.get('lucene', '?')}, Java {self.pyserini.get('java', '?')}) vs "
            f"rserini {self.rserini.get('version', '?')}",
        ]
        p, r = self.pyserini, self.rserini
        if "doc_count" in p:
            lines.append(
                f"index statistics: docCount {p['doc_count']:,} vs {r['doc_count']:,}, "
                f"total terms {p['sum_total_term_freq']:,} vs {r['total_terms']:,}"
            )
        lines.extend(f"corpus: {line}" for line in self.issues.summary())
        t = self.tokens
        lines.append(
            f"token streams: {t.identical:,} of {t.documents:,} documents identical "
            f"({t.fraction:.4%}); queries {t.identical_queries} of {t.queries}"
        )
        header = ["k1", "b", "top10 =", f"top{self.k} =", "overlap", "tau", "max|d|", "raw =="]
        metric_names: list[str] = []
        for s in self.settings:
            if s.metrics:
                metric_names = list(s.metrics["pyserini"])
                break
        for name in metric_names:
            header += [f"{name} pys", f"{name} rs"]
        rows = [header]
        for s in self.settings:
            row = [
                f"{s.k1:g}",
                f"{s.b:g}",
                f"{s.top10_fraction:.2%}",
                f"{s.topk_fraction:.2%}",
                f"{s.mean_overlap:.4f}",
                f"{s.mean_kendall_tau:.4f}",
                f"{s.max_score_diff:.1e}",
                f"{s.raw_bitwise_equal:.4%}",
            ]
            for name in metric_names:
                if s.metrics:
                    row += [
                        f"{s.metrics['pyserini'][name]:.4f}",
                        f"{s.metrics['rserini'][name]:.4f}",
                    ]
            rows.append(row)
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        for row in rows:
            lines.append("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)))
        for ex in t.examples:
            lines.append(
                f"tokens differ in {ex.id} at token {ex.position}: pyserini {ex.pyserini} "
                f"rserini {ex.rserini}"
            )
        for s in self.settings:
            for q in s.examples:
                lines.append(
                    f"k1={s.k1:g} b={s.b:g}: query {q.qid} differs at rank {q.rank}: pyserini "
                    f"{q.pyserini} rserini {q.rserini}"
                )
        lines.append(
            "time: " + ", ".join(f"{name} {value:.1f}s" for name, value in self.seconds.items())
        )
        return "\n".join(lines) + "\n"
