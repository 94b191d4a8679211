"""A slow, pure-Python implementation of agentic-retrieval's ``LexicalRetriever``.

Written from the behaviour specification, independently of rserini, and with the
reference's algorithm: each arm tokenizes every document itself, zero-fills every
document's score and sorts the whole corpus per query, and fusion runs over both full
rankings. The tests compare rserini with it, and ``benches/lexical_retriever.py`` times it.

One deliberate difference from the original: BM25 sums the distinct query terms in sorted
order (the original iterates a ``set``, whose order depends on the hash seed); rserini
documents the same rule. Sums of squares are plain left-to-right loops, as Python 3.11's
``sum`` computes them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

MODES = ("plain", "code")
_SPLIT = re.compile(r"[_\-.]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def tokenize(text: str, mode: str = "plain") -> list[str]:
    if mode not in MODES:
        raise ValueError(f"unknown tokenizer mode {mode!r}; choose from {MODES}")
    if mode == "plain":
        return re.findall(r"\w+", text.lower())
    out = []
    for raw in re.findall(r"\w+", text):
        whole = raw.lower()
        out.append(whole)
        parts = [p for p in _SPLIT.split(raw) if p]
        if len(parts) >= 2:
            out.extend(p.lower() for p in parts if p.lower() != whole)
    return out


def _sum_of_squares(values: Any) -> float:
    total = 0.0
    for v in values:
        total = total + v * v
    return total


def _full_ranking(scores: dict[int, float], n: int) -> list[tuple[int, float]]:
    ranked = [(i, scores.get(i, 0.0)) for i in range(n)]
    ranked.sort(key=lambda p: p[1], reverse=True)
    return ranked


class Tfidf:
    def __init__(self, tokenizer: str = "plain") -> None:
        self.tokenizer = tokenizer
        self.doc_vectors: list[dict[str, float]] = []
        self.postings: dict[str, list[tuple[int, float]]] = {}
        self.n_docs = 0

    def fit(self, docs: list[str]) -> None:
        self.fit_tokens([tokenize(d, self.tokenizer) for d in docs])

    def fit_tokens(self, tokenized: list[list[str]]) -> None:
        self.doc_vectors, self.postings, self.n_docs = [], {}, len(tokenized)
        df: dict[str, int] = {}
        for tokens in tokenized:
            for t in set(tokens):
                df[t] = df.get(t, 0) + 1
        idf = {t: math.log((self.n_docs + 1) / (d + 1)) + 1.0 for t, d in df.items()}
        for i, tokens in enumerate(tokenized):
            weights = {t: (1.0 + math.log(c)) * idf[t] for t, c in Counter(tokens).items()}
            norm = math.sqrt(_sum_of_squares(weights.values()))
            if norm > 0.0:
                weights = {t: w / norm for t, w in weights.items()}
            self.doc_vectors.append(weights)
            for t, w in weights.items():
                self.postings.setdefault(t, []).append((i, w))

    def query(self, text: str) -> list[tuple[int, float]]:
        if self.n_docs == 0:
            return []
        q = {t: 1.0 + math.log(c) for t, c in Counter(tokenize(text, self.tokenizer)).items()}
        norm = math.sqrt(_sum_of_squares(q.values()))
        if norm > 0.0:
            q = {t: w / norm for t, w in q.items()}
        scores: dict[int, float] = {}
        for t, qw in q.items():
            for i, dw in self.postings.get(t, ()):
                scores[i] = scores.get(i, 0.0) + qw * dw
        return _full_ranking(scores, self.n_docs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokenizer": self.tokenizer,
            "n_docs": self.n_docs,
            "doc_vectors": self.doc_vectors,
            "postings": {t: [[i, w] for i, w in p] for t, p in self.postings.items()},
        }


class Bm25:
    def __init__(self, k1: float = 1.5, b: float = 0.75, tokenizer: str = "plain") -> None:
        self.k1, self.b, self.tokenizer = k1, b, tokenizer
        self.tf: list[dict[str, int]] = []
        self.dl: list[int] = []
        self.postings: dict[str, list[int]] = {}
        self.df: dict[str, int] = {}
        self.n_docs = 0
        self.avgdl = 1.0

    def fit(self, docs: list[str]) -> None:
        self.fit_tokens([tokenize(d, self.tokenizer) for d in docs])

    def fit_tokens(self, tokenized: list[list[str]]) -> None:
        self.tf, self.dl, self.postings, self.df = [], [], {}, {}
        self.n_docs = len(tokenized)
        if not tokenized:
            return
        total = 0
        for i, tokens in enumerate(tokenized):
            counts = Counter(tokens)
            self.tf.append(counts)
            self.dl.append(len(tokens))
            total += len(tokens)
            for t in counts:
                self.postings.setdefault(t, []).append(i)
        self.df = {t: len(p) for t, p in self.postings.items()}
        self.avgdl = total / self.n_docs or 1.0

    def query(self, text: str) -> list[tuple[int, float]]:
        if self.n_docs == 0:
            return []
        k1, b = self.k1, self.b
        scores: dict[int, float] = {}
        for t in sorted(set(tokenize(text, self.tokenizer))):
            postings = self.postings.get(t)
            if not postings:
                continue
            df = self.df.get(t, 0)
            idf = math.log(1.0 + (self.n_docs - df + 0.5) / (df + 0.5))
            for i in postings:
                f = self.tf[i][t]
                denom = f + k1 * (1 - b + b * self.dl[i] / self.avgdl)
                scores[i] = scores.get(i, 0.0) + idf * f * (k1 + 1) / denom
        return _full_ranking(scores, self.n_docs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "k1": self.k1,
            "b": self.b,
            "tokenizer": self.tokenizer,
            "n_docs": self.n_docs,
            "avgdl": self.avgdl,
            "tf": [dict(c) for c in self.tf],
            "dl": self.dl,
            "postings": self.postings,
            "df": self.df,
        }


def rrf(rankings: list[list[int]], k: int = 60) -> list[tuple[int, float]]:
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores.items(), key=lambda p: p[1], reverse=True)


class Lexical:
    """The retriever over ``(docid, text)`` pairs; ``search`` returns docids."""

    def __init__(self, k1: float = 1.5, b: float = 0.75, tokenizer: str = "plain") -> None:
        self.tfidf = Tfidf(tokenizer)
        self.bm25 = Bm25(k1, b, tokenizer)
        self.docids: list[str] = []

    def index(self, docs: list[tuple[str, str]], *, tokenize_once: bool = False) -> None:
        """As the original, each arm tokenizes every text; ``tokenize_once`` shares the
        tokens (same result, half the time: for the tests)."""
        self.docids = [d for d, _ in docs]
        texts = [t for _, t in docs]
        if tokenize_once:
            tokens = [tokenize(t, self.tfidf.tokenizer) for t in texts]
            self.tfidf.fit_tokens(tokens)
            self.bm25.fit_tokens(tokens)
        else:
            self.tfidf.fit(texts)
            self.bm25.fit(texts)

    def order(self, query: str) -> list[int]:
        fused = rrf(
            [[i for i, _ in self.tfidf.query(query)], [i for i, _ in self.bm25.query(query)]]
        )
        return [i for i, _ in fused]

    def search(self, query: str, top_k: int) -> list[str]:
        return [self.docids[i] for i in self.order(query)[:top_k]]

    def to_dict(self, units: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "schema": 3,
            "docids": self.docids,
            "units": units,
            "tfidf": self.tfidf.to_dict(),
            "bm25": self.bm25.to_dict(),
        }
