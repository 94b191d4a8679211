"""`make help` lists every target of the Makefile."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from support import REPO


def test_make_help_lists_every_target() -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][a-z0-9-]*):", makefile, re.MULTILINE))
    phony = set(re.search(r"^\.PHONY:(.*)$", makefile, re.MULTILINE).group(1).split())
    out = subprocess.run(
        ["make", "-s", "help"], cwd=REPO, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    listed = {line.split()[0] for line in out.stdout.splitlines() if line.strip()}
    assert targets, "no target found in the Makefile"
    assert listed == targets
    assert phony == targets
