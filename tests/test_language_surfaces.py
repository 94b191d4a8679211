"""Where a language is chosen: ``rserini index --language``, the Pyserini facade's
``get_lucene_analyzer(language=...)``, ``Analyzer(...).analyze()`` and
``LuceneSearcher.set_language``, and :func:`rserini.languages.language_preset`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rserini
from rserini import Index
from rserini.languages import LANGUAGES, language_preset
from rserini.pyserini import Analyzer, LuceneSearcher, NotSupportedError, get_lucene_analyzer

DOCS = [
    {"id": "a", "contents": "Die Häuser der Straße sind alt"},
    {"id": "b", "contents": "Ein Haus am Meer"},
    {"id": "c", "contents": "Der Hund schläft"},
]


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rserini", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def german_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("german")
    (work / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), "utf-8")
    done = cli(
        "index", "--input", work / "docs.jsonl", "--index", work / "idx", "-q", "--language", "de"
    )
    assert done.returncode == 0, done.stderr
    return work / "idx"


def test_language_codes_name_presets() -> None:
    assert LANGUAGES[0] == "en"
    assert {"ar", "bn", "de", "fi", "hi", "te", "zh"} <= set(LANGUAGES)
    assert language_preset("en") == "lucene-english"
    assert language_preset("DE") == "lucene-de"
    for code in LANGUAGES:
        assert language_preset(code) in rserini.ANALYZER_PRESETS
    with pytest.raises(rserini.AnalyzerError, match="unknown language 'xx'; choose one of en, ar"):
        language_preset("xx")
    assert language_preset("ja") == "lucene-ja"
    with pytest.raises(rserini.AnalyzerError, match="break iterator"):
        language_preset("th")


def test_index_with_language_saves_its_analyzer(german_index: Path) -> None:
    index = Index.load(german_index)
    assert index.analyzer.name == "lucene-de"
    assert sorted(h.docid for h in index.search("Häuser", k=10)) == ["a", "b"]


def test_index_language_errors(tmp_path: Path, german_index: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps(DOCS[0]) + "\n", "utf-8")
    done = cli("index", "--input", docs, "--index", tmp_path / "th", "--language", "th")
    assert done.returncode != 0 and "break iterator" in done.stderr
    done = cli(
        "index",
        "--input",
        docs,
        "--index",
        tmp_path / "x",
        "--language",
        "de",
        "--analyzer",
        "plain",
    )
    assert done.returncode != 0 and "not allowed with" in done.stderr
    done = cli("index", "--input", docs, "--index", german_index, "--append", "--language", "fr")
    assert done.returncode != 0 and "built with lucene-de" in done.stderr


def test_searcher_set_language(german_index: Path) -> None:
    searcher = LuceneSearcher(str(german_index))
    searcher.set_language("de")
    assert sorted(h.docid for h in searcher.search("Häuser", k=10)) == ["a", "b"]
    with pytest.raises(NotSupportedError, match="built with lucene-de"):
        searcher.set_language("fr")
    with pytest.raises(rserini.AnalyzerError, match="unknown language"):
        searcher.set_language("xx")


def test_get_lucene_analyzer_and_analyze_shape() -> None:
    german = get_lucene_analyzer(language="de")
    assert german == rserini.Analyzer("lucene-de")
    assert Analyzer(german).analyze("Die Häuser der Straße") == ["haus", "strass"]
    assert Analyzer(get_lucene_analyzer()).analyze("The running dogs") == ["run", "dog"]
    assert Analyzer(get_lucene_analyzer(stemming=False)).analyze("The running dogs") == [
        "running",
        "dogs",
    ]
    unstopped = get_lucene_analyzer(stemming=False, stopwords=False)
    assert Analyzer(unstopped).analyze("The running dogs") == ["the", "running", "dogs"]
    assert Analyzer(german).compute_document_vector("Haus Häuser Meer") == {"haus": 2, "meer": 1}
    with pytest.raises(NotSupportedError, match="krovetz"):
        get_lucene_analyzer(stemmer="krovetz")
    with pytest.raises(NotSupportedError, match="tweet"):
        get_lucene_analyzer(language="tweet")
    japanese = get_lucene_analyzer(language="ja")
    assert japanese == rserini.Analyzer("lucene-ja")
    assert Analyzer(japanese).analyze("東京に住んでいる") == ["東京", "住む"]
    with pytest.raises(rserini.AnalyzerError, match="break iterator"):
        get_lucene_analyzer(language="th")
    with pytest.raises(TypeError):
        Analyzer("lucene-de")  # type: ignore[arg-type]
