"""The HTML view in a real headless Chromium: it loads from file:// without one other request
and without a console error, draws every node of the sample graph, finds an entity by name and
lists its papers, shows an edge's evidence on a click, and shows a hostile name as text.

Needs Debian's Chromium at /usr/bin/chromium and the playwright package (``make test``
installs both); without them the tests skip, except in CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from kg.io.format import load_graph
from kg.sinks import export, export_graph
from kg.sinks.html.page import papers_of

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
NASTY = "</script><img src=x onerror=alert(1)>"
CENTRE = "technique:speculative-decoding"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if IN_CI:
            pytest.fail(f"{CHROMIUM} is missing in CI: install it (make chromium)")
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (or make chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if IN_CI:
            pytest.fail("playwright is missing in CI: pip install -e '.[dev]'")
        pytest.skip("pip install playwright (the dev extra)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


class Opened:
    """A page of the HTML export, with every request, console message and dialog it made."""

    def __init__(self, browser, path: Path):
        self.url = path.resolve().as_uri()
        self.requests, self.refused, self.console, self.dialogs = [], [], [], []
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.route("**/*", self.answer)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.console.append(("pageerror", str(e))))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(self.url)
        self.page.wait_for_selector("html[data-ready=true]", state="attached", timeout=60_000)

    def answer(self, route) -> None:
        if route.request.url == self.url:
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort()

    def js(self, code: str, arg=None):
        return self.page.evaluate(code, arg)

    def search(self, text: str) -> None:
        """Search, and wait until the page has answered: the panel shows a node, or the
        status line says why not."""
        self.page.evaluate("() => { document.getElementById('kg-search-status').textContent = '…'; }")
        self.page.fill("#kg-query", text)
        self.page.click("#kg-search button")
        self.page.wait_for_function("() => document.getElementById('kg-search-status').textContent !== '…'",
                                    timeout=30_000)

    def clean(self) -> None:
        errors = [m for m in self.console if m[0] in ("error", "pageerror", "warning")]
        assert not errors, errors
        assert self.requests == [self.url] and not self.refused, self.requests
        assert not self.dialogs, self.dialogs


@pytest.fixture(scope="module")
def sample(sample_graph_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "graph.html"
    export_graph(sample_graph_dir, "html", out, view="graph")
    return load_graph(sample_graph_dir), out


def test_the_page_loads_offline_and_draws_every_node(browser, sample, tmp_path):
    G, path = sample
    page = Opened(browser, path)
    ready = page.js("() => window.kgReady")
    assert ready["nodes"] == page.js("() => kgCy.nodes().length") == G.number_of_nodes()
    assert ready["edges"] == page.js("() => kgCy.edges().length") == G.number_of_edges()
    assert page.page.inner_text("#kg-title") == "sample"
    assert f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges" in page.page.inner_text("#kg-size")
    legend = page.page.inner_text("#kg-labels")
    assert "Paper" in legend and "Method" in legend
    swatch = page.js("() => getComputedStyle(document.querySelector('#kg-labels .kg-swatch')).backgroundColor")
    assert swatch == "rgb(255, 196, 84)"  # Dataset, first in the legend: #FFC454 in kg.grass
    page.page.uncheck("#kg-labels input[value=Paper]")
    papers = sum(d["label"] == "Paper" for _, d in G.nodes(data=True))
    visible = None
    for _ in range(40):  # the change handler restyles in a batch: wait for it, at most 4 s
        visible = page.js("() => kgCy.nodes(':visible').length")
        if visible == G.number_of_nodes() - papers:
            break
        page.page.wait_for_timeout(100)
    assert visible == G.number_of_nodes() - papers
    page.page.check("#kg-labels input[value=Paper]")
    page.page.screenshot(path=str(tmp_path / "sample.png"))
    assert (tmp_path / "sample.png").stat().st_size > 20_000
    page.clean()


def test_search_finds_an_entity_and_the_panel_lists_its_papers(browser, sample, tmp_path):
    G, path = sample
    page = Opened(browser, path)
    page.search("Speculative decoding")
    panel = page.page.locator("#kg-panel")
    assert panel.locator("h2").inner_text() == G.nodes[CENTRE]["name"]
    titles = panel.locator("ul.kg-papers li").all_inner_texts()
    want = [G.nodes[p]["title"] for p in papers_of(G, CENTRE)]
    assert want and all(any(t.startswith(w) for t in titles) for w in want), (titles, want)
    assert page.js("() => kgCy.$('node.found').map(n => n.id())") == [CENTRE]
    # how sure the reading is, and the commands that correct it (kept across rebuilds)
    dd = panel.locator("dt", has_text="Confidence").locator("xpath=following-sibling::dd[1]")
    assert float(dd.inner_text()) == G.nodes[CENTRE]["confidence"]
    assert panel.locator("ul.kg-curate code").all_text_contents()[0] == f"kg curate reject {CENTRE}"
    page.search("no such thing at all")
    page.search("Speculative-Decoding")  # as kg show reads a name: dashes and spacing alike
    assert page.page.inner_text("#kg-search-status") == ""
    assert page.js("() => kgCy.$('node.found').map(n => n.id())") == [CENTRE]
    page.search("no such thing at all")
    assert page.page.inner_text("#kg-search-status") == 'no entity, paper or author of the graph is named "no such thing at all"'


def test_search_tells_a_name_left_out_of_the_page_from_one_the_graph_does_not_hold(browser, sample_graph_dir, tmp_path):
    G = load_graph(sample_graph_dir)
    out = tmp_path / "near.html"
    view = export(G, out, "html", around=CENTRE, depth=1).detail
    left_out = next(d["name"] for n, d in sorted(G.nodes(data=True)) if n not in view.nodes and d["label"] == "Dataset")
    page = Opened(browser, out)
    page.search(left_out.upper())
    said = page.page.inner_text("#kg-search-status")
    assert said == f'in the graph, not drawn here: kg export --format html --around "{left_out.upper()}"', said
    left_out = next(d["name"] for n, d in sorted(G.nodes(data=True)) if n not in view.nodes and " " in d.get("name", ""))
    page.search(left_out.replace(" ", "-"))  # dashes for spaces: still a name of the graph
    said = page.page.inner_text("#kg-search-status")
    assert said.startswith("in the graph, not drawn here"), said
    page.clean()
    page.page.screenshot(path=str(tmp_path / "search.png"))
    page.clean()


def test_clicking_an_edge_shows_its_evidence(browser, sample):
    G, path = sample
    page = Opened(browser, path)
    # the evidenced edge whose middle lies farthest from any node, clicked with the mouse
    x, y, source, target, kind = page.js("""() => {
        const nodes = kgCy.nodes().map(n => n.renderedPosition());
        const box = kgCy.container().getBoundingClientRect();
        const evidenced = new Set(kgData.edges.filter(e => e.evidence).map(e => e.id));
        let best = null, far = -1;
        kgCy.edges().filter(e => evidenced.has(e.id())).forEach(e => {
            const m = e.renderedMidpoint();
            if (m.x < 10 || m.y < 10 || m.x > box.width - 10 || m.y > box.height - 10) return;
            const d = Math.min(...nodes.map(p => Math.hypot(p.x - m.x, p.y - m.y)));
            if (d > far) { far = d; best = [box.left + m.x, box.top + m.y, e.data('source'), e.data('target'), e.data('type')]; }
        });
        return best; }""")
    page.page.mouse.click(x, y)
    page.page.wait_for_function("k => (document.querySelector('#kg-panel h2') || {}).textContent === k", arg=kind,
                                timeout=30_000)
    panel = page.page.locator("#kg-panel")
    assert panel.locator("h2").inner_text() == kind
    evidence = {d.get("evidence") for d in G.get_edge_data(source, target).values() if d["type"] == kind}
    shown = panel.locator("blockquote.kg-evidence")
    assert shown.count() == 1 and shown.inner_text() in evidence
    # the command that rejects this edge of this paper, quoted as a shell reads it
    words = shlex.split(panel.locator("ul.kg-curate code").text_content())
    papers = {d.get("paper") for d in G.get_edge_data(source, target).values() if d["type"] == kind}
    assert words[:8] == ["kg", "curate", "reject", source, "--type", kind, "--target", target], words
    assert words[8] == "--paper" and words[9] in papers and len(words) == 10, words
    page.clean()


def test_a_hostile_name_is_shown_as_text_and_runs_nothing(browser, sample_graph_dir, tmp_path):
    G = load_graph(sample_graph_dir)
    G.add_node("technique:nasty", label="Technique", name=NASTY, aliases=["<b>bold</b>"])
    G.add_edge(CENTRE, "technique:nasty", key="BROADER", type="BROADER",
               evidence="</script><script>alert(2)</script>")
    out = tmp_path / "nasty.html"
    export(G, out, "html", view="graph")
    page = Opened(browser, out)
    page.search("onerror")
    assert page.page.locator("#kg-panel h2").inner_text() == NASTY
    assert page.page.locator("#kg-panel").inner_text().count("<b>bold</b>") == 1
    assert page.js("() => document.querySelectorAll('img, b').length") == 0
    assert page.js("() => document.scripts.length") == 3
    page.page.screenshot(path=str(tmp_path / "nasty.png"))
    page.clean()
