"""kg.confidence: views by confidence, in the library and on the command line."""

from __future__ import annotations

import networkx as nx
import pytest
from typer.testing import CliRunner

from kg.confidence import cut
from kg.errors import UsageError


def graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_node("paper:p1", label="Paper", name="P1", title="P1", abstract="We propose A, use B and C.")
    G.add_node("venue:v", label="Venue", name="V")
    G.add_node("method:a", label="Method", name="A", papers=1)
    G.add_node("method:b", label="Method", name="B", papers=1)
    G.add_node("method:c", label="Method", name="C", papers=1, confidence=0.3)
    G.add_node("technique:t", label="Technique", name="T", papers=0)
    G.add_edge("paper:p1", "venue:v", key="PUBLISHED_IN", type="PUBLISHED_IN", rule="record", confidence=1.0)
    G.add_edge("paper:p1", "method:a", key="PROPOSES|p1", type="PROPOSES", paper="p1", rule="r", confidence=0.9)
    G.add_edge("method:a", "method:b", key="USES|p1", type="USES", paper="p1", rule="r", confidence=0.55)
    G.add_edge("paper:p1", "method:b", key="MENTIONS|p1", type="MENTIONS", paper="p1", rule="r", confidence=0.45)
    G.add_edge("paper:p1", "method:c", key="MENTIONS|p1", type="MENTIONS", paper="p1", rule="r", confidence=0.8)
    G.add_edge("method:b", "technique:t", key="BROADER", type="BROADER", rule="lexicon")
    return G


@pytest.mark.parametrize("p, nodes, edges", [
    (0.0, 6, 6),
    (0.5, 5, 4),   # MENTIONS B (0.45) and the entity C (0.3) with its edge go
    (0.6, 5, 3),   # USES (0.55) goes too; B keeps its BROADER edge (no confidence: a lexicon fact)
    (0.95, 4, 2),  # A's PROPOSES goes and A with it; papers, venues and what no score rates stay
])
def test_a_cut_drops_the_facts_below_and_what_they_alone_held(p, nodes, edges):
    G = graph()
    done = cut(G, p)
    assert (G.number_of_nodes(), G.number_of_edges()) == (nodes, edges)
    assert (done.nodes, done.edges) == (6 - nodes, 6 - edges)
    assert "paper:p1" in G and "venue:v" in G


def test_a_threshold_outside_0_1_is_refused():
    for bad in (-0.1, 1.5, "0.5", True):
        with pytest.raises(UsageError, match="from 0 to 1"):
            cut(graph(), bad)


def test_min_confidence_on_show_export_and_the_api(tmp_path):
    import kg
    from kg.cli import app, exit_code
    from kg.io.format import save

    save(tmp_path, graph(), [], ["toy.jsonl"])
    runner = CliRunner()
    res = runner.invoke(app, ["show", "C", "-g", str(tmp_path), "--json"])
    assert res.exit_code == 0 and '"method:c"' in res.stdout
    res = runner.invoke(app, ["show", "C", "-g", str(tmp_path), "--min-confidence", "0.5"])
    assert exit_code(res.exception) == 2 and "no entity or paper named 'C'" in str(res.exception)
    res = runner.invoke(app, ["show", "C", "-g", str(tmp_path), "--min-confidence", "1.5"])
    assert res.exit_code == 2 and "--min-confidence" in res.output
    res = runner.invoke(app, ["export", "-f", "nt", "-g", str(tmp_path), "-o", str(tmp_path / "cut.nt"),
                              "--min-confidence", "0.6"])
    assert res.exit_code == 0, res.output
    nt = (tmp_path / "cut.nt").read_text(encoding="utf-8")
    assert "/method/b>" in nt and "/method/c>" not in nt and "#uses>" not in nt
    assert set(kg.open(tmp_path, min_confidence=0.6).nx) == {"paper:p1", "venue:v", "method:a", "method:b",
                                                             "technique:t"}
