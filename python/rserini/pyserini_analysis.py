"""Pyserini's ``pyserini.analysis``: :func:`get_lucene_analyzer` and :class:`Analyzer`.

Re-exported by :mod:`rserini.pyserini`.
"""

from __future__ import annotations

from collections import Counter

from rserini._core import Analyzer as CoreAnalyzer
from rserini.languages import language_preset
from rserini.stored_document import NotSupportedError

__all__ = ["Analyzer", "get_lucene_analyzer"]


def get_lucene_analyzer(
    language: str = "en",
    stemming: bool = True,
    stemmer: str = "porter",
    stopwords: bool = True,
    huggingFaceTokenizer: str | None = None,  # noqa: N803  (Pyserini's name)
) -> CoreAnalyzer:
    """Pyserini's ``get_lucene_analyzer``: the analyzer Pyserini builds for these settings.

    Parameters
    ----------
    language
        ``"en"`` (``lucene-english``) or another language code (``lucene-<code>``, see
        :data:`rserini.languages.LANGUAGES`); as in Pyserini, only English heeds the other
        settings.
    stemming, stemmer, stopwords
        English only: Porter stemming (or none) and Lucene's 33 stopwords (or none).
    huggingFaceTokenizer
        Not supported.

    Returns
    -------
    rserini.Analyzer
        The analyzer (give it to :class:`Analyzer` for Pyserini's wrapper).

    Raises
    ------
    AnalyzerError
        For an unknown language, Thai (with the reason), or Japanese without its
        dictionary (``pip install 'rserini[ja]'``).
    NotSupportedError
        For the ``krovetz`` stemmer, the ``tweet`` and Hugging Face analyzers.
    """
    if huggingFaceTokenizer is not None or language.lower() in ("tweet", "hgf_tokenizer"):
        raise NotSupportedError(f"the {language!r} analyzer is not supported by rserini")
    preset = language_preset(language)
    if preset != "lucene-english":
        return CoreAnalyzer(preset)
    if stemming and stemmer.lower() != "porter":
        raise NotSupportedError(f"stemmer {stemmer!r} is not supported by rserini (Porter is)")
    return CoreAnalyzer(
        preset,
        stemmer="porter" if stemming else "none",
        stopwords="lucene-english" if stopwords else "none",
    )


class Analyzer:
    """Pyserini's ``pyserini.analysis.Analyzer``: a wrapper whose :meth:`analyze` gives the
    terms of a text as a list.

    Parameters
    ----------
    analyzer
        An :class:`rserini.Analyzer`, such as :func:`get_lucene_analyzer`'s.

    Raises
    ------
    TypeError
        For anything else.
    """

    def __init__(self, analyzer: CoreAnalyzer) -> None:
        if not isinstance(analyzer, CoreAnalyzer):
            raise TypeError(f"expected an rserini.Analyzer, got {type(analyzer).__name__}")
        self.analyzer = analyzer

    def analyze(self, text: str) -> list[str]:
        """The terms of ``text``, in order."""
        return self.analyzer.analyze(text)

    def compute_document_vector(self, text: str) -> dict[str, int]:
        """Each term of ``text`` with its number of occurrences."""
        return dict(Counter(self.analyzer.analyze(text)))
