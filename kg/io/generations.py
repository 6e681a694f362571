"""A graph folder on disk: generations switched by one rename, a lock for writers, checked files.

A build never changes the files a reader may be reading. It writes a new *generation*, a
directory beside the current one, and makes it current by replacing one symbolic link::

    exports/
      graph.jsonl -> .kg/current/graph.jsonl    (links for people and other tools)
      extractions.jsonl -> .kg/current/extractions.jsonl
      manifest.json -> .kg/current/manifest.json
      .kg/
        lock                held by the build writing the folder
        current -> g000012  replaced by one rename: the commit point of a build
        g000011/            the previous generation, kept for readers still on it
        g000012/            graph.jsonl, extractions.jsonl, manifest.json, state.pickle, graph.nt

A reader resolves ``current`` once (:func:`current`) and reads every file from that
directory, so it sees the old graph or the new one, never a mix; a build killed at any point
leaves ``current`` where it was, and the next build removes what it left. Files inside a
generation are never changed once it is current (files that do not change are hard links
into the next generation), except for caches derived from them (``graph.nt``), which are
written atomically. A folder written by an older kg, with the files at its top level, is read
as it is and moved into a generation by the next build.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import hmac
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from kg.errors import ExportError, FolderBusy

META = ".kg"
CURRENT = "current"
LOCK = "lock"
_GEN = re.compile(r"g(\d{6,})$")


def current(folder: Path) -> Path:
    """The directory holding the folder's files now: its current generation, or the folder
    itself (a folder written by an older kg, a generation directory, or no graph yet)."""
    folder = Path(folder)
    try:
        target = os.readlink(folder / META / CURRENT)
    except OSError:  # no link; or a copy that followed links (``shutil.copytree``), read as it is
        return folder / META / CURRENT if (folder / META / CURRENT).is_dir() else folder
    return folder / META / target


def _generations(meta: Path) -> dict[int, Path]:
    out = {}
    with contextlib.suppress(FileNotFoundError):
        for p in meta.iterdir():
            m = _GEN.match(p.name)
            if m and p.is_dir() and not p.is_symlink():
                out[int(m.group(1))] = p
    return out


def _mkdir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=path.name == META)
    except OSError as exc:
        raise ExportError(f"cannot write {path.parent}/: {exc.strerror or exc}; check the folder is "
                          "writable and the disk has space") from None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def new_generation(folder: Path, public: Iterable[str] = (), stale: Iterable[str] = ()) -> Iterator[Path]:
    """An empty generation directory to write; when the block ends without an error it
    becomes the folder's current one (one rename), the ``public`` names at the top of the
    folder link into it, and generations older than the previous one are removed. On an error
    the new directory is removed and the folder is as it was. ``stale``: caches an older kg kept
    at the top of the folder, removed when its first generation is made. Call it holding
    :func:`locked`."""
    folder = Path(folder)
    meta = folder / META
    before = current(folder)
    gen = meta / f"g{max(_generations(meta), default=0) + 1:06d}"
    _mkdir(gen)
    try:
        yield gen
    except BaseException:  # the writer failed: its errors are its own, the folder is as it was
        shutil.rmtree(gen, ignore_errors=True)
        raise
    try:
        _fsync_dir(gen)
        link = meta / f".{CURRENT}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        os.symlink(gen.name, link)
        if before == meta / CURRENT:  # a copied folder's generation, a directory: moved aside first
            before = meta / f"g{max(_generations(meta)) + 1:06d}"
            os.rename(meta / CURRENT, before)
        os.replace(link, meta / CURRENT)  # the commit point
        _fsync_dir(meta)
    except BaseException as exc:
        shutil.rmtree(gen, ignore_errors=True)
        if isinstance(exc, OSError):
            raise ExportError(f"cannot write {folder}/: {exc.strerror or exc}; check the folder is writable "
                              "and the disk has space (the previous graph is intact)") from None
        raise
    _link_public(folder, public)
    for name in stale if before == folder else ():  # the folder's first generation
        with contextlib.suppress(FileNotFoundError):
            if not (folder / name).is_symlink():
                (folder / name).unlink()
    keep = {gen, before}
    for p in _generations(meta).values():
        if p not in keep:
            shutil.rmtree(p, ignore_errors=True)
    for p in (*meta.glob(".*.tmp"), *folder.glob(".*.tmp")):  # left by a killed run
        with contextlib.suppress(OSError):
            p.unlink()


def _link_public(folder: Path, names: Iterable[str]) -> None:
    """``folder/NAME -> .kg/current/NAME`` for each name (replacing a file an older kg wrote)."""
    for name in names:
        target = f"{META}/{CURRENT}/{name}"
        path = folder / name
        with contextlib.suppress(OSError):
            if os.readlink(path) == target:
                continue
        tmp = folder / f".{name}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(target, tmp)
        os.replace(tmp, path)


@contextlib.contextmanager
def locked(folder: Path, wait: bool = False, waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the folder's write lock for the block (advisory, released when the process ends,
    however it ends). Without ``wait`` a held lock is a :class:`~kg.errors.FolderBusy`;
    with it, ``waiting(holder)`` is told and the call blocks until the lock is free."""
    folder = Path(folder)
    _mkdir(folder / META)
    try:
        fd = os.open(folder / META / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ExportError(f"cannot write {folder}/: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
            if not wait:
                raise FolderBusy(f"{folder}/ is being written by another build ({holder}); wait for it "
                                 "to finish, or pass --wait to queue behind it") from None
            if waiting is not None:
                waiting(holder)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


# ---------------------------------------------------------------- checking files


class Digest:
    """SHA-256 and size of the lines passing through ``lines()`` (each written with "\\n")."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.size = 0

    def lines(self, lines: Iterable[bytes | memoryview | str]) -> Iterator[bytes | memoryview]:
        for line in lines:
            b = line.encode("utf-8") if isinstance(line, str) else line
            self.sha.update(b)
            self.sha.update(b"\n")
            self.size += len(b) + 1
            yield b

    def record(self) -> dict:
        return {"bytes": self.size, "sha256": self.sha.hexdigest()}


def mismatch(folder: Path, name: str, manifest: dict) -> str | None:
    """Why ``folder/name`` is not the file the manifest describes, or None when it is. A
    manifest without checksums (an older kg's) describes nothing: "unchecked"."""
    want = manifest.get("files", {}).get(name)
    if not isinstance(want, dict):
        return "unchecked"
    try:
        size = (folder / name).stat().st_size
        if size != want.get("bytes"):
            return f"{size:,} bytes where the manifest says {want.get('bytes')}"
        with open(folder / name, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        if digest != want.get("sha256"):
            return "its content changed after it was written (checksum differs)"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None


# ---------------------------------------------------------------- signing caches

_KEY: bytes | None = None


def _key() -> bytes | None:
    """This user's key for signing folder caches, made on first use (None when no private
    place to keep it exists: caches are then never trusted, only rebuilt)."""
    global _KEY
    if _KEY is None:
        base = os.environ.get("KG_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kg")
        path = Path(base) / "state.key"
        try:
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".state.key.{os.getpid()}")
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(os.urandom(32))
                with contextlib.suppress(FileExistsError):
                    os.link(tmp, path)  # first writer wins: all processes share one key
                tmp.unlink()
            _KEY = path.read_bytes()
        except OSError:
            return None
    return _KEY or None


def sign(data: bytes | memoryview) -> str:
    """A signature of a cache's bytes with this user's key ("" without a key)."""
    key = _key()
    return hmac.new(key, data, hashlib.sha256).hexdigest() if key else ""


def signed(data: bytes | memoryview, signature: str) -> bool:
    """Whether ``data`` was signed with this user's key: a cache from elsewhere (another
    user, another machine, an edited file) is never unpickled."""
    key = _key()
    return bool(key and signature) and hmac.compare_digest(sign(data), signature)
