# ruff: noqa: RUF001  (the examples are in Cyrillic, Turkish and fullwidth letters)
"""Lucene's language analyzers (``lucene-<code>`` presets): chains, saved indexes, and no
failure on arbitrary text. Token-for-token agreement with Pyserini is checked live in
``test_parity_languages.py``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import ipadic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini import Analyzer, Index

LANGUAGE_PRESETS = [p for p in rserini.ANALYZER_PRESETS if p.startswith("lucene-")][1:]

# Sentences and the tokens Pyserini 1.6.0 gives for them.
EXAMPLES = {
    "lucene-ar": ("والكتاب الجديد في المكتبة ٢٠٢٤", ["كتاب", "جديد", "مكتب", "2024"]),
    "lucene-bn": ("আমি বাংলায় গান গাইতে ভালোবাসি", ["আম", "বাংলা\u09df", "গান", "গা", "ভালোবাস"]),
    "lucene-fi": (
        "Talossa asui kolme kissaa vuonna 2000",
        ["talo", "asui", "kolm", "kis", "vuon", "2000"],
    ),
    "lucene-hi": ("लड़कों ने किताबें पढ़ीं", ["लडक", "किताब", "पढिं"]),
    "lucene-te": ("పిల్లలు పాఠశాలకు వెళ్లారు ABC", ["పిల్ల", "పాఠశాలక", "వెళ్లార", "ABC"]),
    "lucene-da": ("Hestene løb over de grønne marker", ["hest", "løb", "grøn", "mark"]),
    "lucene-de": ("Die Häuser der Straße", ["haus", "strass"]),
    "lucene-fr": ("L'avion et les chevaux", ["avion", "cheval"]),
    "lucene-nl": ("het kind en de fietsen", ["kinder", "fiets"]),
    "lucene-ru": ("ещё всё его", ["ещ", "все"]),
    "lucene-tr": ("Türkiye'de IŞIK", ["türki", "ışık"]),
    "lucene-zh": ("我是中国人 Ｔｅｓｔ", ["我是", "是中", "中国", "国人", "test"]),
    "lucene-ko": ("한국어 사전", ["한국", "국어", "사전"]),
    "lucene-ja": ("株式会社の大小文字をｶﾀｶﾅで", ["株式", "会社", "大", "小文字", "カタカナ"]),
}


@pytest.mark.parametrize("preset", sorted(EXAMPLES))
def test_chains(preset: str) -> None:
    text, tokens = EXAMPLES[preset]
    assert Analyzer(preset).analyze(text) == tokens


def test_thai_says_why_it_is_missing() -> None:
    with pytest.raises(rserini.AnalyzerError, match="break iterator"):
        Analyzer("lucene-th")


def run_japanese(tmp_path: Path, dictionary: Path) -> subprocess.CompletedProcess[str]:
    """``Analyzer("lucene-ja")`` in a fresh process (the dictionary is opened once a
    process) with ``RSERINI_IPADIC`` naming ``dictionary``."""
    code = "import rserini; print(rserini.Analyzer('lucene-ja').analyze('東京に住む'))"
    env = {**os.environ, "RSERINI_IPADIC": str(dictionary)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )


def test_japanese_dictionary_errors(tmp_path: Path) -> None:
    done = run_japanese(tmp_path, tmp_path / "missing")
    assert done.returncode == 1 and "AnalyzerError" in done.stderr
    assert "does not exist" in done.stderr
    # A copy of the dictionary, then damaged file by file: an error, never a crash.
    source = Path(ipadic.DICDIR)
    for name in ("sys.dic", "unk.dic", "matrix.bin", "char.bin"):
        copy = tmp_path / name.replace(".", "-")
        shutil.copytree(source, copy)
        data = (copy / name).read_bytes()
        (copy / name).write_bytes(data[: len(data) // 2])
        done = run_japanese(tmp_path, copy)
        assert done.returncode == 1 and "AnalyzerError" in done.stderr, (name, done.stderr)
        assert name in done.stderr and "MeCab IPADIC" in done.stderr, done.stderr
    done = run_japanese(tmp_path, source)
    assert done.returncode == 0 and done.stdout.strip() == "['東京', '住む']", done.stderr


def test_japanese_reads_only_its_dictionary(tmp_path: Path) -> None:
    """The dictionary directory is opened read-only: nothing is written there."""
    copy = tmp_path / "ipadic"
    shutil.copytree(ipadic.DICDIR, copy)
    before = {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in copy.iterdir()}
    assert run_japanese(tmp_path, copy).returncode == 0
    assert {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in copy.iterdir()} == before


@pytest.mark.parametrize("preset", ["lucene-de", "lucene-zh", "lucene-ja"])
def test_index_saves_and_reloads_its_language(tmp_path: Path, preset: str) -> None:
    docs = [
        ("a", "Die Häuser der Straße sind alt"),
        ("b", "Ein Haus am Meer"),
        ("c", "我是中国人"),
        ("d", "中国的首都是北京"),
        ("e", "東京都に住んでいる"),
        ("f", "東京の大学で学んだ"),
    ]
    index = Index.build(docs, analyzer=preset, progress=False)
    index.save(tmp_path / "idx")
    loaded = Index.load(tmp_path / "idx")
    assert loaded.analyzer == Analyzer(preset)
    assert loaded.analyzer.name == preset
    query, expected = {
        "lucene-de": ("Häuser", ["a", "b"]),
        "lucene-zh": ("中国", ["c", "d"]),
        "lucene-ja": ("東京", ["e", "f"]),
    }[preset]
    assert sorted(h.docid for h in loaded.search(query, k=10)) == expected
    assert [(h.docid, h.score) for h in loaded.search(query, k=10)] == [
        (h.docid, h.score) for h in index.search(query, k=10)
    ]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_every_language_analyzes_any_text(text: str) -> None:
    for preset in LANGUAGE_PRESETS:
        terms = Analyzer(preset).analyze(text)
        assert all(isinstance(t, str) and t for t in terms), (preset, terms)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("中国人한국어カタカナｶﾞﾊﾟひらがなＡｂ1 .'’İIıçğ")), max_size=60
    )
)
def test_every_language_analyzes_cjk_and_turkish_edge_text(text: str) -> None:
    for preset in LANGUAGE_PRESETS:
        terms = Analyzer(preset).analyze(text)
        assert all(t for t in terms), (preset, terms)
        assert Analyzer(preset).analyze_batch([text, text]) == [terms, terms]


@settings(max_examples=30, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("あいうアイウー漢字東京ｶﾞﾟＡ１a1 ・—―。、😀")),
        min_size=900,
        max_size=2500,
    )
)
def test_japanese_on_long_text_keeps_every_span_valid(text: str) -> None:
    """Long runs reach Kuromoji's forced commit after 1,024 units and long unknown words."""
    spans = Analyzer("lucene-ja").analyze_with_offsets(text)
    last = 0
    for term, start, end in spans:
        assert term and last <= start < end <= len(text), (term, start, end)
        last = start
    assert [t for t, _, _ in spans] == Analyzer("lucene-ja").analyze(text)
