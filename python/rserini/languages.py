"""Pyserini's language codes (``get_lucene_analyzer(language=...)``, ``-language``) and the
analyzer presets they name: ``en`` is ``lucene-english``, any other code ``lucene-<code>``."""

from __future__ import annotations

from rserini._core import ANALYZER_PRESETS, Analyzer
from rserini.exceptions import AnalyzerError

ENGLISH = "en"
"""Pyserini's default language, the ``lucene-english`` preset."""

LANGUAGES: tuple[str, ...] = (
    ENGLISH,
    *sorted(
        p.removeprefix("lucene-")
        for p in ANALYZER_PRESETS
        if p.startswith("lucene-") and p != "lucene-english"
    ),
)
"""Every language code with an analyzer, ``en`` first."""


def language_preset(language: str) -> str:
    """The analyzer preset of a Pyserini language code (case-insensitive, as Pyserini's).

    Parameters
    ----------
    language
        ``"en"``, or a code of :data:`LANGUAGES` such as ``"de"``.

    Returns
    -------
    str
        ``"lucene-english"`` for ``en``, else ``"lucene-<code>"``.

    Raises
    ------
    AnalyzerError
        For a code without an analyzer: for Thai the reason, else the codes
        to choose from.
    """
    code = language.lower()
    if code == ENGLISH:
        return "lucene-english"
    preset = f"lucene-{code}"
    if preset in ANALYZER_PRESETS:
        return preset
    try:
        Analyzer(preset)
    except AnalyzerError as e:
        if not str(e).startswith("unknown analyzer"):
            raise  # a known language rserini cannot analyze, with the reason
    raise AnalyzerError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
