"""``--record`` on the http and rpc servers: each search and read, per conversation, folded
into pi-serini's run records, which ``agent-eval`` reads."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys

import pytest

import rserini
from rserini.agent.runs.evaluation import evaluate_records
from rserini.agent.runs.records import read_runs
from rserini.agent.servers.backend import IndexBackend
from rserini.agent.servers.backend_record import BackendRecorder
from rserini.agent.servers.http_server import HttpApi
from rserini.agent.servers.rpc_server import RpcHandler

DOCS = [{"id": str(i), "contents": f"alpha beta {'gamma ' * i}"} for i in range(1, 9)]


@pytest.fixture(scope="module")
def index():
    return rserini.Index.build(DOCS, progress=False)


def ranking(index, query):
    return [docid for docid, _ in index.search_pairs(query, k=1000)]


def test_http_records_searches_and_reads_per_conversation(index, tmp_path):
    recorder = BackendRecorder(tmp_path, "http")
    api = HttpApi(IndexBackend(index), recorder=recorder)

    def post(path, body):
        return api.answer("POST", path, json.dumps(body).encode())

    post("/search?conversation=a", {"query": "gamma", "limit": 1000})
    post("/search?conversation=b", {"query": "alpha", "limit": 1000})
    post("/read_document?conversation=a", {"docid": "3", "offset": 1, "limit": 200})
    post("/read_document?conversation=a", {"docid": "nope", "offset": 1, "limit": 200})
    post("/search?conversation=a", {"query": "", "limit": 1000})  # refused: a failed call
    api.answer("GET", "/search?conversation=a", None)  # not a tool call
    recorder.close()
    records = read_runs(tmp_path)
    assert sorted(records) == ["1", "2"]
    a, b = records["1"], records["2"]
    assert a["metadata"]["transport"] == "http" and a["status"] == "failed"
    assert a["tool_call_counts"] == {"search": 2, "read_document": 2}
    assert a["surfaced_docids"] == ranking(index, "gamma")
    assert a["previewed_docids"] == ranking(index, "gamma")[:5]
    assert a["opened_docids"] == ["3", "nope"] == a["agent_docids"]
    assert a["stats"]["pi_search_failures"] == 2
    assert a["stats"]["search_rewrites_without_browse"] == 1
    assert b["surfaced_docids"] == ranking(index, "alpha")
    assert b["opened_docids"] == []
    events = (tmp_path / "raw-events" / "1.jsonl").read_text().splitlines()
    assert [json.loads(e)["toolName"] for e in events] == [
        "search",
        "read_document",
        "read_document",
        "search",
    ]
    # agent-eval reads them: 8 is ranked 1st for gamma (surfaced, previewed), 3 opened.
    table = evaluate_records(records, {"1": {"8": 1, "3": 1}, "2": {"1": 1}})
    assert table.per_query["1"]["surfaced"] == 1.0 and table.per_query["1"]["opened"] == 0.5
    assert table.per_query["2"]["previewed"] == 1.0 and table.per_query["2"]["opened"] == 0.0


def test_rpc_records_search_and_read_not_render_or_ping(index, tmp_path):
    recorder = BackendRecorder(tmp_path, "rpc")
    rpc = RpcHandler(IndexBackend(index), recorder=recorder)
    lines = [
        {"id": 1, "type": "ping"},
        {"id": 2, "type": "search", "query": "gamma", "k": 1000, "conversation": "q7"},
        {"id": 3, "type": "render_search_results", "docids": ["1", "2"], "conversation": "q7"},
        {"id": 4, "type": "read_document", "docid": "2", "conversation": "q7"},
        {"id": 5, "type": "search", "query": "  ", "conversation": "q7"},  # refused
        {"id": 6, "type": "read_document", "docid": "5"},  # another conversation
    ]
    for line in lines:
        rpc.handle_line(json.dumps(line).encode())
    recorder.close()
    records = read_runs(tmp_path)
    first = records["1"]
    assert first["metadata"]["transport"] == "rpc"
    assert first["tool_call_counts"] == {"search": 2, "read_document": 1}
    assert first["surfaced_docids"] == ranking(index, "gamma")
    assert first["opened_docids"] == ["2"]
    assert first["result"][0]["arguments"] == {"query": "gamma", "k": 1000}
    assert first["stats"]["pi_search_failures"] == 1
    assert records["2"]["opened_docids"] == ["5"] and records["2"]["surfaced_docids"] == []


def test_idle_reset_starts_a_new_record(index, tmp_path):
    now = [0.0]
    recorder = BackendRecorder(tmp_path, "http", idle_reset=30)
    recorder.conversations._clock = lambda: now[0]
    recorder.read("", {"docid": "1"}, True)
    now[0] = 40.0
    recorder.read("", {"docid": "2"}, True)  # ends the first conversation: its record
    assert read_runs(tmp_path)["1"]["opened_docids"] == ["1"]
    recorder.close()
    assert read_runs(tmp_path)["2"]["opened_docids"] == ["2"]


def test_serve_http_record_is_written_on_sigterm(index, tmp_path):
    path = tmp_path / "idx"
    index.save(path)
    record = tmp_path / "runs"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "rserini", "serve", "http", "--index", str(path)),
            *("--port", "0", "-q", "--record", str(record)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        port = json.loads(proc.stdout.readline())["port"]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        conn.request("POST", "/search", b'{"query":"gamma","limit":1000}')
        assert conn.getresponse().read()
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert read_runs(record)["1"]["surfaced_docids"] == ranking(index, "gamma")
