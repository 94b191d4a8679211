"""``rserini serve mcp``: the SDK's own stdio client lists and calls every tool of a server
started on an index made by ``rserini index``; errors carry the contract's text; stdout
carries only protocol; without the SDK the command exits 1 naming the install command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import rserini

mcp = pytest.importorskip("mcp", reason="the MCP SDK (extra 'agent') is not installed")

# Children import rserini from where this process does: the installed wheel in CI, the
# source tree (with its built extension) in development.
IMPORT_ROOT = str(Path(rserini.__file__).resolve().parent.parent)
ENV = {**os.environ, "PYTHONPATH": IMPORT_ROOT}
DOCS = [
    {"id": "1", "contents": "Routers forward packets between networks."},
    {"id": "2", "contents": "Switches direct frames.\nRouters route packets too."},
    {"id": "3", "title": "Plants", "contents": "Photosynthesis converts sunlight."},
]


def python(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """``python ARGS`` with this checkout's package, a minute at most."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=False,
        **kwargs,
    )


def rserini_cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return python("-m", "rserini", *args, **kwargs)


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("mcp")
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    built = rserini_cli("index", "--input", str(corpus), "--index", str(folder / "idx"), "-q")
    assert built.returncode == 0, built.stderr
    return folder / "idx"


def test_the_sdk_client_lists_and_calls_every_tool(index_dir, tmp_path):
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rserini", "serve", "mcp", "--index", str(index_dir), "--find-in-document"],
        env={"PYTHONPATH": IMPORT_ROOT},
    )
    seen: dict[str, object] = {}

    async def scenario() -> None:
        with anyio.fail_after(60), (tmp_path / "stderr.log").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                listed = await client.list_tools()
                seen["tools"] = [(t.name, t.input_schema["required"]) for t in listed.tools]
                calls = {
                    "search": {"reason": "r", "query": "routers packets"},
                    "read_search_results": {"reason": "r", "search_id": "s1", "offset": 2},
                    "read_document": {"reason": "r", "docid": "2", "limit": 1},
                    "find_in_document": {"reason": "r", "docid": "2", "query": "route"},
                    "missing_doc": {"reason": "r", "docid": "404"},
                    "no_reason": {"query": "x"},
                    "unknown_id": {"reason": "r", "search_id": "s7"},
                }
                for key, args in calls.items():
                    name = {
                        "missing_doc": "read_document",
                        "no_reason": "search",
                        "unknown_id": "read_search_results",
                    }.get(key, key)
                    result = await client.call_tool(name, args)
                    seen[key] = (result.is_error, result.content[0].text, result.meta)

    anyio.run(scenario)
    assert seen["tools"] == [
        ("search", ["reason", "query"]),
        ("read_search_results", ["reason", "search_id"]),
        ("read_document", ["reason", "docid"]),
        ("find_in_document", ["reason", "docid", "query"]),
    ]
    is_error, text, meta = seen["search"]
    assert not is_error
    assert text.splitlines()[0] == "Showing ranks 1-2 of 2 cached hits for search_id=s1"
    assert meta["rserini/details"]["retrievedDocids"] == ["1", "2"]
    assert seen["read_search_results"][1].splitlines()[0] == (
        "Showing ranks 2-2 of 2 cached hits for search_id=s1"
    )
    assert seen["read_document"][:2] == (
        False,
        "[docid=2 lines 1-1 of 2]\n\nSwitches direct frames.\n\n"
        '[Document truncated. Continue with read_document({"docid":"2","offset":2,"limit":1}).]',
    )
    assert "2: Routers route packets too." in seen["find_in_document"][1]
    assert seen["missing_doc"][:2] == (
        True,
        "read_document failed: docid '404' was not found. Choose a docid returned by "
        "search(...) or read_search_results(...).",
    )
    assert seen["no_reason"][:2] == (
        True,
        'Validation failed for tool "search":\n'
        "  - reason: must have required property 'reason'\n\n"
        'Received arguments:\n{\n  "query": "x"\n}',
    )
    assert seen["unknown_id"][:2] == (
        True,
        "Invalid read_search_results arguments: search_id 's7' is unknown. Call search(...) "
        "first to create a result set.",
    )


def test_stdout_carries_only_protocol(index_dir):
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"reason": "r", "query": "sunlight"}},
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "rserini", "serve", "mcp", "--index", str(index_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    # A hang fails the test instead of blocking it.
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests) + "not json\n")
        proc.stdin.flush()
        replies = []
        while not any(r.get("id") == 3 for r in replies):
            line = proc.stdout.readline()
            assert line, "the server closed stdout before answering"
            replies.append(json.loads(line))  # every line is a JSON-RPC message
        rest, stderr = proc.communicate()  # closes stdin: the server ends
    finally:
        watchdog.cancel()
        proc.kill()
    replies.extend(json.loads(line) for line in rest.splitlines())
    assert proc.returncode == 0, stderr
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    by_id = {r.get("id"): r for r in replies}
    assert [t["name"] for t in by_id[2]["result"]["tools"]] == [
        "search",
        "read_search_results",
        "read_document",
    ]
    call = by_id[3]["result"]
    assert call["isError"] is False
    assert "   Title: Plants" in call["content"][0]["text"]
    assert "serving" in stderr  # the log went to stderr


def test_serve_mcp_without_the_sdk_exits_1_naming_the_extra(index_dir):
    code = (
        "import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None\n"
        "from rserini.cli import main\n"
        f"sys.exit(main(['serve', 'mcp', '--index', {str(index_dir)!r}]))"
    )
    done = python("-c", code)
    assert done.returncode == 1
    assert 'pip install "rserini[agent]"' in done.stderr
    assert done.stdout == ""


def test_import_rserini_does_not_import_mcp():
    code = (
        "import sys, rserini, rserini.agent, rserini.cli\n"
        "rserini.cli.build_parser()\n"
        "assert not any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith('mcp'))"
    )
    done = python("-c", code)
    assert done.returncode == 0, done.stderr


def test_an_index_without_documents_is_refused_at_startup(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps(DOCS[0]) + "\n", encoding="utf-8")
    built = rserini_cli(
        "index", "--input", str(corpus), "--index", str(tmp_path / "i"), "--no-store", "-q"
    )
    assert built.returncode == 0, built.stderr
    done = rserini_cli("serve", "mcp", "--index", str(tmp_path / "i"), input="")
    assert done.returncode == 1
    assert "no-store" in done.stderr
    assert done.stdout == ""


def test_conversations_on_one_server_have_their_own_ids_caches_and_budgets(index_dir, tmp_path):
    """With a 1 s budget, the first conversation searches, spends its budget and is
    blocked; new_session starts a second one whose ids restart at s1, whose cache does not
    hold the first one's rankings and whose budget is whole. --record writes both
    conversations' records, which agent-eval reads."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from rserini.agent.runs.records import read_runs
    from rserini.agent.tools.messages import BLOCK_REASON

    record = tmp_path / "record"
    serve = ["serve", "mcp", "--index", str(index_dir), "-q", "--timeout-seconds", "1"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rserini", *serve, "--new-session-tool", "--record", str(record)],
        env={"PYTHONPATH": IMPORT_ROOT},
    )
    seen: dict[str, object] = {}

    async def scenario() -> None:
        with anyio.fail_after(60), (tmp_path / "stderr.log").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                listed = await client.list_tools()
                seen["tools"] = [t.name for t in listed.tools]
                # The budget starts at the first call, not at launch.
                await anyio.sleep(1.2)
                first = await client.call_tool("search", {"reason": "r", "query": "routers"})
                seen["first"] = first.content[0].text.splitlines()[0]
                await anyio.sleep(1.0)
                blocked = await client.call_tool("search", {"reason": "r", "query": "plants"})
                seen["blocked"] = (blocked.is_error, blocked.content[0].text)
                fresh = await client.call_tool("new_session", {"question": "what is plants"})
                seen["fresh"] = fresh.content[0].text
                second = await client.call_tool(
                    "search", {"reason": "r", "query": "photosynthesis"}
                )
                seen["second"] = second.content[0].text.splitlines()[0]
                browse = await client.call_tool(
                    "read_search_results", {"reason": "r", "search_id": "s1", "offset": 1}
                )
                seen["browse"] = browse.content[0].text.splitlines()[0]

    anyio.run(scenario)
    assert seen["tools"] == ["search", "read_search_results", "read_document", "new_session"]
    assert seen["first"] == "Showing ranks 1-2 of 2 cached hits for search_id=s1"
    assert seen["blocked"] == (True, BLOCK_REASON)
    assert seen["fresh"].startswith("Started session 2:")
    assert seen["second"] == "Showing ranks 1-1 of 1 cached hits for search_id=s1"
    # s1 is this conversation's ranking (one hit), not the first one's (two).
    assert seen["browse"] == seen["second"]
    records = read_runs(record)
    assert sorted(records) == ["1", "2"]
    assert records["1"]["status"] == "timeout" and records["1"]["surfaced_docids"] == ["1", "2"]
    assert records["1"]["tool_call_counts"] == {"search": 2}
    assert records["2"]["metadata"]["query"] == "what is plants"
    assert records["2"]["surfaced_docids"] == ["3"]
    assert (record / "raw-events" / "2.jsonl").read_text().count("\n") == 2
