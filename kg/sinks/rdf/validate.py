"""SHACL validation of an RDF file against kg's shapes (pySHACL), with a short report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputError
from kg.sinks.rdf.files import rdf_format, unreadable
from kg.sinks.rdf.ontology import SHACL_FILE, SHAPES_NS
from kg.sinks.rdf.terms import DEFAULT_BASE, compact, namespaces

SH = "http://www.w3.org/ns/shacl#"
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


@dataclass(frozen=True, slots=True)
class ViolationGroup:
    """Results of one shape and constraint, with a few examples (focus node, value)."""

    shape: str
    path: str
    message: str
    severity: str
    count: int
    examples: tuple[tuple[str, str], ...]


@dataclass
class ValidationReport:
    file: str
    triples: int
    violations: int
    seconds: float
    groups: list[ViolationGroup] = field(default_factory=list)

    @property
    def conforms(self) -> bool:
        return self.violations == 0


def parse_rdflib(path: Path):
    """Parse an RDF file (syntax from the extension) into an rdflib Graph, for pySHACL.

    pyoxigraph parses (twice as fast as rdflib's parsers, and its errors give line and
    column); the triples are then copied into rdflib terms. Named graphs are merged.
    """
    import pyoxigraph as ox
    import rdflib

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file; export one first: kg export --format ttl")
    fmt = rdf_format(path)
    iris: dict[str, rdflib.URIRef] = {}
    datatypes: dict[str, rdflib.URIRef | None] = {_XSD_STRING: None}

    def term(t):
        if isinstance(t, ox.NamedNode):
            r = iris.get(t.value)
            if r is None:
                r = iris[t.value] = rdflib.URIRef(t.value)
            return r
        if isinstance(t, ox.BlankNode):
            return rdflib.BNode(t.value)
        if isinstance(t, ox.Literal):
            if t.language:
                return rdflib.Literal(t.value, lang=t.language)
            dt = t.datatype.value
            if dt not in datatypes:
                datatypes[dt] = rdflib.URIRef(dt)
            return rdflib.Literal(t.value, datatype=datatypes[dt])
        raise InputError(f"{path}: RDF-star / RDF 1.2 triple terms are not supported by the validator")

    g = rdflib.Graph()
    add = g.add
    try:
        for q in ox.parse(path=str(path), format=fmt):
            add((term(q.subject), term(q.predicate), term(q.object)))
    except (SyntaxError, OSError, ValueError) as exc:
        raise unreadable(path, exc, f"cannot parse as {fmt.name}") from None
    return g


def validate(path: Path, shapes: Path = SHACL_FILE, ontology: Path | None = None,
             examples: int = 3) -> ValidationReport:
    """Validate an RDF file against the SHACL shapes, without inference.

    The data is checked on its own: an export carries the ``rdfs:subClassOf`` axioms the
    shapes need (``sh:class kg:Entity``), as any SHACL engine given only the file sees it.
    ``ontology`` mixes an ontology in (for data that does not carry them, e.g. ``OWL_FILE``).

    >>> # report = validate(Path("exports/graph.ttl")); report.conforms
    """
    import pyshacl
    from rdflib import RDF, URIRef

    t0 = time.perf_counter()
    data = parse_rdflib(path)
    n = len(data)
    ont = parse_rdflib(ontology) if ontology is not None else None
    _, results, _ = pyshacl.validate(data, shacl_graph=parse_rdflib(shapes), ont_graph=ont,
                                     inference="none", abort_on_first=False, allow_warnings=True,
                                     inplace=True)
    prefixes = {**namespaces(DEFAULT_BASE), "sh": SH, "kgsh": SHAPES_NS}
    short = lambda t: compact(str(t), prefixes) if isinstance(t, URIRef) else str(t)  # noqa: E731
    groups: dict[tuple[str, str, str, str], list[tuple[str, str]]] = {}
    for r in sorted(results.subjects(RDF.type, URIRef(SH + "ValidationResult"))):
        get = lambda p: results.value(r, URIRef(SH + p))  # noqa: E731, B023
        key = (short(get("sourceShape")), short(get("resultPath") or ""),
               str(get("resultMessage") or short(get("sourceConstraintComponent"))),
               short(get("resultSeverity")).removeprefix("sh:"))
        groups.setdefault(key, []).append((short(get("focusNode")), short(get("value") or "")))
    out = [ViolationGroup(*k, len(v), tuple(sorted(v)[:examples])) for k, v in groups.items()]
    out.sort(key=lambda g: (-g.count, g.shape, g.message))
    violations = sum(g.count for g in out if g.severity == "Violation")
    return ValidationReport(str(path), n, violations, time.perf_counter() - t0, out)


def summarize(report: ValidationReport) -> str:
    """A short text report: one line per group with examples."""
    lines = []
    for g in report.groups:
        where = f" {g.path}" if g.path else ""
        msg = g.message if len(g.message) <= 200 else g.message[:199] + "…"
        lines.append(f"{g.count:>6} × {g.severity} {g.shape}{where}: {msg}")
        lines.extend(f"         e.g. {f}" + (f" → {v}" if v else "") for f, v in g.examples)
    return "\n".join(lines)
