"""The SPARQL 1.1 Protocol endpoint, in process: content negotiation, status codes, read-only."""

from __future__ import annotations

import json
import shutil
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest

from kg.errors import UsageError
from kg.sinks.rdf import sparql
from kg.sinks.rdf.endpoint import make_server, negotiate, url_of

from ...conftest import patience


@pytest.fixture(scope="module")
def url(sample_graph_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("endpoint") / "g"
    shutil.copytree(sample_graph_dir, folder, symlinks=True)
    server = make_server(folder, port=0, log=False, cors=("https://yasgui.example",))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url_of(server)
    server.shutdown()
    server.server_close()


def call(url: str, query: str | None = None, method: str = "GET", accept: str | None = None,
         body: bytes | None = None, kind: str | None = None, headers: dict | None = None):
    """(status, content type, body, headers) of one request."""
    if query is not None and method == "GET":
        url = f"{url}?{urllib.parse.urlencode({'query': query})}"
    elif query is not None:
        body, kind = urllib.parse.urlencode({"query": query}).encode(), "application/x-www-form-urlencoded"
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    if accept:
        req.add_header("Accept", accept)
    if kind:
        req.add_header("Content-Type", kind)
    try:
        with urllib.request.urlopen(req, timeout=patience(60)) as res:
            return res.status, res.headers.get("Content-Type"), res.read(), res.headers
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type"), exc.read(), exc.headers


COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.mark.parametrize(("accept", "media", "start"), [
    (None, "application/sparql-results+json", b'{"head":{"vars":["n"]}'),
    ("application/sparql-results+json", "application/sparql-results+json", b'{"head"'),
    ("application/sparql-results+xml", "application/sparql-results+xml", b"<?xml"),
    ("text/csv", "text/csv", b"n\r\n"),
    ("text/tab-separated-values", "text/tab-separated-values", b"?n\n"),
    ("text/html,application/xhtml+xml,*/*;q=0.8", "text/html", b"<!doctype html>"),  # a browser: a table
    ("text/csv;q=0.2, application/sparql-results+xml;q=0.9", "application/sparql-results+xml", b"<?xml"),
])
def test_select_results_by_content_negotiation(url, accept, media, start):
    for method in ("GET", "POST"):
        status, kind, body, _ = call(url, COUNT, method, accept)
        assert status == 200 and kind.split(";")[0] == media, (method, kind, body[:200])
        assert body.startswith(start), body[:80]


def test_a_query_as_the_body_and_ask(url):
    status, kind, body, _ = call(url, method="POST", body=b"ASK { ?s a kg:Paper }", kind="application/sparql-query")
    assert status == 200 and json.loads(body) == {"head": {}, "boolean": True}


def test_construct_as_turtle_or_n_triples(url):
    q = "CONSTRUCT { ?p a kg:Paper } WHERE { ?p a kg:Paper }"
    status, kind, body, _ = call(url, q)
    assert status == 200 and kind.startswith("text/turtle") and b"kg:Paper" in body
    status, kind, body, _ = call(url, q, accept="application/n-triples")
    lines = body.decode().splitlines()
    assert kind == "application/n-triples" and len(lines) == 8 and all(line.endswith(" .") for line in lines)
    assert call(url, q, accept="text/csv")[0] == 406


def test_a_syntax_error_is_400_with_the_parser_message(url):
    status, kind, body, _ = call(url, "SELECT ?x WHERE {\n  ?x ?y\n}")
    assert status == 400 and kind.startswith("text/plain")
    assert b"query:3:2: SPARQL syntax error" in body and b"^" in body


@pytest.mark.parametrize("request_", [
    {"method": "POST", "body": b"update=INSERT+DATA+%7B%3Ca%3Ab%3E+%3Ca%3Ac%3E+%3Ca%3Ad%3E%7D",
     "kind": "application/x-www-form-urlencoded"},
    {"method": "POST", "body": b"INSERT DATA { <a:b> <a:c> <a:d> }", "kind": "application/sparql-update"},
], ids=["form", "body"])
def test_updates_are_refused_and_change_nothing(url, request_):
    before = call(url, COUNT)[2]
    status, _, body, _ = call(url, **request_)
    assert status == 403 and b"read-only" in body
    assert call(url, "ASK { <a:b> <a:c> <a:d> }")[2] == b'{"head":{},"boolean":false}\n'
    assert call(url, COUNT)[2] == before


def test_an_update_sent_as_a_query_is_a_syntax_error(url):
    assert call(url, "INSERT DATA { <a:b> <a:c> <a:d> }")[0] == 400


def test_service_is_refused(url):
    status, _, body, _ = call(url, "SELECT * { SERVICE <http://example.org/sparql> { ?s ?p ?o } }")
    assert status == 400 and b"SERVICE is refused" in body


@pytest.mark.parametrize(("args", "status"), [
    ({"method": "DELETE"}, 405), ({"method": "PUT", "body": b"x"}, 405),
    ({"method": "POST", "body": b"q", "kind": "text/plain"}, 415),
], ids=["delete", "put", "post-text"])
def test_other_requests_get_their_status(url, args, status):
    assert call(url, **args)[0] == status


def test_other_paths_are_404_and_empty_queries_400(url):
    assert call(url.replace("/sparql", "/nothing"))[0] == 404
    assert call(url, "")[0] == 400
    assert call(f"{url}?query=ASK%7B%7D&default-graph-uri=http%3A%2F%2Fx")[0] == 400


def test_service_description_and_page(url):
    status, kind, body, _ = call(url, accept="text/turtle")
    assert status == 200 and kind.startswith("text/turtle") and b"sd:Service" in body and url.encode() in body
    status, kind, body, _ = call(url.replace("/sparql", "/"), accept="text/html")
    assert status == 200 and kind.startswith("text/html") and b"<form" in body and b"curl" in body
    assert call(url, accept="text/html")[1].startswith("text/html")


def test_cors_only_for_the_origins_it_is_given(url):
    headers = call(url, COUNT, headers={"Origin": "https://yasgui.example"})[3]
    assert headers.get("Access-Control-Allow-Origin") == "https://yasgui.example"
    assert call(url, COUNT, headers={"Origin": "https://elsewhere.example"})[3].get("Access-Control-Allow-Origin") is None
    assert call(url, method="OPTIONS", headers={"Origin": "https://yasgui.example"})[0] == 204


def test_the_answer_is_the_stores(url, sample_graph_dir):
    body = call(url, COUNT, accept="text/csv")[2]
    assert int(body.split()[1]) == len(sparql.load_store([sparql.ensure_export(sample_graph_dir)]))


def test_a_non_loopback_bind_is_refused_without_allow_remote(tmp_path):
    with pytest.raises(UsageError, match="--allow-remote"):
        make_server(tmp_path, host="0.0.0.0")


def test_negotiate_weights_and_wildcards():
    offers = ["text/turtle", "application/n-triples"]
    assert negotiate(None, offers) == "text/turtle"
    assert negotiate("application/n-triples, text/turtle;q=0.5", offers) == "application/n-triples"
    assert negotiate("*/*;q=0.1, text/turtle;q=0", offers) == "application/n-triples"
    assert negotiate("application/*", offers) == "application/n-triples"
    assert negotiate("text/csv", offers) is None


