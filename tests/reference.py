"""A small, slow, pure-Python reference for rserini's scoring and fusion.

Everything here is written from the formulas of the specification, in plain
Python floats, independently of the Rust core. Documents are given already
analyzed, as lists of tokens; the tests tokenize with ``str.split`` (the
``whitespace`` preset) or ``re.findall(r"\\w+", text.lower())`` (``plain``).

Formulas (Kamphuis et al., "Which BM25 Do You Mean?", ECIR 2020), with
``norm = 1 - b + b * L / avgdl``:

============  =================================  ===============================================
variant       idf                                term score (times the idf)
============  =================================  ===============================================
lucene        ln(1 + (N - df + 0.5)/(df + 0.5))  tf / (tf + k1 * norm)
robertson     ln((N - df + 0.5)/(df + 0.5))      tf / (tf + k1 * norm)
atire         ln(N / df)                         (k1 + 1) * tf / (tf + k1 * norm)
bm25l         ln((N + 1)/(df + 0.5))             (k1 + 1) * (c + d) / (k1 + c + d), c = tf / norm
bm25+         ln((N + 1)/df)                     (k1 + 1) * tf / (tf + k1 * norm) + d
============  =================================  ===============================================

A document's BM25 score is the sum, over the distinct query terms it
contains, of ``qtf * idf * term score``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence

VARIANTS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
LENGTH_MODES = ("lucene", "exact")
DEFAULT_DELTA = {"bm25l": 0.5, "bm25+": 1.0}

# Lucene SmallFloat: lengths below this are stored verbatim.
_NUM_FREE_VALUES = 24


# ---------------------------------------------------------------------------
# Lucene's one-byte document length
# ---------------------------------------------------------------------------


def int_to_byte4(length: int) -> int:
    """Lucene ``SmallFloat.intToByte4``: exact below 24, then 3 mantissa bits.

    With ``i = length - 24`` and ``numBits = i.bit_length()``: the code is ``i``
    when ``numBits < 4``, else ``((i >> shift) & 7) | ((shift + 1) << 3)`` with
    ``shift = numBits - 4``; the byte is ``24 + code``.
    """
    if length < _NUM_FREE_VALUES:
        return length
    i = length - _NUM_FREE_VALUES
    num_bits = i.bit_length()
    if num_bits < 4:
        code = i
    else:
        shift = num_bits - 4
        code = ((i >> shift) & 7) | ((shift + 1) << 3)
    return _NUM_FREE_VALUES + code


def byte4_to_int(byte: int) -> int:
    """Lucene ``SmallFloat.byte4ToInt``: the length a norm byte stands for.

    For ``byte >= 24``: ``c = byte - 24``, ``bits = c & 7``, ``shift = (c >> 3) - 1``,
    value ``24 + bits`` if ``shift == -1`` else ``24 + ((bits | 8) << shift)``.
    """
    if byte < _NUM_FREE_VALUES:
        return byte
    c = byte - _NUM_FREE_VALUES
    bits = c & 7
    shift = (c >> 3) - 1
    if shift == -1:
        return _NUM_FREE_VALUES + bits
    return _NUM_FREE_VALUES + ((bits | 8) << shift)


def lucene_length(length: int) -> int:
    """The lossy length Lucene's BM25 sees: ``byte4ToInt(intToByte4(dl))``."""
    return byte4_to_int(int_to_byte4(length))


# ---------------------------------------------------------------------------
# Collection statistics
# ---------------------------------------------------------------------------


def collection_stats(lengths: Sequence[int], length: str) -> tuple[int, float]:
    """``(N, avgdl)`` as BM25 sees them in length mode ``length``.

    ``exact``: N counts every document, ``avgdl = sum(dl) / N`` (1.0 if that is 0).
    ``lucene``: N counts the documents with ``dl > 0`` (Lucene's ``docCount``),
    ``avgdl = sum(dl) / N`` (1.0 if there is none).
    """
    total = sum(lengths)
    n = len(lengths) if length == "exact" else sum(1 for dl in lengths if dl > 0)
    avgdl = total / n if n > 0 and total > 0 else 1.0
    return n, avgdl


def seen_length(dl: int, length: str) -> int:
    """``L``: the exact length in ``exact`` mode, Lucene's lossy length in ``lucene`` mode."""
    return dl if length == "exact" else lucene_length(dl)


def length_norm(seen: float, avgdl: float, b: float) -> float:
    """``norm = 1 - b + b * L / avgdl``."""
    return 1.0 - b + b * seen / avgdl


# ---------------------------------------------------------------------------
# BM25
# ---------------------------------------------------------------------------


def bm25_idf(variant: str, n: int, df: int) -> float:
    """The idf of ``variant`` for a term in ``df`` of ``n`` documents (see the module table)."""
    if variant == "lucene":
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    if variant == "robertson":
        return math.log((n - df + 0.5) / (df + 0.5))
    if variant == "atire":
        return math.log(n / df)
    if variant == "bm25l":
        return math.log((n + 1) / (df + 0.5))
    if variant == "bm25+":
        return math.log((n + 1) / df)
    raise ValueError(f"unknown variant {variant!r}")


def bm25_tf_part(variant: str, tf: int, norm: float, k1: float, delta: float) -> float:
    """The term score divided by the idf (see the module table)."""
    if variant in ("lucene", "robertson"):
        return tf / (tf + k1 * norm)
    if variant == "atire":
        return (k1 + 1.0) * tf / (tf + k1 * norm)
    if variant == "bm25l":
        c = tf / norm
        return (k1 + 1.0) * (c + delta) / (k1 + c + delta)
    if variant == "bm25+":
        return (k1 + 1.0) * tf / (tf + k1 * norm) + delta
    raise ValueError(f"unknown variant {variant!r}")


def query_term_counts(query_tokens: Sequence[str]) -> Counter[str]:
    """The distinct query terms with their query frequency ``qtf``."""
    return Counter(query_tokens)


def document_frequencies(docs: Sequence[Sequence[str]]) -> Counter[str]:
    """``df`` of every term: the number of documents holding it."""
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(set(doc))
    return df


def bm25_contributions(
    docs: Sequence[Sequence[str]],
    query_tokens: Sequence[str],
    *,
    variant: str = "lucene",
    length: str = "lucene",
    k1: float = 0.9,
    b: float = 0.4,
    delta: float | None = None,
) -> dict[int, list[tuple[float, float]]]:
    """Per matching document (by position), its ``(qtf * idf, qtf * idf * tf part)`` per term.

    Only documents sharing at least one query term appear. The first value of
    each pair is the query-term weight, the second the term's share of the score.
    """
    if delta is None:
        delta = DEFAULT_DELTA.get(variant, 0.0)
    lengths = [len(doc) for doc in docs]
    n, avgdl = collection_stats(lengths, length)
    df = document_frequencies(docs)
    qtf = query_term_counts(query_tokens)
    out: dict[int, list[tuple[float, float]]] = {}
    for i, doc in enumerate(docs):
        tfs = Counter(doc)
        norm = length_norm(seen_length(lengths[i], length), avgdl, b)
        for term, q in qtf.items():
            tf = tfs.get(term, 0)
            if tf == 0:
                continue
            weight = q * bm25_idf(variant, n, df[term])
            share = weight * bm25_tf_part(variant, tf, norm, k1, delta)
            out.setdefault(i, []).append((weight, share))
    return out


def bm25_scores(
    docs: Sequence[Sequence[str]], query_tokens: Sequence[str], **params: object
) -> dict[int, float]:
    """BM25 score of every matching document (by position): ``sum(qtf * idf * tf part)``."""
    contributions = bm25_contributions(docs, query_tokens, **params)  # type: ignore[arg-type]
    return {i: math.fsum(share for _, share in terms) for i, terms in contributions.items()}


# ---------------------------------------------------------------------------
# TF-IDF cosine
# ---------------------------------------------------------------------------


def tfidf_idf(n: int, df: int) -> float:
    """Smoothed idf: ``ln((N + 1) / (df + 1)) + 1``, N counting every document."""
    return math.log((n + 1) / (df + 1)) + 1.0


def sublinear_tf(tf: int) -> float:
    """``1 + ln(tf)``."""
    return 1.0 + math.log(tf)


def tfidf_scores(docs: Sequence[Sequence[str]], query_tokens: Sequence[str]) -> dict[int, float]:
    """Cosine of the query and document TF-IDF vectors, for every matching document.

    Document weight ``w(t, d) = (1 + ln tf) * idf(t)``, L2-normalised over all
    terms of ``d``; query weight ``q(t) = 1 + ln(qtf)`` (no idf), L2-normalised
    over all distinct query terms, known to the index or not; score
    ``sum(q(t) * w(t, d))`` over the shared terms.
    """
    n = len(docs)
    df = document_frequencies(docs)
    qtf = query_term_counts(query_tokens)
    q_norm = math.sqrt(math.fsum(sublinear_tf(q) ** 2 for q in qtf.values()))
    out: dict[int, float] = {}
    for i, doc in enumerate(docs):
        tfs = Counter(doc)
        weights = {t: sublinear_tf(tf) * tfidf_idf(n, df[t]) for t, tf in tfs.items()}
        d_norm = math.sqrt(math.fsum(w * w for w in weights.values()))
        shared = [t for t in qtf if t in weights]
        if shared:
            out[i] = math.fsum(sublinear_tf(qtf[t]) / q_norm * weights[t] / d_norm for t in shared)
    return out


# ---------------------------------------------------------------------------
# Ranking
# ---------------------------------------------------------------------------


def rank(scores: dict[int, float], docids: Sequence[str], k: int) -> list[tuple[str, float]]:
    """The ``k`` best ``(docid, score)``: score descending, then docid ascending."""
    order = sorted(scores, key=lambda i: (-scores[i], docids[i]))
    return [(docids[i], scores[i]) for i in order[:k]]


# ---------------------------------------------------------------------------
# Reciprocal-rank fusion
# ---------------------------------------------------------------------------


def rrf(
    rankings: Sequence[Sequence[Hashable]],
    k: float = 60,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
) -> list[tuple[Hashable, float]]:
    """Reciprocal-rank fusion: ``score(d) = sum_i w_i / (k + rank_i(d) + 1)``, 0-based ranks.

    Only the first ``depth`` entries of each ranking count, and an item repeated
    within one ranking counts once, at its first (best) rank. Contributions are
    added in scanning order (ranking 0 first); items of equal score keep their
    order of first appearance (a stable sort).
    """
    scores: dict[Hashable, float] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else float(weights[i])
        listed = ranking if depth is None else ranking[:depth]
        counted: set[Hashable] = set()
        for r, item in enumerate(listed):
            if item in counted:
                continue
            counted.add(item)
            contribution = w / (float(k) + float(r) + 1.0)
            scores[item] = scores[item] + contribution if item in scores else contribution
    return sorted(scores.items(), key=lambda pair: -pair[1])


def complete_ranking(num_docs: int, ranking: Sequence[int]) -> list[int]:
    """``ranking`` followed by every unlisted document of ``0..num_docs`` in ascending order."""
    listed = set(ranking)
    return list(ranking) + [d for d in range(num_docs) if d not in listed]


def rrf_full_depth(
    num_docs: int,
    rankings: Sequence[Sequence[int]],
    k: float = 60,
    weights: Sequence[float] | None = None,
    top: int | None = None,
) -> list[tuple[Hashable, float]]:
    """RRF of the completed rankings (see :func:`complete_ranking`), cut to ``top``."""
    fused = rrf([complete_ranking(num_docs, r) for r in rankings], k, weights)
    return fused if top is None else fused[:top]
