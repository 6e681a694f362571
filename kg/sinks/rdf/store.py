"""A persistent SPARQL store for a graph folder: pyoxigraph's on-disk store, built once per graph.

Loading the N-Triples export into memory costs about a second per call on one conference
(2,260 papers), several on three; the on-disk store opens in milliseconds. It lives inside
the generation it was built from, so it belongs to that graph and goes away with it::

    exports/.kg/g000012/
      graph.jsonl  manifest.json  graph.nt      the generation (graph.nt: on demand)
      sparql-store/                              RocksDB files, and kg-store.json, its stamp
      .sparql-store.lock                         held while a store is built

Validity. The stamp records what the store was built from (the manifest's sha256 of
``graph.jsonl``, the version of the export code and of pyoxigraph) and the size of every
RocksDB file. A store is used only when its stamp matches and every file is there with its
size; otherwise it is built again. A store that opens but fails a first probe is built again
too, so a damaged store costs one rebuild, never a traceback.

Concurrency. A store is built into a temporary directory beside it and renamed into place
complete, holding ``.sparql-store.lock``: a second cold query waits for the first build and
then opens its result. Readers open the store read-only (``Store.read_only``), which takes no
lock, so any number of queries run at once. A build of the folder makes a new generation and
never touches the old one, so a query that is running keeps its graph; the next query opens
the new generation's store (building it once).

A folder where nothing can be written (read-only, or a folder an older kg wrote, with its
files at the top) is queried in memory, as before, with a note saying why.

>>> STORE_DIR, STAMP
('sparql-store', 'kg-store.json')
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyoxigraph as ox

from kg.errors import ExportError, GraphDamaged, GraphNotFoundError

STORE_DIR = "sparql-store"
STAMP = "kg-store.json"
LOCK = ".sparql-store.lock"
FORMAT = 1  # the layout of a store and its stamp; raise it when they change
_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)
_KEEP_LOGS = 3  # RocksDB leaves an info log per read-only open: keep the newest few


@dataclass(frozen=True)
class Opened:
    """A store ready to query, and how it came to be."""

    store: ox.Store
    generation: Path  # the directory of the graph it holds
    path: Path | None = None  # the on-disk store; None when the graph is loaded in memory
    built: bool = False  # whether this call built it
    note: str | None = None  # why the graph is in memory, when the folder cannot hold a store
    stamp: str | None = None  # the id of the build it came from


@cache
def export_version() -> str:
    """A digest of the code that turns a graph into triples (and of kg's and pyoxigraph's
    versions): a store made by other code is built again.

    >>> len(export_version())
    16
    """
    from kg.version import __version__

    h = hashlib.sha256(f"{FORMAT} {__version__} {ox.__version__}".encode())
    here = Path(__file__).parent
    for name in ("nt.py", "triples.py", "terms.py"):
        with contextlib.suppress(OSError):
            h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def graph_key(generation: Path) -> str:
    """What identifies the graph of a generation: its manifest's sha256 of graph.jsonl (the
    file's size and time for a manifest without checksums), and the folder's curation file."""
    from kg.io.format import GRAPH_FILE, curation_fingerprint, read_manifest

    entry = read_manifest(generation).get("files", {}).get(GRAPH_FILE)
    if isinstance(entry, dict) and entry.get("sha256"):
        return f"sha256:{entry['sha256']}{curation_fingerprint(generation)}"
    try:
        st = (generation / GRAPH_FILE).stat()
    except OSError:
        raise GraphNotFoundError(f"no graph in {generation}/; build one first") from None
    return f"stat:{st.st_size}:{st.st_mtime_ns}{curation_fingerprint(generation)}"


def _files(path: Path) -> dict[str, int]:
    """The RocksDB files that make the store (info logs and the lock file change freely)."""
    return {p.name: p.stat().st_size for p in sorted(path.iterdir())
            if p.is_file() and not p.name.startswith(("LOG", "LOCK")) and p.name != STAMP}


def read_stamp(path: Path) -> dict | None:
    """The stamp of a store directory, or None when it has none that can be read."""
    try:
        stamp = json.loads((path / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) else None


def problem(path: Path, key: str) -> str | None:
    """Why the store at ``path`` cannot serve the graph ``key``, or None when it can.

    >>> problem(Path("/nonexistent"), "sha256:0")
    'no store yet'
    """
    if not path.is_dir():
        return "no store yet"
    stamp = read_stamp(path)
    if stamp is None:
        return "it has no readable stamp (an interrupted build, or damage)"
    if stamp.get("graph") != key:
        return "it was built from another graph"
    if stamp.get("export") != export_version():
        return "it was built by another version of kg"
    want = stamp.get("files")
    try:
        have = _files(path)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if not isinstance(want, dict) or have != want:
        missing = sorted(set(want or {}) - set(have))
        return f"its files changed after it was built ({', '.join(missing[:3]) or 'sizes differ'})"
    return None


def _prune_logs(path: Path) -> None:
    with contextlib.suppress(OSError):
        old = sorted((p for p in path.iterdir() if p.name.startswith("LOG.old")), key=lambda p: p.name)
        for p in old[:-_KEEP_LOGS]:
            p.unlink()


def _open(path: Path) -> ox.Store:
    """Open a built store read-only and touch its data once; OSError or RuntimeError when it
    is damaged."""
    store = ox.Store.read_only(str(path))
    bool(store.query("ASK { ?s ?p ?o }"))
    return store


@contextlib.contextmanager
def _build_lock(generation: Path):
    """Hold the generation's store lock (waits for a build in another process to finish)."""
    fd = os.open(generation / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def build_store(generation: Path, nt: Path, key: str, stale: str | None = None) -> str:
    """Build the store of ``generation`` from its N-Triples export ``nt`` unless another
    process did while this one waited for the lock; returns the id of the store's build.
    ``stale``: the id of a build found damaged, replaced even though its stamp matches."""
    target = generation / STORE_DIR
    with _build_lock(generation):
        stamp = read_stamp(target)
        if problem(target, key) is None and (stale is None or (stamp or {}).get("id") != stale):
            return stamp["id"]  # built by another process while this one waited
        for p in generation.glob(f".{STORE_DIR}.*.tmp"):  # left by a build that was killed
            shutil.rmtree(p, ignore_errors=True)
        tmp = generation / f".{STORE_DIR}.{os.getpid()}.tmp"
        try:
            store = ox.Store(str(tmp))
            store.bulk_load(path=str(nt), format=ox.RdfFormat.N_TRIPLES)
            store.flush()
            del store  # closes the database: its files are complete
            build = uuid.uuid4().hex
            record = {"id": build, "graph": key, "export": export_version(), "built": time.time(),
                      "source": nt.name, "files": _files(tmp)}
            (tmp / STAMP).write_text(json.dumps(record, indent=2), encoding="utf-8")
            if target.exists():  # damaged or outdated: moved aside, then removed
                aside = generation / f".{STORE_DIR}.old.{os.getpid()}.tmp"
                os.rename(target, aside)
                shutil.rmtree(aside, ignore_errors=True)
            os.rename(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return build


def _in_memory(folder: Path, generation: Path, note: str | None) -> Opened:
    from kg.sinks.rdf.sparql import ensure_export, load_store

    try:
        nt = ensure_export(folder)
    except ExportError:  # nowhere to write the export either: a temporary one
        from kg.sinks import export_graph

        with tempfile.TemporaryDirectory(prefix="kg-sparql-") as tmp:
            nt = export_graph(generation, "nt", Path(tmp) / "graph.nt").path
            return Opened(load_store([nt]), generation, note=note)
    return Opened(load_store([nt]), generation, note=note)


#: seconds a store takes to build per MB of graph.jsonl (the N-Triples export, then the bulk
#: load): ICML 2024's 18 MB took 7 s on two busy cores; what the first query says it will wait
SECONDS_PER_MB = 0.4


def open_store(folder: str | Path, say: Callable[[str], None] | None = None) -> Opened:
    """The persistent store of the folder's current graph, built when it is missing, outdated
    or damaged; the graph in memory when the folder cannot hold a store (``note`` says why).
    ``say`` is told when a build begins (why, and about how long it takes) and ends.

    >>> # open_store("exports").path  ->  Path("exports/.kg/g000012/sparql-store")
    """
    from kg.io.format import GRAPH_FILE
    from kg.io.generations import current
    from kg.sinks.rdf.sparql import ensure_export

    folder = Path(folder)
    for _ in range(3):  # a build of the folder may remove a generation while it is opened
        generation = current(folder)
        if not (generation / GRAPH_FILE).exists():
            ensure_export(folder)  # raises the message for a folder without a graph
        if generation == folder:  # a folder an older kg wrote: no generation to hold a store
            return _in_memory(folder, generation, None)
        key = graph_key(generation)
        path = generation / STORE_DIR
        built, stale = False, None
        try:
            for _attempt in range(2):
                why = problem(path, key)
                if why is not None or stale is not None:
                    if why == "it was built by another version of kg":
                        with contextlib.suppress(OSError):
                            (generation / "graph.nt").unlink()  # made by that version too
                    began = time.monotonic()
                    if say is not None:
                        mb = (generation / GRAPH_FILE).stat().st_size / 1e6
                        say(f"building the SPARQL store of {folder}/ ({why or 'damaged'}; once per build of the "
                            f"graph): about {max(1, round(SECONDS_PER_MB * mb))} s for {mb:.{0 if mb >= 10 else 1}f} MB of graph")
                    nt = ensure_export(folder)
                    if nt.parent != generation:
                        break  # the folder moved on to another generation meanwhile
                    build_store(generation, nt, key, stale)
                    built = True
                    if say is not None:
                        say(f"SPARQL store built in {time.monotonic() - began:.1f} s")
                stamp = (read_stamp(path) or {}).get("id")
                try:
                    store = _open(path)
                except (OSError, RuntimeError):
                    stale = stamp
                    continue
                _prune_logs(path)
                return Opened(store, generation, path, built, stamp=stamp)
            else:
                raise GraphDamaged(f"{path}: the SPARQL store cannot be opened even when built again; "
                                   f"remove it (rm -r {path}) and check the disk")
        except (ExportError, OSError) as exc:
            err = getattr(exc, "errno", None)
            if isinstance(exc, ExportError) or err in _READ_ONLY:
                return _in_memory(folder, generation, f"{folder}/ is not writable: querying the graph in "
                                  "memory (a persistent store needs a writable folder)")
            if not generation.exists():
                continue  # removed by a build meanwhile: open the folder's new generation
            raise ExportError(f"cannot build the SPARQL store in {generation}/: {exc.strerror or exc}; "
                              "check the disk has space") from None
    raise GraphNotFoundError(f"{folder}/ keeps changing (builds running?); run the query again")


class Stores:
    """The store of a folder's current graph, opened once and reopened when the folder gets a
    new graph (what the library and ``kg serve`` keep between queries). Thread-safe."""

    def __init__(self, folder: str | Path, say: Callable[[str], None] | None = None):
        self.folder, self.say = Path(folder), say
        self._opened: Opened | None = None
        self._lock = threading.Lock()

    def get(self) -> Opened:
        from kg.io.generations import current

        with self._lock:
            o = self._opened
            if o is None or o.generation != current(self.folder) or not o.generation.exists():
                self._opened = o = open_store(self.folder, self.say)
            return o


__all__ = ["FORMAT", "STAMP", "STORE_DIR", "Opened", "Stores", "build_store", "export_version", "graph_key",
           "open_store", "problem", "read_stamp"]
