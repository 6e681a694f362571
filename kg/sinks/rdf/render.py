"""RDF text of a graph: subject blocks (:mod:`.triples`) rendered as N-Triples, Turtle or
JSON-LD with the export's :class:`~kg.sinks.rdf.terms.TermWriter`; N-Triples of the data take
the fast path (:mod:`.nt`), which writes the same bytes.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("technique:rl", label="Technique", name='say "RL"')
>>> print(nt_lines(G, void=False)[1])
<https://w3id.org/kg/technique/rl> <http://purl.org/dc/terms/identifier> "technique:rl" .
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator

import networkx as nx

from kg.sinks.rdf.ontology import jsonld_context
from kg.sinks.rdf.terms import DEFAULT_BASE, SURROGATES, A, TermWriter, check_base
from kg.sinks.rdf.triples import Stats, blocks, class_blocks, pair_blocks, void_blocks


def nt_chunks(w: TermWriter, blocks_: Iterable) -> Iterator[str]:
    for s, pairs in blocks_:
        subj = w.nt(s)
        yield "".join(f"{subj} {w.nt(p)} {w.nt(o)} .\n" for p, o in pairs)

def ttl_chunks(w: TermWriter, blocks_: Iterable) -> Iterator[str]:
    yield "".join(f"@prefix {k}: <{v}> .\n" for k, v in w.ns.items()) + "\n"
    for s, pairs in blocks_:
        out, prev = [w.ttl(s)], None
        for p, o in pairs:
            if p == prev:
                out.append(", " + w.ttl(o))
            else:
                out.append((" " if prev is None else " ;\n    ") + ("a" if p == A else w.ttl(p))
                           + " " + w.ttl(o))
            prev = p
        out.append(" .\n\n")
        yield "".join(out)

def jsonld_chunks(w: TermWriter, blocks_: Iterable) -> Iterator[str]:
    ctx = dict(jsonld_context()["@context"])
    ctx.update({k: v for k, v in w.ns.items() if k not in ctx})
    terms: dict[str, tuple[str, str | None]] = {}  # predicate CURIE -> (term, coercion)
    for term, v in ctx.items():
        if isinstance(v, dict):
            terms.setdefault(v["@id"], (term, v.get("@type", "@set")))
        elif ":" in v and not v.startswith(("http:", "https:")):
            terms.setdefault(v, (term, None))
    classes = {v: k for k, v in ctx.items() if isinstance(v, str) and k[:1].isupper()}
    yield '{\n  "@context": ' + json.dumps(ctx, ensure_ascii=False) + ',\n  "@graph": [\n'
    first = True
    for s, pairs in blocks_:
        node: dict = {"@id": f"{s[0]}:{s[1]}"}
        for p, o in pairs:
            c = f"{p[0]}:{p[1]}"
            if p == A:
                oc = f"{o[0]}:{o[1]}"
                node.setdefault("@type", []).append(classes.get(oc, oc))
                continue
            key, value = w.jsonld_value(c, o, terms)
            node.setdefault(key, []).append(value)
        node = {k: v[0] if isinstance(v, list) and len(v) == 1 else v for k, v in node.items()}
        yield ("    " if first else ",\n    ") + json.dumps(node, ensure_ascii=False).translate(SURROGATES)
        first = False
    yield "\n  ]\n}\n"


def rdf_chunks(G: nx.MultiDiGraph, fmt: str, base: str = DEFAULT_BASE, manifest: dict | None = None,
               stats: Stats | None = None, void: bool = True) -> Iterator[str]:
    """Text of an ``nt``, ``ttl`` or ``jsonld`` export, in chunks: the data, the technique
    pairs, the class axioms SHACL needs (:func:`~kg.sinks.rdf.triples.class_blocks`), the VoID."""
    base = check_base(base)
    stats = stats if stats is not None else Stats()
    w = TermWriter(base)
    if fmt == "nt":  # the same bytes as rendering blocks(), several times faster: see kg.sinks.rdf.nt
        from kg.sinks.rdf.nt import nt_data_chunks

        pairs: Counter = Counter()
        yield from nt_data_chunks(G, base, stats, pairs)
        yield from nt_chunks(w, pair_blocks(G, stats, pairs))
        yield from nt_chunks(w, class_blocks(stats))
        if void:
            yield from nt_chunks(w, void_blocks(stats, base, manifest or {}))
        return

    def all_blocks():
        yield from blocks(G, stats)
        yield from pair_blocks(G, stats)
        yield from class_blocks(stats)
        if void:
            yield from void_blocks(stats, base, manifest or {})

    render = {"nt": nt_chunks, "ttl": ttl_chunks, "jsonld": jsonld_chunks}[fmt]
    yield from render(w, all_blocks())


def nt_lines(G: nx.MultiDiGraph, base: str = DEFAULT_BASE, void: bool = True) -> list[str]:
    """N-Triples lines of a (small) graph, for tests and examples."""
    return "".join(rdf_chunks(G, "nt", base, void=void)).splitlines()
