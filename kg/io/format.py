"""The graph folder's files: their names, their lines, the manifest, and the graph saved and
read back, checked.

The folder (default ``exports/``) holds

- ``extractions.jsonl``: one ``kg extract`` record per paper, sorted by paper id. Building
  again merges new papers into it, and the graph is made again as from all of them, so an
  incremental build equals a one-shot build of the same papers.
- ``graph.jsonl``: nodes then edges, sorted, one JSON object per line: what ``kg stats``,
  ``kg export`` and ``kg load`` read.
- ``manifest.json``: tool version, sources, counts and build time.
- ``curation.jsonl``: a person's decisions about the graph (:mod:`kg.curate`), at the top of
  the folder, outside its generations: :func:`load_graph` applies them to the graph it reads.
- ``state.pickle``: an index of the above that lets ``kg build`` add papers without
  rebuilding the rest (:mod:`kg.io.folder`); it is checked before use, and may be deleted.

The manifest records the size and SHA-256 of ``extractions.jsonl`` and ``graph.jsonl``;
readers check them, so a file changed or cut after it was written is an error, never a smaller
graph. A build writes all files into a new generation of the folder and switches to it with
one rename (:mod:`kg.io.generations`): a reader, or a build killed at any point, sees the old
graph or the new one, never a mix.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from kg.confidence import check_threshold, cut
from kg.curate import CURATION_FILE, CurationReport, apply, read
from kg.defaults import GRAPH_DIR, MIN_CONFIDENCE
from kg.errors import GraphDamaged, GraphNotFoundError
from kg.io.atomic import write_files
from kg.io.generations import META, Digest, current, locked, mismatch, new_generation
from kg.records import Extraction

if TYPE_CHECKING:  # networkx is imported where a graph is read: building a folder needs none
    import networkx as nx

GRAPH_FILE = "graph.jsonl"
EXTRACTIONS_FILE = "extractions.jsonl"
MANIFEST_FILE = "manifest.json"
#: the files at the top of a graph folder, linked into its current generation
PUBLIC_FILES = (GRAPH_FILE, EXTRACTIONS_FILE, MANIFEST_FILE)
#: caches an older kg kept at the top of the folder: stale once the folder has generations
LEGACY_CACHES = ("state.pickle", "graph.nt", "graph.nt.json")
DEFAULT_DIR = GRAPH_DIR  # kg.defaults

Attrs = dict[str, Any]



def _dumps(obj: dict) -> bytes:
    """One JSON line: keys sorted, UTF-8, no spaces (orjson: several times faster than json).

    orjson's bytes keep their 4 KB write buffer (measured: 4,097 bytes held for a 66-byte line),
    and a build keeps graph lines in memory, so each is copied to its own size."""
    return bytes(memoryview(orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)))


def extraction_line(ex: Extraction) -> bytes:
    """A paper's line in ``extractions.jsonl``."""
    return _dumps(ex.to_json())


def node_line(n: str, attrs: Attrs) -> bytes:
    return _dumps({"kind": "node", "id": n, **attrs})


def edge_line(u: str, v: str, k: str, attrs: Attrs) -> bytes:
    return _dumps({"kind": "edge", "source": u, "target": v, "key": k, **attrs})


def node_key(n: str) -> str:
    """Where a node's line sorts in ``graph.jsonl``: nodes by id, before every edge."""
    return "\x00" + n


def edge_key(u: str, v: str, k: str, rtype: str) -> str:
    """Where an edge's line sorts: by source, type, target and key (ids hold no NUL)."""
    return f"\x01{u}\x00{rtype}\x00{v}\x00{k}"


def graph_lines(G: nx.MultiDiGraph) -> Iterator[bytes]:
    """The graph as sorted JSON lines: the persisted form, byte-stable for the same graph."""
    for n in sorted(G.nodes):
        yield node_line(n, G.nodes[n])
    for u, v, k, d in sorted(G.edges(keys=True, data=True), key=lambda e: (e[0], e[3]["type"], e[1], e[2])):
        yield edge_line(u, v, k, d)


def save(folder: Path, G: nx.MultiDiGraph, extractions: list[Extraction], sources: list[str],
         pipeline: str | None = None) -> dict:
    """Persist extractions, graph and manifest as a new generation of ``folder``, all or
    nothing (replacing what it held). Returns the manifest."""
    folder = Path(folder)
    ex_sorted = sorted(extractions, key=lambda e: e.paper.id)
    with locked(folder), new_generation(folder, PUBLIC_FILES, LEGACY_CACHES) as gen:
        dx, dg = Digest(), Digest()
        write_files({gen / EXTRACTIONS_FILE: dx.lines(extraction_line(e) for e in ex_sorted),
                     gen / GRAPH_FILE: dg.lines(graph_lines(G))})
        manifest = make_manifest(sources, len(ex_sorted), G.number_of_nodes(), G.number_of_edges(), pipeline,
                                 {EXTRACTIONS_FILE: dx.record(), GRAPH_FILE: dg.record()})
        write_files({gen / MANIFEST_FILE: [manifest_text(manifest)]})
    return manifest


def make_manifest(sources: list[str], papers: int, nodes: int, edges: int, pipeline: str | None = None,
                  files: dict[str, dict] | None = None, before: dict | None = None) -> dict:
    """The manifest of a build: its sources add to those of the manifest ``before`` it;
    ``files`` gives the size and checksum of each data file."""
    from kg.version import __version__

    manifest = {
        "tool": "kg",
        "version": __version__,
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", time.time())))),
        "sources": sorted(set((before or {}).get("sources", [])) | {os.path.basename(s) for s in sources}),
        "papers": papers,
        "nodes": nodes,
        "edges": edges,
    }
    if pipeline:
        manifest["pipeline"] = pipeline  # e.g. rules-1, or rules-1+ner-scier-1 (GPL-3.0-derived model)
    if files:
        manifest["files"] = dict(sorted(files.items()))
    return manifest


def manifest_text(manifest: dict) -> str:
    return json.dumps(manifest, indent=2, sort_keys=True)


def read_manifest(folder: Path) -> dict:
    """The manifest of a graph folder (its current generation), or {} when there is none; a
    manifest that cannot be read is a :class:`~kg.errors.GraphDamaged`, never an empty one."""
    path = current(Path(folder)) / MANIFEST_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise GraphDamaged(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GraphDamaged(f"{path}: damaged ({exc}); build the folder again from its inputs with --fresh") from None
    if not isinstance(manifest, dict):
        raise GraphDamaged(f"{path}: damaged (not a JSON object); build the folder again from its inputs with --fresh")
    return manifest


def checked(folder: Path, name: str, manifest: dict | None = None) -> Path:
    """``name`` in the folder's current generation, when it is the file its manifest
    describes (or the manifest is an older kg's, without checksums); else
    :class:`~kg.errors.GraphDamaged` saying how to repair it."""
    where = current(Path(folder))
    manifest = read_manifest(where) if manifest is None else manifest
    bad = mismatch(where, name, manifest)
    if bad is not None and bad != "unchecked":
        top = where.parent.parent if where.parent.name == META else Path(folder)  # the graph folder, not its generation
        fix = ("build the folder again from its inputs with --fresh" if name == EXTRACTIONS_FILE else
               f"kg build INPUTS -o {top} remakes it from the stored extractions")
        raise GraphDamaged(f"{where / name}: {bad}; {fix}")
    return where / name


def load_extractions(folder: Path) -> list[Extraction]:
    """Every stored extraction of a graph folder, checked against its manifest."""
    path = current(Path(folder)) / EXTRACTIONS_FILE
    if not path.exists():
        return []
    path = checked(folder, EXTRACTIONS_FILE)
    out = []
    with path.open("rb") as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(Extraction.from_json(orjson.loads(line)))
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise GraphDamaged(f"{path}:{no}: damaged record ({type(exc).__name__}); build the folder "
                                   "again from its inputs with --fresh") from None
    return out


def curation_path(folder: Path) -> Path:
    """The curation file of a graph folder (also when given one of its generations): it stays
    at the top of the folder, outside the generations, so it is kept across rebuilds."""
    folder = Path(folder)
    if folder.parent.name == META:  # .kg/gNNNNNN: the graph folder is two levels up
        folder = folder.parent.parent
    return folder / CURATION_FILE


def curation_fingerprint(folder: Path) -> str:
    """What identifies the folder's curation, for caches of the curated graph ("" when none)."""
    try:
        data = curation_path(folder).read_bytes()
    except OSError:
        return ""
    return "curation:" + hashlib.sha256(data).hexdigest()


def apply_curation(G: nx.MultiDiGraph, folder: Path) -> CurationReport:
    """Apply the folder's curation file (:mod:`kg.curate`) to ``G``, its resolved graph
    (nothing when there is none)."""
    path = curation_path(folder)
    if not path.exists():
        return CurationReport()
    skipped: list[str] = []
    report = apply(G, read(path, skipped))
    return CurationReport(report.applied, report.stale, tuple(skipped))


def load_graph(folder: Path, curation: list[CurationReport] | None = None, curate: bool = True,
               min_confidence: float = MIN_CONFIDENCE) -> nx.MultiDiGraph:
    """Read ``graph.jsonl`` from a graph folder, checked against its manifest, with the
    folder's curation decisions applied unless not ``curate`` (:mod:`kg.curate`; what they
    did is appended to ``curation`` when given), less the facts below ``min_confidence``
    (:func:`kg.confidence.cut`)."""
    check_threshold(min_confidence)
    where = current(Path(folder))
    if not (where / GRAPH_FILE).exists():
        raise GraphNotFoundError(f"no graph in {folder}/ (missing {GRAPH_FILE}); "
                                 f"build one first: kg build PAPERS -o {folder}")
    import networkx as nx

    manifest = read_manifest(where)
    path = checked(where, GRAPH_FILE, manifest)
    G = nx.MultiDiGraph()
    with path.open("rb") as fh:
        for no, line in enumerate(fh, 1):
            try:
                d = orjson.loads(line)
                if d.pop("kind") == "node":
                    G.add_node(d.pop("id"), **d)
                else:
                    G.add_edge(d.pop("source"), d.pop("target"), key=d.pop("key"), **d)
            except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
                raise GraphDamaged(f"{path}:{no}: damaged graph file; kg build INPUTS -o {folder} remakes it "
                                   "from the stored extractions") from None
    if "files" in manifest and (G.number_of_nodes(), G.number_of_edges()) != (manifest.get("nodes"), manifest.get("edges")):
        raise GraphDamaged(f"{path}: {G.number_of_nodes()} nodes and {G.number_of_edges()} edges where the manifest "
                           f"says {manifest.get('nodes')} and {manifest.get('edges')}")
    report = apply_curation(G, where) if curate else CurationReport()
    if curation is not None:
        curation.append(report)
    cut(G, min_confidence)
    return G
