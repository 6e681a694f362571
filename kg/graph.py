"""The graph: a networkx MultiDiGraph with typed nodes and edges, persisted in a folder.

The folder (default ``exports/``) holds

- ``extractions.jsonl``: one ``kg extract`` record per paper, sorted by paper id. Building
  again merges new papers into it, and the graph is made again as from all of them, so an
  incremental build equals a one-shot build of the same papers.
- ``graph.jsonl``: nodes then edges, sorted, one JSON object per line: what ``kg stats``,
  ``kg export`` and ``kg load`` read.
- ``manifest.json``: tool version, sources, counts and build time.
- ``state.pickle``: an index of the above that lets ``kg build`` add papers without
  rebuilding the rest (:mod:`kg.io.folder`); it is checked before use, and may be deleted.

The manifest records the size and SHA-256 of ``extractions.jsonl`` and ``graph.jsonl``;
readers check them, so a file changed or cut after it was written is an error, never a smaller
graph. A build writes all files into a new generation of the folder and switches to it with
one rename (:mod:`kg.io.generations`): a reader, or a build killed at any point, sees the old
graph or the new one, never a mix.

>>> from kg.records import Paper, Entity, Relation, Extraction
>>> ex = Extraction(Paper("p1", "We use BERT.", venue="ICML 2024", year=2024),
...                 (Entity("model:bert", "Model", "BERT"),),
...                 (Relation("USES", "p1", "model:bert"),))
>>> G = build_graph([ex])
>>> sorted(G.nodes)
['model:bert', 'paper:p1', 'venue:icml-2024']
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from kg.confidence import check_threshold, cut
from kg.curate import CurationReport, apply_folder
from kg.defaults import GRAPH_DIR, MIN_CONFIDENCE
from kg.errors import GraphDamaged, GraphNotFoundError
from kg.extract.lexicon import Lexicon
from kg.io.atomic import write_files
from kg.io.generations import META, Digest, current, locked, mismatch, new_generation
from kg.records import Extraction
from kg.resolve import Resolved, resolve
from kg.schema import LABELS, RELATIONS, fit_relation
from kg.senses import scope
from kg.text import entity_id, fold, short_hash

if TYPE_CHECKING:  # networkx is imported where a graph is made: building a folder needs none
    import networkx as nx

GRAPH_FILE = "graph.jsonl"
EXTRACTIONS_FILE = "extractions.jsonl"
MANIFEST_FILE = "manifest.json"
#: the files at the top of a graph folder, linked into its current generation
PUBLIC_FILES = (GRAPH_FILE, EXTRACTIONS_FILE, MANIFEST_FILE)
#: caches an older kg kept at the top of the folder: stale once the folder has generations
LEGACY_CACHES = ("state.pickle", "graph.nt", "graph.nt.json")
DEFAULT_DIR = GRAPH_DIR  # kg.defaults


def paper_node(paper_id: str) -> str:
    return f"paper:{paper_id}"


Attrs = dict[str, Any]
EdgeId = tuple[str, str, str]  # (source, target, key)


def build_graph(extractions: Iterable[Extraction], lexicon: Lexicon | None = None) -> nx.MultiDiGraph:
    """Resolve entities across papers and assemble the typed graph."""
    import networkx as nx

    extractions = sorted(extractions, key=lambda e: e.paper.id)
    entities, remap = resolve(extractions, lexicon)
    labels = {eid: r.label for eid, r in entities.items()}
    G = nx.MultiDiGraph()
    for eid in sorted(entities):
        G.add_node(eid, **entity_attrs(entities[eid]))
    for ex in extractions:
        part = paper_part(ex, remap, labels, lexicon)
        for n, attrs in part.shared:
            if n not in G:  # venues and authors: the first paper's spelling
                G.add_node(n, **attrs)
        for n, attrs in part.nodes.items():
            G.add_node(n, **attrs)
        for (u, v, k), attrs in part.edges.items():
            G.add_edge(u, v, key=k, **attrs)
    if lexicon is not None:
        add_taxonomy(G, lexicon)
    return G


def entity_attrs(r: Resolved) -> Attrs:
    """The node of a resolved entity."""
    attrs: Attrs = {"label": r.label, "name": r.name, "papers": len(r.papers)}
    if r.aliases:
        attrs["aliases"] = r.aliases
    allowed = _ALLOWED[r.label]
    for k, v in sorted(r.props.items()):
        if k in allowed:  # a model merged into a Dataset keeps no "family"
            attrs[k] = v
    return attrs


_ALLOWED = {label: frozenset(prop.name for prop in spec.props) for label, spec in LABELS.items()}
_RECORD = {"rule": "record", "confidence": 1.0}


@dataclass
class PaperPart:
    """What one paper adds to the graph once its entity ids are resolved: its own nodes (the
    paper, its results) and edges, and the venue and author nodes it names, which are shared
    with other papers (the smallest paper id's spelling names them)."""

    nodes: dict[str, Attrs] = field(default_factory=dict)
    edges: dict[EdgeId, Attrs] = field(default_factory=dict)
    shared: list[tuple[str, Attrs]] = field(default_factory=list)


def paper_part(ex: Extraction, remap: Mapping[str, str], labels: Mapping[str, str],
               lexicon: Lexicon | None = None) -> PaperPart:
    """The paper's share of the graph. ``remap`` maps extracted ids, once the paper's short
    forms are scoped with ``lexicon`` (:func:`kg.senses.scope`, as resolution read them), to
    canonical ids and ``labels`` gives every canonical entity's label; nothing else about
    other papers matters."""
    ex = scope(ex, lexicon)
    p = ex.paper
    pid = paper_node(p.id)
    part = PaperPart()
    attrs: Attrs = {"label": "Paper", "name": p.title or p.id, "title": p.title, "abstract": p.abstract}
    for k in ("year", "url", "pdf", "area", "source"):
        if getattr(p, k) is not None:
            attrs[k] = getattr(p, k)
    if p.keywords:
        attrs["keywords"] = list(p.keywords)
    part.nodes[pid] = attrs
    if p.venue:
        vid = entity_id("Venue", p.venue)
        vattrs: Attrs = {"label": "Venue", "name": p.venue}
        if p.year:
            vattrs["year"] = p.year
        part.shared.append((vid, vattrs))
        part.edges[(pid, vid, "PUBLISHED_IN")] = {"type": "PUBLISHED_IN", **_RECORD}
    for author in p.authors:
        aid = entity_id("Author", author)
        if (aid, pid, "AUTHORED") not in part.edges:
            part.shared.append((aid, {"label": "Author", "name": author}))
            part.edges[(aid, pid, "AUTHORED")] = {"type": "AUTHORED", **_RECORD}

    def label(n: str) -> str | None:
        return "Paper" if n == pid else labels.get(n)

    for r in ex.relations:
        src = pid if r.source == p.id else remap.get(r.source, r.source)
        dst = remap.get(r.target, r.target)
        src_label, dst_label = label(src), label(dst)
        if src == dst or src_label is None or dst_label is None:
            continue
        rtype = fit_relation(r.type, src_label, dst_label)
        if rtype is None:
            continue
        key = f"{rtype}|{p.id}"
        if (src, dst, key) in part.edges:
            continue
        attrs = {"type": rtype, "paper": p.id, "rule": r.rule, "confidence": r.confidence}
        if r.evidence is not None:
            attrs.update(evidence=r.evidence.text, start=r.evidence.start, end=r.evidence.end)
            if r.evidence.field != "abstract":
                attrs["field"] = r.evidence.field
        part.edges[(src, dst, key)] = attrs
    for res in ex.results:
        _add_result(part, p.id, pid, res, remap, label)
    return part


def _add_result(part: PaperPart, paper_id: str, pid: str, res: dict, remap: Mapping[str, str],
                label: Callable[[str], str | None]) -> None:
    """A Result node for a numeric claim, linked to its paper, method, metric and setting."""
    rid = f"result:{short_hash(paper_id, 10)}-{res['start']}"
    name = " ".join(x for x in (res.get("qualifier"), res["text"], res.get("metric")) if x)
    attrs = {"label": "Result", "name": name, "value": res["value"], "sentence": res["evidence"]["text"],
             "valueStart": res["start"], "valueEnd": res["end"]}
    for k in ("unit", "direction", "qualifier"):
        if res.get(k) is not None:
            attrs[k] = res[k]
    if res.get("metric"):  # not "metric": node ids use label prefixes such as metric:
        attrs["measure"] = res["metric"]
    part.nodes.setdefault(rid, {}).update(attrs)
    prov = {"paper": paper_id, "rule": "result", "confidence": 0.6, "evidence": res["evidence"]["text"],
            "start": res["evidence"]["start"], "end": res["evidence"]["end"]}
    part.edges.setdefault((pid, rid, "REPORTS"), {}).update(type="REPORTS", **prov)
    links = [("ACHIEVED_BY", res.get("method")), ("ON_METRIC", res.get("metric_id"))]
    links += [("IN_SETTING", e) for e in res.get("setting", ())]
    for rtype, target in links:
        target = remap.get(target, target) if target else None
        if target and label(target) in RELATIONS[rtype].range:
            part.edges.setdefault((rid, target, rtype), {}).update(type=rtype, **prov)


def add_taxonomy(G: nx.MultiDiGraph, lexicon: Lexicon) -> None:
    """BROADER edges (VARIANT_OF between model families) from the lexicon, with their ancestors."""
    nodes = {n: (d["label"], d["name"]) for n, d in G.nodes(data=True)
             if d["label"] not in ("Paper", "Venue", "Author", "Repository", "Result")}
    added, edges = taxonomy(nodes, lexicon)
    for n, attrs in added.items():
        G.add_node(n, **attrs)
    for (u, v, k), attrs in edges.items():
        G.add_edge(u, v, key=k, **attrs)


def taxonomy(entities: Mapping[str, tuple[str, str]], lexicon: Lexicon, others: Container[str] = ()
             ) -> tuple[dict[str, Attrs], dict[EdgeId, Attrs]]:
    """The lexicon's BROADER and VARIANT_OF edges above ``entities`` ({id: (label, name)}, in
    graph order), with the ancestor nodes they add: (new nodes, edges). Entities the lexicon
    does not know may be left out of ``entities`` and given as ``others``: they add nothing,
    but an ancestor with their id is their node, not a new one."""
    known = dict(entities)
    added: dict[str, Attrs] = {}
    edges: dict[EdgeId, Attrs] = {}
    todo = list(entities)
    seen = set(todo)
    while todo:
        node = todo.pop()
        entry = lexicon.get(*known[node])
        if entry is None:
            continue
        for parent in entry.broader:
            pe = lexicon.get(entry.label, parent) or lexicon.lookup(parent)
            label, name = (pe.label, pe.name) if pe else (entry.label, parent)
            pid = entity_id(label, fold(name) or name)
            if pid == node:
                continue
            if pid not in known and pid not in others:
                known[pid] = (label, name)
                added[pid] = {"label": label, "name": name, "papers": 0}
            rel = "VARIANT_OF" if entry.label == "Model" and label == "Model" else "BROADER"
            edges[(node, pid, rel)] = {"type": rel, "rule": "lexicon", "confidence": 1.0}
            if pid not in seen and pid not in others:
                seen.add(pid)
                todo.append(pid)
    return added, edges


# ---------------------------------------------------------------- persistence


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
    report = apply_folder(G, where) if curate else CurationReport()
    if curation is not None:
        curation.append(report)
    cut(G, min_confidence)
    return G
