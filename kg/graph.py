"""The graph: a networkx MultiDiGraph with typed nodes and edges, built from extractions.

:func:`build_graph` resolves entities across papers (:mod:`kg.resolve`) and assembles the typed
graph; :func:`paper_part` is one paper's share of it, which :mod:`kg.io.folder` rewrites alone
when a build adds papers. The folder the graph is kept in is :mod:`kg.io.format`.

>>> from kg.records import Paper, Entity, Relation, Extraction
>>> ex = Extraction(Paper("p1", "We use BERT.", venue="ICML 2024", year=2024),
...                 (Entity("model:bert", "Model", "BERT"),),
...                 (Relation("USES", "p1", "model:bert"),))
>>> G = build_graph([ex])
>>> sorted(G.nodes)
['model:bert', 'paper:p1', 'venue:icml-2024']
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kg.lexicon import Lexicon
from kg.records import Extraction
from kg.resolve import Resolved, resolve
from kg.schema import LABELS, RELATIONS, fit_relation
from kg.senses import scope
from kg.text import entity_id, fold, short_hash

if TYPE_CHECKING:  # networkx is imported where a graph is made: building a folder needs none
    import networkx as nx

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
