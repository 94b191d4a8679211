"""Folders rserini writes into, and the files in them: the Python side of the core's
``safe_fs`` rules, used by every cache and spill folder.

- **Only folders rserini made are written.** :func:`own_dir` refuses a path that is a
  symbolic link, a FIFO or any non-folder, and marks a folder it creates with a
  ``CACHEDIR.TAG`` (the cache-directory tag backup tools honour). :func:`remove_own`
  deletes only inside such a marked folder, only a real folder, never through a link.
- **Reads that cannot hang or run away.** :func:`read_bounded` opens with ``O_NOFOLLOW``
  and ``O_NONBLOCK``, checks with ``fstat`` that the file is a regular one, and refuses
  it above a size cap before reading.
- **Writes that never land elsewhere.** New files are created with ``O_CREAT | O_EXCL |
  O_NOFOLLOW`` (an existing name, a planted link included, is never opened) under
  unpredictable names; :func:`write_atomically` then renames the file into place, which
  replaces a link rather than writing through it.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from pathlib import Path
from typing import IO

__all__ = [
    "MARK",
    "create_exclusive",
    "is_own",
    "own_dir",
    "read_bounded",
    "real_dir",
    "remove_own",
    "unpredictable_name",
    "write_atomically",
]

#: The file that marks a folder as made by rserini (https://bford.info/cachedir/).
MARK = "CACHEDIR.TAG"
_MARK_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This folder was created by rserini; it holds a cache that can be rebuilt.\n"
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def _refuse(path: Path, mode: int, wanted: str) -> OSError:
    code = errno.ELOOP if stat.S_ISLNK(mode) else errno.ENOTDIR
    if wanted == "a regular file":
        code = errno.ELOOP if stat.S_ISLNK(mode) else errno.EINVAL
    return OSError(
        code,
        f"{path} is {_kind(mode)}, not {wanted}; rserini does not follow links or "
        "read special files in its own folders",
        str(path),
    )


def read_bounded(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, never through a final link.

    Raises:
        FileNotFoundError: If there is no such file.
        OSError: If it is a link, a FIFO, a device or a folder, or larger than
            ``max_bytes`` (``EFBIG``), or cannot be read.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _refuse(path, stat.S_IFLNK, "a regular file") from None
        raise
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(path, info.st_mode, "a regular file")
        if info.st_size > max_bytes:
            raise OSError(
                errno.EFBIG, f"{path} holds {info.st_size} bytes, over {max_bytes}", str(path)
            )
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise OSError(errno.EFBIG, f"{path} grew past {max_bytes} bytes while read", str(path))
    return data


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def real_dir(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` exists as a folder (not a link to one).

    Raises:
        OSError: If it exists as anything else (a link, a FIFO, a file).
    """
    path = Path(path)
    info = _lstat(path)
    if info is None:
        return False
    if not stat.S_ISDIR(info.st_mode):
        raise _refuse(path, info.st_mode, "a folder")
    return True


def is_own(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a real folder holding rserini's mark (a regular file)."""
    path = Path(path)
    info, mark = _lstat(path), _lstat(path / MARK)
    return (
        info is not None
        and stat.S_ISDIR(info.st_mode)
        and mark is not None
        and stat.S_ISREG(mark.st_mode)
    )


def own_dir(path: str | os.PathLike[str]) -> Path:
    """The folder ``path``, made and marked if missing (its parent must exist).

    An existing folder is used as it is; rserini's mark is added only to folders it
    creates, so :func:`remove_own` never deletes inside a folder rserini did not make.

    Raises:
        OSError: If ``path`` is a symbolic link, a FIFO, a file or anything but a folder.
    """
    path = Path(path)
    if not real_dir(path):
        try:
            os.mkdir(path, 0o777)
        except FileExistsError:
            real_dir(path)  # Made meanwhile: still refused unless a real folder.
            return path
        write_atomically(path, MARK, _MARK_TEXT.encode())
    return path


def remove_own(path: str | os.PathLike[str]) -> None:
    """Deletes the folder ``path`` and everything in it, if rserini made its parent.

    Links inside are removed, never followed (``shutil.rmtree`` works through file
    descriptors here).

    Raises:
        FileExistsError: If the parent folder is not marked as rserini's, so ``path``
            is not rserini's to delete.
        OSError: If ``path`` is a link or not a folder.
    """
    path = Path(path)
    if not is_own(path.parent) or not shutil.rmtree.avoids_symlink_attacks:
        raise FileExistsError(
            errno.EEXIST,
            f"{path} is in a folder rserini did not create; it is left alone",
            str(path),
        )
    if real_dir(path):
        shutil.rmtree(path)


def unpredictable_name(name: str) -> str:
    """``name`` behind a random prefix no one can plant a link at in advance."""
    return f"{secrets.token_hex(8)}-{name}"


def create_exclusive(path: str | os.PathLike[str], mode: int = 0o600) -> IO[bytes]:
    """A new file at ``path`` open for writing, created exclusively, never through a link.

    Raises:
        FileExistsError: If anything, a link included, is already at ``path``.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
    return os.fdopen(fd, "wb")


def write_atomically(directory: str | os.PathLike[str], name: str, data: bytes) -> None:
    """Writes ``data`` as ``directory/name``: into a fresh exclusive temporary, ``fsync``ed,
    then renamed over ``name`` (which replaces a link, never writes through it)."""
    directory = Path(directory)
    tmp = directory / f".{name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        with create_exclusive(tmp, 0o644) as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, directory / name)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
