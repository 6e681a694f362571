"""kg serve for a person in a web browser: results as an HTML table (a browser's Accept got SPARQL
results XML), the named queries listed with their parameters and run by name, errors under the
form that holds the query; and the same page in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import threading
import urllib.parse

import pyoxigraph as ox
import pytest

from kg.queries import named_queries
from kg.sinks.rdf.answer import answer
from kg.sinks.rdf.endpoint import make_server, url_of

from ..test_html import browser  # noqa: F401  (the headless Chromium fixture)
from .test_endpoint import call

#: what Chromium sends when a form is submitted or a link followed
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
NASTY = "</td><script>alert(1)</script>"


@pytest.fixture(scope="module")
def url(sample_graph_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("endpoint-page") / "g"
    shutil.copytree(sample_graph_dir, folder, symlinks=True)
    server = make_server(folder, port=0, log=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url_of(server)
    server.shutdown()
    server.server_close()


def cells(body: bytes) -> list[list[str]]:
    """The rows of the page's table, as text (tags dropped)."""
    table = re.search(rb"<table>(.*?)</table>", body, re.S)
    assert table, body[:500]
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", table.group(1).decode(), re.S)]


def test_a_browser_gets_the_results_as_a_table_and_programs_their_formats(url):
    q = "SELECT ?name WHERE { ?m a kg:Method ; rdfs:label ?name } ORDER BY ?name"
    for method in ("GET", "POST"):
        status, kind, body, headers = call(url, q, method, BROWSER)
        assert status == 200 and kind == "text/html; charset=utf-8", (kind, body[:200])
        assert "script-src" not in headers["Content-Security-Policy"] and "default-src 'none'" in \
            headers["Content-Security-Policy"]
        rows = cells(body)
        bindings = json.loads(call(url, q, accept="application/json")[2])["results"]["bindings"]
        names = [b["name"]["value"] for b in bindings]
        assert rows[0] == ["name"] and [r[0] for r in rows[1:]] == names and names
        assert b"<textarea" in body and b"ORDER BY ?name" in body  # the query, to edit and run again
    for accept, media in ((None, "application/sparql-results+json"), ("*/*", "application/sparql-results+json"),
                          ("application/xml", "application/xml"), ("text/csv", "text/csv")):
        assert call(url, q, accept=accept)[1].split(";")[0] == media


def test_an_iri_links_to_its_description_and_ask_and_construct_are_tables(url):
    status, _, body, _ = call(url, "SELECT ?m WHERE { ?m a kg:Method } LIMIT 1", accept=BROWSER)
    link = re.search(rb'<a href="(/sparql\?query=[^"]+)"', body).group(1).decode()
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link.replace("&amp;", "&")).query)["query"][0]
    assert query.startswith("DESCRIBE <") and query.endswith(">")
    status, kind, body, _ = call(url.replace("/sparql", "") + link, accept=BROWSER)
    assert status == 200 and kind.startswith("text/html") and cells(body)[0] == ["subject", "predicate", "object"]
    assert len(cells(body)) > 2 and "rdfs:label" in {r[1] for r in cells(body)[1:]}
    assert cells(call(url, "ASK { ?s a kg:Paper }", accept=BROWSER)[2]) == [["boolean"], ["true"]]


def test_values_from_the_data_are_text(url):
    q = f'SELECT ?x WHERE {{ BIND ("{NASTY}" AS ?x) }}'
    body = call(url, q, accept=BROWSER)[2]
    assert b"<script>" not in body and b"&lt;/td&gt;&lt;script&gt;" in body
    body = call(url, "SELECT ?x WHERE { ?x ?y", accept=BROWSER)[2]
    assert b"<textarea" in body and b"SPARQL syntax error" in body


def test_a_syntax_error_for_a_person_is_the_form_with_the_message(url):
    status, kind, body, _ = call(url, "SELECT ?x WHERE {\n  ?x ?y\n}", accept=BROWSER)
    assert status == 400 and kind.startswith("text/html")
    assert b"query:3:2: SPARQL syntax error" in body and b"?x ?y" in body.split(b"</textarea>")[0]
    status, kind, body, _ = call(url, "SELECT ?x WHERE {\n  ?x ?y\n}")  # a program: the text, as before
    assert status == 400 and kind.startswith("text/plain")


def test_the_page_lists_every_named_query_with_a_field_per_parameter(url):
    body = call(url.replace("/sparql", "/"), accept=BROWSER)[2].decode()
    for q in named_queries("sparql"):
        form = re.search(rf'<input type="hidden" name="name" value="{q.name}">(.*?)</form>', body, re.S)
        assert form, q.name
        assert set(re.findall(r'<input name="([^"]+)"', form.group(1))) == set(q.params), q.name
    assert 'name="technique" placeholder="from the graph"' in body  # papers_using_technique
    edit = call(url.replace("/sparql", "/") + "?edit=top_tasks", accept=BROWSER)[2]
    assert b"Which tasks are addressed by the most papers?" in edit.split(b"</textarea>")[0]


def test_a_named_query_runs_by_name_with_its_parameters(url):
    status, kind, body, _ = call(f"{url}?name=top_tasks&limit=2", accept="text/csv")
    assert status == 200 and len(body.decode().splitlines()) == 3  # header + 2 rows
    status, _, body, _ = call(f"{url}?name=top_tasks&limit=", accept="text/csv")  # empty: the default
    assert status == 200 and len(body.decode().splitlines()) > 3
    status, _, body, _ = call(f"{url}?name=top_taks", accept="text/csv")
    assert status == 400 and b"did you mean top_tasks" in body
    status, _, body, _ = call(f"{url}?name=top_tasks&colour=red", accept="text/csv")
    assert status == 400 and b"takes no parameter colour" in body
    for path in ("/etc/passwd", "../queries/top_tasks", "top_tasks.rq"):
        assert call(f"{url}?{urllib.parse.urlencode({'name': path})}")[0] == 400


def test_a_named_query_reads_an_entity_parameter_as_kg_sparql_does(url):
    def papers(technique: str) -> list[str]:
        query = urllib.parse.urlencode({"name": "papers_using_technique", "technique": technique})
        status, _, body, _ = call(f"{url}?{query}", accept="text/csv")
        assert status == 200, body
        return sorted(body.decode().splitlines()[1:])

    found = papers("speculative decoding")
    assert found and papers("Speculative-Decoding") == found == papers("SPECULATIVE  decoding")
    assert papers("no such technique at all") == []  # passed as given


def test_a_name_that_matches_nothing_is_told_to_the_client_and_on_the_page(url):
    """What kg sparql prints as a warning reaches whoever asked, not only the server's log: a
    header for a program, a note above the table for a person."""
    query = urllib.parse.urlencode({"name": "papers_using_technique", "technique": "speculative decodng"})
    status, _, body, headers = call(f"{url}?{query}", accept="text/csv")
    assert status == 200 and "speculative decoding" in headers["Kg-Note"], headers
    status, kind, body, headers = call(f"{url}?{query}", accept=BROWSER)
    assert status == 200 and kind.startswith("text/html")
    notes = re.findall(rb'<p class="note">([^<]*speculative decoding[^<]*)</p>', body)
    assert notes and body.index(notes[0]) < body.index(b"<table>"), body[:800]
    query = urllib.parse.urlencode({"name": "papers_using_technique", "technique": "speculative decoding"})
    assert "Kg-Note" not in call(f"{url}?{query}", accept="text/csv")[3]  # found as written: nothing to say


def test_the_table_shows_at_most_its_rows_and_says_so(monkeypatch):
    monkeypatch.setattr("kg.defaults.SPARQL_HTML_ROWS", 3)
    store = ox.Store()
    store.extend(ox.Quad(ox.NamedNode(f"http://x/{i}"), ox.NamedNode("http://x/p"), ox.Literal(i)) for i in range(5))
    a = answer(store, "SELECT ?s WHERE { ?s ?p ?o }", BROWSER, 1 << 20)
    assert a.status == 200 and len(cells(a.payload)) == 1 + 3 and b"the first 3 rows" in a.payload
    a = answer(store, "SELECT ?s WHERE { ?s ?p ?o } LIMIT 2", BROWSER, 1 << 20)
    assert len(cells(a.payload)) == 1 + 2 and b"2 rows" in a.payload
    assert answer(store, "SELECT ?s WHERE { ?s ?p ?o }", BROWSER, 100).status == 400  # the size cap holds


@pytest.mark.browser
def test_in_chromium_the_run_button_shows_a_table(url, browser):  # noqa: F811
    page = browser.new_page()
    try:
        page.goto(url.replace("/sparql", "/"))
        page.fill("textarea[name=query]", "SELECT ?name WHERE { ?m a kg:Method ; rdfs:label ?name } ORDER BY ?name")
        page.click("form[method=post] button[type=submit]")
        page.wait_for_selector("table", timeout=60_000)
        assert page.locator("table tr").count() > 1
        assert page.locator("table th").first.text_content() == "name"
        page.goto(url.replace("/sparql", "/"))
        form = page.locator("form", has=page.locator('input[value="top_tasks"]'))
        form.locator("input[name=limit]").fill("2")
        form.locator("button[type=submit]").click()
        page.wait_for_selector("table", timeout=60_000)
        assert page.locator("table tr").count() == 3
    finally:
        page.close()
