"""Literals of an export: decimals are written in the canonical form that SPARQL engines give
back unchanged, in every format."""

from __future__ import annotations

import math

import pyoxigraph as ox
from hypothesis import given
from hypothesis import strategies as st

from kg.sinks.rdf.terms import DEFAULT_BASE, Lit, TermWriter, decimal_lex

XSD_DECIMAL = "http://www.w3.org/2001/XMLSchema#decimal"


def engine_spelling(lexes: list[str]) -> list[str]:
    """How pyoxigraph prints each xsd:decimal literal after reading it (it keeps values, not text)."""
    store = ox.Store()
    s, p = ox.NamedNode("https://example.org/s"), ox.NamedNode("https://example.org/p")
    store.extend(ox.Quad(s, p, ox.Literal(lex, datatype=ox.NamedNode(XSD_DECIMAL))) for lex in lexes)
    return sorted(r["o"].value for r in store.query("SELECT ?o WHERE { ?s ?p ?o }"))


def test_whole_numbers_have_no_point_and_fractions_no_superfluous_zeros():
    assert [decimal_lex(v) for v in (20.0, 100, "20.0", 0.5, -0.0, -1.25, 1e-7, 4.48)] == \
        ["20", "100", "20", "0.5", "0", "-1.25", "0.0000001", "4.48"]
    assert [decimal_lex(v) for v in (math.nan, math.inf, "x", None, True)] == [None] * 5


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20, unique=True))
def test_the_engine_reads_back_exactly_what_was_written(values):
    lexes = sorted({decimal_lex(v) for v in values})
    assert engine_spelling(lexes) == lexes
    for lex in lexes:  # the shortest form that reads back as the same float
        assert float(lex) in values or float(lex) == 0.0


def test_turtle_types_whole_decimals_explicitly():
    w = TermWriter(DEFAULT_BASE)
    assert w.ttl(Lit("20", "xsd:decimal")) == '"20"^^xsd:decimal'  # a bare 20 is an xsd:integer
    assert w.ttl(Lit("0.5", "xsd:decimal")) == "0.5"
    assert w.nt(Lit("20", "xsd:decimal")) == f'"20"^^<{XSD_DECIMAL}>'
