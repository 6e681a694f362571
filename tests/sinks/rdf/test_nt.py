"""The fast N-Triples writer (kg.sinks.rdf.nt) writes exactly what rendering kg.sinks.rdf.triples.blocks() term by
term writes, and counts the same triples, classes and skipped items, on any graph."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.io.format import load_graph, read_manifest
from kg.sinks.rdf import render, terms, triples
from tests.sinks.rdf.test_export import PAPER_IDS, hostile_graph


def reference(G: nx.MultiDiGraph, base: str = terms.DEFAULT_BASE, manifest: dict | None = None):
    """N-Triples through the general path: blocks() rendered one term at a time."""
    stats = triples.Stats()
    w = terms.TermWriter(base)
    text = "".join(render.nt_chunks(w, triples.blocks(G, stats)))
    text += "".join(render.nt_chunks(w, triples.pair_blocks(G, stats)))
    text += "".join(render.nt_chunks(w, triples.class_blocks(stats)))
    text += "".join(render.nt_chunks(w, triples.void_blocks(stats, base, manifest or {})))
    return text, stats


def fast(G: nx.MultiDiGraph, base: str = terms.DEFAULT_BASE, manifest: dict | None = None):
    stats = triples.Stats()
    return "".join(render.rdf_chunks(G, "nt", base, manifest, stats)), stats


def assert_same(G: nx.MultiDiGraph, **kw) -> str:
    (want, ws), (got, gs) = reference(G, **kw), fast(G, **kw)
    assert got == want
    assert (gs.predicates, gs.classes, gs.skipped) == (ws.predicates, ws.classes, ws.skipped)
    return got


def test_sample_graph_is_written_byte_for_byte_as_the_general_path(sample_graph_dir):
    G = load_graph(sample_graph_dir)
    text = assert_same(G, manifest=read_manifest(sample_graph_dir))
    assert text.count("\n") > 1000


def test_curated_facts_are_written_as_the_general_path_writes_them():
    from kg.curate import apply, make

    G = hostile_graph()
    paper = next(n for n, d in G.nodes(data=True) if d.get("label") == "Paper")
    entity = next(n for n, d in G.nodes(data=True) if d.get("label") == "Technique")
    apply(G, [make("propose", paper=paper.removeprefix("paper:"), node=entity, by="ana", at="2026-01-01T00:00:00Z"),
              make("rename", node=entity, name="Renamed", by="bo", at="2026-01-02T00:00:00Z")])
    for _, _, d in [e for e in G.edges(data=True) if e[2].get("evidence")][:1]:  # extracted, and curated
        d.update(curated_by="cy", curated_at="2026-01-03T00:00:00Z")
    text = assert_same(G)
    assert text.count("prov#wasAttributedTo>") >= 3 and "prov#generatedAtTime>" in text


@pytest.mark.parametrize("base", [terms.DEFAULT_BASE, "https://example.org/kg#", "urn:x:kg/"])
def test_hostile_graph_and_other_bases(base):
    assert_same(hostile_graph(), base=base)


def test_odd_values_take_the_general_path():
    G = hostile_graph()
    G.add_node("paper:p", label="Paper", name="P", year="2024", abstract=7, title=["a", "b"], extra=1)
    G.add_node("task:t", label="Task", name="T", papers=True, aliases=("x", "x", "y"))
    G.add_node("method:m", label="Method", name="", aliases=[], papers=2.0)
    G.add_node("dataset:d", label="Dataset", name="D", papers="3")
    G.add_node("result:r", label="Result", name="R", value=-0.0, valueStart=1.5)
    G.add_node("weird", label="Nope", name="W")
    G.add_node("model:q", label="Model", name="Q", papers=math.nan)
    edge = {"paper": "p", "evidence": "We \"use\" T.\n", "start": 0, "end": 9, "rule": "r", "confidence": 0.5}
    G.add_edge("paper:p", "task:t", key="ADDRESSES|p", type="ADDRESSES", **edge)
    G.add_edge("paper:p", "task:t", key="ADDRESSES|q", type="ADDRESSES", **edge)  # same triple twice
    G.add_edge("paper:p", "method:m", key=3, type="USES", **{**edge, "confidence": 1})
    G.add_edge("paper:p", "dataset:d", key="k", type="USES", **{**edge, "start": None, "end": True})
    G.add_edge("paper:p", "model:q", key="k", type="USES", **{**edge, "confidence": math.inf})
    G.add_edge("paper:p", "result:r", key="k", type="REPORTS", paper="missing")
    G.add_edge("paper:p", "result:r", key="k2", type="REPORTS", paper="missing")
    G.add_edge("paper:p", "result:r", key="k3", type="REPORTS", **edge)
    G.add_edge("paper:p", "weird", key="k", type="USES", **edge)
    G.add_edge("weird", "paper:p", key="k", type="USES", **edge)
    G.add_edge("task:t", "paper:p", key="k", type="ADDRESSES", **edge)  # outside domain/range
    G.add_edge("paper:p", "task:t", key="k", type="NOT_A_TYPE", **edge)
    G.add_edge("paper:p", "task:t", key="k", type=None)
    G.add_edge("paper:p", "method:m", key="k", type="PROPOSES", **{**edge, "confidence": -0.0})
    G.add_edge("paper:p", "dataset:d", key="k2", type="USES", **{**edge, "confidence": 0.0})
    assert_same(G)


ids = st.one_of(st.sampled_from(PAPER_IDS), st.text(max_size=8))
values = st.one_of(st.none(), st.text(max_size=12), st.integers(-5, 5), st.floats(allow_nan=True),
                   st.booleans(), st.lists(st.text(max_size=4), max_size=3))
labels = st.sampled_from(["Paper", "Task", "Method", "Model", "Result", "Repository", "Unknown"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.lists(st.tuples(ids, labels, values, values), min_size=1, max_size=6),
       edges=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5),
                                st.sampled_from(["USES", "ADDRESSES", "REPORTS", "HAS_CODE", "X"]),
                                st.one_of(st.none(), ids), values, values, values), max_size=8))
def test_any_graph_is_written_as_the_general_path_writes_it(nodes, edges):
    G = nx.MultiDiGraph()
    for pid, label, a, b in nodes:
        prefix = label.lower() if label != "Unknown" else "paper"
        G.add_node(f"{prefix}:{pid}", label=label, name=str(a), abstract=a, papers=b, aliases=b, value=b)
    names = list(G.nodes)
    for i, (u, v, etype, paper, ev, start, conf) in enumerate(edges):
        attrs = {"paper": paper, "evidence": ev, "start": start, "end": start, "rule": "r", "confidence": conf}
        G.add_edge(names[u % len(names)], names[v % len(names)], key=f"{etype}|{i % 2}", type=etype,
                   **{k: x for k, x in attrs.items() if x is not None})
    assert_same(G)
