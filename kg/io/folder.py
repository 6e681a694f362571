"""A graph folder updated incrementally: adding papers costs about what the added papers cost.

Adding papers must give the files a one-shot build of everything would give. Rebuilding from
every extraction does that, but re-reads, re-resolves and re-writes the whole graph however
few papers are added. So the folder also keeps an index of itself, ``state.pickle``:

- where each paper's line sits in ``extractions.jsonl`` and each line in ``graph.jsonl``
  (with the key the line sorts by);
- what the papers say about each extracted entity id, merged (:class:`kg.resolve.EntityStats`):
  the whole input of resolution, without the papers;
- how the ids resolved last time, and the lines shared by papers: entity, taxonomy, venue
  and author nodes.

Adding papers then (:meth:`FolderState.add`)

1. merges the new papers' stats and resolves again over *every* id, so a new paper can still
   relabel or merge an entity of any other paper, exactly as resolving everything would;
2. makes the lines of the new papers, of the old papers that link to an id that now resolves
   differently, and of the shared nodes that changed;
3. writes each file by copying the unchanged runs of the old one around those lines.

The index names the code that wrote it and the files it describes (manifest hash, sizes),
and is signed with this user's key (:func:`kg.io.generations.sign`): an index from elsewhere
or edited is never unpickled. It is used only when the manifest's checksums match the files.
When it is missing or does not match, or a paper's record changed, the folder is rebuilt
from ``extractions.jsonl`` through the same code, starting from an empty index. Every write
is a new generation of the folder (:mod:`kg.io.generations`); files that did not change are
hard links to the previous generation's.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import json
import mmap
import os
import pickle
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from itertools import accumulate, chain
from pathlib import Path

import orjson

from kg.errors import GraphDamaged
from kg.graph import PaperPart, entity_attrs, paper_part, taxonomy
from kg.io.atomic import write_files
from kg.io.format import (
    EXTRACTIONS_FILE,
    GRAPH_FILE,
    LEGACY_CACHES,
    MANIFEST_FILE,
    PUBLIC_FILES,
    edge_key,
    edge_line,
    extraction_line,
    load_extractions,
    make_manifest,
    manifest_text,
    node_key,
    node_line,
    read_manifest,
)
from kg.io.generations import Digest, check_folder, current, mismatch, new_generation, sign, signed
from kg.lexicon import Lexicon
from kg.records import Extraction, Paper
from kg.resolve import EntityStats, aggregate, canonical_ids, changed, collect
from kg.schema import SCHEMA_DIR
from kg.senses import scope

STATE_FILE = "state.pickle"
STATE_FORMAT = 4
# the modules that decide what the files hold: an index written by other code is not used
_CODE = ("kg.io.folder", "kg.io.format", "kg.io.generations", "kg.graph", "kg.resolve", "kg.senses", "kg.records", "kg.schema", "kg.text",
         "kg.lexicon")


@contextlib.contextmanager
def _no_gc():
    """Pause the cyclic garbage collector: building or loading hundreds of thousands of
    containers otherwise triggers full collections over all of them, again and again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class StaleState(Exception):
    """The index does not describe the folder's files."""


@dataclass
class Edits:
    """How the files change: new extraction lines, and graph lines dropped or added (by key)."""

    extractions: list[tuple[str, bytes]] = field(default_factory=list)
    drop: set[str] = field(default_factory=set)
    add: dict[str, bytes] = field(default_factory=dict)

    def diff(self, before: dict[str, bytes], after: dict[str, bytes]) -> None:
        for k, line in before.items():
            if after.get(k) != line:
                self.drop.add(k)
        for k, line in after.items():
            if before.get(k) != line:
                self.add[k] = line


@dataclass
class GraphState:
    """What a folder's graph is made of, beyond the extractions themselves."""

    keys: list[str] = field(default_factory=list)  # sort keys of the lines of graph.jsonl
    line_lens: array = field(default_factory=lambda: array("Q"))  # their lengths, "\n" included
    stats: dict[str, EntityStats] = field(default_factory=dict)  # the input of resolution
    refs: dict[str, set[str]] = field(default_factory=dict)  # id -> papers linking to it without extracting it
    remap: dict[str, str] = field(default_factory=dict)  # as resolved: merged id -> canonical id
    names: dict[str, str] = field(default_factory=dict)  # canonical id -> resolved name
    lexical: set[str] = field(default_factory=set)  # canonical ids the lexicon knows (as named)
    lexicon: str = ""  # fingerprint of the lexicon it was resolved with
    entity_lines: dict[str, bytes] = field(default_factory=dict)  # by line key
    taxonomy_lines: dict[str, bytes] = field(default_factory=dict)  # by line key
    shared: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # venue/author id -> (first paper, line)
    why: dict[str, str] = field(default_factory=dict)  # merged id -> the rule (and score) that merged it

    def add(self, new: list[Extraction], lexicon: Lexicon | None,
            stored: Callable[[list[str]], dict[str, Extraction]]) -> Edits:
        """Add papers not in the graph yet (sorted by id); return how graph.jsonl changes.
        ``stored(ids)`` gives the extractions of papers already in."""
        edits = Edits()
        lex_id = _lexicon_fingerprint(lexicon)
        old_remap, old_names, known = self.remap, self.names, set(self.stats)
        new = [scope(ex, lexicon) for ex in new]  # the ids resolution reads (paper_part scopes alike)
        collect(new, self.stats, lexicon)
        touched = {e.id for ex in new for e in ex.entities}
        for ex in new:
            own = {e.id for e in ex.entities}
            for ref in _links(ex):
                if ref not in own:
                    self.refs.setdefault(ref, set()).add(ex.paper.id)
        remap = canonical_ids(self.stats, lexicon, why := {})  # global: any id may merge or relabel
        moved, dirty = changed(old_remap, remap, touched)
        dirty |= {remap.get(e, e) for e in chain(why, self.why) if why.get(e) != self.why.get(e)}
        if lex_id != self.lexicon:  # then any entity may be named otherwise
            dirty = set(self.stats) | set(old_names)
        names = self._entities(edits, remap, dirty, lexicon, why)
        if lex_id != self.lexicon or any(names.get(c) != old_names.get(c) for c in dirty):
            self._taxonomy(edits, names, lexicon)
        labels = _Labels(self.stats, names)

        # old papers linking to an id that now resolves to another entity, or to an entity at all
        affected: set[str] = set()
        for eid in chain(moved, touched - known):
            affected.update(self.stats[eid].papers if eid in self.stats else (), self.refs.get(eid, ()))
        affected -= {ex.paper.id for ex in new}
        if affected:
            old_labels = _Labels(self.stats, old_names)
            for ex in stored(sorted(affected)).values():
                edits.diff(_part_lines(paper_part(ex, old_remap, old_labels, lexicon)),
                           _part_lines(paper_part(ex, remap, labels, lexicon)))

        self._papers(edits, new, remap, labels, lexicon)
        self.remap, self.names, self.lexicon, self.why = remap, names, lex_id, why
        return edits

    def _entities(self, edits: Edits, remap: dict[str, str], dirty: set[str], lexicon: Lexicon | None,
                  why: dict[str, str]) -> dict[str, str]:
        """Re-make the entities of the ``dirty`` canonical ids; return every entity's name."""
        entities = aggregate(self.stats, remap, lexicon, {c for c in dirty if c in self.stats and c not in remap}, why)
        names = dict(self.names)
        for cid in dirty:
            key = node_key(cid)
            r = entities.get(cid)  # None: merged into another, or gone
            line = node_line(cid, entity_attrs(r)) if r is not None else None
            old = self.entity_lines.get(key)
            if line != old:
                if old is not None:
                    edits.drop.add(key)
                    del self.entity_lines[key]
                if line is not None:
                    edits.add[key] = self.entity_lines[key] = line
            if r is None:
                names.pop(cid, None)
            else:
                names[cid] = r.name
            if r is not None and lexicon is not None and lexicon.get(r.label, r.name) is not None:
                self.lexical.add(cid)
            else:
                self.lexical.discard(cid)
        return names

    def _taxonomy(self, edits: Edits, names: dict[str, str], lexicon: Lexicon | None) -> None:
        lines: dict[str, bytes] = {}
        if lexicon is not None:
            labels = _Labels(self.stats, names)
            added, edges = taxonomy({c: (labels[c], names[c]) for c in sorted(self.lexical)}, lexicon, names)
            lines = {node_key(n): node_line(n, attrs) for n, attrs in added.items()}
            lines.update((edge_key(u, v, k, attrs["type"]), edge_line(u, v, k, attrs))
                         for (u, v, k), attrs in edges.items())
        edits.diff(self.taxonomy_lines, lines)
        self.taxonomy_lines = lines

    def _papers(self, edits: Edits, new: list[Extraction], remap: dict[str, str], labels: _Labels, lexicon) -> None:
        """The new papers' lines, and the venue and author nodes they name first."""
        before: dict[str, tuple[str, bytes] | None] = {}
        for ex in new:
            part = paper_part(ex, remap, labels, lexicon)  # scoped already: the same again
            edits.add.update(_part_lines(part))
            for n, attrs in part.shared:
                first = self.shared.get(n)
                if first is None or ex.paper.id < first[0]:  # the smallest paper id names it
                    before.setdefault(n, first)
                    self.shared[n] = (ex.paper.id, node_line(n, attrs))
        for n, first in before.items():
            line = self.shared[n][1]
            if first is None or first[1] != line:
                edits.add[node_key(n)] = line
                if first is not None:
                    edits.drop.add(node_key(n))

    def to_tuple(self) -> tuple:
        """The state as builtins and arrays only: quick to pickle, and safe to unpickle."""
        keys: str | list[str] = "\n".join(self.keys)  # one string: much faster to store and read
        if keys.count("\n") != max(len(self.keys) - 1, 0):
            keys = self.keys
        stats = {eid: s.pack() for eid, s in self.stats.items()}
        return (keys, self.line_lens, stats, *(getattr(self, f.name) for f in fields(self)[3:]))

    @classmethod
    def from_tuple(cls, values: tuple) -> GraphState:
        keys, line_lens, stats, *rest = values
        if isinstance(keys, str):
            keys = keys.split("\n") if keys else []
        return cls(keys, line_lens, {eid: EntityStats.unpack(s) for eid, s in stats.items()}, *rest)


class _Labels(Mapping[str, str]):
    """The label of each canonical entity id: fixed by the id, kept in its stats."""

    def __init__(self, stats: dict[str, EntityStats], ids: dict[str, str]):
        self.stats, self.ids = stats, ids

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return self.stats[key].label if key in self.ids else default

    def __getitem__(self, key: str) -> str:
        if key not in self.ids:
            raise KeyError(key)
        return self.stats[key].label

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


class FolderState:
    """The index of a graph folder (see the module docstring): the papers in
    ``extractions.jsonl``, then the :class:`GraphState`, read only when papers are added."""

    def __init__(self, papers: list[str] | None = None, paper_lens: array | None = None,
                 graph: GraphState | bytes | None = None, folder: Path | None = None):
        self.papers = papers if papers is not None else []  # sorted ids: the lines of extractions.jsonl
        self.paper_lens = paper_lens if paper_lens is not None else array("Q")  # "\n" included
        self._graph = graph if graph is not None else GraphState()  # or its pickle, read when needed
        self.folder = folder  # the generation whose files the index describes, once loaded from it

    @property
    def graph(self) -> GraphState:
        if not isinstance(self._graph, GraphState):
            try:
                graph = GraphState.from_tuple(_Unpickler(io.BytesIO(self._graph)).load())
            except Exception as exc:  # a cache: whatever is wrong with it, the folder is rebuilt
                raise StaleState(f"{STATE_FILE}: {exc!r}") from None
            if len(graph.keys) != len(graph.line_lens) or sum(graph.line_lens) != _size(self.folder, GRAPH_FILE):
                raise StaleState(f"{STATE_FILE} does not describe {GRAPH_FILE}")
            self._graph = graph
        return self._graph

    def add(self, new: list[Extraction], lexicon: Lexicon | None) -> Edits:
        """Add papers not in the folder yet (sorted by id); return how the files change."""
        edits = self.graph.add(new, lexicon, self.extractions_of)
        edits.extractions = [(ex.paper.id, extraction_line(ex)) for ex in new]
        return edits

    # ------------------------------------------------------------ reading the folder

    def extractions_of(self, ids: Iterable[str]) -> dict[str, Extraction]:
        """The stored extractions of these papers (ids in the folder), parsed from their lines."""
        ids = [i for i in ids if self._index(i) is not None]
        if not ids:
            return {}
        if self.folder is None:
            raise StaleState("no folder to read extractions from")
        offsets = list(accumulate(self.paper_lens, initial=0))
        out = {}
        with open(self.folder / EXTRACTIONS_FILE, "rb") as fh, \
                mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for pid in ids:
                i = self._index(pid)
                d = orjson.loads(mm[offsets[i]:offsets[i + 1]])
                if d["paper"]["id"] != pid:
                    raise StaleState(f"{EXTRACTIONS_FILE} does not match the index")
                out[pid] = Extraction.from_json(d)
        return out

    def _index(self, pid: str) -> int | None:
        i = bisect_left(self.papers, pid)
        return i if i < len(self.papers) and self.papers[i] == pid else None

    def __contains__(self, pid: str) -> bool:
        return self._index(pid) is not None

    # ------------------------------------------------------------ persistence

    @classmethod
    def load(cls, folder: Path) -> FolderState | None:
        """The index of a folder's generation, or None when it is missing, is not signed with
        this user's key, or does not describe the files; the graph state is unpickled later,
        if needed. ``folder``: a graph folder or one of its generations."""
        folder = current(Path(folder))
        try:
            with open(folder / STATE_FILE, "rb") as fh:
                header = json.loads(fh.readline())
                payload = fh.read()
            if payload.endswith(b"\n"):  # the line end written after the payload
                payload = payload[:-1]
            if not isinstance(header, dict) or not signed(payload, header.pop("signature", "")):
                return None
            if header != _header(folder):
                return None
            buf = io.BytesIO(payload)
            papers, lens = _Unpickler(buf).load()
            if not isinstance(papers, list) or not isinstance(lens, array) or len(papers) != len(lens) \
                    or sum(lens) != header["extractions"]:
                return None
            return cls(papers, lens, payload[buf.tell():], folder)
        except Exception:  # a cache: whatever is wrong with it, the folder is rebuilt
            return None

    def payload(self) -> memoryview:
        """The state file after its header: the papers, then the graph state."""
        buf = io.BytesIO()
        pickle.dump((self.papers, self.paper_lens), buf, protocol=5)
        pickle.dump(self.graph.to_tuple(), buf, protocol=5)
        return buf.getbuffer()


def _size(folder: Path | None, name: str) -> int:
    return (folder / name).stat().st_size if folder is not None else 0


class _Unpickler(pickle.Unpickler):
    """Only the types the index is made of: a folder from elsewhere cannot run code."""

    ALLOWED = {("array", "array"), ("array", "_array_reconstructor")}

    def find_class(self, module: str, name: str):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a folder index")
        return super().find_class(module, name)


_fingerprint: str | None = None


def _code_fingerprint() -> str:
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256(str(STATE_FORMAT).encode())
        for name in _CODE:
            __import__(name)
            h.update(Path(sys.modules[name].__file__ or "").read_bytes())
        h.update((SCHEMA_DIR / "spelling.txt").read_bytes())  # resolution's spelling variants
        _fingerprint = h.hexdigest()
    return _fingerprint


def _header(folder: Path, manifest: bytes | None = None, sizes: tuple[int, int] | None = None) -> dict:
    """What ties an index to the folder: the code, the manifest written with it, file sizes."""
    if manifest is None:
        manifest = (folder / MANIFEST_FILE).read_bytes()
    if sizes is None:
        sizes = ((folder / EXTRACTIONS_FILE).stat().st_size, (folder / GRAPH_FILE).stat().st_size)
    return {"format": STATE_FORMAT, "code": _code_fingerprint(), "manifest": hashlib.sha256(manifest).hexdigest(),
            "extractions": sizes[0], "graph": sizes[1]}


def _lexicon_fingerprint(lexicon: Lexicon | None) -> str:
    if lexicon is None:
        return ""
    return hashlib.sha256(repr(lexicon.entries).encode()).hexdigest()


def _links(ex: Extraction) -> Iterator[str]:
    """Every id the paper's relations and results point at."""
    for r in ex.relations:
        if r.source != ex.paper.id:
            yield r.source
        yield r.target
    for res in ex.results:
        yield from (x for x in (res.get("method"), res.get("metric_id")) if x)
        yield from res.get("setting", ())


def _part_lines(part: PaperPart) -> dict[str, bytes]:
    lines = {node_key(n): node_line(n, attrs) for n, attrs in part.nodes.items()}
    lines.update((edge_key(u, v, k, attrs["type"]), edge_line(u, v, k, attrs)) for (u, v, k), attrs in part.edges.items())
    return lines


# ---------------------------------------------------------------- writing


class GraphFolder:
    """A graph folder opened for a build: which papers it holds, and adding papers to it.
    Open it holding the folder's lock (:func:`kg.io.generations.locked`)."""

    def __init__(self, path: Path, fresh: bool = False):
        self.path = Path(path)
        self.fresh = fresh
        self.state = FolderState()
        self.manifest: dict = {}  # of the generation read (checked), {} when fresh or empty
        self.src = check_folder(self.path, PUBLIC_FILES)  # the generation read; the folder is kg's to write
        self._all: dict[str, Extraction] | None = None  # every stored extraction, once the index failed
        if fresh or not (self.src / EXTRACTIONS_FILE).exists():
            return
        self.manifest = read_manifest(self.src)
        bad = mismatch(self.src, EXTRACTIONS_FILE, self.manifest)
        if bad not in (None, "unchecked"):
            raise GraphDamaged(f"{self.src / EXTRACTIONS_FILE}: {bad}; the stored extractions cannot be "
                               "used: build the folder again from its inputs with --fresh")
        state = None
        if bad is None and mismatch(self.src, GRAPH_FILE, self.manifest) is None:
            state = FolderState.load(self.src)
        if state is None:  # the graph is remade from the extractions (each line checked)
            self._load_all()
        else:
            self.state = state

    def _load_all(self) -> None:
        with _no_gc():
            self._all = {} if self.fresh else {e.paper.id: e for e in load_extractions(self.src)}

    def __len__(self) -> int:
        return len(self._all) if self._all is not None else len(self.state.papers)

    def papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        """The stored records of those of ``ids`` the folder holds."""
        ids = list(ids)
        if self._all is None:
            try:
                with _no_gc():
                    return {pid: ex.paper for pid, ex in self.state.extractions_of(ids).items()}
            except (StaleState, OSError, ValueError, KeyError, TypeError):
                self._load_all()
        assert self._all is not None
        return {i: self._all[i].paper for i in ids if i in self._all}

    def add(self, new: list[Extraction], sources: list[str], pipeline: str | None,
            lexicon: Lexicon | None) -> dict:
        """Store ``new`` (replacing stored papers with the same ids) and bring the graph and
        every file up to date in a new generation, all or nothing. Returns the manifest; the
        object is spent."""
        new = sorted({ex.paper.id: ex for ex in new}.values(), key=lambda ex: ex.paper.id)
        with _no_gc():
            try:
                return self._add(new, sources, pipeline, lexicon)
            finally:  # freed here, not by the collector once it runs again
                self.state, self._all = FolderState(), {}

    def _add(self, new: list[Extraction], sources: list[str], pipeline: str | None,
             lexicon: Lexicon | None) -> dict:
        if self._all is None and not any(ex.paper.id in self.state for ex in new):
            try:
                return self._write(self.state, self.state.add(new, lexicon), sources, pipeline)
            except (StaleState, OSError, ValueError):
                pass  # the files are not what the index says: rebuild from them
        if self._all is None:
            self._load_all()
        assert self._all is not None
        everything = {**self._all, **{ex.paper.id: ex for ex in new}}
        self._all = None
        self.state = FolderState()
        edits = self.state.add([everything[k] for k in sorted(everything)], lexicon)
        return self._write(self.state, edits, sources, pipeline)

    def _write(self, state: FolderState, edits: Edits, sources: list[str], pipeline: str | None) -> dict:
        """Write the folder as ``state`` after ``edits`` into a new generation; a file that
        does not change is a hard link to the one in the generation the state was read from."""
        graph = state.graph
        ex_pieces, papers, paper_lens = _merge(state.papers, state.paper_lens, (), edits.extractions)
        g_pieces, keys, line_lens = _merge(graph.keys, graph.line_lens, edits.drop, sorted(edits.add.items()))
        nodes = bisect_left(keys, "\x01")
        old, old_files = state.folder, self.manifest.get("files", {})
        with new_generation(self.path, PUBLIC_FILES, LEGACY_CACHES) as gen:
            files: dict[Path, Iterable[bytes | memoryview | str]] = {}
            records: dict[str, dict | Digest] = {}
            for name, pieces, lens, same in ((EXTRACTIONS_FILE, ex_pieces, state.paper_lens, not edits.extractions),
                                             (GRAPH_FILE, g_pieces, graph.line_lens, not (edits.drop or edits.add))):
                if same and old is not None and name in old_files and _link(old / name, gen / name):
                    records[name] = old_files[name]
                else:
                    records[name] = digest = Digest()
                    files[gen / name] = digest.lines(_lines(old / name if old is not None else None, lens, pieces))
            write_files(files)
            manifest = make_manifest(sources, len(papers), nodes, len(keys) - nodes, pipeline,
                                     {k: v.record() if isinstance(v, Digest) else v for k, v in records.items()},
                                     self.manifest)
            text = manifest_text(manifest)
            state.papers, state.paper_lens, graph.keys, graph.line_lens = papers, paper_lens, keys, line_lens
            header = _header(gen, text.encode() + b"\n", (sum(paper_lens), sum(line_lens)))
            write_files({gen / MANIFEST_FILE: [text], gen / STATE_FILE: _state_lines(header, state)})
        state.folder = gen
        return manifest


def _link(src: Path, dst: Path) -> bool:
    try:
        os.link(src, dst)
        return True
    except OSError:
        return False


Piece = tuple[int, int] | bytes  # a run of old lines by index, or a new line


def _merge(keys: list[str], lens: array, drop: Iterable[str], add: list[tuple[str, bytes]]
           ) -> tuple[list[Piece], list[str], array]:
    """A sorted file with lines dropped and added, by key: the pieces to write, and the new
    keys and line lengths."""
    gone = set()
    for key in drop:
        i = bisect_left(keys, key)
        if i == len(keys) or keys[i] != key:
            raise StaleState(f"no line {key!r} to replace")
        gone.add(i)
    drops = sorted(gone)
    pieces: list[Piece] = []
    new_keys: list[str] = []
    new_lens = array("Q")
    cursor = di = 0

    def keep(stop: int) -> None:  # old lines from cursor up to stop, less the dropped ones
        nonlocal cursor, di
        while cursor < stop:
            end = drops[di] if di < len(drops) and drops[di] < stop else stop
            if end > cursor:
                pieces.append((cursor, end))
                new_keys.extend(keys[cursor:end])
                new_lens.extend(lens[cursor:end])
            cursor = end + 1 if end < stop else stop
            di += end < stop

    for key, line in add:
        i = bisect_left(keys, key, cursor)
        if i < len(keys) and keys[i] == key and i not in gone:
            raise StaleState(f"line {key!r} added twice")
        keep(i)
        pieces.append(line)
        new_keys.append(key)
        new_lens.append(len(line) + 1)
    keep(len(keys))
    return pieces, new_keys, new_lens


def _lines(path: Path | None, lens: array, pieces: list[Piece]) -> Iterator[bytes | memoryview]:
    """The pieces as lines for :func:`kg.io.atomic.write_files`, old runs sliced from ``path``.
    The mapping is never closed by hand: it goes with the last slice of it, even when an
    exception holds on to one."""
    if any(isinstance(p, tuple) for p in pieces):
        if path is None:
            raise StaleState("old lines wanted from no file")
        with open(path, "rb") as fh:
            view = memoryview(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
        offsets = list(accumulate(lens, initial=0))
    for p in pieces:
        if isinstance(p, tuple):
            yield view[offsets[p[0]]:offsets[p[1]] - 1]  # write_files adds the last newline
        else:
            yield p


def _state_lines(header: dict, state: FolderState) -> Iterator[bytes | memoryview | str]:
    payload = state.payload()
    yield json.dumps({**header, "signature": sign(payload)})
    yield payload
