"""Lucene's language analyzers against a live Pyserini (marker ``parity``): the same tokens.

The corpus (``data/languages/corpus.json.gz``, rebuilt by ``build_corpus.py`` there) holds
400 translated messages per language from two Debian gettext catalogues and the 2,000 most
frequent words of wordfreq's list for the language; each sentence and each word is
analyzed on its own by ``rserini.Analyzer("lucene-<code>")`` and by Pyserini's
``Analyzer(get_lucene_analyzer(language=<code>))``.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rserini import ANALYZER_PRESETS, Analyzer
from support import IMPORT_ROOT, require_pyserini

pytestmark = pytest.mark.parity

HERE = Path(__file__).parent
CORPUS = json.loads(gzip.decompress((HERE / "data" / "languages" / "corpus.json.gz").read_bytes()))
LANGUAGES = sorted(
    p.removeprefix("lucene-") for p in ANALYZER_PRESETS if p in {f"lucene-{c}" for c in CORPUS}
)


def texts(code: str) -> list[str]:
    """The sentences, then the words, of ``code``."""
    return CORPUS[code]["sentences"] + CORPUS[code]["words"]


@pytest.fixture(scope="module")
def pyserini_tokens(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[list[str]]]:
    require_pyserini()
    work = tmp_path_factory.mktemp("languages")
    (work / "in.json").write_text(json.dumps({c: texts(c) for c in LANGUAGES}), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([IMPORT_ROOT, str(HERE)])}
    subprocess.run(
        [
            sys.executable,
            str(HERE / "pyserini_languages.py"),
            str(work / "in.json"),
            str(work / "out.json"),
        ],
        check=True,
        env=env,
    )
    return json.loads((work / "out.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("code", LANGUAGES)
def test_tokens_match_pyserini(code: str, pyserini_tokens: dict[str, list[list[str]]]) -> None:
    items = texts(code)
    ours = Analyzer(f"lucene-{code}").analyze_batch(items)
    theirs = pyserini_tokens[code]
    assert len(theirs) == len(items) == len(CORPUS[code]["sentences"]) + len(CORPUS[code]["words"])
    assert sum(map(len, theirs)) > len(CORPUS[code]["sentences"]), "the corpus yields tokens"
    differ = [(t, a, b) for t, a, b in zip(items, theirs, ours, strict=True) if a != b]
    assert differ == [], f"{len(differ)} of {len(items)} texts differ, first: {differ[:5]}"
