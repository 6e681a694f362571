"""Views by confidence: the graph without the facts whose ``confidence`` is below a threshold.

An edge carries the confidence of its extraction (curated ones 1.0; edges from the record or
the lexicon 1.0); an entity node carries one where a score exists: the surest of its papers'
readings with a learned pipeline (calibrated, :mod:`kg.calibration`), 1.0 for a curated entity.
A cut drops the facts below the threshold, then the entities and results the cut left with no
edge at all, so no node stands in a view without a fact that holds it there. Papers, venues
and authors always stay. The default (:data:`kg.defaults.MIN_CONFIDENCE`) keeps everything.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("paper:p1", label="Paper", name="P1")
>>> G.add_node("method:a", label="Method", name="A")
>>> G.add_node("method:b", label="Method", name="B")
>>> _ = G.add_edge("paper:p1", "method:a", key="USES|p1", type="USES", confidence=0.9)
>>> _ = G.add_edge("paper:p1", "method:b", key="USES|p1", type="USES", confidence=0.4)
>>> cut(G, 0.5)
Cut(min_confidence=0.5, edges=1, nodes=1)
>>> sorted(G)
['method:a', 'paper:p1']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.errors import UsageError

if TYPE_CHECKING:
    import networkx as nx

#: nodes a view never drops: they are the record, not a reading of it
KEPT = frozenset({"Paper", "Venue", "Author"})


@dataclass(frozen=True, slots=True)
class Cut:
    """What a cut dropped."""

    min_confidence: float
    edges: int = 0
    nodes: int = 0


def check_threshold(p: float) -> float:
    """``p`` when it is a threshold in [0, 1], else :class:`~kg.errors.UsageError`."""
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
        raise UsageError(f"a minimum confidence is a number from 0 to 1, not {p!r}")
    return float(p)


def cut(G: nx.MultiDiGraph, min_confidence: float) -> Cut:
    """Drop from ``G`` (in place) the nodes and edges whose ``confidence`` is below
    ``min_confidence``, then the entities and results left with no edge by the cut."""
    p = check_threshold(min_confidence)
    if p <= 0.0:
        return Cut(p)
    low_nodes = [n for n, d in G.nodes(data=True)
                 if d.get("label") not in KEPT and _below(d.get("confidence"), p)]
    low_edges = [(u, v, k) for u, v, k, d in G.edges(keys=True, data=True) if _below(d.get("confidence"), p)]
    touched = {n for u, v, _ in low_edges for n in (u, v)} | {m for n in low_nodes for m in G.adj[n]} \
        | {m for n in low_nodes for m in G.pred[n]}
    before = G.number_of_nodes(), G.number_of_edges()
    G.remove_edges_from(low_edges)
    G.remove_nodes_from(low_nodes)
    G.remove_nodes_from(sorted(n for n in touched if n in G and G.degree(n) == 0
                               and G.nodes[n].get("label") not in KEPT))
    return Cut(p, before[1] - G.number_of_edges(), before[0] - G.number_of_nodes())


def _below(conf: object, p: float) -> bool:
    return isinstance(conf, int | float) and not isinstance(conf, bool) and conf < p
