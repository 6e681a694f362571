"""The parameters of a named query that name an entity or a paper, read as ``kg show`` reads a
name, and the defaults a query takes from the graph, said.

A shipped query compares a name with names and aliases in lower case, so ``low rank
adaptation`` or ``Speculative-Decoding`` found nothing where ``kg show`` finds LoRA and
speculative decoding. :func:`resolve_names` looks each such parameter up as ``kg show`` does
(:func:`kg.explore.lookup.find`: case, dashes, spacing, a plural, aliases) and passes the
query the name it found; a name that finds nothing is passed as given, with a warning that
names the closest nodes. :func:`kg.sinks.rdf.sparql.sparql_defaults` runs the part of a SPARQL query
that chooses a parameter left out, so the command can say which value the query took.

>>> from kg.graph import build_graph
>>> from kg.records import Entity, Extraction, Paper
>>> G = build_graph([Extraction(Paper("p", "x"), (Entity("method:lora", "Method", "LoRA", ("low-rank adaptation",)),))])
>>> r = resolve_names(G, "papers_using_technique", {"technique": "Low Rank Adaptation"})
>>> r.params, r.notes
({'technique': 'LoRA'}, ["technique: 'Low Rank Adaptation' is LoRA (Method), as kg show finds it"])
>>> resolve_names(G, "papers_using_technique", {"technique": "QLoRAx"}).warnings
["technique: no entity or paper named 'QLoRAx'; did you mean: LoRA (Method)? The query runs with it as given"]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kg.errors import NotFound

if TYPE_CHECKING:
    import networkx as nx

#: the parameters of shipped queries (both languages) that name an entity, or a paper by title
ENTITY_PARAMS: dict[str, tuple[str, ...]] = {
    "papers_using_technique": ("technique",),
    "edge_evidence": ("source", "target"),
    "taxonomy": ("name",),
    "paper_neighbourhood": ("title",),
}


@dataclass
class Resolved:
    """The parameters to bind, what was read differently (``notes``) and what found nothing
    (``warnings``)."""

    params: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def resolve_names(G: nx.MultiDiGraph, query: str, params: Mapping[str, Any]) -> Resolved:
    """``params`` with each that names an entity or paper in query ``query`` (a shipped name)
    replaced by the name ``kg show`` finds for it; see the module's description."""
    from kg.explore.lookup import find

    out = Resolved(dict(params))
    for p in ENTITY_PARAMS.get(query, ()):
        value = out.params.get(p)
        if not isinstance(value, str) or not value.strip():
            continue
        try:
            found = find(G, value)
        except NotFound as exc:
            msg = str(exc)
            out.warnings.append(f"{p}: {msg}{' ' if msg.endswith('?') else '. '}The query runs with it as given")
            continue
        node = found[0].node
        d = G.nodes[node.id]
        name = str(d.get("title") or node.name) if node.label == "Paper" else node.name
        if name != value:
            out.params[p] = name
            out.notes.append(f"{p}: {value!r} is {name} ({node.label}), as kg show finds it")
    return out


__all__ = ["ENTITY_PARAMS", "Resolved", "resolve_names"]
