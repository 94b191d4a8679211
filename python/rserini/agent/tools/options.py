"""The switches of the agent tools. The defaults are pi-search's behaviour, exactly.

Each improvement is one flag; those that change what the model sees are off by default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rserini.agent.tools.cache import CACHE_SIZE, CachePolicy

__all__ = ["ExcerptMode", "ToolOptions"]

ExcerptMode = Literal["window", "passage"]


@dataclass(frozen=True)
class ToolOptions:
    """How a :class:`~rserini.agent.tools.session.SearchSession` behaves.

    Attributes:
        cache_policy: ``"fifo"`` (pi-search: the 33rd search evicts ``s1`` even if it is
            being read, and an evicted id is reported as unknown) or ``"lru"`` (reads keep
            an entry, and an evicted id gets its own message saying it was evicted).
        cache_size: Rankings kept per session (32).
        preview_depth: Ranks that get a title and excerpt (50, as the Anserini server's
            previews); ``None`` gives every page excerpts (rendered when first shown).
        excerpt_mode: ``"window"`` (the server's earliest-match window) or ``"passage"``
            (the best-scoring run of text under BM25 with the index's statistics,
            whitespace collapsed; see :mod:`~rserini.agent.tools.passages`).
        find_in_document: Offer a fourth tool, ``find_in_document(reason, docid, query)``,
            that jumps to the lines of a document that best match a query.
        record_timings: Put measured ``timingMs`` in the tool details, as pi-search does.
            Model-visible text never carries timings; with this off (and a fixed
            ``spill_dir``) a replayed session reproduces every byte of its events too.
        continue_after_cut: After an output cut (50 KB or 2,000 lines), the hint resumes
            at the first line (``read_document``) or hit (pages of hits) the cut left out,
            so nothing is skipped (pi-search: the line after the requested chunk, and no
            hint for hits).
        spill_paging: A cut output is readable as document ``spill:<n>`` through
            ``read_document`` paging, and the notice says so (pi-search: a path on the
            server's disk, which the model cannot open).
        previewed_shown_only: ``previewedDocids`` lists only the hits whose ``docid=``
            line survived an output cut (pi-search: every hit of the page).
    """

    cache_policy: CachePolicy = "fifo"
    cache_size: int = CACHE_SIZE
    preview_depth: int | None = 50
    excerpt_mode: ExcerptMode = "window"
    find_in_document: bool = False
    record_timings: bool = True
    continue_after_cut: bool = False
    spill_paging: bool = False
    previewed_shown_only: bool = False

    def __post_init__(self) -> None:
        if self.cache_policy not in ("fifo", "lru"):
            raise ValueError(f"cache_policy must be 'fifo' or 'lru' (got {self.cache_policy!r})")
        if self.cache_size < 1:
            raise ValueError(f"cache_size must be at least 1 (got {self.cache_size})")
        if self.preview_depth is not None and self.preview_depth < 0:
            raise ValueError(f"preview_depth must be >= 0 or None (got {self.preview_depth})")
        if self.excerpt_mode not in ("window", "passage"):
            raise ValueError(
                f"excerpt_mode must be 'window' or 'passage' (got {self.excerpt_mode!r})"
            )

    @classmethod
    def improved(cls) -> ToolOptions:
        """Every improvement on: LRU with eviction notices, excerpts on every page,
        best-passage excerpts, ``find_in_document``, byte-stable details, and output cuts
        that skip nothing, page through ``read_document`` and count only shown hits."""
        return cls(
            cache_policy="lru",
            preview_depth=None,
            excerpt_mode="passage",
            find_in_document=True,
            record_timings=False,
            continue_after_cut=True,
            spill_paging=True,
            previewed_shown_only=True,
        )
