"""The graph: a networkx MultiDiGraph with typed nodes and edges, persisted in a folder.

The folder (default ``exports/``) holds

- ``extractions.jsonl``: one ``kg extract`` record per paper, sorted by paper id. Building
  again merges new papers into it, and the graph is rebuilt from all of them, so an
  incremental build equals a one-shot build of the same papers.
- ``graph.jsonl``: nodes then edges, sorted, one JSON object per line: what ``kg stats``,
  ``kg export`` and ``kg load`` read.
- ``manifest.json``: tool version, sources, counts and build time.

Every file is written to a temporary name and renamed, so an interrupted or failed write
leaves the previous graph intact.

>>> from kg.records import Paper, Entity, Relation, Extraction
>>> ex = Extraction(Paper("p1", "We use BERT.", venue="ICML 2024", year=2024),
...                 (Entity("model:bert", "Model", "BERT"),),
...                 (Relation("USES", "p1", "model:bert"),))
>>> G = build_graph([ex])
>>> sorted(G.nodes)
['model:bert', 'paper:p1', 'venue:icml-2024']
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import orjson

from kg.errors import ExportError, GraphNotFoundError
from kg.extract.lexicon import Lexicon
from kg.records import Extraction
from kg.resolve import resolve
from kg.schema import LABELS, MENTION_RELATION, RELATIONS
from kg.text import entity_id, fold, short_hash

GRAPH_FILE = "graph.jsonl"
EXTRACTIONS_FILE = "extractions.jsonl"
MANIFEST_FILE = "manifest.json"
DEFAULT_DIR = Path("exports")


def paper_node(paper_id: str) -> str:
    return f"paper:{paper_id}"


def build_graph(extractions: Iterable[Extraction], lexicon: Lexicon | None = None) -> nx.MultiDiGraph:
    """Resolve entities across papers and assemble the typed graph."""
    extractions = sorted(extractions, key=lambda e: e.paper.id)
    entities, remap = resolve(extractions, lexicon)
    G = nx.MultiDiGraph()
    for eid in sorted(entities):
        r = entities[eid]
        attrs: dict[str, Any] = {"label": r.label, "name": r.name, "papers": len(r.papers)}
        if r.aliases:
            attrs["aliases"] = r.aliases
        allowed = {prop.name for prop in LABELS[r.label].props}
        for k, v in sorted(r.props.items()):
            if k in allowed:  # a model merged into a Dataset keeps no "family"
                attrs[k] = v
        G.add_node(eid, **attrs)
    for ex in extractions:
        p = ex.paper
        pid = paper_node(p.id)
        attrs = {"label": "Paper", "name": p.title or p.id, "title": p.title, "abstract": p.abstract}
        for k in ("year", "url", "source"):
            if getattr(p, k) is not None:
                attrs[k] = getattr(p, k)
        G.add_node(pid, **attrs)
        if p.venue:
            vid = entity_id("Venue", p.venue)
            if vid not in G:
                vattrs = {"label": "Venue", "name": p.venue}
                if p.year:
                    vattrs["year"] = p.year
                G.add_node(vid, **vattrs)
            G.add_edge(pid, vid, key="PUBLISHED_IN", type="PUBLISHED_IN", rule="record", confidence=1.0)
        for author in p.authors:
            aid = entity_id("Author", author)
            if aid not in G:
                G.add_node(aid, label="Author", name=author)
            G.add_edge(aid, pid, key="AUTHORED", type="AUTHORED", rule="record", confidence=1.0)
        for r in ex.relations:
            src = pid if r.source == p.id else remap.get(r.source, r.source)
            dst = remap.get(r.target, r.target)
            if src == dst or src not in G or dst not in G:
                continue
            rtype = _retype(r.type, G.nodes[src]["label"], G.nodes[dst]["label"])
            if rtype is None:
                continue
            key = f"{rtype}|{p.id}"
            if G.has_edge(src, dst, key):
                continue
            attrs = {"type": rtype, "paper": p.id, "rule": r.rule, "confidence": r.confidence}
            if r.evidence is not None:
                attrs.update(evidence=r.evidence.text, start=r.evidence.start, end=r.evidence.end)
                if r.evidence.field != "abstract":
                    attrs["field"] = r.evidence.field
            G.add_edge(src, dst, key=key, **attrs)
        for res in ex.results:
            add_result(G, p.id, pid, res, remap)
    if lexicon is not None:
        add_taxonomy(G, lexicon)
    return G


def add_result(G: nx.MultiDiGraph, paper_id: str, pid: str, res: dict, remap: dict[str, str]) -> None:
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
    G.add_node(rid, **attrs)
    prov = {"paper": paper_id, "rule": "result", "confidence": 0.6, "evidence": res["evidence"]["text"],
            "start": res["evidence"]["start"], "end": res["evidence"]["end"]}
    G.add_edge(pid, rid, key="REPORTS", type="REPORTS", **prov)
    links = [("ACHIEVED_BY", res.get("method")), ("ON_METRIC", res.get("metric_id"))]
    links += [("IN_SETTING", e) for e in res.get("setting", ())]
    for rtype, target in links:
        target = remap.get(target, target) if target else None
        if target and target in G and G.nodes[target]["label"] in RELATIONS[rtype].range:
            G.add_edge(rid, target, key=rtype, type=rtype, **prov)


def _retype(rtype: str, src_label: str, dst_label: str) -> str | None:
    """The relation type that fits the labels after resolution: a mention edge follows the
    target's final label (a Task resolved into a Technique is USED, not ADDRESSED); a model
    whose family resolved to a non-model is BROADER than it; anything else that breaks the
    schema's domain or range is dropped."""
    if rtype in ("USES", "ADDRESSES", "EVALUATED_ON", "MEASURES") and dst_label in MENTION_RELATION:
        rtype = MENTION_RELATION[dst_label] if dst_label != "Repository" else "HAS_CODE"
    elif rtype == "VARIANT_OF" and dst_label != "Model":
        rtype = "BROADER"
    rel = RELATIONS[rtype]
    return rtype if src_label in rel.domain and dst_label in rel.range else None


def add_taxonomy(G: nx.MultiDiGraph, lexicon: Lexicon) -> None:
    """BROADER edges (VARIANT_OF between model families) from the lexicon, with their ancestors."""
    todo = [n for n, d in G.nodes(data=True) if d["label"] not in ("Paper", "Venue", "Author", "Repository")]
    seen = set(todo)
    while todo:
        node = todo.pop()
        d = G.nodes[node]
        entry = lexicon.get(d["label"], d["name"])
        if entry is None:
            continue
        for parent in entry.broader:
            pe = lexicon.get(entry.label, parent) or lexicon.lookup(parent)
            label, name = (pe.label, pe.name) if pe else (entry.label, parent)
            pid = entity_id(label, fold(name) or name)
            if pid == node:
                continue
            if pid not in G:
                G.add_node(pid, label=label, name=name, papers=0)
            rel = "VARIANT_OF" if entry.label == "Model" and label == "Model" else "BROADER"
            G.add_edge(node, pid, key=rel, type=rel, rule="lexicon", confidence=1.0)
            if pid not in seen:
                seen.add(pid)
                todo.append(pid)


# ---------------------------------------------------------------- persistence


def _dumps(obj: dict) -> bytes:
    """One JSON line: keys sorted, UTF-8, no spaces (orjson: several times faster than json)."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def graph_lines(G: nx.MultiDiGraph) -> Iterator[bytes]:
    """The graph as sorted JSON lines: the persisted form, byte-stable for the same graph."""
    for n in sorted(G.nodes):
        yield _dumps({"kind": "node", "id": n, **G.nodes[n]})
    for u, v, k, d in sorted(G.edges(keys=True, data=True), key=lambda e: (e[0], e[3]["type"], e[1], e[2])):
        yield _dumps({"kind": "edge", "source": u, "target": v, "key": k, **d})


def _umask() -> int:
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


def _stage(path: Path, lines: Iterable[bytes | str]) -> Path:
    """Write lines to a temporary file beside ``path``; return the temporary path."""
    with _temp_beside(path, "wb") as (fh, tmp):
        for line in lines:
            fh.write(line if isinstance(line, bytes) else line.encode("utf-8"))
            fh.write(b"\n")
    return tmp


def write_files(files: dict[Path, Iterable[bytes | str]]) -> None:
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


def save(folder: Path, G: nx.MultiDiGraph, extractions: list[Extraction], sources: list[str],
         pipeline: str | None = None) -> dict:
    """Persist extractions, graph and manifest, all or nothing. Returns the manifest."""
    from kg import __version__

    folder = Path(folder)
    ex_sorted = sorted(extractions, key=lambda e: e.paper.id)
    old = read_manifest(folder) if (folder / MANIFEST_FILE).exists() else {}
    manifest = {
        "tool": "kg",
        "version": __version__,
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", time.time())))),
        "sources": sorted(set(old.get("sources", [])) | {os.path.basename(s) for s in sources}),
        "papers": len(ex_sorted),
        "nodes": G.number_of_nodes(),
        "edges": G.number_of_edges(),
    }
    if pipeline:
        manifest["pipeline"] = pipeline  # e.g. rules-1, or rules-1+ner-scier-1 (GPL-3.0-derived model)
    write_files({
        folder / EXTRACTIONS_FILE: (_dumps(e.to_json()) for e in ex_sorted),
        folder / GRAPH_FILE: graph_lines(G),
        folder / MANIFEST_FILE: [json.dumps(manifest, indent=2, sort_keys=True)],
    })
    return manifest


def read_manifest(folder: Path) -> dict:
    try:
        return json.loads((Path(folder) / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def load_extractions(folder: Path) -> list[Extraction]:
    path = Path(folder) / EXTRACTIONS_FILE
    if not path.exists():
        return []
    with path.open("rb") as fh:
        return [Extraction.from_json(orjson.loads(line)) for line in fh if line.strip()]


def load_graph(folder: Path) -> nx.MultiDiGraph:
    """Read ``graph.jsonl`` from a graph folder."""
    path = Path(folder) / GRAPH_FILE
    if not path.exists():
        raise GraphNotFoundError(f"no graph in {folder}/ (missing {GRAPH_FILE}); "
                                 f"build one first: kg build PAPERS -o {folder}")
    G = nx.MultiDiGraph()
    with path.open("rb") as fh:
        for no, line in enumerate(fh, 1):
            try:
                d = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise GraphNotFoundError(f"{path}:{no}: corrupt graph file; rebuild it with kg build") from None
            if d.pop("kind") == "node":
                G.add_node(d.pop("id"), **d)
            else:
                G.add_edge(d.pop("source"), d.pop("target"), key=d.pop("key"), **d)
    return G

