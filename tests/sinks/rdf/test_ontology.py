"""The generated OWL ontology, SHACL shapes and JSON-LD context: committed files up to date,
and all three agree with kg.schema (every label a class and a shape, every relation a property
with the right domain and range)."""

from __future__ import annotations

import json

import pytest
import rdflib
from rdflib import Namespace, URIRef
from rdflib import namespace as rns
from rdflib.collection import Collection

from kg.schema import EDGE_PROPS, ENTITY_LABELS, LABELS, RDF_NAMESPACE, RDF_PREFIXES, RELATIONS
from kg.sinks.rdf import ontology

KG = Namespace(RDF_NAMESPACE)
SH = Namespace("http://www.w3.org/ns/shacl#")
SKOS = Namespace(RDF_PREFIXES["skos"])


@pytest.fixture(scope="module")
def owl() -> rdflib.Graph:
    return rdflib.Graph().parse(data=ontology.ontology_ttl(), format="turtle")


@pytest.fixture(scope="module")
def shapes() -> rdflib.Graph:
    return rdflib.Graph().parse(data=ontology.shapes_ttl(), format="turtle")


def uri(curie: str) -> URIRef:
    return URIRef(ontology.expand(curie))


def classes_of(g: rdflib.Graph, node) -> set[str]:
    """The labels a class expression stands for (kg:Entity = every entity label)."""
    if isinstance(node, URIRef):
        members = [node]
    else:
        members = list(Collection(g, g.value(node, rns.OWL.unionOf)))
    out: set[str] = set()
    for m in members:
        local = str(m)[len(RDF_NAMESPACE):]
        out |= set(ENTITY_LABELS) if local == "Entity" else {local}
    return out


# ---------------------------------------------------------------- committed files


def test_committed_files_equal_the_generated_ones():
    for path, text in ontology.generated_files().items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run python -m kg.sinks.rdf.ontology"
    assert ontology.write_schema_files(check=True) == []
    assert ontology.main(["--check"]) == 0


def test_generation_is_deterministic():
    assert ontology.generated_files() == ontology.generated_files()


# ---------------------------------------------------------------- OWL


def test_every_label_is_a_class_with_its_alignments(owl):
    assert (KG.Entity, rns.RDF.type, rns.OWL.Class) in owl
    for lab in LABELS.values():
        c = KG[lab.name]
        assert (c, rns.RDF.type, rns.OWL.Class) in owl
        assert owl.value(c, rns.RDFS.comment) is not None and owl.value(c, rns.RDFS.label) is not None
        supers = set(owl.objects(c, rns.RDFS.subClassOf))
        assert {uri(e) for e in lab.equivalent} <= supers
        assert ((KG.Entity in supers) == (lab.name in ENTITY_LABELS)), lab.name
    assert (KG.Paper, rns.RDFS.subClassOf, URIRef("https://schema.org/ScholarlyArticle")) in owl
    assert (KG.Paper, rns.RDFS.subClassOf, URIRef("http://purl.org/spar/fabio/ResearchPaper")) in owl


def test_every_relation_is_an_object_property_with_domain_and_range(owl):
    for rel in RELATIONS.values():
        p = KG[rel.prop]
        assert (p, rns.RDF.type, rns.OWL.ObjectProperty) in owl
        assert owl.value(p, rns.RDFS.label) is not None and owl.value(p, rns.RDFS.comment) is not None
        assert classes_of(owl, owl.value(p, rns.RDFS.domain)) == set(rel.domain), rel.name
        assert classes_of(owl, owl.value(p, rns.RDFS.range)) == set(rel.range), rel.name
        assert {uri(e) for e in rel.equivalent} <= set(owl.objects(p, rns.RDFS.subPropertyOf))


def superclasses(owl: rdflib.Graph, label: str) -> set[URIRef]:
    return set(owl.transitive_objects(KG[label], rns.RDFS.subClassOf))


def test_a_skos_superproperty_only_relates_skos_concepts(owl):
    # SKOS's semantic relations have domain and range skos:Concept: a kg relation below one
    # would make every subject and object of it a concept
    for rel in RELATIONS.values():
        for sup in owl.objects(KG[rel.prop], rns.RDFS.subPropertyOf):
            if str(sup).startswith(str(SKOS)):
                assert all(SKOS.Concept in superclasses(owl, lab) for lab in rel.domain + rel.range), rel.name
    assert not set(owl.objects(KG.broader, rns.RDFS.subPropertyOf))
    assert SKOS.Concept not in superclasses(owl, "Method")


RESERVED = tuple(RDF_PREFIXES[p] for p in ("rdf", "rdfs", "owl", "xsd"))


def test_no_reserved_vocabulary_is_used_as_a_class(owl):
    # OWL 2 DL does not allow rdf:Statement (or any rdf:, rdfs:, owl:, xsd: term but owl:Thing
    # and owl:Nothing) as a class; the OWL API's profile checker reports each such use
    classes = set(owl.subjects(rns.RDF.type, rns.OWL.Class))
    for p in (rns.RDFS.domain, rns.RDFS.subClassOf):
        classes |= {o for o in owl.objects(None, p) if isinstance(o, URIRef)}
    for p in owl.subjects(rns.RDF.type, rns.OWL.ObjectProperty):
        classes |= {o for o in owl.objects(p, rns.RDFS.range) if isinstance(o, URIRef)}
    for union in owl.objects(None, rns.OWL.unionOf):
        classes |= set(Collection(owl, union))
    assert KG.EdgeStatement in classes
    assert not {c for c in classes if str(c).startswith(RESERVED)} - {rns.OWL.Thing, rns.OWL.Nothing}


def test_datatype_properties_have_domain_and_xsd_range(owl):
    xsd = {"string": rns.XSD.string, "string[]": rns.XSD.string, "integer": rns.XSD.integer, "float": rns.XSD.decimal}
    for c, (p, labels) in ontology.datatype_props().items():
        if not c.startswith("kg:"):  # standard terms are declared, never given a domain
            assert owl.value(uri(c), rns.RDFS.domain) is None
            continue
        assert (uri(c), rns.RDF.type, rns.OWL.DatatypeProperty) in owl
        # kg:confidence rates nodes and edge statements alike: one property, both domains
        on_edges = {"EdgeStatement"} if c in {ontology.prop_curie(e) for e in ontology.EDGE_PROPS} else set()
        assert classes_of(owl, owl.value(uri(c), rns.RDFS.domain)) == set(labels) | on_edges
        assert owl.value(uri(c), rns.RDFS.range) == xsd[p.datatype]
    node_curies = set(ontology.datatype_props())
    for p in EDGE_PROPS:
        c = ontology.prop_curie(p)
        if p.name == "paper" or not c.startswith("kg:"):  # PROV-O terms are declared only
            continue
        domain = owl.value(uri(c), rns.RDFS.domain)
        if c in node_curies:
            assert "EdgeStatement" in classes_of(owl, domain)
        else:
            assert domain == KG.EdgeStatement


def test_standard_vocabularies_for_aliases_ids_and_provenance():
    props = {p.name: ontology.prop_curie(p) for lab in LABELS.values() for p in lab.props}
    assert props["aliases"] == "skos:altLabel"
    assert props["name"] == "rdfs:label"
    assert props["title"] == "dcterms:title"
    assert ontology.edge_prop_curie("paper") == "prov:wasDerivedFrom"


# ---------------------------------------------------------------- SHACL


def prop_shapes(shapes: rdflib.Graph, label: str) -> dict[URIRef, URIRef]:
    """path -> property shape, for the property shapes targeting kg:<label>."""
    return {shapes.value(s, SH.path): s for s in shapes.subjects(SH.targetClass, KG[label])
            if (s, rns.RDF.type, SH.PropertyShape) in shapes}


def test_every_label_has_a_node_shape_and_a_shape_per_property(shapes):
    for lab in LABELS.values():
        node = URIRef(ontology.SHAPES_NS + lab.name)
        assert (node, rns.RDF.type, SH.NodeShape) in shapes and (node, SH.targetClass, KG[lab.name]) in shapes
        by_path = prop_shapes(shapes, lab.name)
        for p in lab.props:
            s = by_path[uri(ontology.prop_curie(p))]
            assert shapes.value(s, SH.datatype) == uri(ontology.XSD[p.datatype])
            assert (shapes.value(s, SH.minCount) is not None) == p.required, (lab.name, p.name)
            assert (shapes.value(s, SH.maxCount) is None) == p.datatype.endswith("[]")


def test_every_relation_shape_checks_targets_and_subjects(shapes):
    for lab in LABELS.values():
        by_path = prop_shapes(shapes, lab.name)
        for rel in RELATIONS.values():
            s = by_path.get(KG[rel.prop])
            assert (s is not None) == (lab.name in rel.domain), (lab.name, rel.name)
            if s is None:
                continue
            cls = shapes.value(s, SH["class"])
            if cls is None:
                cls = [shapes.value(m, SH["class"]) for m in Collection(shapes, shapes.value(s, SH["or"]))]
            targets = set().union(*(classes_of(shapes, c) for c in ([cls] if isinstance(cls, URIRef) else cls)))
            assert targets == set(rel.range), (lab.name, rel.name)
    for rel in RELATIONS.values():
        assert len(list(shapes.subjects(SH.targetSubjectsOf, KG[rel.prop]))) == 1


def test_statement_shape_covers_every_provenance_attribute(shapes):
    paths = {shapes.value(s, SH.path) for s in shapes.subjects(SH.targetClass, rns.RDF.Statement)}
    assert {uri(ontology.prop_curie(p)) for p in EDGE_PROPS} <= paths
    assert {rns.RDF.subject, rns.RDF.predicate, rns.RDF.object} <= paths


# ---------------------------------------------------------------- JSON-LD context


def test_context_has_a_term_for_every_class_relation_and_property():
    ctx = ontology.jsonld_context()["@context"]
    assert json.loads(ontology.CONTEXT_FILE.read_text(encoding="utf-8"))["@context"] == ctx
    for lab in LABELS:
        assert ctx[lab] == f"kg:{lab}"
    for rel in RELATIONS.values():
        assert ctx[rel.prop] == {"@id": f"kg:{rel.prop}", "@type": "@id"}
    ids = {(v["@id"] if isinstance(v, dict) else v) for v in ctx.values()}
    for c in ontology.datatype_props():
        assert c in ids
    for p in EDGE_PROPS:
        assert ontology.prop_curie(p) in ids
    assert ctx["aliases"] == {"@id": "skos:altLabel", "@container": "@set"}
    assert ctx["papers"] == {"@id": "kg:papers", "@type": "xsd:integer"}


def test_the_three_files_use_the_same_terms(owl, shapes):
    ctx = ontology.jsonld_context()["@context"]
    kg_terms = {str(s) for s in owl.subjects() if str(s).startswith(RDF_NAMESPACE)}
    ctx_terms = {ontology.expand(v["@id"] if isinstance(v, dict) else v)
                 for k, v in ctx.items() if k not in RDF_PREFIXES}
    assert {t for t in ctx_terms if t.startswith(RDF_NAMESPACE)} == kg_terms
    used = {str(o) for o in shapes.objects() if str(o).startswith(RDF_NAMESPACE)}
    assert used <= kg_terms


def test_class_curies_collapse_entity_labels():
    assert ontology.class_curies(ENTITY_LABELS) == ["kg:Entity"]
    assert ontology.class_curies(("Task",)) == ["kg:Task"]
    assert ontology.class_curies(("Paper",) + ENTITY_LABELS) == ["kg:Paper", "kg:Entity"]
