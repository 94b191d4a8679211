"""benches/compare.py --smoke: the comparison driver runs and reports rserini (no timings
are asserted)."""

from __future__ import annotations

import subprocess
import sys

from support import REPO, collection


def test_compare_smoke_reports_rserini():
    adi = collection("adi")
    script = REPO / "benches" / "compare.py"
    out = subprocess.run(
        [sys.executable, str(script), "--smoke", "--engines", "rserini", str(adi)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| rserini |")]
    assert len(rows) == 1, out.stdout
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    header = [cell.strip() for cell in out.stdout.splitlines()[0].strip("|").split("|")]
    qps = float(cells[header.index("QPS k=10, 1 thread")].replace(",", ""))
    assert qps > 0
    ndcg = float(cells[header.index("nDCG@10")])
    assert 0 < ndcg <= 1
