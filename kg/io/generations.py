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
leaves ``current`` where it was, and the next build removes what it left. A generation a build
made current holds an empty ``committed`` file, so a build can tell a generation it must keep
from one a killed build left: a ``current`` link that is missing, dangling, points outside the
folder, or at an older generation than the newest committed one, is an error that says how to
restore it, never a reason to delete generations. Files inside a
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
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from kg.errors import ExportError, FolderBusy, GraphDamaged, UsageError

META = ".kg"
CURRENT = "current"
LOCK = "lock"
COMMITTED = "committed"  # in a generation that a build made current
_GEN = re.compile(r"g(\d{6,})$")


def current(folder: Path) -> Path:
    """The directory holding the folder's files now: its current generation, or the folder
    itself (a folder written by an older kg, a generation directory, or no graph yet). A
    ``current`` link that cannot be accounted for (missing while committed generations exist,
    dangling, not naming a generation of the folder) is a :class:`~kg.errors.GraphDamaged`."""
    folder = Path(folder)
    meta = folder / META
    link = meta / CURRENT
    try:
        target = os.readlink(link)
    except OSError as exc:
        if exc.errno == errno.EINVAL and link.is_dir():  # a copy that followed links, read as it is
            return link
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            if _committed(meta):
                raise GraphDamaged(_lost(folder, "is missing")) from None
            return folder
        raise GraphDamaged(_lost(folder, f"is not a link ({exc.strerror or exc})")) from None
    if not _GEN.fullmatch(target):
        raise GraphDamaged(_lost(folder, f"points at {target!r}, which is not a generation of the folder"))
    gen = meta / target
    if gen.is_symlink() or not gen.is_dir():
        raise GraphDamaged(_lost(folder, f"points at {target}, which {'is a link' if gen.is_symlink() else 'does not exist'}"))
    return gen


def _generations(meta: Path) -> dict[int, Path]:
    out = {}
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for p in meta.iterdir():
            m = _GEN.match(p.name)
            if m and p.is_dir() and not p.is_symlink():
                out[int(m.group(1))] = p
    return out


def _committed(meta: Path) -> dict[int, Path]:
    """The generations a build made current (the newest is the one ``current`` should name)."""
    return {n: p for n, p in _generations(meta).items() if (p / COMMITTED).is_file()}


def _lost(folder: Path, what: str) -> str:
    link, made = folder / META / CURRENT, _committed(folder / META)
    if made:
        newest = made[max(made)].name
        return (f"{link} {what}; it names the folder's current generation, and without it a build would "
                f"drop the graph. Restore it to the newest generation a build made current: "
                f"ln -sfn {newest} {link}")
    gens = _generations(folder / META)
    if gens:
        newest = gens[max(gens)].name
        return (f"{link} {what}; it names the folder's current generation. If {newest} holds the graph, "
                f"restore the link: ln -sfn {newest} {link}; else remove {folder / META} to start over")
    return f"{link} {what}; no generation is left: remove {folder / META} to start the folder over"


def _is_kg_manifest(path: Path) -> bool:
    """Whether ``path`` is a manifest kg wrote (a folder an older kg wrote keeps it at the top)."""
    import json

    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("tool") == "kg"


def check_folder(folder: Path, public: Iterable[str] = ()) -> Path:
    """Whether a build may write ``folder``: every generation is accounted for and no file the
    build would replace is someone else's. Returns the current generation (see
    :func:`current`). Raises :class:`~kg.errors.GraphDamaged` for a ``current`` link changed by
    hand (pointing at an older generation than the newest a build made current: the build would
    delete that one), :class:`~kg.errors.UsageError` for a file of the user's where the build
    keeps ``public`` links. Call it holding :func:`locked`."""
    import filecmp

    folder = Path(folder)
    meta = folder / META
    before = current(folder)
    if before.parent == meta and before.name != CURRENT:
        newer = sorted(p.name for n, p in _committed(meta).items() if n > int(before.name[1:]))
        if newer:
            link = meta / CURRENT
            raise GraphDamaged(f"{link} points at {before.name}, but {newer[-1]} is newer and was made "
                               f"current by a build: the link was changed by hand, and a build would delete "
                               f"{', '.join(newer)}. Point it back with ln -sfn {newer[-1]} {link}, or, to go "
                               f"back to {before.name}, remove {', '.join(newer)} first")
    flat_kg = before == folder and _is_kg_manifest(folder / "manifest.json")
    for name in public:
        path = folder / name
        try:
            if os.readlink(path) == f"{META}/{CURRENT}/{name}":
                continue
        except FileNotFoundError:
            continue
        except OSError:  # not a link: a file of an older kg, of a copy, or of the user
            if flat_kg and path.is_file():
                continue
            if before.name == CURRENT and path.is_file() and (before / name).is_file() \
                    and filecmp.cmp(path, before / name, shallow=False):
                continue
        raise UsageError(f"{path}: not a file kg wrote, and kg build keeps {', '.join(public)} at the top of "
                         f"{folder}/; build into another folder (-o), or move the file away")
    return before


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
    public = tuple(public)
    before = check_folder(folder, public)
    flat_kg = before == folder and _is_kg_manifest(folder / "manifest.json")
    if before.parent == meta and before.name != CURRENT:
        _mark(before)  # made current by an older kg, which left no mark
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
        _mark(gen)
    except BaseException as exc:
        shutil.rmtree(gen, ignore_errors=True)
        if isinstance(exc, OSError):
            raise ExportError(f"cannot write {folder}/: {exc.strerror or exc}; check the folder is writable "
                              "and the disk has space (the previous graph is intact)") from None
        raise
    _link_public(folder, public)
    for name in stale if flat_kg else ():  # the first generation of a folder an older kg wrote
        with contextlib.suppress(FileNotFoundError):
            if not (folder / name).is_symlink():
                (folder / name).unlink()
    keep = {gen, before}
    for p in _generations(meta).values():
        if p not in keep:
            shutil.rmtree(p, ignore_errors=True)
    # left by a killed run: only the names a build gives its own temporary files
    for p in (*meta.glob(".*.tmp"), *(q for name in public for q in folder.glob(f".{name}.*.tmp"))):
        with contextlib.suppress(OSError):
            p.unlink()


def _mark(gen: Path) -> None:
    """Record that ``gen`` was made current by a build (see the module docstring)."""
    with contextlib.suppress(OSError):
        if not (gen / COMMITTED).is_file():
            os.close(os.open(gen / COMMITTED, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))


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
    with it, ``waiting(holder)`` is told and the call blocks until the lock is free.

    The lock file is opened without following links and must be a plain file of its own (a
    link there could make the build write into another file). Processes forked while the lock
    is held (extraction workers) do not keep it, and die with the process that holds it: a
    build killed by its pid, however, leaves the folder free for the next one."""
    folder = Path(folder)
    _mkdir(folder / META)
    path = folder / META / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise GraphDamaged(f"{path} is a symbolic link; the lock is a plain file kg makes: remove the "
                               f"link (rm {path}) and run kg again") from None
        raise ExportError(f"cannot write {folder}/: {exc.strerror or exc}") from None
    me = os.getpid()
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise GraphDamaged(f"{path} is not kg's lock ({'a link to another file' if stat.S_ISREG(st.st_mode) else 'not a plain file'}); "
                               f"remove it (rm {path}) and run kg again")
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
        _hold(fd)
        try:
            yield
        finally:
            _HELD.pop(fd, None)
    finally:
        if os.getpid() == me:  # a forked child has closed its copy already
            os.close(fd)


_HELD: dict[int, int] = {}  # lock descriptors this process holds -> its pid
_AT_FORK: list[bool] = []


def _hold(fd: int) -> None:
    if not _AT_FORK:  # once per process, on the first lock (nothing happens at import)
        os.register_at_fork(after_in_child=_forked)
        _AT_FORK.append(True)
    _HELD[fd] = os.getpid()


def _forked() -> None:
    """In a process forked while a lock is held: let go of the lock (the flock belongs to the
    open file, which the child shares), and die with the process that holds it."""
    if not _HELD:
        return
    holder = next(iter(_HELD.values()))
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()
    _die_with(holder)


def _die_with(parent: int) -> None:
    """Ask the kernel to kill this process when its parent ends (Linux; elsewhere nothing)."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        if libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) != 0:
            return
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(1)


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
