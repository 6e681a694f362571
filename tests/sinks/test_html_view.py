"""The HTML view without a browser: what it selects, that it says so, that the same graph gives
the same bytes, that strings from the data cannot end a script, and that the vendored library
is the one its manifest names."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys

import networkx as nx
import pytest
from typer.testing import CliRunner

from kg.cli import app
from kg.errors import NotFound, UsageError
from kg.io.format import load_graph
from kg.sinks import export
from kg.sinks.html import select_view
from kg.sinks.html.page import GRASS_FILE, HTML_DIR, json_block, papers_of, style
from kg.sinks.html.select import degree, find_nodes

NASTY = "</script><img src=x onerror=alert(1)>"
CENTRE = "technique:speculative-decoding"


@pytest.fixture(scope="module")
def G(sample_graph_dir):
    return load_graph(sample_graph_dir)


def data_of(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', html, re.S)
    assert m, "no data block"
    return json.loads(m.group(1))


def test_the_same_graph_gives_the_same_bytes_whatever_its_insertion_order(G, tmp_path):
    H = nx.MultiDiGraph()
    H.add_nodes_from(reversed(list(G.nodes(data=True))))
    H.add_edges_from(reversed(list(G.edges(keys=True, data=True))))
    a, b, c = tmp_path / "a.html", tmp_path / "b.html", tmp_path / "c.html"
    export(G, a, "html")
    export(G, b, "html")
    export(H, c, "html")
    assert a.read_bytes() == b.read_bytes() == c.read_bytes()
    export(G, c, "html", max_nodes=20)
    assert c.read_bytes() != a.read_bytes()  # the comparison can fail


LAYOUT_IN_A_PROCESS = """
import hashlib, json, networkx as nx
from kg.sinks.html.page import layout
G = nx.MultiDiGraph(nx.barabasi_albert_graph(1200, 2, seed=3))
G = nx.relabel_nodes(G, {n: f"technique:t{n}" for n in G})
nodes = sorted(G, key=lambda n: (-G.degree(n), n))
print(hashlib.sha256(json.dumps(layout(G, nodes)).encode()).hexdigest())
"""


def test_the_layout_is_the_same_in_any_process():
    """A networkx subgraph view of fewer than half a graph's nodes iterates a set, whose order
    depends on the process's hash seed: a spring layout computed on one differed from one
    process to the next."""
    runs = {subprocess.run([sys.executable, "-c", LAYOUT_IN_A_PROCESS], check=True, capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}, timeout=300).stdout for seed in ("1", "2", "3")}
    assert len(runs) == 1, runs


def test_around_takes_an_id_a_name_or_an_alias_and_the_depth(G):
    one = select_view(G, around="Speculative Decoding", depth=1)
    assert one.centres == [CENTRE]
    assert set(one.nodes) == {CENTRE, *G.successors(CENTRE), *G.predecessors(CENTRE)}
    assert select_view(G, around=CENTRE, depth=0).nodes == [CENTRE]
    two = select_view(G, around=CENTRE, depth=2)
    ring = {m for n in one.nodes for m in (*G.successors(n), *G.predecessors(n))}
    assert set(two.nodes) == set(one.nodes) | ring and len(two.nodes) > len(one.nodes)
    aliased = next(n for n, d in G.nodes(data=True) if d.get("aliases") and d["label"] != "Paper")
    alias = G.nodes[aliased]["aliases"][0].upper()
    assert aliased in find_nodes(G, alias)


def test_a_name_that_matches_nothing_is_an_error_with_suggestions(G):
    with pytest.raises(NotFound, match="did you mean: speculative decoding"):
        select_view(G, around="speculativ decoding")
    with pytest.raises(NotFound, match="no entity or paper named 'zzzz'"):
        find_nodes(G, "zzzz")


def test_a_big_graph_is_cut_to_the_best_connected_and_the_page_says_so(G, tmp_path):
    view = select_view(G, max_nodes=10)
    ranked = sorted(G, key=lambda n: (-degree(G, n), n))
    assert view.nodes == ranked[:10]
    assert view.note == f"showing 10 of {G.number_of_nodes()} nodes: the best connected (most distinct neighbours) first"
    out = tmp_path / "g.html"
    export(G, out, "html", max_nodes=10, view="graph")
    data = data_of(out.read_text(encoding="utf-8"))
    assert data["note"] == view.note and len(data["nodes"]) == 10
    assert data["total"] == {"nodes": G.number_of_nodes(), "edges": G.number_of_edges()}
    assert {(e["source"], e["target"]) for e in data["edges"]} == {
        (u, v) for u, v in G.subgraph(view.nodes).edges()}
    near = select_view(G, around=CENTRE, depth=2, max_nodes=5)
    assert near.nodes[0] == CENTRE and set(near.nodes) <= set(select_view(G, around=CENTRE, depth=1).nodes)
    assert near.note.startswith("showing 5 of ") and "within 2 steps of speculative decoding" in near.note
    assert select_view(G, max_nodes=0).note == f"showing all {G.number_of_nodes()} nodes"


@pytest.mark.parametrize("view", ["graph", "map"])
def test_strings_from_the_data_cannot_end_the_script_or_become_markup(G, tmp_path, view):
    H = G.copy()
    H.add_node("technique:nasty", label="Technique", name=NASTY, aliases=['"quoted" & <b>bold</b>'])
    H.add_edge(CENTRE, "technique:nasty", key="BROADER", type="BROADER", evidence="a </SCRIPT> b <!-- c")
    paper = next(n for n, d in H.nodes(data=True) if d["label"] == "Paper")
    H.add_edge(paper, "technique:nasty", key="USES|x", type="USES", paper=paper[6:], evidence="a </SCRIPT> b <!-- c")
    out = tmp_path / "nasty.html"
    export(H, out, "html", view=view)
    html = out.read_text(encoding="utf-8")
    assert NASTY not in html and "<b>bold" not in html and "</SCRIPT>" not in html and "<!-- c" not in html
    assert html.count("</script>") == 3  # the data block and the two scripts, nothing else
    data = data_of(html)
    assert next(n for n in data["nodes"] if n["id"] == "technique:nasty")["name"] == NASTY
    assert "<" not in json_block({"a": NASTY}) and json.loads(json_block({"a": NASTY})) == {"a": NASTY}


def test_only_http_links_reach_the_page(G, tmp_path):
    H = G.copy()
    pid, other = sorted(n for n, d in H.nodes(data=True) if d["label"] == "Paper")[:2]
    H.nodes[pid]["url"] = "javascript:alert(1)"
    H.nodes[other]["url"] = "https://openreview.net/forum?id=x&y=<z>"
    out = tmp_path / "g.html"
    export(H, out, "html")
    papers = data_of(out.read_text(encoding="utf-8"))["papers"]
    assert "url" not in papers[pid] and papers[other]["url"] == "https://openreview.net/forum?id=x&y=<z>"


def test_the_panel_lists_the_papers_an_entity_comes_from(G):
    papers = papers_of(G, CENTRE)
    assert papers and all(G.nodes[p]["label"] == "Paper" for p in papers)
    assert set(papers) >= {f"paper:{d['paper']}" for _, _, d in G.in_edges(CENTRE, data=True) if d.get("paper")}


def test_colours_come_from_the_browser_style():
    grass = GRASS_FILE.read_text(encoding="utf-8")
    for label in ("Paper", "Method", "Dataset", "Author"):
        block = re.search(r"node\." + label + r" \{(.*?)\}", grass, re.S).group(1)
        assert style()["labels"][label]["color"] == re.search(r"color: (#\w+);", block).group(1)
    assert style()["types"]["PROPOSES"] == {"color": "#F36924", "width": 3.0}


def test_the_vendored_library_is_the_one_its_manifest_names(G, tmp_path):
    manifest = json.loads((HTML_DIR / "vendor.json").read_text(encoding="utf-8"))["cytoscape.min.js"]
    raw = (HTML_DIR / "cytoscape.min.js").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == manifest["sha256"]
    header, _, upstream = raw.partition(b"\n")
    assert hashlib.sha256(upstream).hexdigest() == manifest["upstream_sha256"]
    assert f"cytoscape.js {manifest['version']}".encode() in header and b"MIT" in header
    licence = (HTML_DIR / manifest["licence_file"]).read_text(encoding="utf-8")
    assert "Permission is hereby granted, free of charge" in licence
    out = tmp_path / "g.html"
    export(G, out, "html")
    html = out.read_text(encoding="utf-8")
    assert licence.strip() in html and header.decode() in html


def words(output: str) -> str:
    """The words of a command's output, out of rich's error box and its line breaks."""
    return " ".join(re.sub("[│╭╮╰╯─]", " ", output).split())


def test_kg_export_html_from_the_command_line(sample_graph_dir, tmp_path):
    runner = CliRunner()
    out = tmp_path / "near.html"
    r = runner.invoke(app, ["export", "--format", "html", "-g", str(sample_graph_dir), "-o", str(out),
                            "--around", "speculative decoding", "--depth", "1"])
    assert r.exit_code == 0, r.output
    assert "within 1 step of speculative decoding" in r.output and out.stat().st_size > 400_000
    r = runner.invoke(app, ["export", "--format", "html", "-g", str(sample_graph_dir), "-o", str(out),
                            "--around", "speculativ decoding"])
    assert r.exit_code == 2 and "did you mean: speculative decoding" in words(r.output)
    r = runner.invoke(app, ["export", "--format", "ttl", "-g", str(sample_graph_dir), "-o", str(tmp_path / "g.ttl"),
                            "--around", "speculative decoding"])
    assert r.exit_code == 2 and "--format html" in words(r.output)
    with pytest.raises(UsageError, match="only apply to the html export"):
        export(load_graph(sample_graph_dir), tmp_path / "g.ttl", "ttl", around="x")
