"""The graph as RDF subject blocks, one subject at a time, and the rules of what stays out.

RDF is written with plain string formatting, one subject at a time, straight from the
networkx graph: no rdflib Graph is built, and memory beyond the graph itself stays constant.
Output is byte-identical for the same graph, base IRI and manifest.

IRIs and literals come from :mod:`kg.sinks.rdf.terms`.

Provenance. Each extracted edge (one with a source ``paper``) also becomes an
``rdf:Statement`` (RDF reification) described with PROV-O: ``rdf:subject/predicate/object``,
``prov:wasDerivedFrom`` the paper, and ``kg:evidence``, ``kg:startOffset``, ``kg:endOffset``,
``kg:rule``, ``kg:confidence``. The plain triple ``<s> kg:uses <o>`` is asserted once, so
queries that ignore provenance stay simple. Reification was chosen over RDF-star because it
is plain RDF 1.1: rdflib and pySHACL do not read RDF-star, and pyoxigraph 0.5 moved from
RDF-star to RDF 1.2 triple terms, whose syntax and semantics differ. Every engine, the SHACL
shapes and the shipped SPARQL queries handle statements as ordinary resources. Edges from the
record (``PUBLISHED_IN``, ``AUTHORED``) or the lexicon (``BROADER``) are not reified.

Only what the schema allows is exported: properties a label does not declare and edges
whose endpoints fall outside the relation's domain or range are skipped and counted in
:attr:`ExportResult.skipped` (the CLI prints them), so every export conforms to the shapes.

Speed (full graph, 23,545 papers, 2.6M triples, 2 busy cores; ``bench/RESULTS.md``): N-Triples
2.6 s (written by :mod:`kg.sinks.rdf.nt`), Turtle 6.0 s; rdflib's ``Graph.serialize`` of the same
triples takes 13.2 s (N-Triples) and 77.5 s (Turtle), after 67 s to build the Graph.

Derived statistics. After the data come ``kg:TechniquePair`` resources
(``pair/<technique>--<technique>``): two ``kg:hasTechnique`` values and the number of papers that
use both (``kg:papers``), for pairs at least two papers share. Counting co-used techniques at
query time joins every technique use with every other (about 1.6 s on the full graph); read
from the pairs, the same answer takes milliseconds.

Class axioms. Then the ontology's ``rdfs:subClassOf`` axioms for each class the data uses
(:func:`class_blocks`): the shapes' ``sh:class kg:Entity`` needs them, and SHACL looks for
subclasses in the data graph only, so an export conforms without the ontology.

A VoID description closes each RDF file: triple count (of the data, without the VoID),
entity counts per class, triples per property, sources, build time and tool version from
``manifest.json``.

Serialised by :mod:`kg.sinks.rdf.render`.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import networkx as nx

from kg.schema import EDGE_PROPS, LABELS, PAIR, PAIR_MEMBER, RELATIONS
from kg.sinks.rdf.ontology import edge_prop_curie, prop_curie
from kg.sinks.rdf.terms import (
    STATEMENT,
    A,
    Iri,
    Lit,
    Term,
    curie,
    literal,
    node_term,
)
from kg.stats import technique_pairs

DERIVED = curie(edge_prop_curie("paper"))


# ---------------------------------------------------------------- what stays out of an export

# The rules that keep an export inside the schema, with the reason each skip is counted
# under; both writers (the blocks below and the fast N-Triples path) apply these.


def unknown_label(label) -> str:
    return f"nodes with unknown label {label!r}"


def bad_value(label: str, name: str, datatype: str) -> str:
    return f"{label}.{name} values that are not {datatype}"


def unknown_property(label: str, key: str) -> str:
    return f"{label}.{key} properties (not in the schema for {label})"


MISSING_PAPER = "edge provenance naming a paper that is not in the graph"


def bad_edge_value(name: str, datatype: str) -> str:
    return f"edge {name} values that are not {datatype}"


def edge_relation(etype, label, target_label):
    """The schema relation of an edge between nodes of these labels, and None; or None and
    why the edge stays out (an unknown type, or labels outside its domain or range)."""
    rel = RELATIONS.get(etype)
    if rel is None:
        return None, f"edges of unknown type {etype!r}"
    if label not in rel.domain or target_label not in rel.range:
        return None, f"{rel.name} edges {label}→{target_label} (outside the schema's domain/range)"
    return rel, None


@dataclass
class Stats:
    """Counts collected while writing: they feed the VoID description and the report."""

    predicates: Counter = field(default_factory=Counter)
    classes: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)

    @property
    def triples(self) -> int:
        return sum(self.predicates.values())


def _node_specs() -> dict[str, list[tuple[str, Iri, str]]]:
    return {lab.name: [(p.name, curie(prop_curie(p)), p.datatype, p.required) for p in lab.props]
            for lab in LABELS.values()}


EDGE_SPECS = [(p.name, curie(prop_curie(p)), p.datatype) for p in EDGE_PROPS if p.name != "paper"]


def _node_pairs(nid: str, d: dict, specs, stats: Stats) -> list[tuple[Iri, Term]] | None:
    label = d.get("label")
    spec = specs.get(label)
    if spec is None:
        stats.skipped[unknown_label(label)] += 1
        return None
    stats.classes[label] += 1
    pairs: list[tuple[Iri, Term]] = [(A, ("kg", label))]
    known = {"label"}
    for name, pred, dt, required in spec:
        known.add(name)
        value = nid if name == "id" else d.get(name)
        if value is None or value == [] or (value == "" and not required):
            continue
        values = (list(dict.fromkeys(value)) if isinstance(value, list | tuple) else [value]) \
            if dt == "string[]" else [value]
        for v in values:
            lit = literal(v, dt)
            if lit is None:
                stats.skipped[bad_value(label, name, dt)] += 1
            else:
                pairs.append((pred, lit))
    for k in d:
        if k not in known:
            stats.skipped[unknown_property(label, k)] += 1
    return pairs


def _statement(u: str, v: str, k, d: dict, rel_pred: Iri, G: nx.MultiDiGraph,
               stats: Stats) -> tuple[Iri, list[tuple[Iri, Term]]] | None:
    paper = f"paper:{d['paper']}"
    if paper not in G:
        stats.skipped[MISSING_PAPER] += 1
        return None
    digest = hashlib.blake2b(f"{u}\0{d['type']}\0{v}\0{k}".encode("utf-8", "surrogatepass"),
                             digest_size=8).hexdigest()
    pairs: list[tuple[Iri, Term]] = [(A, ("rdf", "Statement")), (STATEMENT[0], node_term(u)),
                                     (STATEMENT[1], rel_pred), (STATEMENT[2], node_term(v)),
                                     (DERIVED, node_term(paper))]
    for name, pred, dt in EDGE_SPECS:
        if d.get(name) is not None:
            lit = literal(d[name], dt)
            if lit is None:
                stats.skipped[bad_edge_value(name, dt)] += 1
            else:
                pairs.append((pred, lit))
    stats.classes["Statement"] += 1
    return ("statement", digest), pairs


def blocks(G: nx.MultiDiGraph, stats: Stats) -> Iterator[tuple[Iri, list[tuple[Iri, Term]]]]:
    """The graph as (subject, [(predicate, object)]) blocks, in a deterministic order.

    Each node gives one block (properties, then one triple per distinct relation and
    target), followed by one block per provenance statement of its outgoing edges.
    """
    specs = _node_specs()
    for n in sorted(G.nodes):
        d = G.nodes[n]
        pairs = _node_pairs(n, d, specs, stats)
        if pairs is None:
            continue
        subject = node_term(n)
        stmts = []
        seen: set[tuple[Iri, Iri]] = set()
        out = sorted(G.out_edges(n, keys=True, data=True), key=lambda e: (str(e[3].get("type")), e[1], str(e[2])))
        for u, v, k, ed in out:
            rel, why = edge_relation(ed.get("type"), d["label"], G.nodes[v].get("label"))
            if rel is None:
                stats.skipped[why] += 1
                continue
            pred = ("kg", rel.prop)
            obj = node_term(v)
            if (pred, obj) not in seen:
                seen.add((pred, obj))
                pairs.append((pred, obj))
            if ed.get("paper") is not None:
                st = _statement(u, v, k, ed, pred, G, stats)
                if st is not None:
                    stmts.append(st)
        for p, _ in pairs:
            stats.predicates[p] += 1
        yield subject, pairs
        for s, sp in stmts:
            for p, _ in sp:
                stats.predicates[p] += 1
            yield s, sp


def pair_blocks(G: nx.MultiDiGraph, stats: Stats,
                counts: Counter | None = None) -> Iterator[tuple[Iri, list[tuple[Iri, Term]]]]:
    """One ``kg:TechniquePair`` block per pair of :func:`technique_pairs`, after the data.

    Its IRI joins the two techniques' local names with ``--``, which slugs never contain."""
    member = ("kg", PAIR_MEMBER[0])
    papers = curie(prop_curie(PAIR.props[0]))
    cls = ("kg", PAIR.name)
    for a, b, c in technique_pairs(G, counts=counts):
        ta, tb = node_term(a), node_term(b)
        pairs = [(A, cls), (member, ta), (member, tb), (papers, Lit(str(c), "xsd:integer"))]
        stats.classes[PAIR.name] += 1
        for p, _ in pairs:
            stats.predicates[p] += 1
        yield ("pair", f"{ta[1]}--{tb[1]}"), pairs


def class_blocks(stats: Stats) -> Iterator[tuple[Iri, list[tuple[Iri, Term]]]]:
    """The ``rdfs:subClassOf`` axioms of the ontology for each class the data uses, after the
    data (call after consuming :func:`blocks` and :func:`pair_blocks`).

    The shapes say ``sh:class kg:Entity`` and SHACL follows ``rdfs:subClassOf`` in the data
    graph only: with these triples an export conforms on its own, without the ontology."""
    sub = curie("rdfs:subClassOf")
    for label in sorted(stats.classes):
        lab = LABELS.get(label)
        if lab is None:  # statements and technique pairs: no superclass
            continue
        supers = ([f"kg:{lab.parent}"] if lab.parent else []) + list(lab.equivalent)
        if supers:
            stats.predicates[sub] += len(supers)
            yield ("kg", label), [(sub, curie(c)) for c in supers]


def void_blocks(stats: Stats, base: str, manifest: dict) -> Iterator[tuple[Iri, list[tuple[Iri, Term]]]]:
    """The VoID description of what :func:`blocks` produced (call after consuming it)."""
    from kg.version import __version__

    ds = ("kgdata", "void")
    triples = stats.triples
    entities = sum(v for k, v in stats.classes.items() if k not in ("Statement", PAIR.name))
    pairs: list[tuple[Iri, Term]] = [
        (A, ("void", "Dataset")),
        (curie("dcterms:title"), Lit("kg knowledge graph of machine-learning research")),
        (curie("dcterms:description"), Lit("Entities and relations extracted from paper abstracts by kg, "
                                        "with the provenance of every extracted edge.")),
    ]
    built = str(manifest.get("built", ""))
    built_ok = bool(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$", built))
    if built_ok:
        pairs.append((curie("dcterms:created"), Lit(built, "xsd:dateTime")))
    pairs += [(curie("dcterms:source"), Lit(str(s))) for s in manifest.get("sources", [])]
    pairs += [(curie("void:uriSpace"), Lit(base)), (curie("void:vocabulary"), ("kg", ""))]
    pairs += [(curie("void:vocabulary"), (p, "")) for p in ("dcterms", "prov", "schema", "skos")]
    pairs += [(curie("void:triples"), Lit(str(triples), "xsd:integer")),
              (curie("void:entities"), Lit(str(entities), "xsd:integer")),
              (curie("void:classes"), Lit(str(len(stats.classes)), "xsd:integer")),
              (curie("void:properties"), Lit(str(len(stats.predicates)), "xsd:integer"))]
    parts = []
    for label in sorted(stats.classes):
        cls = ("rdf", "Statement") if label == "Statement" else ("kg", label)
        parts.append(((curie("void:classPartition")), ("kgdata", f"void-class-{label}"),
                      [(curie("void:class"), cls), (curie("void:entities"), Lit(str(stats.classes[label]), "xsd:integer"))]))
    for pred in sorted(stats.predicates):
        parts.append((curie("void:propertyPartition"), ("kgdata", f"void-property-{pred[0]}-{pred[1]}"),
                      [(curie("void:property"), pred),
                       (curie("void:triples"), Lit(str(stats.predicates[pred]), "xsd:integer"))]))
    pairs += [(p, s) for p, s, _ in parts]
    pairs.append((curie("prov:wasGeneratedBy"), ("kgdata", "void-build")))
    yield ds, pairs
    yield from ((s, sp) for _, s, sp in parts)
    build: list[tuple[Iri, Term]] = [(A, ("prov", "Activity")), (curie("prov:wasAssociatedWith"), ("kgdata", "void-tool"))]
    if built_ok:
        build.append((curie("prov:endedAtTime"), Lit(built, "xsd:dateTime")))
    yield ("kgdata", "void-build"), build
    yield ("kgdata", "void-tool"), [(A, ("prov", "SoftwareAgent")), (curie("rdfs:label"), Lit("kg")),
                                    (curie("schema:softwareVersion"), Lit(str(manifest.get("version", __version__))))]
