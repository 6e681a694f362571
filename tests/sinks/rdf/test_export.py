"""RDF export: round trips through rdflib and pyoxigraph, byte-stable output, hostile strings,
stable IRIs, provenance, VoID, GraphML and the neo4j-csv dispatch."""

from __future__ import annotations

import shutil
import sys
import types
from datetime import datetime
from pathlib import Path

import networkx as nx
import pyoxigraph as ox
import pytest
import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib.compare import isomorphic

import kg.sinks as sinks
from kg.errors import ExportError
from kg.io.format import load_graph, read_manifest
from kg.schema import LABELS
from kg.sinks.rdf import render, terms, triples

RDFLIB = {"nt": "nt", "ttl": "turtle", "jsonld": "json-ld"}
OXI = {"nt": ox.RdfFormat.N_TRIPLES, "ttl": ox.RdfFormat.TURTLE, "jsonld": ox.RdfFormat.JSON_LD}
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
LABEL = rdflib.URIRef("http://www.w3.org/2000/01/rdf-schema#label")
IDENT = rdflib.URIRef("http://purl.org/dc/terms/identifier")


@pytest.fixture(scope="module")
def sample(sample_graph_dir, tmp_path_factory) -> Path:
    """A private copy of the sample graph folder (exports are written into it)."""
    out = tmp_path_factory.mktemp("rdf-sample") / "g"
    shutil.copytree(sample_graph_dir, out)
    return out


def oxi_graph(data: bytes | str, fmt: str) -> rdflib.Graph:
    """Parse with pyoxigraph, then copy into rdflib terms to compare with rdflib's parse."""
    def term(t):
        if isinstance(t, ox.NamedNode):
            return rdflib.URIRef(t.value)
        if isinstance(t, ox.BlankNode):
            return rdflib.BNode(t.value)
        dt = t.datatype.value
        return rdflib.Literal(t.value, lang=t.language,
                              datatype=None if dt == XSD_STRING or t.language else rdflib.URIRef(dt))

    g = rdflib.Graph()
    for q in ox.parse(data.encode() if isinstance(data, str) else data, OXI[fmt]):
        g.add((term(q.subject), term(q.predicate), term(q.object)))
    return g


def text_of(G: nx.MultiDiGraph, fmt: str, **kw) -> str:
    return "".join(render.rdf_chunks(G, fmt, **kw))


def both_parsers(text: str, fmt: str) -> tuple[rdflib.Graph, rdflib.Graph]:
    return rdflib.Graph().parse(data=text, format=RDFLIB[fmt]), oxi_graph(text, fmt)


# ---------------------------------------------------------------- round trips on the sample


@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated")  # inside rdflib's JSON-LD parser
def test_ttl_nt_and_jsonld_round_trip_in_both_engines(sample):
    graphs = {}
    for fmt in ("nt", "ttl", "jsonld"):
        result = sinks.export_graph(sample, fmt)
        assert result.path == sample / f"graph.{fmt}" and result.triples > 1000
        text = result.path.read_text(encoding="utf-8")
        graphs[f"{fmt}/rdflib"], graphs[f"{fmt}/pyoxigraph"] = both_parsers(text, fmt)
    ref = graphs["nt/rdflib"]
    for name, g in graphs.items():
        assert isomorphic(ref, g), name
    # the triple count of the VoID is the data without the VoID itself
    void = list(ref.objects(None, rdflib.URIRef("http://rdfs.org/ns/void#triples")))
    described = max(int(v) for v in void)
    assert described == result.triples < len(ref)


def test_exports_are_byte_identical_across_runs(sample, tmp_path):
    for fmt in ("nt", "ttl", "jsonld", "graphml"):
        a, b = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
        sinks.export_graph(sample, fmt, a)
        sinks.export_graph(sample, fmt, b)
        assert a.read_bytes() == b.read_bytes(), fmt


def test_sample_export_conforms_and_keeps_everything(sample):
    result = sinks.export_graph(sample, "nt")
    assert result.skipped == {}
    G = load_graph(sample)
    g = rdflib.Graph().parse(result.path, format="nt")
    assert len(set(g.subjects(IDENT, None))) == G.number_of_nodes()
    for n, d in G.nodes(data=True):
        s = rdflib.URIRef(terms.node_iri(n))
        assert str(g.value(s, LABEL)) == d["name"]
        assert g.value(s, rdflib.RDF.type) == rdflib.URIRef(terms.namespaces()["kg"] + d["label"])


def test_provenance_statements_are_queryable_and_offsets_index_the_abstract(sample):
    G = load_graph(sample)
    store = ox.Store()
    store.bulk_load(path=str(sinks.export_graph(sample, "nt").path), format=ox.RdfFormat.N_TRIPLES)
    q = """SELECT ?paper ?ev ?start ?end ?rule ?conf WHERE {
             ?st a rdf:Statement ; rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ;
                 prov:wasDerivedFrom ?paper ; kg:rule ?rule ; kg:confidence ?conf .
             ?s ?p ?o .
             OPTIONAL { ?st kg:evidence ?ev ; kg:startOffset ?start ; kg:endOffset ?end } }"""
    from kg.sinks.rdf.sparql import PREFIXES

    rows = list(store.query(q, prefixes=PREFIXES))
    extracted = [d for _, _, d in G.edges(data=True) if d.get("paper") is not None]
    assert len(rows) == len(extracted) > 50
    by_iri = {terms.node_iri(n): d for n, d in G.nodes(data=True)}
    for r in rows:
        assert 0 <= float(r["conf"].value) <= 1 and r["rule"].value
        if r["ev"] is not None:
            abstract = by_iri[r["paper"].value]["abstract"]
            assert abstract[int(r["start"].value):int(r["end"].value)] == r["ev"].value


def test_void_describes_the_build(sample):
    g = rdflib.Graph().parse(sinks.export_graph(sample, "ttl").path, format="turtle")
    VOID = rdflib.Namespace("http://rdfs.org/ns/void#")
    DCT = rdflib.Namespace("http://purl.org/dc/terms/")
    ds = rdflib.URIRef(terms.DEFAULT_BASE + "void")
    assert (ds, rdflib.RDF.type, VOID.Dataset) in g
    m = read_manifest(sample)
    built = datetime.fromisoformat(m["built"].replace("Z", "+00:00"))
    assert g.value(ds, DCT.created).toPython() == built  # rdflib normalises the lexical form
    assert {str(s) for s in g.objects(ds, DCT.source)} == set(m["sources"])
    G = load_graph(sample)
    assert int(g.value(ds, VOID.entities)) == G.number_of_nodes()
    counts = {str(g.value(p, VOID["class"])).rsplit("#", 1)[1]: int(g.value(p, VOID.entities))
              for p in g.objects(ds, VOID.classPartition)}
    for label in LABELS:
        n = sum(1 for _, d in G.nodes(data=True) if d["label"] == label)
        assert counts.get(label, 0) == n, label
    tool = g.value(g.value(ds, rdflib.Namespace("http://www.w3.org/ns/prov#").wasGeneratedBy),
                   rdflib.Namespace("http://www.w3.org/ns/prov#").wasAssociatedWith)
    assert str(g.value(tool, rdflib.URIRef("https://schema.org/softwareVersion"))) == m["version"]


# ---------------------------------------------------------------- IRIs


def test_iris_are_stable_encoded_and_never_lowercased():
    assert terms.node_iri("technique:speculative-decoding") == "https://w3id.org/kg/technique/speculative-decoding"
    assert terms.node_iri("paper:Fw4fBE2rqW") != terms.node_iri("paper:fw4fbe2rqw")
    assert terms.node_iri("paper:Fw4fBE2rqW").endswith("/paper/Fw4fBE2rqW")
    assert terms.node_iri("paper:aistats2020:cb62e6a3a6").endswith("/paper/aistats2020:cb62e6a3a6")
    assert terms.node_iri("paper:a b/c#d?e%f") == "https://w3id.org/kg/paper/a%20b%2Fc%23d%3Fe%25f"
    assert terms.node_iri("paper:..").endswith("/paper/%2E%2E")
    assert terms.node_iri("venue:icml-2026", "https://example.org/kg#") == "https://example.org/kg#venue/icml-2026"
    assert terms.node_iri("odd id") == "https://w3id.org/kg/kgid/odd%20id"
    assert terms.node_iri("foo:bar") != terms.node_iri("kgid:foo:bar")


@pytest.mark.parametrize("base", ["relative/", "https://x.org/kg", "https://x.org/a b/", "https://x.org/<x>/", ""])
def test_bad_base_iris_are_refused(base):
    with pytest.raises(ExportError, match="base IRI"):
        terms.check_base(base)


def test_literals_escape_per_the_ntriples_grammar():
    assert terms.escape('a"b\\c\nd\re\tf\x00\x7f') == 'a\\"b\\\\c\\nd\\re\\tf\\u0000\\u007F'
    assert terms.escape("emoji 🧪 \u200b \u202e") == "emoji 🧪 \u200b \u202e"


# ---------------------------------------------------------------- hostile strings

HOSTILE = ['say "hi" \'there\'', "back\\slash\\", "<angle> {braces} |pipe| ^caret `tick`",
           "line\nbreak\r\nwindows", "tab\there", "zero\u200bwidth\u200d joiner", "rtl \u202eevil\u202c done",
           "emoji 🧪🚀👩‍🔬", "nul\x00 bell\x07 del\x7f", "\ufeffbom", '"""triple"""', "#hash ?q=1 %20 &amp;",
           "ünïcödé 数据 ☃ Ω", "   spaces   ", "@prefix x: <y> .", '"\\"'] + [""]
PAPER_IDS = ["a b/c#d", "Fw4fBE2rqW", "fw4fbe2rqw", "aistats2020:cb62e6a3a6", "..", ".", "ÜNÏ/ß?x=1",
             "new\nline", "<x>{y}|z^`q`\\", "%41", "A"]


def hostile_graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_node("venue:v", label="Venue", name=HOSTILE[0], year=2026)
    for i, pid in enumerate(PAPER_IDS):
        abstract = "We use X. " + HOSTILE[i % len(HOSTILE)]
        G.add_node(f"paper:{pid}", label="Paper", name=HOSTILE[i % len(HOSTILE)], title=HOSTILE[-i],
                   abstract=abstract, year=2026, url="https://x.org/?a=<b>&c=\"d\"", source="f.txt:1")
        G.add_edge(f"paper:{pid}", "venue:v", key="PUBLISHED_IN", type="PUBLISHED_IN", rule="record", confidence=1.0)
    for i, name in enumerate(HOSTILE):
        nid = f"technique:t{i}"
        G.add_node(nid, label="Technique", name=name, aliases=[name, name + "2"], papers=1)
        pid = PAPER_IDS[i % len(PAPER_IDS)]
        G.add_edge(f"paper:{pid}", nid, key=f"USES|{pid}", type="USES", paper=pid, evidence="We use X.",
                   start=0, end=9, rule=name, confidence=0.425)
    return G


@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated")
@pytest.mark.parametrize("fmt", ["nt", "ttl", "jsonld"])
def test_hostile_strings_round_trip_exactly_in_both_engines(fmt):
    G = hostile_graph()
    text = text_of(G, fmt)
    ref = rdflib.Graph().parse(data=text_of(G, "nt"), format="nt")
    for g in both_parsers(text, fmt):
        assert isomorphic(g, ref)
        subjects = {str(o): s for s, o in g.subject_objects(IDENT)}
        assert len(subjects) == G.number_of_nodes()  # one distinct IRI per node
        for n, d in G.nodes(data=True):
            s = subjects[n]
            assert str(s) == terms.node_iri(n)
            assert str(g.value(s, LABEL)) == d["name"]
            if "aliases" in d:
                got = {str(o) for o in g.objects(s, rdflib.URIRef("http://www.w3.org/2004/02/skos/core#altLabel"))}
                assert got == set(d["aliases"])


def test_hostile_export_validates_against_the_shapes(tmp_path):
    from kg.sinks.rdf.validate import validate

    path = tmp_path / "hostile.ttl"
    sinks.export(hostile_graph(), path, "ttl")
    report = validate(path)
    assert report.conforms, report.groups


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.text(max_size=40), pid=st.text(max_size=20), alias=st.text(max_size=10))
def test_any_text_gives_valid_rdf_that_round_trips(name, pid, alias):
    G = nx.MultiDiGraph()
    G.add_node("technique:x", label="Technique", name=name, aliases=[alias])
    G.add_node(f"paper:{pid}", label="Paper", name=name, abstract=name)
    G.add_edge(f"paper:{pid}", "technique:x", key="k", type="USES", paper=pid, evidence=name, start=0,
               end=len(name), rule=alias, confidence=0.5)
    for fmt in ("nt", "ttl"):
        for g in both_parsers(text_of(G, fmt, void=False), fmt):
            assert str(g.value(rdflib.URIRef(terms.node_iri("technique:x")), LABEL)) == name
            paper = rdflib.URIRef(terms.node_iri(f"paper:{pid}"))
            assert str(g.value(paper, IDENT)) == f"paper:{pid}"
            assert str(g.value(paper, rdflib.URIRef("http://purl.org/dc/terms/abstract"))) == name or name == ""


# ---------------------------------------------------------------- schema filtering


def test_edges_and_properties_outside_the_schema_are_skipped_and_reported():
    G = nx.MultiDiGraph()
    G.add_node("dataset:a", label="Dataset", name="A", family="F")
    G.add_node("dataset:b", label="Dataset", name="B")
    G.add_edge("dataset:a", "dataset:b", key="VARIANT_OF", type="VARIANT_OF", rule="model-name", confidence=0.9)
    G.add_edge("dataset:a", "dataset:b", key="X", type="NOT_A_TYPE")
    stats = triples.Stats()
    text = "".join(render.rdf_chunks(G, "nt", stats=stats))
    assert "variantOf" not in text and '"F"' not in text
    assert stats.skipped == {"VARIANT_OF edges Dataset→Dataset (outside the schema's domain/range)": 1,
                             "Dataset.family properties (not in the schema for Dataset)": 1,
                             "edges of unknown type 'NOT_A_TYPE'": 1}


# ---------------------------------------------------------------- GraphML and neo4j-csv


def test_graphml_round_trips_with_lists_as_json(tmp_path):
    G = hostile_graph()
    path = tmp_path / "g.graphml"
    sinks.export(G, path, "graphml")
    H = nx.read_graphml(path, force_multigraph=True)
    assert H.number_of_nodes() == G.number_of_nodes() and H.number_of_edges() == G.number_of_edges()
    import json

    assert json.loads(H.nodes["technique:t1"]["aliases"]) == G.nodes["technique:t1"]["aliases"]
    assert H.nodes["technique:t0"]["name"] == G.nodes["technique:t0"]["name"]


def test_neo4j_csv_dispatches_to_the_neo4j_module(monkeypatch, tmp_path):
    calls = []
    fake = types.ModuleType("kg.sinks.neo4j.bulk")
    fake.write_neo4j_csv = lambda G, out: calls.append((G, out))
    monkeypatch.setitem(sys.modules, "kg.sinks.neo4j.bulk", fake)
    G = hostile_graph()
    sinks.export(G, tmp_path / "csv", "neo4j-csv")
    assert calls == [(G, tmp_path / "csv")]


def test_neo4j_csv_without_the_module_says_so(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "kg.sinks.neo4j.bulk", None)  # import fails
    with pytest.raises(ExportError, match="kg.sinks.neo4j.bulk"):
        sinks.export(nx.MultiDiGraph(), tmp_path / "csv", "neo4j-csv")


def test_unknown_format_is_refused(tmp_path):
    with pytest.raises(Exception, match="unknown export format"):
        sinks.export(nx.MultiDiGraph(), tmp_path / "x", "xml")


# ---------------------------------------------------------------- valid on its own


@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated")
def test_every_format_carries_the_ontology_class_axioms_of_the_classes_it_uses(sample):
    from kg.sinks.rdf.ontology import ontology_ttl

    owl = rdflib.Graph().parse(data=ontology_ttl(), format="turtle")
    sub = rdflib.RDFS.subClassOf
    for fmt in ("nt", "ttl", "jsonld"):
        g = rdflib.Graph().parse(sinks.export_graph(sample, fmt).path, format=RDFLIB[fmt])
        used = set(g.objects(None, rdflib.RDF.type))
        want = {(c, sub, o) for c, o in owl.subject_objects(sub) if c in used and isinstance(o, rdflib.URIRef)}
        assert set(g.triples((None, sub, None))) == want, fmt
        assert (rdflib.URIRef(terms.namespaces()["kg"] + "Method"), sub,
                rdflib.URIRef(terms.namespaces()["kg"] + "Entity")) in want
