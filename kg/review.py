"""The review queue: the facts a person should check first, those whose confidence is nearest
0.5 and that touch the most papers, each with its evidence and the ``kg curate`` command that
rejects it.

A fact is an extracted edge or an entity node that carries a confidence (is it an entity of
its label at all?). Its weight is its uncertainty, ``1 - 2 * |confidence - 0.5|``, times the
papers it touches: an entity's own (``papers``), an edge's those of the entity it points at (an
edge to a paper touches one). Curated facts (``curated_by``) and facts from the record or the
lexicon (no ``paper``, no confidence) are never queued. Ties go by the ids, so the queue is the
same for the same graph.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("paper:p1", label="Paper", name="P1")
>>> G.add_node("method:a", label="Method", name="A", papers=40)
>>> G.add_node("method:b", label="Method", name="B", papers=1)
>>> _ = G.add_edge("paper:p1", "method:a", key="USES|p1", type="USES", paper="p1", confidence=0.55, evidence="We use A.")
>>> _ = G.add_edge("paper:p1", "method:b", key="USES|p1", type="USES", paper="p1", confidence=0.5, evidence="B.")
>>> [(i.target, i.weight) for i in queue(G)]
[('method:a', 36.0), ('method:b', 1.0)]
>>> queue(G)[0].reject_command()
'kg curate reject paper:p1 --type USES --target method:a --paper p1'
>>> G.nodes["method:b"]["confidence"] = 0.5
>>> [(i.kind, i.source, i.weight) for i in queue(G)][1], queue(G)[1].reject_command()
(('entity', 'method:b', 1.0), 'kg curate reject method:b')
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.confidence import KEPT

if TYPE_CHECKING:
    import networkx as nx

REVIEW_LIMIT = 25  # items kg review lists by default


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One fact to check: an extracted edge, or an entity (``kind`` "entity": ``source`` is
    the node, ``type`` its label, no target or paper), how uncertain it is, what it touches,
    and why."""

    source: str
    source_name: str
    type: str
    target: str
    target_name: str
    paper: str
    confidence: float
    papers: int
    weight: float
    evidence: str | None
    kind: str = "edge"

    def reject_command(self) -> str:
        """The ``kg curate`` command that records this fact as wrong."""
        if self.kind == "entity":
            return f"kg curate reject {shlex.quote(self.source)}"
        return " ".join(["kg curate reject", shlex.quote(self.source), "--type", self.type, "--target",
                         shlex.quote(self.target), "--paper", shlex.quote(self.paper)])

    def reject_fields(self) -> dict[str, str]:
        """The fields of that decision, for :meth:`kg.api.Graph.curate` ("reject")."""
        if self.kind == "entity":
            return {"node": self.source}
        return {"source": self.source, "type": self.type, "target": self.target, "paper": self.paper}


def queue(G: nx.MultiDiGraph, limit: int = REVIEW_LIMIT) -> list[ReviewItem]:
    """The ``limit`` facts of ``G`` most worth a person's look, first the heaviest."""
    items = []
    for u, v, d in G.edges(data=True):
        conf, paper = d.get("confidence"), d.get("paper")
        if paper is None or d.get("curated_by") or not isinstance(conf, int | float):
            continue
        target = G.nodes[v]
        papers = int(target.get("papers") or 1) if target.get("label") != "Paper" else 1
        weight = round((1.0 - 2.0 * abs(float(conf) - 0.5)) * max(papers, 1), 4)
        items.append(ReviewItem(u, G.nodes[u].get("name", u), d["type"], v, target.get("name", v), paper,
                                float(conf), papers, weight, d.get("evidence")))
    for n, d in G.nodes(data=True):
        conf = d.get("confidence")
        if d.get("label") in KEPT or d.get("curated_by") or not isinstance(conf, int | float):
            continue
        papers = int(d.get("papers") or 1)
        weight = round((1.0 - 2.0 * abs(float(conf) - 0.5)) * max(papers, 1), 4)
        items.append(ReviewItem(n, d.get("name", n), d.get("label", ""), "", "", "", float(conf), papers, weight,
                                None, "entity"))
    items.sort(key=lambda i: (-i.weight, i.source, i.type, i.target, i.paper))
    return items[:limit]
