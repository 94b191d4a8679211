# ruff: noqa: RUF001  (the Japanese stress alphabet holds fullwidth letters on purpose)
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
import random
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


def japanese_stress_texts() -> list[str]:
    """Seeded strings over the characters of the Japanese sentences and the ones Kuromoji's
    pipeline treats specially (halfwidth kana and voiced marks, fullwidth letters and digits,
    the two dashes its dictionary and MeCab's differ in, the katakana middle dot, emoji),
    sentences run together, and runs long enough to force Kuromoji's commit at 1,024 units."""
    rng = random.Random(11)
    sentences = CORPUS["ja"]["sentences"]
    alphabet = sorted(set("".join(sentences)))
    alphabet += list("ｶﾞﾊﾟｱｲｳﾞﾟ ＡＢＣａｂ１２３abcXYZ 0123456789.,!?・ー〜—―「」（）\t\n😀𠮷é")
    texts = ["".join(rng.choices(alphabet, k=rng.randint(1, 60))) for _ in range(1500)]
    texts += ["".join(rng.choices(sentences, k=rng.randint(2, 6))) for _ in range(300)]
    texts += ["あ" * 1500, "ア" * 2100 + "です", "漢字" * 800, "x" * 3000, "東京" * 700 + "大学"]
    texts.append("".join(rng.choice(sentences).strip("。、") for _ in range(40)))
    return texts


def test_japanese_tokens_match_pyserini_on_stress_text(tmp_path: Path) -> None:
    """Beyond the corpus: Kuromoji's lattice, width folding and dictionary on odd text."""
    require_pyserini()
    items = japanese_stress_texts()
    (tmp_path / "in.json").write_text(json.dumps({"ja": items}), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([IMPORT_ROOT, str(HERE)])}
    script = str(HERE / "pyserini_languages.py")
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, script, str(tmp_path / "in.json"), str(out)],
                   check=True, env=env)  # fmt: skip
    theirs = json.loads(out.read_text(encoding="utf-8"))["ja"]
    ours = Analyzer("lucene-ja").analyze_batch(items)
    assert sum(map(len, theirs)) > 20_000, "the texts yield tokens"
    differ = [(t[:80], a, b) for t, a, b in zip(items, theirs, ours, strict=True) if a != b]
    assert differ == [], f"{len(differ)} of {len(items)} texts differ, first: {differ[:3]}"
