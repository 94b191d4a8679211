"""Spill files never write through a planted link (N5).

With ``--spill-dir DIR`` the names are predictable (``read/1-wide-lines-1-1.txt``): a
link planted there once made the session overwrite the link's target with the document.
Files are now created exclusively (``O_EXCL | O_NOFOLLOW``); a taken name gets an
unpredictable one, and a linked ``read/`` folder is refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rserini
from rserini.agent import SearchSession
from rserini.agent.tools.spill import SpillDir, read_spill_name

WIDE = "word " * 40_000  # far past the tool's output limit: it spills


@pytest.fixture
def index() -> rserini.Index:
    return rserini.Index.build([("wide", WIDE), ("small", "a small one")], progress=False)


def test_a_link_at_the_predictable_name_is_not_followed(
    tmp_path: Path, index: rserini.Index
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("PRECIOUS")
    spill = tmp_path / "spill"
    (spill / "read").mkdir(parents=True)
    for seq in range(1, 4):  # every name the first reads could take
        (spill / "read" / read_spill_name(seq, "wide", 1, 1)).symlink_to(victim)
    with SearchSession(index, spill_dir=spill) as session:
        result = session.read_document("r", "wide")
    assert victim.read_text() == "PRECIOUS"
    written = [p for p in (spill / "read").iterdir() if not p.is_symlink()]
    assert len(written) == 1 and written[0].stat().st_size > 100_000
    assert result.details["fullOutputPath"] == str(written[0])


def test_a_linked_kind_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    spill = tmp_path / "spill"
    spill.mkdir()
    (spill / "read").symlink_to(outside)
    with pytest.raises(OSError):
        SpillDir(spill).write("read", "1-x-lines-1-1.txt", "text")
    assert list(outside.iterdir()) == []


def test_spill_files_are_private(tmp_path: Path) -> None:
    path = Path(SpillDir(tmp_path / "s").write("read", "1-x-lines-1-1.txt", "text"))
    assert path.stat().st_mode & 0o077 == 0
