"""The README's examples run as written: the Python blocks in order in one namespace, and
every shell block.

The first shell block (``make run``, ``make test``) is what runs this suite, so it is
checked with ``make -n`` (both targets exist and expand). The install block runs in a fresh
virtual environment against the wheels in ``target/wheels`` when ``RSERINI_INSTALL_TEST=1``
(``.ci/run`` sets it after ``make wheels``: it downloads from PyPI).
The command-line block runs line by line in an empty folder beside a ``../shared/data``
that is the test collections' folder (``$RSERINI_DATA`` or the repository's
``../shared/data``), as it would in a clone next to them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from support import DATA, REPO, collection

LUCENE_INDEX = REPO / "tests" / "data" / "lucene" / "9.9.1" / "adi-1seg-raw"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def readme_blocks(language: str) -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [body for lang, body in FENCE.findall(text) if lang == language]


def commands(block: str) -> list[str]:
    """The block's command lines (comments kept: the shell drops them)."""
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def shell_block(first_word: str) -> list[str]:
    """The command lines of the one ``sh`` block whose commands all start with ``first_word``."""
    found = [
        lines
        for lines in map(commands, readme_blocks("sh"))
        if lines and all(line.split()[0] == first_word for line in lines)
    ]
    assert len(found) == 1, f"expected one README sh block of {first_word} commands"
    return found[0]


def test_readme_has_python_examples() -> None:
    assert len(readme_blocks("python")) >= 3


def cli_block(marker: str) -> list[str]:
    """The command lines of the one ``sh`` block that holds ``marker``."""
    found = [commands(b) for b in readme_blocks("sh") if marker in b]
    assert len(found) == 1, f"expected one README sh block with {marker!r}"
    return found[0]


def test_every_readme_shell_block_is_tested() -> None:
    """Each sh block is one of the four the tests below run."""
    blocks = [commands(block) for block in readme_blocks("sh")]
    assert len(blocks) == 4
    for tested in (
        shell_block("make"),
        shell_block("pip"),
        cli_block("rserini index --input"),
        cli_block("lucene-index"),
    ):
        assert tested in blocks


def test_readme_python_blocks_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # The Lucene example's folder: a Lucene index Anserini wrote, as a user has one.
    shutil.copytree(LUCENE_INDEX, tmp_path / "lucene-index.adi")
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for number, block in enumerate(readme_blocks("python"), 1):
        code = compile(block, f"README.md python block {number}", "exec")
        exec(code, namespace)
    assert os.path.isdir(tmp_path / "my-index")
    assert "d2" in capsys.readouterr().out


def test_readme_make_commands_name_real_targets() -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for line in shell_block("make"):
        command = line.split("#")[0].split()
        done = subprocess.run(
            [*command, "-n"], cwd=REPO, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, f"{line}\n{done.stderr}"
        assert "== " in done.stdout, f"{line}: no stage line"


def test_readme_install_line_installs_the_built_wheel(tmp_path: Path) -> None:
    if os.environ.get("RSERINI_INSTALL_TEST") != "1":
        pytest.skip(
            "the README's pip line downloads numpy, ir-measures and matplotlib into a fresh "
            "venv (about 2 min): set RSERINI_INSTALL_TEST=1 (.ci/run does, after make wheels)"
        )
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    if not list((REPO / "target" / "wheels").glob(f"rserini-*-{tag}-*.whl")):
        pytest.skip(f"no {tag} wheel in target/wheels: `make wheel` builds it (make test does)")
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    bin_dir = env / "bin"
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    for line in shell_block("pip"):
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=REPO,
            env={**os.environ, "PATH": path, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{line}\n{done.stderr[-3000:]}"
    check = "import rserini, ir_measures, matplotlib; print(rserini.Index.build([('d', 'x')]))"
    done = subprocess.run(
        [bin_dir / "python", "-c", check], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert subprocess.run([bin_dir / "rserini", "--help"], capture_output=True).returncode == 0


def test_readme_command_line_block_runs_as_written(tmp_path: Path) -> None:
    collection("scifact")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(DATA, target_is_directory=True)
    work = tmp_path / "clone"
    shutil.copytree(REPO / "docs", work / "docs")  # files for the folder searches to find
    shutil.copy(REPO / "README.md", work)
    # `rserini` as the interpreter running this suite has it (the installed wheel).
    define = f'rserini() {{ "{sys.executable}" -m rserini "$@"; }}\n'
    lines = cli_block("rserini index --input")
    outputs = {}
    for line in lines:
        done = subprocess.run(
            ["bash", "-c", define + line],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{line}\n{done.stderr[-3000:]}"
        outputs[line.split("#")[0].strip()] = done.stdout
        if line.startswith("rserini ") and not line.startswith("rserini index"):
            assert (done.stdout + done.stderr).strip(), f"{line}: printed nothing"
    evaluation = next(out for cmd, out in outputs.items() if cmd.startswith("rserini eval"))
    assert re.search(r"nDCG@10\s+all\s+0\.6789", evaluation), evaluation
    assert (work / "tune-scifact" / "heatmap.png").is_file()
    assert (work / "sharded").is_dir() and (work / "idx").is_dir()


def test_readme_lucene_block_runs_as_written(tmp_path: Path) -> None:
    """The Lucene block, in a folder holding a Lucene index as ``lucene-index.adi``; its
    ``--prebuilt`` line runs when the index is in Pyserini's cache (it downloads it)."""
    from rserini.lucene.prebuilt import prebuilt_index

    shutil.copytree(LUCENE_INDEX, tmp_path / "lucene-index.adi")
    scifact = DATA / "scifact" / "queries.jsonl"
    if scifact.is_file():
        shutil.copy(scifact, tmp_path / "queries.jsonl")
    define = f'rserini() {{ "{sys.executable}" -m rserini "$@"; }}\n'
    ran = 0
    for line in cli_block("lucene-index"):
        name = re.search(r"--prebuilt (\S+)", line)
        if name and not (
            prebuilt_index(name.group(1)).cached_path().is_dir() and scifact.is_file()
        ):
            continue  # a download of Pyserini's index: not in a test
        done = subprocess.run(
            ["bash", "-c", define + line], cwd=tmp_path, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{line}\n{done.stderr[-3000:]}"
        assert done.stdout.strip(), f"{line}: printed nothing"
        ran += 1
    assert ran >= 2
