"""The map of the field as a page: what kg map and kg export --format html write by default,
that it holds entities and no paper, that the same graph gives the same bytes in any process,
and, in headless Chromium, that every area is labelled, names keep their size and never
overlap at any zoom, the panel lists papers with their evidence, and search tells a name the
map leaves out from one the graph does not hold."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from kg.cli import app, main
from kg.errors import UsageError
from kg.io.format import load_graph
from kg.sinks import export, export_graph

from .test_html import Opened, browser  # noqa: F401  (the fixture)


def data_of(path) -> dict:
    m = re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', path.read_text(encoding="utf-8"), re.S)
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def mapped(sample_graph_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("map") / "graph.html"
    export_graph(sample_graph_dir, "html", out)
    return load_graph(sample_graph_dir), out


def test_the_html_export_is_a_map_of_entities_without_papers(mapped):
    G, path = mapped
    data = data_of(path)
    assert data["kind"] == "map" and data["nodes"] and data["areas"]
    labels = {n["label"] for n in data["nodes"]}
    assert labels <= {"Technique", "Task", "Dataset", "Model", "Method"}
    assert all(a["name"] and a["lines"] for a in data["areas"])
    assert {n["area"] for n in data["nodes"]} == {a["id"] for a in data["areas"]}
    assert data["total"]["papers"] == sum(1 for _, d in G.nodes(data=True) if d["label"] == "Paper")
    big = max(data["nodes"], key=lambda n: n["papers"])
    assert big["links"] and all(r[0] in data["papers"] for r in big["links"])
    assert any(r[3] is not None and data["texts"][r[3]] for r in big["links"])  # evidence travels with it
    titles = {d.get("title") for _, d in G.nodes(data=True) if d["label"] == "Paper"}
    assert titles and {t.lower() for t in titles if t} <= set(data["absent"])  # search knows them


def test_the_same_graph_gives_the_same_map_in_any_process(sample_graph_dir, tmp_path):
    pages = []
    for seed in ("1", "2"):
        out = tmp_path / f"map{seed}.html"
        code = f"from kg.sinks import export_graph; export_graph({str(sample_graph_dir)!r}, 'html', {str(out)!r})"
        subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONHASHSEED": seed},
                       timeout=300)
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]


def kg(capsys, monkeypatch, *args) -> tuple[int, str]:
    """Run the real entry point in-process: (exit code, what it printed, in one line)."""
    monkeypatch.setattr(sys, "argv", ["kg", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        main()
    out = capsys.readouterr()
    return exc.value.code, " ".join((out.out + out.err).split())


def test_kg_map_and_its_comparison_from_the_command_line(toy_folders, tmp_path, capsys, monkeypatch):
    out = tmp_path / "m.html"
    rc, said = kg(capsys, monkeypatch, "map", "-g", toy_folders["both"], "-o", out, "--select", "year=2023-2024",
                  "--diff", "year=2021-2022")
    assert rc == 0, said
    assert "compared with year=2021-2022" in said and "(year=2023-2024)" in said
    data = data_of(out)
    assert data["compared"] == "year=2021-2022"
    diffusion = next(n for n in data["nodes"] if n["name"] == "diffusion model")
    assert (diffusion["change"]["old"], diffusion["papers"]) == (1, 4)  # too few papers to be marked grown
    assert all("change" in n for n in data["nodes"])
    rc, said = kg(capsys, monkeypatch, "map", "-g", toy_folders["new"], "-o", out, "--diff", toy_folders["old"])
    assert rc == 0 and data_of(out)["compared"] == "old", said
    rc, said = kg(capsys, monkeypatch, "map", "-g", toy_folders["new"], "-o", out, "--diff", "nowhere")
    assert rc == 2 and "neither a graph folder nor a slice" in said
    rc, said = kg(capsys, monkeypatch, "map", "-g", toy_folders["new"])
    assert rc == 0 and (toy_folders["new"] / "map.html").is_file()


def test_the_graph_view_is_still_there(sample_graph_dir, tmp_path):
    runner = CliRunner()
    out = tmp_path / "g.html"
    r = runner.invoke(app, ["export", "--format", "html", "--view", "graph", "-g", str(sample_graph_dir), "-o", str(out)])
    assert r.exit_code == 0 and "showing all" in r.output, r.output
    assert "kind" not in data_of(out) and any(n["label"] == "Paper" for n in data_of(out)["nodes"])
    r = runner.invoke(app, ["export", "--format", "html", "--view", "tree", "-g", str(sample_graph_dir), "-o", str(out)])
    assert r.exit_code == 2 and "use map or graph" in r.output
    r = runner.invoke(app, ["export", "--format", "ttl", "--max-nodes", "5", "-g", str(sample_graph_dir), "-o", str(out)])
    assert r.exit_code == 2 and "--format html" in " ".join(re.sub("[│╭╮╰╯─]", " ", r.output).split())
    with pytest.raises(UsageError, match="map view"):
        export(load_graph(sample_graph_dir), out, "html", view="graph", diff="year=2024")


# In the browser ------------------------------------------------------------------------------

def zoom_to(page: Opened, level: float) -> dict:
    """Zoom about the centre of the map and wait until the names drawn are those of the zoom."""
    page.js("(z) => { kgCy.zoom({level: z, renderedPosition: {x: kgCy.width() / 2, y: kgCy.height() / 2}}); }", level)
    page.page.wait_for_function(
        """() => { const z = kgCy.zoom();
                   return kgCy.nodes('.entity').every(n => n.hasClass('named') === (n.data('show') <= z * 1.0001)); }""",
        timeout=30_000)  # the names follow the zoom on the next animation frame
    return page.js("""() => {
        const z = kgCy.zoom(), named = kgCy.nodes('.named');
        const boxes = named.map(n => [n.id(), n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true})]);
        const overlaps = [];
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i][1], b = boxes[j][1];
            const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1), dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
            if (dx * z > 2 && dy * z > 2) overlaps.push([boxes[i][0], boxes[j][0]]);
        }
        return { zoom: z, named: named.length, overlaps: overlaps,
                 font: named.length ? named[0].numericStyle('font-size') * z : null,
                 areaFont: kgCy.nodes('.area').map(n => n.numericStyle('font-size') * z) }; }""")


@pytest.mark.browser
def test_the_map_labels_every_area_and_draws_names_that_never_overlap(browser, mapped, tmp_path):  # noqa: F811
    G, path = mapped
    page = Opened(browser, path)
    data = page.js("() => kgData")
    ready = page.js("() => window.kgReady")
    assert ready["nodes"] == len(data["nodes"]) and ready["areas"] == len(data["areas"])
    assert page.js("() => kgCy.nodes('.entity').filter(n => n.data('label') === 'Paper').length") == 0
    labels = page.js("() => kgCy.nodes('.area').map(n => n.style('label'))")
    assert len(labels) == len(data["areas"]) and all(s.strip() for s in labels)
    fit = page.js("() => kgCy.zoom()")
    seen = []
    for level in (fit, 2 * fit, 4 * fit):
        state = zoom_to(page, level)
        assert not state["overlaps"], state["overlaps"][:5]
        assert state["font"] == pytest.approx(12, abs=0.01)  # the same size on screen at every zoom
        assert all(f == pytest.approx(14, abs=0.01) for f in state["areaFont"])
        seen.append(state["named"])
        page.page.screenshot(path=str(tmp_path / f"map-{len(seen)}.png"))
    assert 0 < seen[0] < seen[2] <= len(data["nodes"])  # more names as the reader zooms in
    assert (tmp_path / "map-1.png").stat().st_size > 20_000
    page.clean()


@pytest.mark.browser
def test_the_panel_lists_papers_with_evidence_and_search_tells_absent_from_unknown(browser, mapped):  # noqa: F811
    G, path = mapped
    page = Opened(browser, path)
    big = page.js("() => kgData.nodes.slice().sort((a, b) => b.papers - a.papers)[0]")
    page.page.fill("#kg-query", big["name"].upper())
    page.page.click("#kg-search button")
    panel = page.page.locator("#kg-panel")
    panel.locator("h2").wait_for(timeout=30_000)
    assert panel.locator("h2").inner_text() == big["name"]
    assert panel.locator("ul.kg-papers > li").count() == len(big["links"])
    assert panel.locator("blockquote.kg-evidence").count() >= 1
    venue = next(d["name"] for _, d in G.nodes(data=True) if d["label"] == "Venue")  # in the graph, not on the map
    status = page.page.locator("#kg-search-status")
    page.page.fill("#kg-query", venue)
    page.page.click("#kg-search button")
    page.page.wait_for_function("() => document.getElementById('kg-search-status').textContent !== ''", timeout=30_000)
    assert "not drawn on this map" in status.inner_text() and "--around" in status.inner_text()
    page.page.fill("#kg-query", " " + venue.replace(" ", "_") + " ")  # read as kg show reads a name
    page.page.evaluate("() => { document.getElementById('kg-search-status').textContent = ''; }")
    page.page.click("#kg-search button")
    page.page.wait_for_function("() => document.getElementById('kg-search-status').textContent !== ''", timeout=30_000)
    assert "not drawn on this map" in status.inner_text(), status.inner_text()
    dashed = next(n for n in page.js("() => kgData.nodes") if " " in n["name"] and n["id"] != big["id"])
    page.page.fill("#kg-query", dashed["name"].replace(" ", "-").upper())
    page.page.click("#kg-search button")
    page.page.wait_for_function("(name) => document.querySelector('#kg-panel h2').innerText === name",
                                arg=dashed["name"], timeout=30_000)
    page.page.fill("#kg-query", "no such thing at all")
    page.page.click("#kg-search button")
    page.page.wait_for_function("() => document.getElementById('kg-search-status').textContent.startsWith('no ')",
                                timeout=30_000)
    assert "no entity, paper or author" in status.inner_text()
    page.clean()
