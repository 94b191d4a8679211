"""Conformance of the agent tools with pi-search's contract: exact texts of pages, reads,
continuations, truncation and every error; the cache; the time budget; the events."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini.agent import SearchSession, TimeBudget, ToolOptions
from rserini.agent.tools.messages import BLOCK_REASON, STEER

NO_SNIPPET = (
    "   Excerpt: (No snippet available from this backend. "
    "Use read_document(docid) to inspect the document.)"
)
BROWSE_HINT = "Use read_document(docid) to inspect a specific document in paginated chunks."


def score_text(score: float) -> str:
    """Reference: Java's round to 3 decimals (half up), printed with 4."""
    three = (Decimal(score) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP) / 1000
    return f"{three:.4f}"


def corpus() -> list[dict[str, str]]:
    docs = [
        {
            "id": f"doc{i:03d}",
            "contents": f"alpha {'filler ' * (i % 17)}entry {i} " + ("beta " if i % 3 == 0 else ""),
        }
        for i in range(120)
    ]
    docs.append(
        {
            "id": "titled",
            "title": "Graphene Sheets",
            "contents": "Intro line.\nGraphene conducts heat.\nLast line\n",
        }
    )
    docs.append({"id": "lines", "contents": "\n".join(f"line {n}" for n in range(1, 451))})
    return docs


@pytest.fixture(scope="module")
def index() -> rserini.Index:
    return rserini.Index.build(corpus(), progress=False)


@pytest.fixture
def session(index, tmp_path):
    with SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path) as s:
        yield s


# --- search and browse -------------------------------------------------------------------


def expected_page(index, query, start, end, total, sid, limit, excerpts):
    pairs = index.search_pairs(query, k=1000)
    lines = [
        f"Showing ranks {start}-{end} of {total} cached hits for search_id={sid}",
        f"Plain query: {json.dumps(query)}",
        "",
    ]
    for rank in range(start, end + 1):
        docid, score = pairs[rank - 1]
        lines.append(f"{rank}. docid={docid} score={score_text(score)}")
        lines.extend(excerpts(docid))
        lines.append("")
    if end < total:
        lines.append(
            f'Use read_search_results({{"search_id":"{sid}","offset":{end + 1},"limit":{limit}}})'
            " to inspect more hits from this same ranking."
        )
    lines.append(BROWSE_HINT)
    return "\n".join(lines)


def test_search_shows_ranks_1_to_5_with_excerpts_and_hints(index, session):
    result = session.search("find alpha", "  alpha beta ")
    assert not result.is_error

    def excerpts(docid):
        contents = index.doc(docid)["contents"]
        return [f"   Excerpt: {contents.strip()}", "   Excerpt preview truncated."]

    assert result.text == expected_page(index, "alpha beta", 1, 5, 120, "s1", 5, excerpts)
    d = result.details
    pairs = index.search_pairs("alpha beta", k=1000)
    assert d["searchId"] == "s1"
    assert d["rawQuery"] == "alpha beta"
    assert (d["queryMode"], d["k"], d["totalCached"]) == ("plain", 1000, 120)
    assert (d["returnedRankStart"], d["returnedRankEnd"], d["nextOffset"]) == (1, 5, 6)
    assert d["retrievedDocids"] == [p[0] for p in pairs]
    assert d["previewedDocids"] == [p[0] for p in pairs[:5]]
    assert set(d["timingMs"]) == {"searchRpcMs"}
    assert "truncation" not in d and "fullOutputPath" not in d


def test_browse_defaults_to_offset_6_limit_10_and_has_no_excerpts_past_rank_50(index, session):
    session.search("r", "alpha")
    page = session.read_search_results("r", "s1")
    pairs = index.search_pairs("alpha", k=1000)
    assert page.text.splitlines()[0] == "Showing ranks 6-15 of 120 cached hits for search_id=s1"
    assert page.details["retrievedDocids"] == [p[0] for p in pairs[5:15]]
    assert page.details["previewedDocids"] == page.details["retrievedDocids"]
    assert (page.details["offset"], page.details["limit"], page.details["nextOffset"]) == (
        6,
        10,
        16,
    )
    assert "timingMs" not in page.details
    deep = session.read_search_results("r", "s1", offset=49, limit=4)
    expected = expected_page(
        index,
        "alpha",
        49,
        52,
        120,
        "s1",
        4,
        lambda d: (
            [f"   Excerpt: {index.doc(d)['contents'].strip()}", "   Excerpt preview truncated."]
            if pairs.index((d, dict(pairs)[d])) < 50
            else [NO_SNIPPET]
        ),
    )
    assert deep.text == expected


def test_title_line_and_snippet_window(index, session):
    result = session.search("r", "graphene heat")
    lines = result.text.splitlines()
    assert lines[3].startswith("1. docid=titled score=")
    assert lines[4] == "   Title: Graphene Sheets"
    # The excerpt is the trimmed contents (newlines kept), marked truncated against the raw text.
    assert lines[5:8] == ["   Excerpt: Intro line.", "Graphene conducts heat.", "Last line"]
    assert lines[8] == "   Excerpt preview truncated."
    assert "read_search_results" not in result.text  # one hit: no next page


def test_last_page_has_no_browse_hint_and_past_the_end_is_three_lines(session):
    session.search("r", "graphene")
    past = session.read_search_results("r", "s1", offset=2)
    assert past.text == (
        "No cached hits remain for search_id=s1.\n"
        'Plain query: "graphene"\n'
        "Cached hits in this ranking: 1"
    )
    assert (past.details["returnedRankStart"], past.details["returnedRankEnd"]) == (0, 0)
    assert past.details["retrievedDocids"] == []
    assert "nextOffset" not in past.details


def test_a_query_without_hits_is_cached_empty(session):
    result = session.search("r", "zzzunknown the")
    assert result.text == (
        "No cached hits remain for search_id=s1.\n"
        'Plain query: "zzzunknown the"\n'
        "Cached hits in this ranking: 0"
    )
    assert result.details["retrievedDocids"] == []
    assert session.search("r", "\u2003alpha\t").details["searchId"] == "s2"


def test_query_is_quoted_as_a_json_string(session):
    result = session.search("r", 'alpha "quoted"\\\u00e9\n')
    assert result.text.splitlines()[1] == 'Plain query: "alpha \\"quoted\\"\\\\\u00e9"'


@pytest.mark.parametrize("query", ["", "   ", "\n\t", "\ufeff"])
def test_an_empty_query_is_the_invalid_arguments_error(session, query):
    result = session.search("r", query)
    assert result.is_error
    assert result.text == "Invalid search arguments: query must be a non-empty string."
    assert result.details == {}
    # A failed search takes no search_id.
    assert session.search("r", "alpha").details["searchId"] == "s1"


@pytest.mark.parametrize(
    ("offset", "limit", "start", "end", "hint_limit"),
    [
        (0, 3, 1, 3, 3),
        (-7, 2, 1, 2, 2),
        (2.7, 2.2, 2, 3, 2),
        (6, -1, 6, 6, 1),
        ("7", "2", 7, 8, 2),  # the host coerces numeric strings
        (None, None, 6, 15, 10),
        (True, False, 1, 1, 1),  # booleans coerce to 1 and 0
    ],
)
def test_offset_and_limit_are_floored_and_clamped_to_one(
    session, offset, limit, start, end, hint_limit
):
    session.search("r", "alpha")
    args = {"reason": "r", "search_id": "s1"}
    if offset is not None:
        args["offset"] = offset
    if limit is not None:
        args["limit"] = limit
    page = session.call("read_search_results", args)
    assert not page.is_error, page.text
    assert page.text.splitlines()[0].startswith(f"Showing ranks {start}-{end} of 120 ")
    assert f'"offset":{end + 1},"limit":{hint_limit}}})' in page.text


def test_there_is_no_cap_on_limit(session):
    session.search("r", "alpha")
    page = session.read_search_results("r", "s1", offset=1, limit=1e300)
    assert page.details["returnedRankEnd"] == 120
    assert page.details["limit"] == int(1e300)
    read = session.read_document("r", "lines", offset=440, limit=10**30)
    assert read.text.splitlines()[0] == "[docid=lines lines 440-450 of 450]"
    # A number past the double range is infinite in JavaScript: the default applies.
    past = session.call("read_document", {"reason": "r", "docid": "lines", "limit": 10**400})
    assert past.details["limit"] == 200
    # Past 2**53 integers are doubles, as in JavaScript.
    page = session.read_search_results("r", "s1", offset=2, limit=2**53 + 1)
    assert page.details["limit"] == 2**53


@settings(max_examples=40, deadline=None)
@given(
    pages=st.lists(st.tuples(st.integers(1, 130), st.integers(1, 40)), min_size=1, max_size=6),
)
def test_pages_follow_the_next_offset_rules(index, tmp_path_factory, pages):
    session = SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path_factory.mktemp("s"))
    ranking = session.search("r", "alpha entry").details["retrievedDocids"]
    total = len(ranking)
    for offset, limit in pages:
        d = session.read_search_results("r", "s1", offset=offset, limit=limit).details
        start = min(offset - 1, total)
        end = min(start + limit, total)
        assert d["retrievedDocids"] == ranking[start:end]
        assert (d["returnedRankStart"], d["returnedRankEnd"]) == (
            (start + 1, end) if end > start else (0, 0)
        )
        assert d.get("nextOffset") == (end + 1 if end < total else None)


@settings(max_examples=40, deadline=None)
@given(limit=st.integers(1, 60))
def test_pages_tile_the_ranking(index, tmp_path_factory, limit):
    session = SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path_factory.mktemp("s"))
    ranking = session.search("r", "alpha beta").details["retrievedDocids"]
    seen = list(ranking[:5])
    offset: int | None = 6
    pages = 0
    while offset is not None:
        d = session.read_search_results("r", "s1", offset=offset, limit=limit).details
        assert d["returnedRankStart"] == offset
        seen.extend(d["retrievedDocids"])
        offset = d.get("nextOffset")
        pages += 1
    assert seen == ranking
    assert pages == -(-(len(ranking) - 5) // limit)


# --- the cache ---------------------------------------------------------------------------


def unknown(sid):
    return (
        f"Invalid read_search_results arguments: search_id '{sid}' is unknown. "
        "Call search(...) first to create a result set."
    )


def test_unknown_search_id_error(session):
    result = session.read_search_results("r", "s9")
    assert (result.is_error, result.text, result.details) == (True, unknown("s9"), {})


def test_fifo_eviction_at_search_33_reads_as_unknown(session):
    for i in range(32):
        session.search("r", f"alpha {i}")
        session.read_search_results("r", "s1")  # reading does not keep s1
    assert not session.read_search_results("r", "s1").is_error
    assert session.search("r", "alpha 33").details["searchId"] == "s33"
    assert session.read_search_results("r", "s1").text == unknown("s1")
    assert not session.read_search_results("r", "s2").is_error
    assert not session.read_search_results("r", "s33").is_error


def test_lru_keeps_read_entries_and_names_evictions(index, tmp_path):
    session = SearchSession(
        index, budget=TimeBudget(0), spill_dir=tmp_path, options=ToolOptions(cache_policy="lru")
    )
    for i in range(33):
        session.search("r", f"alpha {i}")
        if i < 32:
            session.read_search_results("r", "s1")
    assert not session.read_search_results("r", "s1").is_error
    evicted = session.read_search_results("r", "s2")
    assert evicted.is_error
    assert evicted.text == (
        "Invalid read_search_results arguments: search_id 's2' was evicted from the cache, "
        "which keeps the 32 most recently used result sets. Call search(...) again to "
        "recreate it."
    )
    assert session.read_search_results("r", "s99").text == unknown("s99")


# --- read_document -----------------------------------------------------------------------


def test_read_document_chunks_with_continuation(session):
    first = session.read_document("r", "lines")
    body = "\n".join(f"line {n}" for n in range(1, 201))
    assert first.text == (
        "[docid=lines lines 1-200 of 450]\n\n"
        f"{body}\n\n"
        "[Document truncated. Continue with "
        'read_document({"docid":"lines","offset":201,"limit":200}).]'
    )
    d = first.details
    assert (d["docid"], d["offset"], d["limit"], d["totalLines"]) == ("lines", 1, 200, 450)
    assert (d["returnedLineStart"], d["returnedLineEnd"], d["truncated"], d["nextOffset"]) == (
        1,
        200,
        True,
        201,
    )
    assert set(d["timingMs"]) == {"readDocumentRpcMs"}
    last = session.read_document("r", "lines", offset=401, limit=100)
    assert last.text == "[docid=lines lines 401-450 of 450]\n\n" + "\n".join(
        f"line {n}" for n in range(401, 451)
    )
    assert (last.details["truncated"], "nextOffset" in last.details) == (False, False)


def test_read_document_keeps_the_trailing_empty_line_and_reads_past_the_end(session):
    whole = session.read_document("r", "titled", limit=10)
    assert whole.text == (
        "[docid=titled lines 1-4 of 4]\n\nIntro line.\nGraphene conducts heat.\nLast line"
    )
    past = session.read_document("r", "titled", offset=9)
    assert past.text == "[docid=titled lines 0-0 of 4]"
    assert (past.details["returnedLineStart"], past.details["returnedLineEnd"]) == (0, 0)


def test_read_document_of_an_unknown_or_blank_docid(session):
    missing = session.read_document("r", "nope")
    assert missing.is_error
    assert missing.text == (
        "read_document failed: docid 'nope' was not found. "
        "Choose a docid returned by search(...) or read_search_results(...)."
    )
    blank = session.read_document("r", "  ")
    assert (blank.is_error, blank.text) == (True, "read_document requires a non-empty string docid")


def test_beir_documents_read_their_indexed_text(tmp_path):
    index = rserini.Index.build(
        [{"_id": "b1", "title": "Cells", "text": "Mitochondria make ATP."}], progress=False
    )
    session = SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path)
    assert session.read_document("r", "b1").text == (
        "[docid=b1 lines 1-1 of 1]\n\nCells Mitochondria make ATP."
    )
    page = session.search("r", "atp")
    assert "   Title: Cells" in page.text.splitlines()


# --- output truncation and spill files ---------------------------------------------------


def big_index():
    return rserini.Index.build(
        [
            {"id": "many", "contents": "\n".join(f"row {n}" for n in range(1, 2601))},
            {"id": "wide", "contents": "\n".join("w" * 999 for _ in range(80))},
        ],
        progress=False,
    )


def test_a_read_cut_at_2000_lines_spills_the_full_text(tmp_path):
    session = SearchSession(big_index(), budget=TimeBudget(0), spill_dir=tmp_path)
    result = session.read_document("r", "many", limit=2500)
    full = (
        "[docid=many lines 1-2500 of 2600]\n\n"
        + "\n".join(f"row {n}" for n in range(1, 2501))
        + (
            '\n\n[Document truncated. Continue with read_document({"docid":"many","offset":2501,'
            '"limit":2500}).]'
        )
    )
    path = tmp_path / "read" / "1-many-lines-1-2500.txt"
    kept = "\n".join(full.split("\n")[:2000])
    total_bytes = len(full.encode())
    kept_bytes = len(kept.encode())
    assert result.text == (
        f"{kept}\n[Output truncated: showing 2000 of 2504 lines "
        f"({kept_bytes / 1024:.1f}KB of {total_bytes / 1024:.1f}KB). 504 lines "
        f"({(total_bytes - kept_bytes) / 1024:.1f}KB) omitted. Full output saved to: {path}]\n"
        'Continue with read_document({"docid":"many","offset":2501,"limit":2500}) to keep '
        "reading this document."
    )
    assert path.read_text(encoding="utf-8") == full
    t = result.details["outputTruncation"]
    assert (t["truncatedBy"], t["outputLines"], t["totalLines"], t["maxBytes"]) == (
        "lines",
        2000,
        2504,
        51200,
    )
    assert result.details["fullOutputPath"] == str(path)


def test_a_read_cut_at_50_kilobytes_keeps_whole_lines(tmp_path):
    session = SearchSession(big_index(), budget=TimeBudget(0), spill_dir=tmp_path)
    result = session.read_document("r", "wide")
    header = "[docid=wide lines 1-80 of 80]"
    # 2 header lines (31 bytes) + 51 lines of 1000 bytes fit in 51,200; the 52nd does not.
    kept_lines = result.text.split("\n[Output truncated:")[0].split("\n")
    assert kept_lines[:2] == [header, ""]
    assert len(kept_lines) == 2 + 51
    t = result.details["outputTruncation"]
    assert (t["truncatedBy"], t["outputLines"], t["totalLines"]) == ("bytes", 53, 82)
    assert result.text.endswith(
        "Use a smaller limit if you want a narrower chunk from this document."
    )


def test_a_line_over_the_limit_is_cut_whole_and_the_spill_name_is_sanitized(tmp_path):
    index = rserini.Index.build([{"id": "huge/line", "contents": "x" * 60000}], progress=False)
    session = SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path)
    session.search("r", "xx")  # takes sequence number 1
    result = session.read_document("r", "huge/line")
    # Header, blank line, then the 60,000-byte line: the cut keeps the first two.
    assert result.text.startswith("[docid=huge/line lines 1-1 of 1]\n\n[Output truncated:")
    assert (tmp_path / "read" / "2-huge_line-lines-1-1.txt").exists()


def test_a_browse_past_2000_lines_spills_the_page_json(index, tmp_path):
    session = SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path)
    session.search("r", "alpha")
    result = session.read_search_results(
        "r", "s1", offset=1, limit=1000
    )  # 120 hits: under 2000 lines and 50 KB, so nothing is cut
    assert "truncation" not in result.details
    many = SearchSession(
        rserini.Index.build(
            [{"id": f"h{i:04d}", "contents": "gamma\n" * 3} for i in range(700)], progress=False
        ),
        budget=TimeBudget(0),
        spill_dir=tmp_path / "b",
        options=ToolOptions(preview_depth=None),
    )
    many.search("r", "gamma")
    cut = many.read_search_results("r", "s1", offset=1, limit=700)
    t = cut.details["truncation"]
    assert t["truncated"] and t["outputLines"] <= 2000
    lines = cut.text.split("\n")
    assert lines[-1] == "Use read_document(docid) to inspect a document in paginated chunks."
    assert lines[-2].startswith(f"[Output truncated: showing {t['outputLines']} of ")
    spilled = json.loads(Path(cut.details["fullOutputPath"]).read_text(encoding="utf-8"))
    assert Path(cut.details["fullOutputPath"]).name == "2-s1-ranks-1-700.json"
    assert list(spilled) == [
        "searchId",
        "rawQuery",
        "queryMode",
        "totalCached",
        "offset",
        "limit",
        "returnedRankStart",
        "returnedRankEnd",
        "results",
    ]
    assert [r["rank"] for r in spilled["results"]] == list(range(1, 701))
    assert list(spilled["results"][0]) == [
        "docid",
        "score",
        "title",
        "snippet",
        "snippetTruncated",
        "rank",
    ]


def test_the_temporary_spill_folder_is_removed_on_close():
    session = SearchSession(big_index(), budget=TimeBudget(0))
    result = session.read_document("r", "many", limit=2500)
    folder = Path(result.details["fullOutputPath"]).parent.parent
    assert folder.is_dir()
    session.close()
    assert not folder.exists()


# --- schema validation -------------------------------------------------------------------


def test_missing_reason_and_wrong_types_get_the_host_validation_text(session):
    result = session.call("search", {"query": ["a"]})
    assert result.is_error
    assert result.text == (
        'Validation failed for tool "search":\n'
        "  - reason: must have required property 'reason'\n"
        "  - query: must be string\n"
        "\n"
        "Received arguments:\n"
        '{\n  "query": [\n    "a"\n  ]\n}'
    )
    assert session.call("read_document", "docid").text == (
        'Validation failed for tool "read_document":\n  - root: must be object\n\n'
        'Received arguments:\n"docid"'
    )
    bad_number = session.call(
        "read_document", {"reason": "r", "docid": "lines", "offset": "six", "limit": {}}
    )
    assert bad_number.text.splitlines()[1:3] == [
        "  - offset: must be number",
        "  - limit: must be number",
    ]


def test_scalars_are_coerced_as_the_host_coerces_them(session):
    assert session.call("search", {"reason": None, "query": 42}).details["rawQuery"] == "42"
    page = session.call("read_search_results", {"reason": 1, "search_id": "s1", "offset": " 2 "})
    assert page.details["offset"] == 2


def test_unknown_tool(session):
    result = session.call("grep", {"reason": "r"})
    assert (result.is_error, result.text) == (True, "Tool grep not found")
    assert session.call("find_in_document", {}).text == "Tool find_in_document not found"


# --- time budget -------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_tools_are_blocked_past_the_threshold_and_the_steer_is_handed_over_once(index, tmp_path):
    clock = FakeClock()
    budget = TimeBudget(10, clock=clock)
    session = SearchSession(index, budget=budget, spill_dir=tmp_path)
    clock.now += 6.999
    assert session.take_steer() is None
    assert not session.search("r", "alpha").is_error
    clock.now += 0.001
    assert session.take_steer() == STEER
    assert session.take_steer() is None
    for name, args in [
        ("search", {"reason": "r", "query": "alpha"}),
        ("read_search_results", {"reason": "r", "search_id": "s1"}),
        ("read_document", {"reason": "r", "docid": "lines"}),
    ]:
        result = session.call(name, args)
        assert (result.is_error, result.text, result.details) == (True, BLOCK_REASON, {})
    assert not session.timed_out
    clock.now += 3
    assert session.timed_out
    assert STEER.splitlines()[0] == "Time budget is nearly exhausted."
    assert len(STEER.splitlines()) == 7


def test_budget_from_the_environment_and_ratio(monkeypatch):
    monkeypatch.setenv("TIMEOUT_SECONDS", "300s")
    clock = FakeClock()
    budget = TimeBudget(clock=clock, ratio=0.5)
    assert budget.seconds == 300 and budget.threshold == 150
    for value in ["", "abc", "0", "-5", "Infinity"]:
        monkeypatch.setenv("TIMEOUT_SECONDS", value)
        assert not TimeBudget(clock=clock).enabled
    with pytest.raises(ValueError):
        TimeBudget(10, ratio=0)


def test_validation_comes_before_the_block(index, tmp_path):
    clock = FakeClock()
    session = SearchSession(index, budget=TimeBudget(1, clock=clock), spill_dir=tmp_path)
    clock.now += 5
    assert session.call("search", {}).text.startswith('Validation failed for tool "search"')


# --- events ------------------------------------------------------------------------------


def test_every_call_appends_one_pi_event(session):
    session.search("r", "alpha")
    session.call("read_document", {"reason": "r", "docid": "nope"}, call_id="toolu_1")
    first, second = session.events
    assert first["type"] == "tool_execution_end"
    assert first["toolCallId"] == "call_1"
    assert first["toolName"] == "search"
    assert first["args"] == {"reason": "r", "query": "alpha"}
    assert first["result"]["content"] == [
        {"type": "text", "text": first["result"]["content"][0]["text"]}
    ]
    assert first["result"]["details"]["searchId"] == "s1"
    assert first["isError"] is False
    assert (second["toolCallId"], second["isError"], second["result"]["details"]) == (
        "toolu_1",
        True,
        {},
    )
    json.dumps(session.events)  # JSON-serializable as they are


def test_sessions_share_one_index_across_threads(index, tmp_path):
    queries = [f"alpha entry {i}" for i in range(12)]

    def run(query):
        with SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path) as s:
            first = s.search("r", query)
            page = s.read_search_results("r", "s1", offset=3, limit=7)
            read = s.read_document("r", first.details["retrievedDocids"][0])
            return first.text, page.text, read.text

    expected = [run(q) for q in queries]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(run, queries)) == expected


def test_an_index_without_documents_is_refused(tmp_path):
    index = rserini.Index.build([("d1", "text")], store=False, progress=False)
    with pytest.raises(ValueError, match="no-store"):
        SearchSession(index)
