"""Runs a Python script in a child process group, so that a hang fails the test.

On a timeout the whole group is killed: a forked grandchild stuck on a dead thread
pool must not outlive the test.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import rserini

PYTHONPATH = os.pathsep.join(
    [str(Path(rserini.__file__).parent.parent), os.environ.get("PYTHONPATH", "")]
)


def run_python(
    script: Path | str, *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Runs ``python script args...``; returns its outcome, or fails the test on a timeout."""
    command = [sys.executable, *(["-c", script] if isinstance(script, str) else [str(script)])]
    process = subprocess.Popen(
        [*command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=dict(os.environ, PYTHONPATH=PYTHONPATH),
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(f"timed out after {timeout}s (hung):\n{out}\n{err}") from None
    finally:
        # Grandchildren left behind by a failed case.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
