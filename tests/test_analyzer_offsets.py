# ruff: noqa: RUF001  (the examples are in fullwidth and halfwidth letters)
"""``Analyzer.analyze_with_offsets``: valid spans on any text for every preset, the terms of
``analyze``, and (marker ``parity``) Lucene's own ``OffsetAttribute`` on the language corpus."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rserini import ANALYZER_PRESETS, Analyzer
from support import IMPORT_ROOT, require_pyserini

HERE = Path(__file__).parent
ANALYZERS = {preset: Analyzer(preset) for preset in ANALYZER_PRESETS}


def check_spans(text: str) -> None:
    for preset, analyzer in ANALYZERS.items():
        spans = analyzer.analyze_with_offsets(text)
        assert [term for term, _, _ in spans] == analyzer.analyze(text), preset
        last = 0
        for term, start, end in spans:
            assert term, (preset, spans)
            assert last <= start < end <= len(text), (preset, text, spans)
            last = start


@given(text=st.text(max_size=200))
def test_spans_are_valid_on_any_text(text: str) -> None:
    check_spans(text)


EDGE = list("中国人한국어カタカナｶﾞﾊﾟひらがなＡｂ1 .'’İIıçğΣσẞK😀𠀀\u0301_aB-lL")
"""Characters whose spans take care: width folding, casing that changes length,
supplementary characters, combining marks, apostrophes."""


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(EDGE), max_size=60))
def test_spans_are_valid_on_cjk_casing_and_width_edge_text(text: str) -> None:
    check_spans(text)


@pytest.mark.parametrize(
    ("preset", "text", "expected"),
    [
        ("lucene-english", "The Running dog's", [("run", "Running"), ("dog", "dog's")]),
        ("lucene-fr", "L'avion 😀 Ａb", [("avion", "L'avion"), ("😀", "😀"), ("ａb", "Ａb")]),
        ("lucene-zh", "是中国 x", [("是中", "是中"), ("中国", "中国"), ("x", "x")]),
        ("lucene-ko", "ｶﾞｷ", [("ガキ", "ｶﾞｷ")]),
        ("plain", "İx ΟΔΟΣ", [("i", "İ"), ("x", "x"), ("οδος", "ΟΔΟΣ")]),
        ("code", "getUser", [("getuser", "getUser"), ("get", "get"), ("user", "User")]),
    ],
)
def test_a_term_spans_its_source(preset: str, text: str, expected: list[tuple[str, str]]) -> None:
    spans = Analyzer(preset).analyze_with_offsets(text)
    assert [(term, text[start:end]) for term, start, end in spans] == expected


def utf16_to_index(text: str) -> dict[int, int]:
    """Each UTF-16 offset of ``text`` at a character boundary, as a ``str`` index."""
    out, units = {}, 0
    for i, c in enumerate(text):
        out[units] = i
        units += 2 if ord(c) > 0xFFFF else 1
    out[units] = len(text)
    return out


@pytest.mark.parity
def test_spans_match_lucene(tmp_path: Path) -> None:
    require_pyserini()
    corpus = json.loads(gzip.decompress((HERE / "data/languages/corpus.json.gz").read_bytes()))
    codes = [c for c in corpus if f"lucene-{c}" in ANALYZER_PRESETS]
    # Seeded strings of the edge alphabet too: width folding, supplementary characters,
    # combining marks, elision and apostrophes.
    rng = random.Random(7)
    edge = ["".join(rng.choices(EDGE, k=rng.randint(1, 30))) for _ in range(300)]
    texts = {c: corpus[c]["sentences"] + edge for c in codes}
    # English on every language's first sentences: its tokenizer meets every script.
    texts["en"] = [t for c in codes for t in corpus[c]["sentences"][:20]] + edge
    (tmp_path / "in.json").write_text(json.dumps(texts), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([IMPORT_ROOT, str(HERE)])}
    script = str(HERE / "pyserini_languages.py")
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, script, str(tmp_path / "in.json"), str(out), "offsets"],
                   check=True, env=env)  # fmt: skip
    lucene = json.loads(out.read_text(encoding="utf-8"))
    compared = 0
    for code, items in texts.items():
        preset = "lucene-english" if code == "en" else f"lucene-{code}"
        analyzer = ANALYZERS[preset]
        differ = []
        for text, theirs in zip(items, lucene[code], strict=True):
            index = utf16_to_index(text)
            expected = [(term, index[start], index[end]) for term, start, end in theirs]
            ours = analyzer.analyze_with_offsets(text)
            compared += len(ours)
            if ours != expected:
                differ.append((text, expected, ours))
        assert differ == [], f"{code}: {len(differ)} of {len(items)} differ, first: {differ[:2]}"
    assert compared > 90_000, compared
