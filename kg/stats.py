"""Graph statistics: pure functions over the graph, each returning plain data.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("paper:a", label="Paper", name="A"); G.add_node("paper:b", label="Paper", name="B")
>>> G.add_node("technique:rl", label="Technique", name="reinforcement learning")
>>> _ = G.add_edge("paper:a", "technique:rl", type="USES"); _ = G.add_edge("paper:b", "technique:rl", type="USES")
>>> nodes_per_label(G)
{'Paper': 2, 'Technique': 1}
>>> edges_per_type(G)
{'USES': 2}
>>> components(G)["count"], components(G)["largest"]
(1, 3)
>>> top_entities(G, k=1)["Technique"][0]["name"]
'reinforcement learning'
"""

from __future__ import annotations

import statistics
from collections import Counter
from itertools import combinations
from typing import Any

import networkx as nx

from kg.schema import ENTITY_LABELS, PAIR_MIN_PAPERS


def nodes_per_label(G: nx.MultiDiGraph) -> dict[str, int]:
    return dict(sorted(Counter(d["label"] for _, d in G.nodes(data=True)).items()))


def edges_per_type(G: nx.MultiDiGraph) -> dict[str, int]:
    return dict(sorted(Counter(d["type"] for _, _, d in G.edges(data=True)).items()))


def density(G: nx.MultiDiGraph) -> float:
    """Density of the simple graph underneath (multi-edges counted once)."""
    n = G.number_of_nodes()
    if n < 2:
        return 0.0
    simple = {(u, v) for u, v in G.edges()}
    return len(simple) / (n * (n - 1))


def components(G: nx.MultiDiGraph) -> dict[str, Any]:
    """Weakly connected components: count, largest, and size histogram of the rest."""
    sizes = sorted((len(c) for c in nx.weakly_connected_components(G)), reverse=True)
    return {"count": len(sizes), "largest": sizes[0] if sizes else 0,
            "largest_share": round(sizes[0] / G.number_of_nodes(), 4) if sizes else 0.0,
            "isolated": sum(1 for s in sizes if s == 1),
            "sizes": dict(sorted(Counter(sizes).items())) if len(sizes) <= 50 else
            {"1": sizes.count(1), "2-10": sum(1 for s in sizes if 2 <= s <= 10),
             ">10": sum(1 for s in sizes if s > 10)}}


def degree_distribution(G: nx.MultiDiGraph, labels: tuple[str, ...] = ENTITY_LABELS) -> dict[str, Any]:
    """Degree summary of entity nodes, with a log2-binned histogram."""
    degs = [G.degree(n) for n, d in G.nodes(data=True) if d["label"] in labels]
    if not degs:
        return {"count": 0}
    hist: Counter = Counter()
    for d in degs:
        b = 1
        while b * 2 <= d:
            b *= 2
        hist[f"{b}-{b * 2 - 1}" if b > 1 else "1" if d == 1 else "0"] += 1
    order = sorted(hist, key=lambda k: int(k.split("-")[0]))
    return {"count": len(degs), "min": min(degs), "median": statistics.median(degs),
            "mean": round(statistics.fmean(degs), 3), "max": max(degs),
            "histogram": {k: hist[k] for k in order}}


def pagerank(G: nx.MultiDiGraph) -> dict[str, float]:
    """PageRank over the undirected simple graph (an entity is central when papers share it)."""
    if G.number_of_nodes() == 0:
        return {}
    H = nx.Graph()
    H.add_nodes_from(G.nodes)
    H.add_edges_from((u, v) for u, v in G.edges() if u != v)
    try:
        return nx.pagerank(H, max_iter=200)
    except (nx.PowerIterationFailedConvergence, ModuleNotFoundError):
        return {n: 0.0 for n in G}


def top_entities(G: nx.MultiDiGraph, k: int = 10, pr: dict[str, float] | None = None) -> dict[str, list[dict]]:
    """Per entity label, the ``k`` entities found in the most papers, with degree and PageRank."""
    pr = pagerank(G) if pr is None else pr
    out: dict[str, list[dict]] = {}
    for label in ENTITY_LABELS:
        nodes = [(n, d) for n, d in G.nodes(data=True) if d["label"] == label]
        if not nodes:
            continue
        nodes.sort(key=lambda nd: (-nd[1].get("papers", 0), -G.degree(nd[0]), nd[0]))
        out[label] = [{"id": n, "name": d["name"], "papers": d.get("papers", 0),
                       "degree": G.degree(n), "pagerank": round(pr.get(n, 0.0), 6)}
                      for n, d in nodes[:k]]
    return out


def ranked(rows: list[dict]) -> list[dict]:
    """The rows of a ranking by papers that rank something: those named by more than one paper.
    Entities named by one paper each tie, and an order among them (by degree, then id) would
    read as a ranking the data does not make.

    >>> [r["name"] for r in ranked([{"name": "a", "papers": 3}, {"name": "b", "papers": 1}])]
    ['a']
    >>> ranked([{"name": "b", "papers": 1}])
    []
    """
    return [r for r in rows if r.get("papers", 0) > 1]


def paper_entities(G: nx.MultiDiGraph, paper: str) -> set[str]:
    """The entities a paper node links to: directly (PROPOSES, MENTIONS, its own roles) and
    through what it proposes (the roles the paper states for its proposal: edges that name it)."""
    pid = paper.split(":", 1)[1]
    out = set()
    for _, v, d in G.out_edges(paper, data=True):
        if G.nodes[v]["label"] in ENTITY_LABELS:
            out.add(v)
            if d.get("type") == "PROPOSES":
                out.update(w for _, w, e in G.out_edges(v, data=True)
                           if e.get("paper") == pid and G.nodes[w]["label"] in ENTITY_LABELS)
    return out


def coverage(G: nx.MultiDiGraph) -> dict[str, Any]:
    """How many papers have at least one entity, a PROPOSES edge, code, and each label."""
    papers = [n for n, d in G.nodes(data=True) if d["label"] == "Paper"]
    with_label: dict[str, int] = Counter()
    empty, proposes, code = [], 0, 0
    for p in papers:
        labels = {G.nodes[v]["label"] for v in paper_entities(G, p)}
        types = {d["type"] for _, _, d in G.out_edges(p, data=True)}
        for lab in labels:
            with_label[lab] += 1
        if not labels:
            empty.append(p)
        proposes += "PROPOSES" in types
        code += "HAS_CODE" in types
    n = len(papers) or 1
    return {"papers": len(papers), "with_entities": len(papers) - len(empty),
            "with_proposes": proposes, "with_code": code,
            "share_with_entities": round((len(papers) - len(empty)) / n, 4),
            "share_with_proposes": round(proposes / n, 4),
            "per_label": {lab: with_label[lab] for lab in ENTITY_LABELS if with_label[lab]},
            "without_entities": sorted(empty)[:20], "without_entities_count": len(empty)}


def summary(G: nx.MultiDiGraph, k: int = 10) -> dict[str, Any]:
    """Everything ``kg stats`` shows, as one JSON-ready dict."""
    return {
        "nodes": G.number_of_nodes(),
        "edges": G.number_of_edges(),
        "nodes_per_label": nodes_per_label(G),
        "edges_per_type": edges_per_type(G),
        "density": round(density(G), 8),
        "components": components(G),
        "degree": degree_distribution(G),
        "coverage": coverage(G),
        "top": top_entities(G, k),
    }


def paper_technique_pairs(uses: dict[str, set[str]], proposes: dict[str, list[str]], papers: set[str]) -> Counter:
    """Pairs of techniques counted once per paper that uses both: what a paper uses is what its
    own USES edges and those of the entities it proposes point at (``uses``: node -> techniques,
    ``proposes``: paper -> entities)."""
    counts: Counter = Counter()
    for p in papers:
        used = set(uses.get(p, ()))
        for m in proposes.get(p, ()):
            used |= uses.get(m, set())
        if len(used) > 1:
            counts.update(combinations(sorted(used), 2))
    return counts


def technique_pairs(G: nx.MultiDiGraph, min_papers: int = PAIR_MIN_PAPERS,
                    counts: Counter | None = None) -> list[tuple[str, str, int]]:
    """``(technique, technique, papers)`` for every pair of techniques that at least
    ``min_papers`` papers use (a paper uses what its USES edges, or those of what it proposes,
    point at), ids in order, sorted by ids.

    >>> G = nx.MultiDiGraph()
    >>> for n, lab in [("paper:a", "Paper"), ("paper:b", "Paper"), ("technique:x", "Technique"),
    ...                ("technique:y", "Technique"), ("technique:z", "Technique")]:
    ...     G.add_node(n, label=lab)
    >>> for p, t in [("a", "x"), ("a", "y"), ("a", "y"), ("b", "y"), ("b", "x"), ("b", "z")]:
    ...     _ = G.add_edge(f"paper:{p}", f"technique:{t}", type="USES")
    >>> technique_pairs(G)
    [('technique:x', 'technique:y', 2)]
    """
    if counts is None:  # (kg.sinks.rdf.nt counts them while writing the edges)
        nodes, succ = G._node, G._succ
        techniques = {n for n, d in nodes.items() if d.get("label") == "Technique"}
        uses: dict[str, set[str]] = {}
        proposes: dict[str, list[str]] = {}
        for u, adj in succ.items():
            for v, keys in adj.items():
                for e in keys.values():
                    if e.get("type") == "USES" and v in techniques:
                        uses.setdefault(u, set()).add(v)
                    elif e.get("type") == "PROPOSES":
                        proposes.setdefault(u, []).append(v)
        papers = {n for n, d in nodes.items() if d.get("label") == "Paper"}
        counts = paper_technique_pairs(uses, proposes, papers)
    return sorted((a, b, c) for (a, b), c in counts.items() if c >= min_papers)
