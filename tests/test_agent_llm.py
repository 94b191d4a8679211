"""The language-model agent against local mock endpoints (no network): Pi-Serini's
prompt, the three wire APIs, malformed arguments, rate limits, the time budget, broken
endpoints, resumable runs and the command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

import rserini
from mock_llm import Garbage, MockEndpoint, Reply, Seen, Stall, Status
from rserini.agent.llm.model import ModelSpec
from rserini.agent.runs.llm_agent import LLMAgent
from rserini.agent.runs.prompt import PLAIN_MINIMAL, system_prompt, user_prompt
from rserini.agent.runs.records import read_runs
from rserini.agent.runs.runner import run_queries
from rserini.agent.tools.messages import BLOCK_REASON, STEER
from rserini.agent.tools.schemas import tool_specs
from rserini.exceptions import RseriniError

pytest.importorskip("openai")
pytest.importorskip("anthropic")

DOCS = [
    {"id": "101", "contents": "Graphene conducts heat very well."},
    {"id": "102", "contents": "Copper conducts heat and electricity."},
    {"id": "103", "contents": "Glass is a poor conductor of heat."},
    {"id": "104", "contents": "Mitochondria make ATP in cells."},
]
QUERIES = [("1", "graphene heat"), ("2", "mitochondria ATP"), ("3", "copper electricity")]
PROVIDERS = ("openai", "openai-responses", "anthropic")


@pytest.fixture(scope="module")
def index():
    return rserini.Index.build(DOCS, progress=False)


def researcher(seen: Seen) -> Reply:
    """Searches the question, opens the top hit, answers citing it with 80% confidence."""
    if not seen.tool_outputs:
        return Reply(calls=[("search", {"reason": "start", "query": seen.question})])
    top = re.search(r"docid=(\S+)", seen.tool_outputs[0])
    docid = top.group(1) if top else "none"
    if len(seen.tool_outputs) == 1:
        return Reply(calls=[("read_document", {"reason": "verify", "docid": docid})])
    return Reply(
        f"Explanation: the document says so [{docid}].\nExact Answer: {docid}\nConfidence: 80%"
    )


def agent_for(provider: str, mock: MockEndpoint, **kw) -> LLMAgent:
    spec = ModelSpec.parse(f"{provider}:mock-1", base_url=mock.url(provider), api_key="k")
    return LLMAgent(spec, backoff=0.01, **kw)


def test_plain_minimal_prompt_is_pi_serinis():
    prompt = user_prompt("Who wrote it?")
    lines = prompt.split("\n")
    assert lines[0] == (
        "You are a deep research agent answering a question using only the provided tools."
    )
    assert lines[-1] == "Question: Who wrote it?"
    rules = [line for line in lines if re.match(r"\d+\. ", line)]
    assert [int(r.split(".")[0]) for r in rules] == list(range(1, 12))
    assert rules[6] == (
        "7. Every call to search, read_search_results, and read_document must include reason "
        "as the first argument. Keep it specific, under 100 words, and focused on the clue, "
        "gap, candidate, or ranking issue."
    )
    # The final format is the one the citation and calibration parsers read.
    assert "9. Your final response must use exactly this format:\nExplanation: {" in prompt
    assert "\nConfidence: {your confidence score between 0% and 100%}\n10. " in prompt
    assert PLAIN_MINIMAL.count("{Question}") == 1
    # A question holding the placeholder is kept as it is.
    assert user_prompt("{Question}").endswith("Question: {Question}")
    system = system_prompt(tool_specs())
    for spec in tool_specs():
        assert f"- {spec.name}: {spec.prompt_snippet}" in system
        assert all(f"- {g}" in system for g in spec.prompt_guidelines)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_api_runs_the_loop(provider, index, tmp_path):
    with MockEndpoint(researcher) as mock:
        agent = agent_for(provider, mock, prices=(2.0, 8.0))
        summary = run_queries(index, QUERIES, tmp_path, agent=agent)
    assert summary.statuses == {"completed": 3} and not summary.errors
    records = read_runs(tmp_path)
    for qid, question in QUERIES:
        top = index.search_pairs(question, k=1)[0][0]
        r = records[qid]
        assert r["status"] == "completed" and r["completion_source"] == "assistant_text"
        assert r["tool_call_counts"] == {"search": 1, "read_document": 1}
        assert r["opened_docids"] == [top] and r["cited_docids"] == [top]
        assert r["metadata"]["model"] == f"{provider}:mock-1"
        assert r["metadata"]["prompt_variant"] == "plain_minimal"
        assert r["stats"]["assistant_turns"] == 3
        # Three turns of 10 input and 5 output tokens, at $2 and $8 per million.
        assert r["stats"]["usage"] == {
            "input_tokens": 30,
            "output_tokens": 15,
            "total_tokens": 45,
            "cost": {"input": 0.00006, "output": 0.00012, "total": 0.00018},
        }
        assert r["result"][-1]["output"].startswith("Explanation: the document says so")
        lines = (tmp_path / "raw-events" / f"{qid}.jsonl").read_text().splitlines()
        events = [json.loads(x) for x in lines]
        assert [e["type"] for e in events] == [
            "message_end", "message_end", "tool_execution_end", "message_end",
            "tool_execution_end", "message_end", "agent_end",
        ]  # fmt: skip
    setup = json.loads((tmp_path / "run_setup.json").read_text())
    assert setup["model"] == f"{provider}:mock-1"
    # What went over the wire: the prompt, the tools in the API's shape, the history.
    api, body = mock.requests[0]
    names = ["search", "read_search_results", "read_document"]
    if api == "chat":
        assert body["messages"][0] == {"role": "system", "content": system_prompt(tool_specs())}
        assert body["messages"][1]["content"] == user_prompt(QUERIES[0][1])
        assert [t["function"]["name"] for t in body["tools"]] == names
    elif api == "responses":
        assert body["instructions"] == system_prompt(tool_specs())
        assert [(t["name"], t["strict"]) for t in body["tools"]] == [(n, False) for n in names]
    else:
        assert body["system"] == system_prompt(tool_specs())
        assert body["max_tokens"] == 8192
        assert [t["name"] for t in body["tools"]] == names
        last = mock.requests[2][1]["messages"]
        assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
        assert last[-1]["content"][0]["type"] == "tool_result"


def test_malformed_arguments_reach_the_model_as_pi_errors(index, tmp_path):
    def script(seen: Seen) -> Reply:
        if not seen.tool_outputs:
            return Reply(calls=[("search", '{"reason": "x", "query": ')])  # cut JSON
        return Reply("Explanation: none.\nExact Answer: none\nConfidence: 5%")

    with MockEndpoint(script) as mock:
        run_queries(index, QUERIES[:1], tmp_path, agent=agent_for("openai", mock))
        retried = mock.requests[1][1]["messages"][-1]
    r = read_runs(tmp_path)["1"]
    assert r["status"] == "completed" and r["stats"]["pi_search_failures"] == 1
    assert retried["role"] == "tool"
    assert retried["content"].startswith('Validation failed for tool "search":')
    assert "must have required property 'reason'" in retried["content"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_rate_limits_are_retried_with_retry_after(provider, index, tmp_path):
    calls = {"n": 0}

    def script(seen: Seen) -> object:
        calls["n"] += 1
        if calls["n"] <= 2:
            return Status(429, {"retry-after": "0.05"})
        return researcher(seen)

    with MockEndpoint(script) as mock:
        started = time.monotonic()
        summary = run_queries(index, QUERIES[:1], tmp_path, agent=agent_for(provider, mock))
        waited = time.monotonic() - started
    assert summary.statuses == {"completed": 1}
    assert len(mock.requests) == 5  # two refusals, then three turns
    assert waited >= 0.1  # both retry-after waits were honoured


def test_a_failing_endpoint_leaves_no_record_and_the_run_resumes(index, tmp_path):
    def broken(seen: Seen) -> object:
        return Status(503) if seen.question == "mitochondria ATP" else researcher(seen)

    with MockEndpoint(broken) as mock:
        summary = run_queries(
            index, QUERIES, tmp_path, agent=agent_for("openai", mock, max_retries=2)
        )
        refused = [b for _, b in mock.requests if "mitochondria" in b["messages"][1]["content"]]
    assert summary.statuses == {"completed": 2}
    assert list(summary.errors) == ["2"] and "InternalServerError" in summary.errors["2"]
    assert len(refused) == 3  # the first attempt and two retries
    assert sorted(read_runs(tmp_path)) == ["1", "3"]
    with MockEndpoint(researcher) as mock:
        again = run_queries(index, QUERIES, tmp_path, agent=agent_for("openai", mock))
    assert (again.ran, again.skipped, again.errors) == (1, 2, {})
    assert sorted(read_runs(tmp_path)) == ["1", "2", "3"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_garbage_answers_are_clear_errors(provider, index, tmp_path):
    with MockEndpoint(lambda seen: Garbage()) as mock:
        summary = run_queries(index, QUERIES[:1], tmp_path, agent=agent_for(provider, mock))
    assert summary.ran == 0 and list(summary.errors) == ["1"]
    assert summary.errors["1"].startswith(f"{provider}:mock-1: ")
    assert not (tmp_path / "1.json").exists()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_steer_then_block_then_answer(provider, index, tmp_path):
    """Past 70% of the budget the next tool call is blocked and the steer goes to the
    model, which answers: completed, with the block counted as a failure."""

    def script(seen: Seen) -> object:
        if STEER in seen.user_texts:
            return Reply("Explanation: out of time.\nExact Answer: x\nConfidence: 10%")
        return Stall(3.0, Reply(calls=[("search", {"reason": "r", "query": seen.question})]))

    with MockEndpoint(script) as mock:
        run_queries(
            index, QUERIES[:1], tmp_path, agent=agent_for(provider, mock), timeout_seconds=4.0
        )
        api, last = mock.requests[-1]
    r = read_runs(tmp_path)["1"]
    assert r["status"] == "completed" and r["stats"]["pi_search_failures"] == 1
    assert r["result"][0]["output"] == BLOCK_REASON
    assert r["surfaced_docids"] == []
    if api == "anthropic":  # the block and the steer share one user turn
        assert [m["role"] for m in last["messages"]] == ["user", "assistant", "user"]
        assert [b["type"] for b in last["messages"][-1]["content"]] == ["tool_result", "text"]


def test_a_model_that_never_answers_fails_after_max_turns(index, tmp_path):
    def script(seen: Seen) -> Reply:
        return Reply(calls=[("search", {"reason": "again", "query": seen.question})])

    with MockEndpoint(script) as mock:
        run_queries(index, QUERIES[:1], tmp_path, agent=agent_for("openai", mock, max_turns=3))
    r = read_runs(tmp_path)["1"]
    assert r["status"] == "failed" and r["tool_call_counts"] == {"search": 3}
    assert r["result"][-1]["output"] == (
        "pi stderr:\nstopped after 3 assistant turns without a final answer"
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stalled_endpoint_is_stopped_at_the_budget(provider, index, tmp_path):
    def script(seen: Seen) -> object:
        if not seen.tool_outputs:
            return Reply(calls=[("search", {"reason": "r", "query": seen.question})])
        return Stall(30.0)  # never answers in time

    with MockEndpoint(script) as mock:
        started = time.monotonic()
        summary = run_queries(
            index, QUERIES[:1], tmp_path, agent=agent_for(provider, mock), timeout_seconds=1.0
        )
        took = time.monotonic() - started
    assert summary.statuses == {"timeout": 1}
    r = read_runs(tmp_path)["1"]
    assert r["status"] == "timeout" and r["stats"]["timed_out"] is True
    assert r["tool_call_counts"] == {"search": 1} and r["completion_source"] is None
    assert took < 15.0  # stopped at the budget, not after the stall


def test_concurrent_runs_match_sequential_ones(index, tmp_path):
    queries = [(str(i), q) for i, (_, q) in enumerate(QUERIES * 3, start=1)]
    with MockEndpoint(researcher) as mock:
        run_queries(index, queries, tmp_path / "seq", agent=agent_for("openai", mock))
        run_queries(
            index, queries, tmp_path / "par", agent=agent_for("openai", mock), concurrency=4
        )

    def strip(r):
        return {k: v for k, v in r.items() if k not in ("stats", "metadata")}

    seq, par = read_runs(tmp_path / "seq"), read_runs(tmp_path / "par")
    assert {q: strip(r) for q, r in seq.items()} == {q: strip(r) for q, r in par.items()}


def test_bad_model_names_and_missing_keys(monkeypatch):
    with pytest.raises(RseriniError, match="expected PROVIDER:MODEL"):
        ModelSpec.parse("gpt-4")
    with pytest.raises(RseriniError, match="unknown provider 'mistral'"):
        ModelSpec.parse("mistral:large")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(RseriniError, match="set OPENAI_API_KEY"):
        ModelSpec.parse("openai-responses:m").client()
    with pytest.raises(RseriniError, match="set ANTHROPIC_API_KEY"):
        ModelSpec.parse("anthropic:m").client()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert ModelSpec.parse("anthropic:m").client().api_key == "k"


def test_cli_agent_run_with_a_model(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    queries = tmp_path / "queries.tsv"
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES))
    idx, out = tmp_path / "idx", tmp_path / "run"
    env = {k: v for k, v in __import__("os").environ.items() if not k.endswith("_API_KEY")}

    def cli(*args, **extra_env):
        return subprocess.run(
            [sys.executable, "-m", "rserini", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**env, **extra_env},
        )

    assert cli("index", "--input", str(corpus), "--index", str(idx), "-q").returncode == 0
    base = ["agent-run", "--index", str(idx), "--queries", str(queries), "--output", str(out)]
    unknown = cli(*base, "--model", "nope:m")
    assert unknown.returncode == 1 and "unknown provider 'nope'" in unknown.stderr
    keyless = cli(*base, "--model", "openai:m", "--base-url", "http://127.0.0.1:9")
    assert keyless.returncode == 1 and "OPENAI_API_KEY" in keyless.stderr
    assert not out.exists()
    with MockEndpoint(researcher) as mock:
        done = cli(
            *base, "--model", "anthropic:mock-1", "--base-url", mock.anthropic_url,
            "--concurrency", "2", ANTHROPIC_API_KEY="k",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "3 queries run (3 completed)" in done.stderr
    assert sorted(read_runs(out)) == ["1", "2", "3"]
