"""Neo4j Browser, in a real headless Chromium, against the server scripts/neo4j runs: on
connect the kg style applies itself and the kg guide opens, and a guide cell draws a paper's
neighbourhood with kg's captions and sizes.

Needs NEO4J_URI (and NEO4J_HTTP_PORT when it is not 7474), Debian's Chromium at
/usr/bin/chromium and the playwright package (``make test`` installs both). Browser's own page
asks the internet for its web fonts and loads its usage, feedback and crash reporters before it
has connected (so before the server can turn them off); this test answers those few hosts
locally with empty files. Any other request to a non-local host is refused, and fails the test.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from kg.sinks.neo4j.guide import MODEL_HEADING

from ...conftest import patience

URI = os.environ.get("NEO4J_URI")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOCAL = {"127.0.0.1", "localhost"}
# What Browser's own page asks for: web fonts, usage statistics, feedback widget, crash reports.
BROWSER_OWN = {"fonts.googleapis.com", "cdn.segment.com", "canny.io", "o110884.ingest.sentry.io"}

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.browser,
    pytest.mark.skipif(not URI, reason="NEO4J_URI is not set: run `make test`, or `bash scripts/neo4j "
                                       "start && eval \"$(bash scripts/neo4j env)\"` first"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing: apt-get install chromium"),
]


@pytest.fixture(scope="module")
def loaded(sample_graph_dir):
    """The sample graph in the test server, so that a guide cell has something to draw."""
    from kg.io.format import load_graph
    from kg.sinks.neo4j import store as ns

    db = os.environ.get("NEO4J_DATABASE") or None
    driver = ns.connect(URI, os.environ.get("NEO4J_USERNAME", "neo4j"), os.environ.get("NEO4J_PASSWORD"), db)
    try:
        ns.load(load_graph(sample_graph_dir), driver, database=db, wipe_first=True)
    finally:
        driver.close()


def answer(route) -> None:
    """Local requests go through; Browser's own remote ones get an empty answer; others fail."""
    host = urlsplit(route.request.url).hostname
    if host in LOCAL:
        route.continue_()
    elif host in BROWSER_OWN:
        route.fulfill(status=200, body="")
    else:
        route.abort()


def test_browser_applies_the_style_and_opens_the_guide_on_connect(loaded, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the dev extra)")
    bolt = urlsplit(URI)
    http = f"http://127.0.0.1:{os.environ.get('NEO4J_HTTP_PORT', '7474')}"
    requested, failed = [], []
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=ARGS, headless=True,
            viewport={"width": 1400, "height": 900})
        try:
            page = context.new_page()
            page.route("**/*", answer)
            page.on("request", lambda r: requested.append(r.url))
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.goto(f"{http}/browser/")
            page.get_by_test_id("bolt-scheme-select").select_option("bolt://")
            page.get_by_test_id("boltaddress").fill(f"{bolt.hostname}:{bolt.port or 7687}")
            page.get_by_test_id("username").fill(os.environ.get("NEO4J_USERNAME", "neo4j"))
            page.get_by_test_id("password").fill(os.environ.get("NEO4J_PASSWORD", ""))
            page.get_by_test_id("connect").click()

            # The post-connect commands: the guide opens in the sidebar, the style in a frame.
            drawer = page.get_by_test_id("guidesDrawer")
            drawer.get_by_text(MODEL_HEADING, exact=True).wait_for(timeout=patience(60) * 1000)
            style = page.get_by_test_id("frame").filter(has_text=":style http")
            style.wait_for(timeout=10_000)
            assert "{display}" in style.inner_text() and "node.Paper" in style.inner_text()
            page.screenshot(path=str(tmp_path / "connected.png"))

            # Run one query from the guide: its :param cell, then the query (the play icons).
            heading = drawer.get_by_role("heading", name="paper_neighbourhood", exact=True)
            for _ in range(5):
                if heading.is_visible():
                    break
                drawer.get_by_test_id("guideNextSlide").click()
            heading.wait_for(timeout=5_000)
            cells = drawer.locator("pre.runnable").all()
            assert cells and cells[0].inner_text().startswith(":param title"), [c.inner_text() for c in cells]
            for cell in cells[:-1]:
                # A :param cell's frame shows the parameters once they are set: the query must
                # not run before that (on a busy machine it would fail for a missing $title).
                cell.locator("i.fa-play-circle-o").click()
                page.get_by_test_id("frame").filter(has_text='"title"').first.wait_for(
                    timeout=patience(60) * 1000)
            cells[-1].locator("i.fa-play-circle-o").click()
            captions = page.locator("svg g.node text.caption")
            captions.first.wait_for(timeout=patience(60) * 1000)
            # the layout settles: every drawn node has its caption and outline
            page.wait_for_function(
                "() => { const gs = [...document.querySelectorAll('svg g.node')];"
                " return gs.length > 5 && gs.every(g => g.querySelector('text.caption')"
                " && g.querySelector('circle.b-outline')); }", timeout=patience(60) * 1000)
            page.screenshot(path=str(tmp_path / "neighbourhood.png"))
            nodes = page.locator("svg g.node").evaluate_all(
                "gs => gs.map(g => [[...g.querySelectorAll('text.caption')].map(t => t.textContent.trim())"
                ".join(' ').trim(), g.querySelector('circle.b-outline').getAttribute('r')])")
        finally:
            context.close()
    if os.environ.get("KG_BROWSER_SHOTS"):  # keep the screenshots somewhere to look at
        for png in tmp_path.glob("*.png"):
            shutil.copy(png, Path(os.environ["KG_BROWSER_SHOTS"]) / png.name)

    texts, radii = [t for t, _ in nodes], {t: r for t, r in nodes}
    assert len(nodes) > 5, nodes  # the paper (its title comes from the graph) and what is around it
    assert not [t for t in texts if "…" in t], texts  # every caption of the sample fits whole
    assert "50" in radii.values() and "40" in radii.values(), radii  # a paper 100px, entities 80px across
    remote = {urlsplit(u).hostname for u in requested} - LOCAL
    assert remote <= BROWSER_OWN, remote  # kg's style and guide come from the server itself
    # kg's files load (requests still in flight when the page closes may show as failed, so
    # only these are checked: any other remote host is refused above, and caught there)
    assert not [u for u in failed if "/browser/kg/" in u], failed
    assert (tmp_path / "connected.png").stat().st_size > 10_000
