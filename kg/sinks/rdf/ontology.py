"""The OWL ontology, the SHACL shapes and the JSON-LD context, generated from :mod:`kg.schema`.

``python -m kg.sinks.rdf.ontology`` writes ``schema/kg.owl.ttl``, ``schema/kg.shacl.ttl`` and
``schema/context.jsonld`` (``--check`` only compares them); a test keeps the committed files
equal to what this module generates, so they cannot drift from the schema.

Modelling choices:

- every label is an ``owl:Class`` ``kg:<Label>``; entity labels are subclasses of
  ``kg:Entity``; the schema's standard classes (schema.org, FaBiO, SKOS) are superclasses;
- every relation is an ``owl:ObjectProperty`` ``kg:<camelCase>`` with ``rdfs:domain`` and
  ``rdfs:range`` (an ``owl:unionOf`` when there are several classes; ``kg:Entity`` stands for
  all entity labels); standard equivalents (``schema:codeRepository``) are superproperties;
- properties in the ``kg:`` namespace are ``owl:DatatypeProperty`` with domain and XSD range;
  standard ones (``rdfs:label``, ``skos:altLabel``, ``dcterms:title``...) are only declared,
  never given a domain (that would change their meaning for everyone else);
- edge provenance is ``rdf:Statement`` reification described with PROV-O (see
  :mod:`kg.sinks.rdf.triples`); the domain of its properties is ``kg:EdgeStatement``, not
  ``rdf:Statement``, which is reserved vocabulary that OWL 2 DL does not allow as a class (the
  shapes, which are not OWL, target ``rdf:Statement``); the ontology is in OWL 2 DL (checked
  with the OWL API's profile checker);
- ``kg:broader`` is not a sub-property of ``skos:broader``: SKOS gives that the domain and
  range ``skos:Concept``, and methods, models and datasets are not concepts;
- ``kg:TechniquePair`` is a statistic the RDF export derives (two ``kg:hasTechnique`` values and
  the ``kg:papers`` that use both), not a label of the graph;
- shapes: per label a ``sh:NodeShape`` ``kgsh:<Label>`` and property shapes
  ``kgsh:<Label>-<property>`` (cardinality and datatype of each property; class of the targets
  of each relation whose domain includes the label); per relation a shape checking its
  subjects are in the domain; shapes for provenance statements. ``sh:class kg:Entity`` relies
  on ``rdfs:subClassOf`` in the data graph, not on inference: every export carries those
  axioms for the classes it uses (:func:`kg.sinks.rdf.triples.class_blocks`).

>>> "kg:Entity" in ontology_ttl() and "sh:targetClass kg:Paper" in shapes_ttl()
True
>>> jsonld_context()["@context"]["uses"]
{'@id': 'kg:uses', '@type': '@id'}
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kg.errors import ConfigError
from kg.schema import (
    EDGE_PROPS,
    EDGE_STATEMENT,
    ENTITY_LABELS,
    LABELS,
    PAIR,
    PAIR_MEMBER,
    PAIR_MIN_PAPERS,
    RDF_NAMESPACE,
    RDF_PREFIXES,
    RELATIONS,
    SCHEMA_DIR,
    Prop,
)

ONTOLOGY_IRI = RDF_NAMESPACE.rstrip("#/")
SHAPES_NS = "https://w3id.org/kg/shapes#"
OWL_FILE = SCHEMA_DIR / "kg.owl.ttl"
SHACL_FILE = SCHEMA_DIR / "kg.shacl.ttl"
CONTEXT_FILE = SCHEMA_DIR / "context.jsonld"
XSD = {"string": "xsd:string", "string[]": "xsd:string", "integer": "xsd:integer",
       "float": "xsd:decimal"}
# Graph attribute -> term in the JSON-LD context (when it differs from the attribute name).
JSONLD_TERMS = {"id": "identifier", "paper": "derivedFrom", "start": "start", "end": "end"}
# Standard datatype properties that OWL knows as annotation properties.
_ANNOTATION = {"rdfs:label", "rdfs:comment", "skos:altLabel", "skos:prefLabel"}
_HEADER = "# Generated from kg/schema.py by `python -m kg.sinks.rdf.ontology`; do not edit by hand.\n"


def curie(term: str) -> str:
    """The CURIE of a schema term: bare names live in the ``kg:`` namespace.

    >>> curie("papers"), curie("skos:altLabel")
    ('kg:papers', 'skos:altLabel')
    """
    return term if ":" in term else f"kg:{term}"


def expand(term: str) -> str:
    """The full IRI of a CURIE with one of :data:`kg.schema.RDF_PREFIXES`.

    >>> expand("kg:Paper")
    'https://w3id.org/kg/ontology#Paper'
    """
    prefix, local = curie(term).split(":", 1)
    return RDF_PREFIXES[prefix] + local


def prop_curie(p: Prop) -> str:
    return curie(p.rdf or p.name)


def edge_prop_curie(name: str) -> str:
    """CURIE of a provenance attribute of an edge (``paper``, ``evidence``, ``start``...)."""
    return next(prop_curie(p) for p in EDGE_PROPS if p.name == name)


def class_curies(labels: tuple[str, ...] | list[str]) -> list[str]:
    """Classes standing for a set of labels; all entity labels together become ``kg:Entity``.

    >>> class_curies(("Paper",) + ENTITY_LABELS)
    ['kg:Paper', 'kg:Entity']
    """
    labels = list(dict.fromkeys(labels))
    if set(ENTITY_LABELS) <= set(labels):
        rest = [f"kg:{lab}" for lab in labels if lab not in ENTITY_LABELS]
        return rest + ["kg:Entity"]
    return [f"kg:{lab}" for lab in labels]


def datatype_props() -> dict[str, tuple[Prop, list[str]]]:
    """Every node property by CURIE, with the labels that declare it (in schema order)."""
    out: dict[str, tuple[Prop, list[str]]] = {}
    for lab in (*LABELS.values(), PAIR):
        for p in lab.props:
            c = prop_curie(p)
            if c in out:
                if XSD[out[c][0].datatype] != XSD[p.datatype]:
                    raise ConfigError(f"kg/schema.py: {c} has two datatypes; give one of them another rdf term")
                out[c][1].append(lab.name)
            else:
                out[c] = (p, [lab.name])
    return out


# ---------------------------------------------------------------- Turtle text helpers


def _lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _block(subject: str, pairs: list[tuple[str, str]]) -> str:
    body = " ;\n".join(f"    {p} {o}" for p, o in pairs)
    return f"{subject}\n{body} .\n"


def _prefixes(extra: dict[str, str] | None = None) -> str:
    table = {**RDF_PREFIXES, **(extra or {})}
    return "".join(f"@prefix {k}: <{v}> .\n" for k, v in table.items())


def _class_expr(labels: tuple[str, ...]) -> str:
    classes = class_curies(labels)
    if len(classes) == 1:
        return classes[0]
    return f"[ a owl:Class ; owl:unionOf ( {' '.join(classes)} ) ]"


# ---------------------------------------------------------------- OWL


def ontology_ttl() -> str:
    """The OWL ontology as Turtle text, deterministic for the same schema."""
    parts = [_HEADER, _prefixes(), "\n"]
    parts.append(_block(f"<{ONTOLOGY_IRI}>", [
        ("a", "owl:Ontology"),
        ("rdfs:label", _lit("kg ontology")),
        ("dcterms:title", _lit("kg: knowledge graphs of machine-learning research")),
        ("rdfs:comment", _lit("Classes and properties of the kg knowledge graph, generated "
                              "from kg/schema.py. Edge provenance is rdf:Statement "
                              "reification described with PROV-O (kg:EdgeStatement).")),
    ]) + "\n")
    parts.append("# Classes\n\n")
    parts.append(_block("kg:Entity", [
        ("a", "owl:Class"), ("rdfs:label", _lit("Entity")),
        ("rdfs:comment", _lit("Anything extracted from papers: methods, techniques, models, "
                              "tasks, datasets, metrics, software, repositories.")),
    ]) + "\n")
    external: set[str] = set()
    for lab in LABELS.values():
        supers = ([f"kg:{lab.parent}"] if lab.parent else []) + list(lab.equivalent)
        external.update(lab.equivalent)
        pairs = [("a", "owl:Class"), ("rdfs:label", _lit(lab.name)), ("rdfs:comment", _lit(lab.comment))]
        if supers:
            pairs.append(("rdfs:subClassOf", ", ".join(supers)))
        parts.append(_block(f"kg:{lab.name}", pairs) + "\n")
    parts.append(_block(f"kg:{PAIR.name}", [("a", "owl:Class"), ("rdfs:label", _lit(PAIR.name)),
                                            ("rdfs:comment", _lit(PAIR.comment))]) + "\n")
    parts.append("# Relations (object properties)\n\n")
    ext_props: dict[str, str] = {}
    for rel in RELATIONS.values():
        pairs = [("a", "owl:ObjectProperty"), ("rdfs:label", _lit(rel.prop)),
                 ("rdfs:comment", _lit(f"{rel.comment} Neo4j relationship type {rel.name}.")),
                 ("rdfs:domain", _class_expr(rel.domain)), ("rdfs:range", _class_expr(rel.range))]
        if rel.equivalent:
            pairs.append(("rdfs:subPropertyOf", ", ".join(rel.equivalent)))
            ext_props.update(dict.fromkeys(rel.equivalent, "owl:ObjectProperty"))
        parts.append(_block(f"kg:{rel.prop}", pairs) + "\n")
    name, comment, member = PAIR_MEMBER
    parts.append(_block(f"kg:{name}", [
        ("a", "owl:ObjectProperty"), ("rdfs:label", _lit(name)), ("rdfs:comment", _lit(comment)),
        ("rdfs:domain", f"kg:{PAIR.name}"), ("rdfs:range", f"kg:{member}")]) + "\n")
    parts.append("# Node properties\n\n")
    edge_curies = {prop_curie(p) for p in EDGE_PROPS}
    on_nodes: dict[str, list[str]] = {}  # kg terms of nodes and edge statements alike (confidence)
    for c, (p, labels) in datatype_props().items():
        if not c.startswith("kg:"):
            ext_props[c] = "owl:AnnotationProperty" if c in _ANNOTATION else "owl:DatatypeProperty"
            continue
        if c in edge_curies:
            on_nodes[c] = labels
            continue
        parts.append(_block(c, [
            ("a", "owl:DatatypeProperty"), ("rdfs:label", _lit(c[3:])), ("rdfs:comment", _lit(p.comment)),
            ("rdfs:domain", _class_expr(tuple(labels))), ("rdfs:range", XSD[p.datatype]),
        ]) + "\n")
    parts.append("# Provenance of extracted edges (rdf:Statement nodes in the export)\n\n")
    parts.append(_block(f"kg:{EDGE_STATEMENT[0]}", [("a", "owl:Class"), ("rdfs:label", _lit(EDGE_STATEMENT[0])),
                                                   ("rdfs:comment", _lit(EDGE_STATEMENT[1]))]) + "\n")
    for p in EDGE_PROPS:
        c = prop_curie(p)
        if p.name == "paper":  # the paper id becomes the paper's IRI
            ext_props[c] = "owl:ObjectProperty"
            continue
        if not c.startswith("kg:"):  # PROV-O attribution of curated facts: declared only
            ext_props[c] = "owl:DatatypeProperty"
            continue
        domain = _class_expr((EDGE_STATEMENT[0], *on_nodes.get(c, ())))
        parts.append(_block(c, [
            ("a", "owl:DatatypeProperty"), ("rdfs:label", _lit(c[3:])), ("rdfs:comment", _lit(p.comment)),
            ("rdfs:domain", domain), ("rdfs:range", XSD[p.datatype]),
        ]) + "\n")
    parts.append("# Standard terms used above, declared for OWL 2 DL tools\n\n")
    for c in sorted(external):
        parts.append(f"{c} a owl:Class .\n")
    for c, kind in sorted(ext_props.items()):
        parts.append(f"{c} a {kind} .\n")
    return "".join(parts)


# ---------------------------------------------------------------- SHACL


def _shape_name(label: str, term: str) -> str:
    return f"kgsh:{label}-{term.split(':', 1)[1]}"


def _range_pairs(classes: list[str], shapes: dict[str, str]) -> tuple[str, str]:
    if len(classes) == 1:
        return ("sh:class", classes[0])
    members = []
    for c in classes:
        name = f"kgsh:Is{c.split(':', 1)[1]}"
        shapes[name] = _block(name, [("a", "sh:NodeShape"), ("sh:class", c)])
        members.append(name)
    return ("sh:or", f"( {' '.join(members)} )")


def shapes_ttl() -> str:
    """The SHACL shapes as Turtle text, deterministic for the same schema.

    Property shapes carry their own ``sh:targetClass`` instead of hanging off the node shape
    with ``sh:property``: the meaning is the same, but pySHACL then checks each constraint
    once over all focus nodes instead of once per node (ICML 2024 export: 18 s -> 5 s).
    """
    parts = [_HEADER, _prefixes({"sh": "http://www.w3.org/ns/shacl#", "kgsh": SHAPES_NS}), "\n"]
    helpers: dict[str, str] = {}
    for lab in (*LABELS.values(), PAIR):
        target = ("sh:targetClass", f"kg:{lab.name}")
        parts.append(_block(f"kgsh:{lab.name}", [
            ("a", "sh:NodeShape"), target, ("rdfs:comment", _lit(lab.comment)), ("sh:nodeKind", "sh:IRI"),
        ]) + "\n")
        for p in lab.props:
            c = prop_curie(p)
            pairs = [("a", "sh:PropertyShape"), target, ("sh:path", c), ("sh:name", _lit(p.name)),
                     ("sh:description", _lit(p.comment)), ("sh:datatype", XSD[p.datatype])]
            if p.required:
                pairs.append(("sh:minCount", "1"))
            if not p.datatype.endswith("[]"):
                pairs.append(("sh:maxCount", "1"))
            if p.name == "papers":
                pairs.append(("sh:minInclusive", str(PAIR_MIN_PAPERS if lab is PAIR else 0)))
            parts.append(_block(_shape_name(lab.name, c), pairs) + "\n")
        for rel in RELATIONS.values():
            if lab.name in rel.domain:
                parts.append(_block(_shape_name(lab.name, f"kg:{rel.prop}"), [
                    ("a", "sh:PropertyShape"), target, ("sh:path", f"kg:{rel.prop}"),
                    ("sh:name", _lit(rel.name)), ("sh:nodeKind", "sh:IRI"),
                    _range_pairs(class_curies(rel.range), helpers)]) + "\n")
    name, comment, member = PAIR_MEMBER
    parts.append(_block(_shape_name(PAIR.name, f"kg:{name}"), [
        ("a", "sh:PropertyShape"), ("sh:targetClass", f"kg:{PAIR.name}"), ("sh:path", f"kg:{name}"),
        ("sh:name", _lit(name)), ("sh:description", _lit(comment)), ("sh:nodeKind", "sh:IRI"),
        ("sh:class", f"kg:{member}"), ("sh:minCount", "2"), ("sh:maxCount", "2")]) + "\n")
    parts.append("# Each relation: its subjects are in the domain\n\n")
    for rel in RELATIONS.values():
        parts.append(_block(f"kgsh:{rel.prop}-subject", [
            ("a", "sh:NodeShape"), ("sh:targetSubjectsOf", f"kg:{rel.prop}"),
            ("rdfs:comment", _lit(f"Subjects of kg:{rel.prop} ({rel.name}) are in its domain.")),
            _range_pairs(class_curies(rel.domain), helpers),
        ]) + "\n")
    parts.append("# Provenance of extracted edges (rdf:Statement)\n\n")
    target = ("sh:targetClass", "rdf:Statement")
    parts.append(_block("kgsh:Statement", [
        ("a", "sh:NodeShape"), target, ("sh:nodeKind", "sh:IRI"),
        ("rdfs:comment", _lit("Provenance of an extracted edge: source paper, evidence, offsets, rule, confidence.")),
    ]) + "\n")
    stmt_props = [("subject", "rdf:subject", [("sh:nodeKind", "sh:IRI"), ("sh:minCount", "1")]),
                  ("predicate", "rdf:predicate",
                   [("sh:in", "( " + " ".join(f"kg:{r.prop}" for r in RELATIONS.values()) + " )"),
                    ("sh:minCount", "1")]),
                  ("object", "rdf:object", [("sh:nodeKind", "sh:IRI"), ("sh:minCount", "1")])]
    for p in EDGE_PROPS:
        extra = ([("sh:class", "kg:Paper"), ("sh:minCount", "1")] if p.name == "paper"
                 else [("sh:datatype", XSD[p.datatype])])
        if p.name == "start":
            extra += [("sh:minInclusive", "0"), ("sh:lessThanOrEquals", edge_prop_curie("end"))]
        if p.name == "confidence":
            extra += [("sh:minInclusive", "0"), ("sh:maxInclusive", "1")]
        stmt_props.append((p.name, prop_curie(p), extra))
    for n, c, extra in stmt_props:
        parts.append(_block(f"kgsh:Statement-{n}", [("a", "sh:PropertyShape"), target, ("sh:path", c),
                                                    ("sh:name", _lit(n)), *extra, ("sh:maxCount", "1")]) + "\n")
    parts.append("# Helper shapes for sh:or\n\n")
    parts.extend(helpers[k] + "\n" for k in sorted(helpers))
    return "".join(parts).rstrip("\n") + "\n"


# ---------------------------------------------------------------- JSON-LD context


def jsonld_context() -> dict:
    """The JSON-LD context: prefixes, one term per class and per property, with coercions."""
    ctx: dict[str, object] = dict(RDF_PREFIXES)
    ctx["Entity"] = "kg:Entity"
    ctx.update({lab: f"kg:{lab}" for lab in LABELS})
    ctx["Statement"] = "rdf:Statement"
    ctx[EDGE_STATEMENT[0]] = f"kg:{EDGE_STATEMENT[0]}"
    ctx[PAIR.name] = f"kg:{PAIR.name}"
    ctx[PAIR_MEMBER[0]] = {"@id": f"kg:{PAIR_MEMBER[0]}", "@type": "@id"}
    for c, (p, _) in datatype_props().items():
        term = JSONLD_TERMS.get(p.name, p.name)
        if p.datatype == "string[]":
            ctx[term] = {"@id": c, "@container": "@set"}
        elif p.datatype == "string":
            ctx[term] = c
        else:
            ctx[term] = {"@id": c, "@type": XSD[p.datatype]}
    for rel in RELATIONS.values():
        ctx[rel.prop] = {"@id": f"kg:{rel.prop}", "@type": "@id"}
    for name in ("subject", "predicate", "object"):
        ctx[name] = {"@id": f"rdf:{name}", "@type": "@id"}
    for p in EDGE_PROPS:
        term = JSONLD_TERMS.get(p.name, p.name)
        if p.name == "paper":
            ctx[term] = {"@id": prop_curie(p), "@type": "@id"}
        elif p.datatype == "string":
            ctx[term] = prop_curie(p)
        else:
            ctx[term] = {"@id": prop_curie(p), "@type": XSD[p.datatype]}
    return {"@context": ctx}


def context_json() -> str:
    return json.dumps(jsonld_context(), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- files


def generated_files() -> dict[Path, str]:
    """What ``python -m kg.sinks.rdf.ontology`` writes, by path."""
    return {OWL_FILE: ontology_ttl(), SHACL_FILE: shapes_ttl(), CONTEXT_FILE: context_json()}


def write_schema_files(check: bool = False) -> list[Path]:
    """Write the generated files (or, with ``check``, list those that differ). Returns paths.

    >>> # write_schema_files(check=True) == []   # the committed files are up to date
    """
    from kg.io.atomic import refresh

    return [path for path, text in generated_files().items() if refresh(path, text, check)]


def main(argv: list[str] | None = None) -> int:
    """``python -m kg.sinks.rdf.ontology [--check]``: regenerate (or check) the files in ``schema/``."""
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    stale = write_schema_files(check=check)
    for p in stale:
        print(f"{'stale' if check else 'wrote'} {p}")
    if check and stale:
        print("run: python -m kg.sinks.rdf.ontology", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
