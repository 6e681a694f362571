"""The ``display`` caption: what a paper proposes, else its title cut on a word boundary; the
same on nodes that ``kg load`` writes and in the neo4j-admin files (the import test compares
those with the graph)."""

from __future__ import annotations

import os

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.schema import DISPLAY_CHARS
from kg.sinks.neo4j import store as ns
from kg.sinks.neo4j.display import display_names, shorten, wrappable

URI = os.environ.get("NEO4J_URI")


def test_a_paper_shows_what_it_proposes_a_method_first():
    G = nx.MultiDiGraph()
    G.add_node("paper:p", label="Paper", name="p", title="A title")
    G.add_node("dataset:d", label="Dataset", name="BigBench Plus")
    G.add_node("method:a", label="Method", name="AlphaMix")
    G.add_node("method:b", label="Method", name="BetaMix")
    G.add_edge("paper:p", "dataset:d", type="PROPOSES", confidence=0.99)
    G.add_edge("paper:p", "method:b", type="PROPOSES", confidence=0.6)
    G.add_edge("paper:p", "method:a", type="PROPOSES", confidence=0.9)
    G.add_edge("paper:p", "method:b", type="USES", confidence=1.0)
    assert display_names(G)["paper:p"] == "AlphaMix"
    G.remove_node("method:a")
    assert display_names(G)["paper:p"] == "BetaMix"
    G.remove_node("method:b")
    assert display_names(G)["paper:p"] == "BigBench Plus"


def test_a_paper_that_proposes_nothing_shows_its_title_cut_on_a_word():
    G = nx.MultiDiGraph()
    G.add_node("paper:p", label="Paper", name="p",
               title="Understanding the Limits of In-Context Learning for Long Documents")
    assert display_names(G)["paper:p"] == "Understanding the Limits of In-Context…"  # "In": too short to wrap
    G.add_node("paper:q", label="Paper", name="Only a name")
    assert display_names(G)["paper:q"] == "Only a name"


@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=120))
def test_shorten_keeps_a_prefix_of_words_within_the_limit(s):
    out = shorten(s)
    words = " ".join(s.split())
    assert len(out) <= DISPLAY_CHARS
    if len(words) <= DISPLAY_CHARS:
        assert out == words
    else:
        assert out.endswith("…") and words.startswith(out[:-1])


def test_wrappable_only_opens_long_words():
    assert wrappable("Retrieval-Augmented Generation") == "Retrieval- Augmented Generation"
    assert wrappable("text-to-image diffusion") == "text-to-image diffusion"  # no part of 3+ letters after "to"
    assert wrappable("Llama-3-8B-Instruct") == "Llama-3-8B-Instruct"  # a model name stays whole
    assert wrappable("encoder/decoder-only models") == "encoder/ decoder- only models"


@pytest.mark.neo4j
@pytest.mark.skipif(not URI, reason="NEO4J_URI is not set: run `make test`, or `bash scripts/neo4j "
                                    "start && eval \"$(bash scripts/neo4j env)\"` first")
def test_kg_load_gives_every_node_its_display(sample_graph_dir):
    from kg.io.format import load_graph

    G = load_graph(sample_graph_dir)
    db = os.environ.get("NEO4J_DATABASE") or None
    driver = ns.connect(URI, os.environ.get("NEO4J_USERNAME", "neo4j"), os.environ.get("NEO4J_PASSWORD"), db)
    try:
        ns.load(G, driver, database=db, wipe_first=True)
        rows = ns.run_cypher(driver, "MATCH (n) RETURN n.id AS id, n.display AS display", database=db).rows
    finally:
        driver.close()
    assert {r["id"]: r["display"] for r in rows} == display_names(G)
    assert len(rows) == G.number_of_nodes() > 20
