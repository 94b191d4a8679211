"""Pyserini's prebuilt Lucene indexes: the shipped table, the cache layout (offline), and
the download path against a local HTTP server (good and bad md5, interrupted transfers,
HTTP errors, no server)."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import json
import socket
import tarfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from rserini.lucene import prebuilt
from rserini.lucene.prebuilt import (
    ChecksumError,
    DownloadError,
    NotCachedError,
    PrebuiltIndex,
    UnknownPrebuiltIndexError,
    cache_home,
    fetch,
    prebuilt_index,
    prebuilt_index_path,
    prebuilt_indexes,
)
from support import http_server, run_with_pyserini

FILES = {"segments_1": b"segments file bytes", "_0.si": b"si", "_0_Lucene99_0.doc": b"x" * 5000}


def tarball(*folders: str) -> bytes:
    """A .tar.gz holding ``folders``, each with :data:`FILES`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for folder in folders:
            info = tarfile.TarInfo(folder)
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            archive.addfile(info)
            for name, data in FILES.items():
                info = tarfile.TarInfo(f"{folder}/{name}")
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


GOOD = tarball("lucene-inverted.test-index.20250101.abcdef")
TWO_FOLDERS = tarball("a", "b")


class Handler(http.server.BaseHTTPRequestHandler):
    """``/good``, ``/two-folders``: whole tarballs; ``/cut``: announces the whole length
    and closes the connection halfway; ``/cut-unannounced``: half, no length; anything
    else: 404."""

    def do_GET(self) -> None:
        bodies = {"/good": GOOD, "/two-folders": TWO_FOLDERS}
        if self.path in bodies:
            body = bodies[self.path]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path in ("/cut", "/cut-unannounced"):
            self.send_response(200)
            if self.path == "/cut":
                self.send_header("Content-Length", str(len(GOOD)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(GOOD[: len(GOOD) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.send_error(404, "Not Found")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The base URL of a local HTTP server serving :class:`Handler`."""
    with http_server(Handler) as url:
        yield url


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Pyserini cache, named by PYSERINI_CACHE."""
    folder = tmp_path / "pyserini-cache"
    monkeypatch.setenv("PYSERINI_CACHE", str(folder))
    return folder


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a URL fails the test."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access: {args}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


def served(
    urls: str | tuple[str, ...], md5: str | None = None, size: int | None = len(GOOD)
) -> PrebuiltIndex:
    """A prebuilt index at ``urls`` (the good tarball's md5 and size unless told)."""
    return PrebuiltIndex(
        name="test-index",
        tarball="lucene-inverted.test-index.20250101.abcdef.tar.gz",
        md5=md5 or hashlib.md5(GOOD).hexdigest(),
        urls=(urls,) if isinstance(urls, str) else urls,
        size=size,
        documents=3,
    )


def leftovers(cache: Path) -> list[str]:
    """Temporary files and folders left in the cache's indexes folder."""
    folder = cache / "indexes"
    return (
        sorted(p.name for p in folder.iterdir() if p.name.startswith("."))
        if folder.exists()
        else []
    )


# -- the table -----------------------------------------------------------------------------


def test_table_holds_pyserinis_lucene_indexes() -> None:
    table = prebuilt_indexes()
    assert len(table) == 224
    scifact = table["beir-v1.0.0-scifact.flat"]
    assert scifact.tarball == "lucene-inverted.beir-v1.0.0-scifact.flat.20221116.505594.tar.gz"
    assert scifact.md5 == "59777038fe0539e600658591e322ea57"
    assert scifact.documents == 5183
    assert scifact.folder_name == (
        "lucene-inverted.beir-v1.0.0-scifact.flat.20221116.505594.59777038fe0539e600658591e322ea57"
    )
    assert table["msmarco-v1-passage"].documents == 8841823
    alias = table["msmarco-passage"]
    assert (alias.tarball, alias.md5) == (
        table["msmarco-v1-passage"].tarball,
        table["msmarco-v1-passage"].md5,
    )
    # Pyserini caches under the table's file name, not the URL's, when they differ.
    assert table["cacm"].folder_name.startswith("lucene-index.cacm.")
    assert not table["cacm"].urls[0].endswith(table["cacm"].tarball)
    for index in table.values():
        assert len(index.md5) == 32 and int(index.md5, 16) >= 0
        assert index.urls and all(u.startswith("https://") for u in index.urls)
        assert ".tar.gz" in index.tarball and index.documents and index.documents > 0
    assert prebuilt.TABLE.stat().st_size < 40_000


def test_unknown_name_suggests_close_ones() -> None:
    with pytest.raises(
        UnknownPrebuiltIndexError, match=r"did you mean beir-v1\.0\.0-scifact\.flat"
    ):
        prebuilt_index("beir-v1.0.0-scifact-flat")
    with pytest.raises(ValueError, match=r"not one of Pyserini's 224 prebuilt Lucene indexes$"):
        prebuilt_index_path("zzzz", download=False)


@pytest.mark.parity
def test_table_is_the_installed_pyserinis(tmp_path: Path) -> None:
    out = tmp_path / "table.json.gz"
    run_with_pyserini(f"from rserini.parity.prebuilt_table import main\nmain([{str(out)!r}])", {})
    fresh = json.loads(gzip.decompress(out.read_bytes()))
    shipped = json.loads(gzip.decompress(prebuilt.TABLE.read_bytes()))
    assert fresh == shipped


# -- the cache, offline --------------------------------------------------------------------


def test_cache_home_is_pyserinis(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PYSERINI_CACHE", "/somewhere/else")
    assert cache_home() == Path("/somewhere/else")
    monkeypatch.setenv("PYSERINI_CACHE", "")
    assert cache_home() == tmp_path / ".cache" / "pyserini"
    monkeypatch.delenv("PYSERINI_CACHE")
    assert cache_home() == tmp_path / ".cache" / "pyserini"


@pytest.mark.usefixtures("no_network")
def test_a_cached_index_opens_without_network(cache: Path) -> None:
    index = prebuilt_index("beir-v1.0.0-scifact.flat")
    folder = cache / "indexes" / index.folder_name
    folder.mkdir(parents=True)
    (folder / "segments_1").write_bytes(b"")
    assert prebuilt_index_path("beir-v1.0.0-scifact.flat") == folder
    assert prebuilt_index_path("beir-v1.0.0-scifact.flat", download=False) == folder


@pytest.mark.usefixtures("no_network")
def test_not_cached_without_download_says_where_it_looked(cache: Path) -> None:
    with pytest.raises(NotCachedError) as caught:
        prebuilt_index_path("msmarco-v1-passage", download=False)
    assert isinstance(caught.value, FileNotFoundError)
    assert str(cache / "indexes" / prebuilt_index("msmarco-v1-passage").folder_name) in str(
        caught.value
    )


@pytest.mark.parity
def test_pyserini_finds_the_same_cached_folders(cache: Path) -> None:
    """Pyserini's own download_prebuilt_index returns, without downloading, the folders
    rserini resolves (a name whose file name differs from its URL's, and an alias)."""
    names = ["beir-v1.0.0-scifact.flat", "cacm", "msmarco-passage", "beir-v1.0.0-nfcorpus.flat"]
    for name in names:
        folder = prebuilt_index(name).cached_path()
        folder.mkdir(parents=True, exist_ok=True)
    script = (
        "import json\nfrom pyserini.util import download_prebuilt_index\n"
        f"print(json.dumps([download_prebuilt_index(n, verbose=False) for n in {names!r}]))"
    )
    output = run_with_pyserini(script, {"PYSERINI_CACHE": str(cache)}).strip().splitlines()[-1]
    assert [Path(p) for p in json.loads(output)] == [prebuilt_index_path(n) for n in names]


# -- downloading ---------------------------------------------------------------------------


def test_download_checks_unpacks_and_renames_into_the_cache(
    server: str, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = served(f"{server}/good")
    folder = fetch(index, progress=True)
    assert folder == cache / "indexes" / index.folder_name
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == FILES
    assert leftovers(cache) == []
    assert index.tarball in capsys.readouterr().err  # the progress bar


def test_download_then_open_offline_by_name(
    server: str, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = served(f"{server}/good")
    monkeypatch.setattr(prebuilt, "prebuilt_indexes", lambda: {"test-index": index})
    folder = prebuilt_index_path("test-index", progress=False)
    assert folder.is_dir()
    monkeypatch.setattr(urllib.request, "urlopen", None)  # any network use would fail
    assert prebuilt_index_path("test-index", download=False) == folder


def test_bad_md5_is_a_checksum_error_and_leaves_nothing(server: str, cache: Path) -> None:
    index = served(f"{server}/good", md5="0" * 32)
    with pytest.raises(ChecksumError, match=f"md5 {hashlib.md5(GOOD).hexdigest()}, expected 0+"):
        fetch(index, progress=False)
    assert not index.cached_path().exists()
    assert leftovers(cache) == []


@pytest.mark.parametrize(("path", "size"), [("/cut", len(GOOD)), ("/cut-unannounced", len(GOOD))])
def test_interrupted_transfer_is_a_download_error(
    server: str, cache: Path, path: str, size: int
) -> None:
    index = served(f"{server}{path}", size=size)
    with pytest.raises(DownloadError, match="interrupted") as caught:
        fetch(index, progress=False)
    assert not isinstance(caught.value, ChecksumError)
    assert not index.cached_path().exists()
    assert leftovers(cache) == []


def test_http_error_then_a_good_mirror(server: str, cache: Path) -> None:
    with pytest.raises(DownloadError, match="HTTP 404"):
        fetch(served(f"{server}/missing"), progress=False)
    folder = fetch(served((f"{server}/missing", f"{server}/good")), progress=False)
    assert folder.is_dir()
    assert leftovers(cache) == []


def test_no_server_is_a_clear_offline_error(cache: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(DownloadError, match=r"cannot connect .* offline"):
        fetch(served(f"http://127.0.0.1:{port}/good"), progress=False, timeout=5)
    assert leftovers(cache) == []


def test_a_tarball_without_one_folder_is_refused(server: str, cache: Path) -> None:
    md5 = hashlib.md5(TWO_FOLDERS).hexdigest()
    index = served(f"{server}/two-folders", md5=md5, size=len(TWO_FOLDERS))
    with pytest.raises(DownloadError, match="holds a, b, not one index folder"):
        fetch(index, progress=False)
    assert not index.cached_path().exists()
    assert leftovers(cache) == []
