"""The graph view respects its data: a paper's panel says what the paper proposes, uses and
addresses (it showed only its abstract and neighbour count), and a view of a thousand nodes
opens with names drawn, none over another (names were a fixed size in the layout's units and
hidden below 7 px: such a view opened without one)."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from kg.explore.lookup import show
from kg.io.format import load_graph
from kg.sinks import export
from kg.sinks.html.labels import name_zooms
from kg.sinks.html.maplayout import text_box
from kg.sinks.html.page import STATED, statements

from ..conftest import patience
from .test_html import Opened, browser  # noqa: F401  (the headless Chromium fixture)


def _stated_by_show(G, paper: str) -> dict[str, set[str]]:
    """What ``kg show`` lists for a paper: its own edges, and the edges it states between what it
    proposes and other entities."""
    out: dict[str, set[str]] = {}
    view = show(G, paper, limit=1000).matches[0]
    proposals = {r.id for r in view.proposes}
    for g in view.relations:
        for e in g.edges:
            if g.direction == "out" and e.source.id == paper or g.direction == "stated" and e.source.id in proposals:
                out.setdefault(g.type, set()).add(e.target.id)
    return {t: ids for t, ids in out.items() if t in STATED}


def test_a_papers_statements_are_what_kg_show_reads(sample_graph_dir):
    G = load_graph(sample_graph_dir)
    papers = [n for n, d in G.nodes(data=True) if d["label"] == "Paper"]
    through_proposal = 0
    for p in papers:
        mine = {t: set(ids) for t, ids in statements(G, p)}
        assert mine == _stated_by_show(G, p), p
        assert [t for t, _ in statements(G, p)] == [t for t in STATED if t in mine]
        own = {v for _, v in G.out_edges(p)}
        through_proposal += any(i not in own for t, ids in mine.items() if t != "PROPOSES" for i in ids)
    assert through_proposal  # the sample has papers whose roles go through their proposal


def _overlap(b1, b2) -> bool:
    return b1["x1"] < b2["x2"] and b2["x1"] < b1["x2"] and b1["y1"] < b2["y2"] and b2["y1"] < b1["y2"]


def test_names_shown_at_a_zoom_never_overlap():
    rng = random.Random(5)
    items = [(f"n{i}", rng.uniform(0, 3000), rng.uniform(0, 3000), "name " * rng.randint(1, 4)) for i in range(800)]
    zooms = name_zooms(items, low=0.2)
    assert min(zooms.values()) == 0.2 and zooms["n0"] == 0.2  # the first is drawn from the least zoom
    for z in (0.2, 0.5, 1.0, 3.0):
        boxes = []
        for node, x, top, name in items:
            if zooms[node] <= z:
                a, h = text_box(name, 11)
                boxes.append({"x1": x - a / z, "x2": x + a / z, "y1": top, "y2": top + h / z})
        assert boxes and not any(_overlap(b, c) for i, b in enumerate(boxes) for c in boxes[i + 1:]), z
    assert sum(v <= 3.0 for v in zooms.values()) > sum(v <= 0.5 for v in zooms.values())  # more when zoomed in


@pytest.fixture(scope="module")
def mid_sized(tmp_path_factory):
    """A view of 1,200 nodes: techniques linked as a scale-free graph."""
    G = nx.MultiDiGraph()
    H = nx.barabasi_albert_graph(1200, 2, seed=11)
    for n in H:
        G.add_node(f"technique:t{n}", label="Technique", name=f"technique number {n}")
    for u, v in H.edges():
        G.add_edge(f"technique:t{u}", f"technique:t{v}", type="BROADER")
    out = tmp_path_factory.mktemp("mid") / "mid.html"
    export(G, out, "html", view="graph")
    return out


@pytest.mark.browser
def test_a_mid_sized_view_opens_with_names_that_do_not_overlap(browser, mid_sized):  # noqa: F811
    page = Opened(browser, mid_sized)
    shown = page.js("""() => kgCy.nodes().filter(n => n.style('label') !== '' &&
                              parseFloat(n.style('font-size')) * kgCy.zoom() >= 8).length""")
    assert shown >= 30, shown  # names a reader can read, at the zoom the page opens at
    boxes = page.js("""() => kgCy.nodes().filter(n => n.style('label') !== '')
                             .map(n => n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true}))""")
    assert not any(_overlap(b, c) for i, b in enumerate(boxes) for c in boxes[i + 1:])
    page.js("() => kgCy.zoom({level: kgCy.zoom() * 3, renderedPosition: {x: 400, y: 400}})")
    page.page.wait_for_function(f"() => kgCy.nodes('.named').length > {shown}", timeout=patience(30) * 1000)
    page.clean()


@pytest.mark.browser
def test_a_papers_panel_says_what_it_proposes_uses_and_addresses(browser, sample_graph_dir, tmp_path):  # noqa: F811
    G = load_graph(sample_graph_dir)
    out = tmp_path / "graph.html"
    export(G, out, "html", view="graph")
    paper = max((n for n, d in G.nodes(data=True) if d["label"] == "Paper"),
                key=lambda p: (len({t for t, _ in statements(G, p)} & {"PROPOSES", "USES", "ADDRESSES"}), p))
    stated = dict((t, ids) for t, ids in statements(G, paper))
    assert {"PROPOSES", "USES"} <= set(stated)
    page = Opened(browser, out)
    page.js(f"() => kgCy.getElementById({paper!r}).emit('tap')")
    panel = page.page.locator("#kg-panel")
    panel.locator("dl.kg-states").wait_for(timeout=patience(30) * 1000)
    verbs = panel.locator("dl.kg-states dt").all_inner_texts()
    assert verbs[0] == "Proposes" and "Uses" in verbs
    for t, ids in stated.items():
        items = panel.locator("dl.kg-states dd").nth(list(stated).index(t)).locator("li").all_inner_texts()
        assert [i.rsplit(" ", 1)[0] for i in items] == [G.nodes[m]["name"] for m in ids], t
    used = stated["USES"][0]
    panel.locator(f"dl.kg-states [data-node='{used}']").click()  # a name the view draws opens its node
    page.page.wait_for_function(f"() => document.querySelector('#kg-panel h2').textContent === {G.nodes[used]['name']!r}",
                                timeout=patience(30) * 1000)
    page.clean()
