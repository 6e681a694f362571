"""kg.curate: reading a curation file, conflicts, and what each decision does to a graph."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from kg.curate import apply, check, make, parse_lines
from kg.errors import CurationConflict, InputError, UsageError


def small_graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for p, text in (("p1", "We propose FooNet (FN) for parsing."), ("p2", "We use FN and FooNet on CIFAR."),
                    ("p3", "FN, a flow network, is compared.")):
        G.add_node(f"paper:{p}", label="Paper", name=p, title=p, abstract=text)
    G.add_node("method:foonet", label="Method", name="FooNet", aliases=["FN"], papers=3)
    G.add_node("method:barnet", label="Method", name="BarNet", papers=1)
    G.add_node("task:parsing", label="Task", name="parsing", papers=1)
    G.add_node("dataset:cifar", label="Dataset", name="CIFAR", papers=1)
    G.add_edge("paper:p1", "method:foonet", key="PROPOSES|p1", type="PROPOSES", paper="p1", confidence=0.9)
    G.add_edge("paper:p1", "task:parsing", key="ADDRESSES|p1", type="ADDRESSES", paper="p1", confidence=0.7)
    G.add_edge("paper:p2", "method:foonet", key="USES|p2", type="USES", paper="p2", confidence=0.6)
    G.add_edge("paper:p2", "dataset:cifar", key="EVALUATED_ON|p2", type="EVALUATED_ON", paper="p2", confidence=0.6)
    G.add_edge("paper:p3", "method:foonet", key="COMPARED_WITH|p3", type="COMPARED_WITH", paper="p3", confidence=0.5)
    G.add_edge("paper:p3", "method:barnet", key="MENTIONS|p3", type="MENTIONS", paper="p3", confidence=0.5)
    return G


def lines(*decisions: dict) -> list[str]:
    return [json.dumps({"by": "ana", "at": "2026-01-01T00:00:00Z", **d}) for d in decisions]


def run(*decisions: dict):
    G = small_graph()
    report = apply(G, parse_lines(lines(*decisions), "cur.jsonl"))
    return G, report


def test_comments_blank_lines_and_bad_lines():
    skipped: list[str] = []
    text = ["# who decided what", "", '{"op": "merge", "node": "a"}', "not json", '{"op": "fly", "node": "a"}',
            '{"op": "rename", "node": "method:foonet", "name": "Foo"}']
    ds = parse_lines(text, "cur.jsonl", skipped)
    assert [d.op for d in ds] == ["rename"] and ds[0].where == "cur.jsonl:6"
    assert [s.split(": ")[0] for s in skipped] == ["cur.jsonl:3", "cur.jsonl:4", "cur.jsonl:5"]
    assert "needs into" in skipped[0] and "unknown op 'fly'" in skipped[2]
    with pytest.raises(InputError, match="cur.jsonl:3"):
        parse_lines(text, "cur.jsonl")


def test_make_checks_fields():
    with pytest.raises(UsageError, match="unknown label"):
        make("relabel", node="method:foonet", label="Gadget", by="a", at="t")
    with pytest.raises(UsageError, match="papers or by forms"):
        make("split", node="method:foonet", name="X", by="a", at="t")
    with pytest.raises(UsageError, match="into itself"):
        make("merge", node="method:a", into="method:a", by="a", at="t")


@pytest.mark.parametrize("a, b, words", [
    ({"op": "merge", "node": "method:barnet", "into": "method:foonet"},
     {"op": "merge", "node": "method:barnet", "into": "task:parsing"}, "cur.jsonl:2: merge method:barnet"),
    ({"op": "rename", "node": "method:foonet", "name": "A"}, {"op": "rename", "node": "method:foonet", "name": "B"},
     "conflicts with cur.jsonl:1"),
    ({"op": "relabel", "node": "method:foonet", "label": "Task"},
     {"op": "relabel", "node": "method:foonet", "label": "Dataset"}, "conflicts with cur.jsonl:1"),
    ({"op": "reject", "node": "method:foonet"}, {"op": "rename", "node": "method:foonet", "name": "B"},
     "cur.jsonl:2: rename method:foonet"),
    ({"op": "merge", "node": "method:barnet", "into": "method:foonet"},
     {"op": "merge", "node": "method:foonet", "into": "method:barnet"}, "cycle of merges"),
    ({"op": "propose", "paper": "p3", "node": "method:barnet"},
     {"op": "reject", "source": "paper:p3", "type": "PROPOSES", "target": "method:barnet"}, "conflicts with"),
])
def test_conflicting_decisions_are_one_clear_error(a, b, words):
    with pytest.raises(CurationConflict, match=words) as exc:
        check(parse_lines(lines(a, b), "cur.jsonl"))
    assert "\n" not in str(exc.value) and "cur.jsonl:1" in str(exc.value) and "cur.jsonl:2" in str(exc.value)


def test_the_same_decision_twice_is_no_conflict():
    G, report = run({"op": "rename", "node": "method:foonet", "name": "Foo"},
                    {"op": "rename", "node": "method:foonet", "name": "Foo"})
    assert G.nodes["method:foonet"]["name"] == "Foo" and not report.stale


def test_merge_moves_edges_names_and_papers():
    G, report = run({"op": "merge", "node": "method:barnet", "into": "method:foonet"})
    assert "method:barnet" not in G and G.has_edge("paper:p3", "method:foonet", "MENTIONS|p3")
    node = G.nodes["method:foonet"]
    assert node["aliases"] == ["BarNet", "FN"] and node["papers"] == 3
    assert (node["curated_by"], node["curated_at"], node["confidence"]) == ("ana", "2026-01-01T00:00:00Z", 1.0)
    assert report.applied == 1


def test_split_by_paper_and_by_surface_form():
    G, _ = run({"op": "split", "node": "method:foonet", "name": "FooNet-2", "papers": ["p2"]})
    assert G.has_edge("paper:p2", "method:foonet-2", "USES|p2") and not G.has_edge("paper:p2", "method:foonet")
    assert G.nodes["method:foonet"]["papers"] == 2 and G.nodes["method:foonet-2"]["papers"] == 1
    # by form: the papers writing "FN" and no other name of the node (all three write FN, only
    # p3 writes no FooNet)
    G, _ = run({"op": "split", "node": "method:foonet", "name": "flow network", "forms": ["FN"]})
    assert set(G.predecessors("method:flow-network")) == {"paper:p3"}
    assert G.nodes["method:flow-network"]["aliases"] == ["FN"] and "aliases" not in G.nodes["method:foonet"]
    assert set(G.predecessors("method:foonet")) == {"paper:p1", "paper:p2"}


def test_relabel_changes_the_id_and_the_edge_types():
    G, _ = run({"op": "relabel", "node": "method:foonet", "label": "Dataset"})
    assert "method:foonet" not in G and G.nodes["dataset:foonet"]["label"] == "Dataset"
    types = {(u, d["type"]) for u, _, d in G.in_edges("dataset:foonet", data=True)}
    # a USES of a dataset is EVALUATED_ON; PROPOSES and COMPARED_WITH fit any entity
    assert types == {("paper:p1", "PROPOSES"), ("paper:p2", "EVALUATED_ON"), ("paper:p3", "COMPARED_WITH")}
    assert G.has_edge("paper:p2", "dataset:foonet", "EVALUATED_ON|p2")


def test_relabel_onto_an_existing_node_joins_it():
    G, _ = run({"op": "relabel", "node": "dataset:cifar", "label": "Task"},
               {"op": "rename", "node": "task:parsing", "name": "CIFAR"},
               {"op": "relabel", "node": "task:cifar", "label": "Method"})
    assert "task:cifar" not in G and G.nodes["method:cifar"]["label"] == "Method"


def test_rename_keeps_the_id_and_the_old_name_as_alias():
    G, _ = run({"op": "rename", "node": "method:foonet", "name": "FN"})
    assert G.nodes["method:foonet"]["name"] == "FN" and G.nodes["method:foonet"]["aliases"] == ["FooNet"]


def test_reject_a_node_and_an_edge():
    G, report = run({"op": "reject", "node": "method:barnet"},
                    {"op": "reject", "source": "paper:p1", "type": "ADDRESSES", "target": "task:parsing"})
    assert "method:barnet" not in G and not G.has_edge("paper:p1", "task:parsing") and report.applied == 2


def test_propose_replaces_the_mention():
    G, _ = run({"op": "propose", "paper": "p3", "node": "method:barnet"})
    edges = G.get_edge_data("paper:p3", "method:barnet")
    assert list(edges) == ["PROPOSES|p3"]
    assert edges["PROPOSES|p3"] == {"type": "PROPOSES", "paper": "p3", "rule": "curation", "confidence": 1.0,
                                    "curated_by": "ana", "curated_at": "2026-01-01T00:00:00Z"}


def test_a_decision_that_no_longer_applies_is_reported_with_its_line():
    G, report = run({"op": "rename", "node": "method:foonet", "name": "Foo"},
                    {"op": "merge", "node": "method:gone", "into": "method:foonet"},
                    {"op": "propose", "paper": "p9", "node": "method:foonet"},
                    {"op": "reject", "source": "paper:p1", "type": "USES", "target": "task:parsing"})
    assert report.applied == 1
    assert [s.split(": ")[0] for s in report.stale] == ["cur.jsonl:2", "cur.jsonl:4", "cur.jsonl:3"]
    assert all(s.endswith("no longer applies") for s in report.stale)
    assert "entity method:gone is not in the graph" in report.stale[0]


def test_the_result_does_not_depend_on_the_order_of_the_file():
    from kg.io.format import graph_lines

    ds = [{"op": "merge", "node": "method:barnet", "into": "method:foonet"},
          {"op": "rename", "node": "method:foonet", "name": "Foo"},
          {"op": "relabel", "node": "method:foonet", "label": "Technique"},
          {"op": "reject", "source": "paper:p2", "type": "EVALUATED_ON", "target": "dataset:cifar"},
          {"op": "propose", "paper": "p2", "node": "task:parsing"},
          {"op": "split", "node": "method:foonet", "name": "Foo2", "papers": ["p3"]}]
    outs = set()
    rng = random.Random(3)
    for _ in range(6):
        rng.shuffle(ds)
        G, report = run(*ds)
        assert not report.stale
        outs.add(b"\n".join(graph_lines(G)))
    assert len(outs) == 1
