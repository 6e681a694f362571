"""kg.review: the queue of facts to check, and kg review recording an answer."""

from __future__ import annotations

import json

import networkx as nx
from typer.testing import CliRunner


def graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for p in ("p1", "p2"):
        G.add_node(f"paper:{p}", label="Paper", name=p, title=p, abstract="We use A and B.")
    G.add_node("method:a", label="Method", name="A", papers=40)
    G.add_node("method:b", label="Method", name="B", papers=2)
    G.add_node("method:c", label="Method", name="C", papers=2)
    G.add_node("venue:v", label="Venue", name="V")
    G.add_edge("paper:p1", "method:a", key="USES|p1", type="USES", paper="p1", rule="r", confidence=0.95,
               evidence="We use A.", start=0, end=9)
    G.add_edge("paper:p1", "method:b", key="USES|p1", type="USES", paper="p1", rule="r", confidence=0.5,
               evidence="We use B.", start=0, end=9)
    G.add_edge("paper:p2", "method:a", key="USES|p2", type="USES", paper="p2", rule="r", confidence=0.6,
               evidence="We use A.", start=0, end=9)
    G.add_edge("paper:p2", "method:c", key="PROPOSES|p2", type="PROPOSES", paper="p2", rule="curation",
               confidence=0.5, curated_by="ana", curated_at="t")
    G.add_edge("paper:p1", "venue:v", key="PUBLISHED_IN", type="PUBLISHED_IN", rule="record", confidence=1.0)
    return G


def test_the_queue_weighs_uncertainty_by_papers_and_skips_what_is_settled():
    from kg.review import queue

    items = queue(graph())
    # A at 0.6 in 40 papers (0.8 x 40), A at 0.95 (0.1 x 40), B at 0.5 in 2 (1.0 x 2); the curated
    # PROPOSES and the record's PUBLISHED_IN are not queued
    assert [(i.source, i.target, i.weight) for i in items] == [
        ("paper:p2", "method:a", 32.0), ("paper:p1", "method:a", 4.0), ("paper:p1", "method:b", 2.0)]
    assert len(queue(graph(), limit=1)) == 1


def test_kg_review_lists_as_json_and_an_answer_becomes_a_decision(tmp_path):
    import kg
    from kg.cli import app
    from kg.io.format import save

    save(tmp_path, graph(), [], ["toy.jsonl"])
    runner = CliRunner()
    res = runner.invoke(app, ["review", "-g", str(tmp_path), "--json", "-n", "2"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert [r["target"] for r in rows] == ["method:a", "method:a"] and rows[0]["evidence"] == "We use A."
    assert rows[0]["reject"] == "kg curate reject paper:p2 --type USES --target method:a --paper p2"
    res = runner.invoke(app, ["review", "-g", str(tmp_path)])  # not a terminal: the commands, no question
    assert res.exit_code == 0 and "kg curate reject paper:p2 --type USES" in res.stdout

    g = kg.open(tmp_path)
    first = g.review(1)[0]
    g.curate("reject", by="ana", at="t", **first.reject_fields())
    assert not kg.open(tmp_path).nx.has_edge("paper:p2", "method:a")
    assert [(i.source, i.target) for i in kg.open(tmp_path).review()] == [("paper:p1", "method:a"),
                                                                         ("paper:p1", "method:b")]


def test_an_unsure_entity_is_queued_and_rejecting_it_removes_it(tmp_path):
    """An entity node's own confidence (is it an entity of its label?) weighs like an edge's:
    uncertainty times its papers; a curated one is settled."""
    import kg
    from kg.cli import app
    from kg.io.format import save
    from kg.review import queue

    G = graph()
    G.nodes["method:a"]["confidence"] = 0.55  # 0.9 x 40 papers: before every edge
    G.nodes["method:c"].update(confidence=0.5, curated_by="ana")
    items = queue(G)
    assert [(i.kind, i.source, i.weight) for i in items[:2]] == [("entity", "method:a", 36.0),
                                                                  ("edge", "paper:p2", 32.0)]
    assert "method:c" not in {i.source for i in items}
    save(tmp_path, G, [], ["toy.jsonl"])
    res = CliRunner().invoke(app, ["review", "-g", str(tmp_path), "-n", "1"])
    assert res.exit_code == 0 and "A (Method)" in res.stdout and "kg curate reject method:a" in res.stdout
    g = kg.open(tmp_path)
    g.curate("reject", by="ana", at="t", **g.review(1)[0].reject_fields())
    assert "method:a" not in kg.open(tmp_path).nx
