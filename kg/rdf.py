"""Export the graph as RDF (N-Triples, Turtle, JSON-LD), GraphML or Neo4j CSV.

RDF is written with plain string formatting, one subject at a time, straight from the
networkx graph: no rdflib Graph is built, and memory beyond the graph itself stays constant.
Output is byte-identical for the same graph, base IRI and manifest.

IRIs. Node ids become ``BASE<label>/<rest>`` (``technique:speculative-decoding`` ->
``https://w3id.org/kg/technique/speculative-decoding``); ``<rest>`` is percent-encoded
(UTF-8, upper-case hex, never lower-cased) except ``A-Z a-z 0-9 - . _ ~ : @``, so any
paper id (``Fw4fBE2rqW``, ``aistats2020:cb62e6a3a6``, ids with spaces, ``/`` or ``#``) gives
one valid, unique IRI. Ids without a label prefix go under ``BASE/kgid/``.

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
2.6 s (written by :mod:`kg.rdf_nt`), Turtle 6.0 s; rdflib's ``Graph.serialize`` of the same
triples takes 13.2 s (N-Triples) and 77.5 s (Turtle), after 67 s to build the Graph.

Derived statistics. After the data come ``kg:TechniquePair`` resources
(``pair/<technique>--<technique>``): two ``kg:hasTechnique`` values and the number of papers that
use both (``kg:papers``), for pairs at least two papers share. Counting co-used techniques at
query time joins every technique use with every other (about 1.6 s on the full graph); read
from the pairs, the same answer takes milliseconds.

A VoID description closes each RDF file: triple count (of the data, without the VoID),
entity counts per class, triples per property, sources, build time and tool version from
``manifest.json``.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("technique:rl", label="Technique", name='say "RL"')
>>> print(nt_lines(G, void=False)[1])
<https://w3id.org/kg/technique/rl> <http://purl.org/dc/terms/identifier> "technique:rl" .
>>> node_iri("paper:a b/c#d")
'https://w3id.org/kg/paper/a%20b%2Fc%23d'
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

import networkx as nx

from kg.errors import ExportError, UsageError
from kg.ontology import ONTOLOGY_IRI, edge_prop_curie, jsonld_context, prop_curie
from kg.schema import (
    EDGE_PROPS,
    LABELS,
    PAIR,
    PAIR_MEMBER,
    RDF_PREFIXES,
    RELATIONS,
)
from kg.stats import technique_pairs

DEFAULT_BASE = "https://w3id.org/kg/"
FORMATS = ("ttl", "nt", "jsonld", "graphml", "neo4j-csv")
DEFAULT_NAMES = {"ttl": "graph.ttl", "nt": "graph.nt", "jsonld": "graph.jsonld",
                 "graphml": "graph.graphml", "neo4j-csv": "neo4j-csv"}
_NODE_NS = {lab.lower(): lab for lab in LABELS}  # id prefix -> label
_BASE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\x00-\x20<>\"{}|^`\\\x7f]*[/#]$")
_TTL_LOCAL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?$")
_NEEDS_ESC = re.compile(r'[\x00-\x1f"\\\x7f\ud800-\udfff]')
_ESC = {ord("\\"): "\\\\", ord('"'): '\\"', 10: "\\n", 13: "\\r", 9: "\\t", 8: "\\b", 12: "\\f"}
_ESC.update({c: f"\\u{c:04X}" for c in [*range(0x20), 0x7F] if c not in _ESC})
_ESC.update(dict.fromkeys(range(0xD800, 0xE000), "\ufffd"))  # lone surrogates cannot be encoded
_SURROGATES = {c: "\ufffd" for c in range(0xD800, 0xE000)}
_INT = re.compile(r"^[+-]?\d+$")
_ONE_OFF = ("statement", "pair")  # namespaces of subjects written once: not worth caching


class Lit(NamedTuple):
    """An RDF literal: lexical form and datatype CURIE (``None`` for ``xsd:string``)."""

    lex: str
    dt: str | None = None


Iri = tuple[str, str]  # (prefix name, local part): expanded with :func:`namespaces`
Term = Iri | Lit


def _t(c: str) -> Iri:
    p, local = c.split(":", 1)
    return (p, local)


A = _t("rdf:type")
STATEMENT = [_t("rdf:subject"), _t("rdf:predicate"), _t("rdf:object")]
DERIVED = _t(edge_prop_curie("paper"))
XSD_OF = {"string": None, "string[]": None, "integer": "xsd:integer", "float": "xsd:decimal"}


def check_base(base: str) -> str:
    """Return ``base`` if it is an absolute IRI ending in ``/`` or ``#``; raise otherwise.

    >>> check_base("https://example.org/kg/")
    'https://example.org/kg/'
    """
    if not _BASE_RE.match(base):
        raise ExportError(f"invalid base IRI {base!r}: use an absolute IRI without spaces or "
                          f"<>\"{{}}|^`\\ that ends in / or #, e.g. {DEFAULT_BASE}")
    return base


def namespaces(base: str = DEFAULT_BASE) -> dict[str, str]:
    """Prefix table of an export: the standard prefixes plus one namespace per label."""
    ns = dict(RDF_PREFIXES)
    ns.update({p: f"{base}{p}/" for p in _NODE_NS})
    ns.update({"statement": f"{base}statement/", "pair": f"{base}pair/", "kgid": f"{base}kgid/",
               "kgdata": base})
    return ns


def _enc(text: str) -> str:
    out = quote(text, safe=":@", errors="surrogatepass")
    return out.replace(".", "%2E") if out in (".", "..") else out


def node_term(node_id: str) -> Iri:
    """The (prefix, local) pair of a node id; see :func:`node_iri`."""
    prefix, sep, rest = node_id.partition(":")
    if sep and prefix in _NODE_NS:
        return (prefix, _enc(rest))
    return ("kgid", _enc(node_id))


def node_iri(node_id: str, base: str = DEFAULT_BASE) -> str:
    """The IRI of a node id: stable, unique, valid for any id.

    >>> node_iri("technique:speculative-decoding", "https://example.org/")
    'https://example.org/technique/speculative-decoding'
    """
    p, local = node_term(node_id)
    return namespaces(base)[p] + local


def escape(text: str) -> str:
    r"""Escape a string for a ``"..."`` literal in N-Triples or Turtle (canonical N-Triples).

    >>> print(escape('a "b" \\ \n\t\x00'))
    a \"b\" \\ \n\t\u0000
    """
    return text.translate(_ESC) if _NEEDS_ESC.search(text) else text


def _integer(v) -> str | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, str) and _INT.match(v.strip()):
        return str(int(v))
    return None


def _decimal(v) -> str | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    if isinstance(v, bool) or not math.isfinite(x):
        return None
    r = repr(x)
    if "e" in r or "E" in r:
        r = format(Decimal(r), "f")
        r = r if "." in r else r + ".0"
    return r


def _literal(value, datatype: str) -> Lit | None:
    if datatype in ("string", "string[]"):
        return Lit(value if isinstance(value, str) else str(value))
    lex = _integer(value) if datatype == "integer" else _decimal(value)
    return None if lex is None else Lit(lex, XSD_OF[datatype])


# ---------------------------------------------------------------- graph -> subject blocks


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
    return {lab.name: [(p.name, _t(prop_curie(p)), p.datatype, p.required) for p in lab.props]
            for lab in LABELS.values()}


_EDGE_SPECS = [(p.name, _t(prop_curie(p)), p.datatype) for p in EDGE_PROPS if p.name != "paper"]


def _node_pairs(nid: str, d: dict, specs, stats: Stats) -> list[tuple[Iri, Term]] | None:
    label = d.get("label")
    spec = specs.get(label)
    if spec is None:
        stats.skipped[f"nodes with unknown label {label!r}"] += 1
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
            lit = _literal(v, dt)
            if lit is None:
                stats.skipped[f"{label}.{name} values that are not {dt}"] += 1
            else:
                pairs.append((pred, lit))
    for k in d:
        if k not in known:
            stats.skipped[f"{label}.{k} properties (not in the schema for {label})"] += 1
    return pairs


def _statement(u: str, v: str, k, d: dict, rel_pred: Iri, G: nx.MultiDiGraph,
               stats: Stats) -> tuple[Iri, list[tuple[Iri, Term]]] | None:
    paper = f"paper:{d['paper']}"
    if paper not in G:
        stats.skipped["edge provenance naming a paper that is not in the graph"] += 1
        return None
    digest = hashlib.blake2b(f"{u}\0{d['type']}\0{v}\0{k}".encode("utf-8", "surrogatepass"),
                             digest_size=8).hexdigest()
    pairs: list[tuple[Iri, Term]] = [(A, ("rdf", "Statement")), (STATEMENT[0], node_term(u)),
                                     (STATEMENT[1], rel_pred), (STATEMENT[2], node_term(v)),
                                     (DERIVED, node_term(paper))]
    for name, pred, dt in _EDGE_SPECS:
        if d.get(name) is not None:
            lit = _literal(d[name], dt)
            if lit is None:
                stats.skipped[f"edge {name} values that are not {dt}"] += 1
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
            rel = RELATIONS.get(ed.get("type"))
            if rel is None:
                stats.skipped[f"edges of unknown type {ed.get('type')!r}"] += 1
                continue
            lv = G.nodes[v].get("label")
            if d["label"] not in rel.domain or lv not in rel.range:
                stats.skipped[f"{rel.name} edges {d['label']}→{lv} (outside the schema's domain/range)"] += 1
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
    papers = _t(prop_curie(PAIR.props[0]))
    cls = ("kg", PAIR.name)
    for a, b, c in technique_pairs(G, counts=counts):
        ta, tb = node_term(a), node_term(b)
        pairs = [(A, cls), (member, ta), (member, tb), (papers, Lit(str(c), "xsd:integer"))]
        stats.classes[PAIR.name] += 1
        for p, _ in pairs:
            stats.predicates[p] += 1
        yield ("pair", f"{ta[1]}--{tb[1]}"), pairs


def void_blocks(stats: Stats, base: str, manifest: dict) -> Iterator[tuple[Iri, list[tuple[Iri, Term]]]]:
    """The VoID description of what :func:`blocks` produced (call after consuming it)."""
    from kg import __version__

    ds = ("kgdata", "void")
    triples = stats.triples
    entities = sum(v for k, v in stats.classes.items() if k not in ("Statement", PAIR.name))
    pairs: list[tuple[Iri, Term]] = [
        (A, ("void", "Dataset")),
        (_t("dcterms:title"), Lit("kg knowledge graph of machine-learning research")),
        (_t("dcterms:description"), Lit("Entities and relations extracted from paper abstracts by kg, "
                                        "with the provenance of every extracted edge.")),
    ]
    built = str(manifest.get("built", ""))
    built_ok = bool(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$", built))
    if built_ok:
        pairs.append((_t("dcterms:created"), Lit(built, "xsd:dateTime")))
    pairs += [(_t("dcterms:source"), Lit(str(s))) for s in manifest.get("sources", [])]
    pairs += [(_t("void:uriSpace"), Lit(base)), (_t("void:vocabulary"), ("kg", ""))]
    pairs += [(_t("void:vocabulary"), (p, "")) for p in ("dcterms", "prov", "schema", "skos")]
    pairs += [(_t("void:triples"), Lit(str(triples), "xsd:integer")),
              (_t("void:entities"), Lit(str(entities), "xsd:integer")),
              (_t("void:classes"), Lit(str(len(stats.classes)), "xsd:integer")),
              (_t("void:properties"), Lit(str(len(stats.predicates)), "xsd:integer"))]
    parts = []
    for label in sorted(stats.classes):
        cls = ("rdf", "Statement") if label == "Statement" else ("kg", label)
        parts.append(((_t("void:classPartition")), ("kgdata", f"void-class-{label}"),
                      [(_t("void:class"), cls), (_t("void:entities"), Lit(str(stats.classes[label]), "xsd:integer"))]))
    for pred in sorted(stats.predicates):
        parts.append((_t("void:propertyPartition"), ("kgdata", f"void-property-{pred[0]}-{pred[1]}"),
                      [(_t("void:property"), pred),
                       (_t("void:triples"), Lit(str(stats.predicates[pred]), "xsd:integer"))]))
    pairs += [(p, s) for p, s, _ in parts]
    pairs.append((_t("prov:wasGeneratedBy"), ("kgdata", "void-build")))
    yield ds, pairs
    yield from ((s, sp) for _, s, sp in parts)
    build: list[tuple[Iri, Term]] = [(A, ("prov", "Activity")), (_t("prov:wasAssociatedWith"), ("kgdata", "void-tool"))]
    if built_ok:
        build.append((_t("prov:endedAtTime"), Lit(built, "xsd:dateTime")))
    yield ("kgdata", "void-build"), build
    yield ("kgdata", "void-tool"), [(A, ("prov", "SoftwareAgent")), (_t("rdfs:label"), Lit("kg")),
                                    (_t("schema:softwareVersion"), Lit(str(manifest.get("version", __version__))))]


# ---------------------------------------------------------------- serialisers


class _Writer:
    """Renders terms of one export (one base IRI) in N-Triples, Turtle or JSON-LD."""

    def __init__(self, base: str):
        self.ns = namespaces(base)
        self._nt: dict[Iri, str] = {}
        self._ttl: dict[Iri, str] = {}

    def nt(self, t: Term) -> str:
        if type(t) is Lit:
            lit = f'"{escape(t.lex)}"'
            return lit if t.dt is None else f"{lit}^^<{self.expand(t.dt)}>"
        s = self._nt.get(t)  # type: ignore[arg-type]
        if s is None:
            s = f"<{self.ns[t[0]]}{t[1]}>"
            if t[0] not in _NODE_NS and t[0] not in _ONE_OFF:
                self._nt[t] = s  # type: ignore[index]
        return s

    def expand(self, c: str) -> str:
        p, local = c.split(":", 1)
        return self.ns[p] + local

    def ttl(self, t: Term) -> str:
        if type(t) is Lit:
            if t.dt == "xsd:integer" and _INT.match(t.lex):
                return t.lex
            if t.dt == "xsd:decimal" and re.match(r"^[+-]?\d*\.\d+$", t.lex):
                return t.lex
            lit = f'"{escape(t.lex)}"'
            return lit if t.dt is None else f"{lit}^^{t.dt}"
        s = self._ttl.get(t)  # type: ignore[arg-type]
        if s is None:
            s = f"{t[0]}:{t[1]}" if _TTL_LOCAL.match(t[1]) else f"<{self.ns[t[0]]}{t[1]}>"
            if t[0] not in _NODE_NS and t[0] not in _ONE_OFF:
                self._ttl[t] = s  # type: ignore[index]
        return s

    def nt_chunks(self, blocks_: Iterable) -> Iterator[str]:
        for s, pairs in blocks_:
            subj = self.nt(s)
            yield "".join(f"{subj} {self.nt(p)} {self.nt(o)} .\n" for p, o in pairs)

    def ttl_chunks(self, blocks_: Iterable) -> Iterator[str]:
        yield "".join(f"@prefix {k}: <{v}> .\n" for k, v in self.ns.items()) + "\n"
        for s, pairs in blocks_:
            out, prev = [self.ttl(s)], None
            for p, o in pairs:
                if p == prev:
                    out.append(", " + self.ttl(o))
                else:
                    out.append((" " if prev is None else " ;\n    ") + ("a" if p == A else self.ttl(p))
                               + " " + self.ttl(o))
                prev = p
            out.append(" .\n\n")
            yield "".join(out)

    def jsonld_chunks(self, blocks_: Iterable) -> Iterator[str]:
        ctx = dict(jsonld_context()["@context"])
        ctx.update({k: v for k, v in self.ns.items() if k not in ctx})
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
                key, value = self._jsonld_value(c, o, terms)
                node.setdefault(key, []).append(value)
            node = {k: v[0] if isinstance(v, list) and len(v) == 1 else v for k, v in node.items()}
            yield ("    " if first else ",\n    ") + json.dumps(node, ensure_ascii=False).translate(_SURROGATES)
            first = False
        yield "\n  ]\n}\n"

    @staticmethod
    def _jsonld_value(c: str, o: Term, terms: dict) -> tuple[str, object]:
        term, coercion = terms.get(c, (c, "-"))
        if type(o) is not Lit:
            return (term, f"{o[0]}:{o[1]}") if coercion == "@id" else (c, {"@id": f"{o[0]}:{o[1]}"})
        if coercion == o.dt and o.dt == "xsd:integer" and abs(int(o.lex)) < 2**53:
            return term, int(o.lex)
        if coercion == o.dt or (o.dt is None and coercion in (None, "@set")):
            return term, o.lex
        return (c, o.lex) if o.dt is None else (c, {"@value": o.lex, "@type": o.dt})


def _write_chunks(path: Path, chunks: Iterable[str]) -> None:
    from kg.graph import atomic_write

    # Each chunk is encoded on its own: joined first, one non-ASCII character would widen a
    # whole buffer to 2 or 4 bytes a character and make encoding it several times slower.
    try:
        with atomic_write(path, "wb") as fh:
            buf: list[bytes] = []
            for c in chunks:
                buf.append(c.encode("utf-8"))
                if len(buf) >= 512:
                    fh.write(b"".join(buf))
                    buf.clear()
            fh.write(b"".join(buf))
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}; "
                          "check the folder is writable and the disk has space") from None


def rdf_chunks(G: nx.MultiDiGraph, fmt: str, base: str = DEFAULT_BASE, manifest: dict | None = None,
               stats: Stats | None = None, void: bool = True) -> Iterator[str]:
    """Text of an ``nt``, ``ttl`` or ``jsonld`` export, in chunks (the VoID block last)."""
    base = check_base(base)
    stats = stats if stats is not None else Stats()
    w = _Writer(base)
    if fmt == "nt":  # the same bytes as rendering blocks(), several times faster: see kg.rdf_nt
        from kg.rdf_nt import nt_data_chunks

        pairs: Counter = Counter()
        yield from nt_data_chunks(G, base, stats, pairs)
        yield from w.nt_chunks(pair_blocks(G, stats, pairs))
        if void:
            yield from w.nt_chunks(void_blocks(stats, base, manifest or {}))
        return

    def all_blocks():
        yield from blocks(G, stats)
        yield from pair_blocks(G, stats)
        if void:
            yield from void_blocks(stats, base, manifest or {})

    render = {"nt": w.nt_chunks, "ttl": w.ttl_chunks, "jsonld": w.jsonld_chunks}[fmt]
    yield from render(all_blocks())


def nt_lines(G: nx.MultiDiGraph, base: str = DEFAULT_BASE, void: bool = True) -> list[str]:
    """N-Triples lines of a (small) graph, for tests and examples."""
    return "".join(rdf_chunks(G, "nt", base, void=void)).splitlines()


# ---------------------------------------------------------------- GraphML and Neo4j CSV


def write_neo4j_csv(G: nx.MultiDiGraph, out_dir: Path):
    """Dispatch to :func:`kg.neo4j_csv.write_neo4j_csv` (the Neo4j sink owns the format)."""
    try:
        from kg.neo4j_csv import write_neo4j_csv as write
    except ImportError as exc:
        raise ExportError(f"the neo4j-csv export needs the kg.neo4j_csv module, which cannot be "
                          f"imported ({exc}); update kg or use --format ttl|nt|jsonld|graphml") from None
    return write(G, out_dir)


# ---------------------------------------------------------------- entry points


@dataclass
class ExportResult:
    path: Path
    format: str
    seconds: float
    triples: int | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    detail: object = None  # what the sink returned (neo4j-csv: files and import command)


def default_path(graph_dir: Path, fmt: str) -> Path:
    """Where ``kg export`` writes by default: ``<graph folder>/graph.<ext>``."""
    return Path(graph_dir) / DEFAULT_NAMES[fmt]


def export(G: nx.MultiDiGraph, out: Path, fmt: str = "ttl", base: str = DEFAULT_BASE,
           manifest: dict | None = None) -> ExportResult:
    """Write ``G`` to ``out`` in ``fmt`` (one of :data:`FORMATS`), atomically.

    >>> # export(load_graph("exports"), Path("exports/graph.ttl"), "ttl")
    """
    if fmt not in FORMATS:
        raise UsageError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    t0 = time.perf_counter()
    out = Path(out)
    if fmt == "graphml":
        from kg.graphml import write_graphml

        write_graphml(G, out)
        return ExportResult(out, fmt, time.perf_counter() - t0)
    if fmt == "neo4j-csv":
        detail = write_neo4j_csv(G, out)
        return ExportResult(out, fmt, time.perf_counter() - t0, detail=detail)
    stats = Stats()
    _write_chunks(out, rdf_chunks(G, fmt, base, manifest, stats))
    return ExportResult(out, fmt, time.perf_counter() - t0, stats.triples, dict(sorted(stats.skipped.items())))


def export_graph(graph_dir: Path, fmt: str = "ttl", out: Path | None = None,
                 base: str = DEFAULT_BASE) -> ExportResult:
    """Load the graph folder and export it (default: into the folder itself).

    >>> # export_graph(Path("exports"), "nt").path
    """
    from kg.generations import current
    from kg.graph import load_graph, read_manifest

    check_base(base)
    where = current(Path(graph_dir))  # graph and manifest from one generation, however builds run
    G = load_graph(where)
    return export(G, out or default_path(graph_dir, fmt), fmt, base, read_manifest(where))


__all__ = ["DEFAULT_BASE", "FORMATS", "ONTOLOGY_IRI", "ExportResult", "Lit", "blocks", "check_base",
           "default_path", "escape", "export", "export_graph", "namespaces", "node_iri", "nt_lines",
           "rdf_chunks", "technique_pairs", "write_neo4j_csv"]
