"""Answer judging: the verdict parser, the answer's confidence, the calibration error,
the judge against a local mock endpoint (scripted and malformed verdicts, a judge that
never answers, the cache), agent-eval's answer columns, and a scripted SciFact run."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest

import rserini
from mock_llm import MockEndpoint, Reply, Seen, Stall
from rserini.agent.llm.model import ModelSpec
from rserini.agent.runs.answers import (
    answer_confidence,
    calibration_error,
    citation_metrics,
    evaluate_answers,
)
from rserini.agent.runs.judge import Judge, judge_prompt, parse_verdict
from support import collection

pytest.importorskip("openai")
pytest.importorskip("anthropic")


def verdict_json(correct, confidence=90, answer="x", reasoning="matches"):
    return json.dumps(
        {
            "extracted_final_answer": answer,
            "correct_answer": answer,
            "reasoning": reasoning,
            "correct": correct,
            "confidence": confidence,
        }
    )


def test_parse_verdict_is_lenient_where_pi_serini_is():
    ok = parse_verdict("```json\n" + verdict_json(True) + "\n```")
    assert (ok.correct, ok.confidence, ok.parse_error) == (True, 90.0, False)
    around = parse_verdict("Here it is: " + verdict_json("no", "85%") + " done")
    assert (around.correct, around.confidence, around.parse_error) == (False, 85.0, False)
    assert parse_verdict(verdict_json("YES", 150)).confidence == 100.0
    assert parse_verdict(verdict_json(True, -3)).confidence == 0.0
    assert parse_verdict(verdict_json(True, reasoning=" ")).parse_error
    assert parse_verdict(verdict_json("maybe")).parse_error
    assert parse_verdict(verdict_json(True, confidence="high")).parse_error
    no_gold = json.dumps({"reasoning": "r", "correct": True, "confidence": 50})
    assert parse_verdict(no_gold).parse_error  # gold mode needs correct_answer
    assert not parse_verdict(no_gold, gold=False).parse_error
    assert parse_verdict("[1, 2]").error == "Judge output was not a JSON object."
    assert parse_verdict("").error == "Judge returned empty text."
    assert parse_verdict("{not json}").error.startswith("Failed to parse judge JSON")


def test_judge_prompts_follow_pi_serini():
    gold = judge_prompt("Q?", "Exact Answer: 4", "four")
    assert gold.startswith("You are an evaluation judge.\n\nYour job is to determine whether")
    assert gold.endswith("Question: Q?\n\nResponse:\nExact Answer: 4\n\nCorrect answer: four")
    assert '  "correct_answer": string,' in gold
    free = judge_prompt("Q?", "A", None)
    assert "reference-free mode" in free and "correct_answer" not in free
    assert free.endswith("Response:\nA")


def test_answer_confidence_follows_the_papers_parser():
    assert answer_confidence("Exact Answer: x\nConfidence: 80%") == 80.0
    assert answer_confidence("Confidence: 10%\n**Confidence**: 70") == 70.0
    assert answer_confidence("confidence : 12.5 %") == 12.5
    assert answer_confidence("Confidence: 140%") == 100.0
    # The bold colon form does not match: the default applies.
    assert answer_confidence("**Confidence:** 80%") == 100.0
    assert answer_confidence("No confidence given.") == 100.0
    assert answer_confidence("none", None) is None
    assert answer_confidence("  ") is None


def test_calibration_error_check_values():
    # The paper's check value: 150 answers at 100% confidence, 100 of them correct.
    assert calibration_error([100] * 150, [True] * 100 + [False] * 50) == pytest.approx(
        57.735, 1e-4
    )
    # Two bins by hand: 100 at 20% (10 correct), then 50 at 90% (50 correct).
    conf = [90] * 50 + [20] * 100
    ok = [True] * 50 + [True] * 10 + [False] * 90
    expected = 100 * math.sqrt(100 / 150 * (0.2 - 0.1) ** 2 + 50 / 150 * (0.9 - 1.0) ** 2)
    assert calibration_error(conf, ok) == pytest.approx(expected, 1e-12)
    assert calibration_error([50, 50], [True, False], beta=1) == pytest.approx(50.0)
    with pytest.raises(ValueError):
        calibration_error([], [])


def test_citation_metrics():
    assert citation_metrics(["1", "2", "3", "4"], {"2", "4", "9"}) == (0.5, 2 / 3)
    assert citation_metrics([], {"1"}) == (0.0, 0.0)
    assert citation_metrics(["1"], set()) == (0.0, 0.0)


def record(qid, status, answer, cited=(), question="q"):
    result = [{"type": "output_text", "tool_name": None, "arguments": None, "output": answer}]
    return {
        "metadata": {"query": question},
        "query_id": qid,
        "status": status,
        "cited_docids": list(cited),
        "surfaced_docids": list(cited),
        "result": result if answer else [],
    }


def grading_judge(seen: Seen) -> Reply:
    """Correct iff the response's exact answer equals the gold answer; a response saying
    'garble' gets a malformed verdict, 'slow' gets none at all."""
    prompt = seen.user_texts[0]
    response = re.search(r"Exact Answer: (\S+)", prompt)
    gold = re.search(r"\nCorrect answer: (.*)\Z", prompt)
    given = response.group(1) if response else ""
    if given == "garble":
        return Reply('{"correct": "perhaps"')
    if given == "slow":
        return Stall(8.0)
    return Reply(verdict_json(bool(gold) and given == gold.group(1), 95, given))


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_answer_columns_by_hand(provider, tmp_path):
    records = {
        "1": record("1", "completed", "Exact Answer: A\nConfidence: 90%", ["11", "12"]),
        "2": record("2", "completed", "Exact Answer: B\nConfidence: 30%", ["21"]),
        "3": record("3", "timeout", "Exact Answer: C\nConfidence: 99%", ["31"]),
        "4": record("4", "completed", "Exact Answer: garble", []),
        "5": record("5", "completed", "Exact Answer: slow\nConfidence: 50%"),
    }
    qrels = {"1": {"11": 1, "13": 1}, "2": {"99": 1}, "3": {"31": 1}}
    answers = {"1": "A", "2": "X", "3": "C", "4": "D", "5": "E"}
    with MockEndpoint(grading_judge) as mock:
        spec = ModelSpec.parse(f"{provider}:judge", base_url=mock.url(provider), api_key="k")
        judge = Judge(spec, cache_dir=tmp_path / "cache", timeout_seconds=3.0, backoff=0.01)
        first = evaluate_answers(records, qrels, judge, answers=answers)
        asked = len(mock.requests)
        again = evaluate_answers(records, qrels, judge, answers=answers)
        asked_again = len(mock.requests) - asked
    # 1 correct of 5 (the timeout, the malformed and the silent verdicts count as wrong).
    assert first.accuracy == pytest.approx(1 / 5)
    assert first.completed == 4 and first.completed_accuracy == pytest.approx(1 / 4)
    assert first.judged == 2 and first.calibration is None  # fewer than 100 verdicts
    assert [first.per_query[q]["correct"] for q in "12345"] == [True, False, False, False, False]
    assert first.per_query["3"]["verdict"]["error"].startswith("Response incomplete")
    assert first.per_query["4"]["verdict"]["parse_error"] is True
    assert first.per_query["5"]["verdict"]["error"] == "Judge timed out after 3.0s."
    # Citations: q1 cites 11, 12 against {11, 13}: P 1/2, R 1/2; q2 cites 21 against {99}:
    # P 0, R 0; q3 is not judged, q4 and q5 cite nothing.
    assert first.citation_precision == pytest.approx(0.25)
    assert first.citation_recall == pytest.approx(0.25)
    assert first.citation_coverage == pytest.approx(2 / 5)
    assert asked == 4  # q3 is never sent
    # Cached verdicts cost nothing; the silent judge (not cached) is asked again.
    assert asked_again == 1
    assert again.to_dict() | {"per_query": None} == first.to_dict() | {"per_query": None}
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()).__len__() == 3


def researcher(seen: Seen) -> Reply:
    """Searches, answers with the top docid; confident (90%) on odd query ids' answers,
    unsure (40%) otherwise (the confidence depends on the docid's parity)."""
    if not seen.tool_outputs:
        return Reply(calls=[("search", {"reason": "start", "query": seen.question})])
    top = re.search(r"docid=(\S+)", seen.tool_outputs[0]).group(1)
    confidence = 90 if int(top) % 2 else 40
    return Reply(f"Explanation: see [{top}].\nExact Answer: {top}\nConfidence: {confidence}%")


def membership_judge(seen: Seen) -> Reply:
    prompt = seen.user_texts[0]
    given = re.search(r"Exact Answer: (\S+)", prompt).group(1)
    gold = re.search(r"\nCorrect answer: (.*)\Z", prompt).group(1).split()
    return Reply(verdict_json(given in gold, 80, given))


@pytest.mark.data
def test_scifact_agent_run_then_agent_eval(tmp_path):
    """agent-run with a scripted model on 120 SciFact queries, then agent-eval with a
    scripted judge: accuracy, calibration and citations equal an independent count."""
    from rserini.formats import read_qrels

    folder = collection("scifact")
    index = rserini.Index.from_jsonl(folder / "corpus.jsonl.gz", progress=False)
    qrels = read_qrels(folder / "qrels" / "test.tsv")
    queries = [q for q in rserini.read_queries(folder / "queries.jsonl") if q[0] in qrels][:120]
    idx, run = tmp_path / "idx", tmp_path / "run"
    index.save(idx)
    qfile = tmp_path / "queries.tsv"
    qfile.write_text("".join(f"{q}\t{t}\n" for q, t in queries))
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"query_id": q, "answer": " ".join(sorted(qrels[q]))}) + "\n"
            for q, _ in queries
        )
    )

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "rserini", *args], capture_output=True, text=True, timeout=300
        )

    with MockEndpoint(researcher) as agent, MockEndpoint(membership_judge) as judge:
        done = cli(
            "agent-run", "--index", str(idx), "--queries", str(qfile), "--output", str(run),
            "--model", "openai:agent", "--base-url", agent.openai_url, "--api-key", "k",
            "--concurrency", "4", "-q",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        evaluated = cli(
            "agent-eval", "--runs", str(run), "--qrels", str(folder / "qrels" / "test.tsv"),
            "--judge-model", "anthropic:judge", "--judge-base-url", judge.anthropic_url,
            "--judge-api-key", "k", "--answers", str(answers), "--json", "--judge-concurrency", "3",
        )  # fmt: skip
        assert evaluated.returncode == 0, evaluated.stderr
        judged_requests = len(judge.requests)
    table = {row["label"]: row for row in json.loads(evaluated.stdout)}["answers"]
    # The independent count: the top BM25 hit (k1 0.9, b 0.4) answers and is cited.
    tops = {q: index.search_pairs(t, k=1)[0][0] for q, t in queries}
    correct = {q: tops[q] in qrels[q] for q, _ in queries}
    confidence = {q: 0.9 if int(tops[q]) % 2 else 0.4 for q, _ in queries}
    assert judged_requests == 120
    assert table["accuracy"] == pytest.approx(sum(correct.values()) / 120)
    # Ties keep the records' order (numeric ids), as the stable sort of the original.
    order = sorted(sorted(confidence, key=int), key=lambda q: confidence[q])
    bins = [order[:100], order[100:]]
    expected = 100 * math.sqrt(
        sum(
            len(b)
            / 120
            * (sum(confidence[q] for q in b) / len(b) - sum(correct[q] for q in b) / len(b)) ** 2
            for b in bins
        )
    )
    assert table["calibration"] == pytest.approx(expected, abs=1e-9)
    assert table["citation_precision"] == pytest.approx(table["accuracy"])
    assert table["citation_recall"] == pytest.approx(
        sum(correct[q] / len([d for d, r in qrels[q].items() if r > 0]) for q in correct) / 120
    )
    assert table["citation_coverage"] == 1.0
    # Re-evaluating reads the cached verdicts: no endpoint is needed any more.
    text = cli(
        "agent-eval", "--runs", str(run), "--qrels", str(folder / "qrels" / "test.tsv"),
        "--judge-model", "anthropic:judge", "--judge-base-url", "http://127.0.0.1:9",
        "--judge-api-key", "k", "--answers", str(answers),
    )  # fmt: skip
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    head = lines.index(f"table 1 (evidence ({folder / 'qrels' / 'test.tsv'}), macro %)")
    assert lines[head + 1].lstrip().startswith("Accuracy  Calib. error  Surfaced  Previewed")
    assert lines[head + 1].endswith("Behavior  Cit. P  Cit. R")
    row = lines[head + 2].split()
    assert row[0] == f"{100 * table['accuracy']:.2f}"
    assert row[1] == f"{table['calibration']:.2f}"
