"""Which nodes an HTML view shows: the whole graph, or the neighbourhood of a node, cut to
a number of nodes a browser lays out and draws interactively.

The rule, the same with or without a centre: nodes are ranked by their distance from the
centre (0 for every node without one), then by their number of distinct neighbours in the
whole graph (the best connected first), then by id; the first ``max_nodes`` are kept, and
every edge between two kept nodes.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("paper:p1", label="Paper", name="A paper")
>>> G.add_node("model:bert", label="Model", name="BERT", aliases=["bert-base"])
>>> G.add_node("task:qa", label="Task", name="QA")
>>> _ = G.add_edge("paper:p1", "model:bert", key="USES", type="USES")
>>> _ = G.add_edge("model:bert", "task:qa", key="ADDRESSES", type="ADDRESSES")
>>> find_nodes(G, "Bert-Base")
['model:bert']
>>> v = select_view(G, around="BERT", depth=1, max_nodes=2)
>>> v.nodes, v.centres, v.note
(['model:bert', 'paper:p1'], ['model:bert'], 'showing 2 of 3 nodes within 1 step of BERT: the nearest first, then the best connected')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.defaults import HTML_DEPTH, HTML_MAX_NODES
from kg.errors import UsageError

if TYPE_CHECKING:
    import networkx as nx

MAX_NODES = HTML_MAX_NODES  # kg.defaults
DEPTH = HTML_DEPTH


@dataclass(frozen=True)
class View:
    """The nodes shown (in rank order), the centres of a neighbourhood (empty for the whole
    graph), how many nodes the selection had before the cut, and the sentence saying so."""

    nodes: list[str]
    centres: list[str]
    candidates: int
    note: str


def find_nodes(G: nx.MultiDiGraph, name: str) -> list[str]:
    """The nodes ``name`` means, found as ``kg show`` finds them (an id, a name, a title or an
    alias; case, dashes and spacing do not matter); :class:`~kg.errors.NotFound` with ranked
    suggestions when none matches."""
    from kg.explore.lookup import find

    return [c.node.id for c in find(G, name)]


def _distances(G: nx.MultiDiGraph, centres: list[str], depth: int) -> dict[str, int]:
    dist = dict.fromkeys(centres, 0)
    frontier = list(centres)
    for step in range(1, depth + 1):
        nxt = []
        for n in frontier:
            for m in sorted({*G.successors(n), *G.predecessors(n)}):
                if m not in dist:
                    dist[m] = step
                    nxt.append(m)
        frontier = nxt
    return dist


def induced(H: nx.Graph, nodes) -> nx.Graph:
    """The undirected subgraph of ``H`` on ``nodes``, nodes and edges in sorted order. A
    networkx subgraph view iterates a set, whose order changes from one process to the next,
    and so would every layout computed on it.

    >>> import networkx as nx
    >>> list(induced(nx.path_graph(["c", "b", "a"]), {"a", "c", "b"}).edges())
    [('a', 'b'), ('b', 'c')]
    """
    import networkx as nx

    keep = set(nodes)
    S = nx.Graph()
    S.add_nodes_from(sorted(keep))
    S.add_edges_from(sorted((min(u, v), max(u, v), d) for u, v, d in H.edges(keep, data=True)
                            if u in keep and v in keep and u != v))
    return S


def degree(G: nx.MultiDiGraph, n: str) -> int:
    """Distinct neighbours of ``n``, whatever the direction or number of edges."""
    return len({*G.successors(n), *G.predecessors(n)})


def select_view(G: nx.MultiDiGraph, around: str | None = None, depth: int = DEPTH,
                max_nodes: int | None = MAX_NODES) -> View:
    """The nodes to show (see the module's rule); ``max_nodes`` None or 0 keeps them all."""
    if depth < 0:
        raise UsageError(f"depth must be 0 or more, not {depth}")
    if max_nodes is not None and max_nodes < 0:
        raise UsageError(f"the most nodes shown must be 0 (all) or more, not {max_nodes}")
    if around is not None:
        centres = find_nodes(G, around)
        dist = _distances(G, centres, depth)
    else:
        centres, dist = [], dict.fromkeys(G, 0)
    ranked = sorted(dist, key=lambda n: (dist[n], -degree(G, n), n))
    keep = ranked[:max_nodes] if max_nodes else ranked
    return View(keep, centres, len(ranked), _note(G, around, centres, depth, len(keep), len(ranked)))


def _note(G, around, centres, depth, shown, candidates) -> str:
    if around is None:
        where = ""
    else:
        who = str(G.nodes[centres[0]].get("name") or centres[0]) if len(centres) == 1 else (
            f"{len(centres)} nodes named {around!r}")
        where = f" within {depth} step{'s' if depth != 1 else ''} of {who}"
    if shown == candidates:
        return f"showing all {shown:,} nodes{where}"
    order = "the nearest first, then the best connected" if around is not None else (
        "the best connected (most distinct neighbours) first")
    return f"showing {shown:,} of {candidates:,} nodes{where}: {order}"
