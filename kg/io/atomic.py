"""Atomic writes: a file is written beside its target and renamed into place when complete, so
a reader never sees half a file and a failed write leaves the old one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from kg.errors import ExportError


def _umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _temp_beside(path: Path, mode: str = "w"):
    """Yield (file, temporary path) beside ``path``; the file is complete, synced and given
    normal permissions on exit, and removed if anything fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        text = {"encoding": "utf-8", "newline": "\n"} if "b" not in mode else {"buffering": 1 << 20}
        with os.fdopen(fd, mode, **text) as fh:
            yield fh, Path(tmp)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(path: Path, mode: str = "w"):
    """Write to a temporary file beside ``path`` and rename it into place on success."""
    with _temp_beside(path, mode) as (fh, tmp):
        yield fh
    os.replace(tmp, path)


Line = bytes | memoryview | str  # a memoryview may hold several lines, all but the last with "\n"


def refresh(path: Path, text: str, check: bool = False) -> bool:
    """Whether the generated file ``path`` differs from ``text``; unless ``check``, it is then
    rewritten (atomically). For the files kg generates and ships (schema, guide)."""
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return False
    if not check:
        with atomic_write(path) as fh:
            fh.write(text)
    return True


def _stage(path: Path, lines: Iterable[Line]) -> Path:
    """Write lines to a temporary file beside ``path``; return the temporary path."""
    with _temp_beside(path, "wb") as (fh, tmp):
        for line in lines:
            fh.write(line.encode("utf-8") if isinstance(line, str) else line)
            fh.write(b"\n")
    return tmp


def write_files(files: dict[Path, Iterable[Line]]) -> None:
    """Write several files so that either all are replaced or none: each is staged to a
    temporary file first, and only when every one is complete are they renamed into place."""
    staged: dict[Path, Path] = {}
    try:
        for path, lines in files.items():
            staged[path] = _stage(path, lines)
        for path, tmp in staged.items():
            os.replace(tmp, path)
    except OSError as exc:
        where = next(iter(files)) if not staged else list(staged)[-1]
        raise ExportError(f"cannot write {where}: {exc.strerror or exc}; "
                          "check the folder is writable and the disk has space") from None
    finally:
        for tmp in staged.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
