"""SERVICE is refused where the query's parser reads it, however the text around it is written:
escaped local names, lower case, strings and comments. Each attack is first shown to reach a
real endpoint when allowed (a canary HTTP server counts the calls), then refused by the
library's default, ``Graph.sparql``, ``kg sparql`` and ``kg serve``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

import pyoxigraph as ox
import pytest

from kg.errors import QueryError
from kg.sinks.rdf import sparql
from kg.sparql_lexer import keyword_used, tokens

EMPTY = b'{"head":{"vars":[]},"results":{"bindings":[{}]}}'


class Canary(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        self.server.calls.append(self.path)  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(EMPTY)))
        self.end_headers()
        self.wfile.write(EMPTY)

    do_GET = do_POST = _answer  # noqa: N815

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def canary():
    server = HTTPServer(("127.0.0.1", 0), Canary)
    server.calls = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def attacks(port: int) -> dict[str, str]:
    remote = f"<http://127.0.0.1:{port}/sparql>"
    return {
        "an escaped quote in a local name": f"SELECT * {{ OPTIONAL {{ ?s kg:a\\'x ?z }} SERVICE {remote} {{ ?s ?p 'z' }} }}",
        "an escaped hash in a local name": f"SELECT * {{ OPTIONAL {{ ?s schema:a\\#x ?z }} SERVICE {remote} {{ ?s ?p ?o }} }}",
        "lower case after a string": f'SELECT * {{ BIND("}}" AS ?x) service {remote} {{ ?s ?p ?o }} }}',
        "silent": f"SELECT * {{ SERVICE SILENT {remote} {{ ?s ?p ?o }} }}",
    }


CASES = list(attacks(0))


@pytest.fixture(scope="module")
def store():
    return ox.Store()


@pytest.mark.parametrize("case", CASES)
def test_each_attack_reaches_a_remote_endpoint_when_allowed(canary, store, case):
    """The attacks are real: the engine parses them and calls the endpoint."""
    before = len(canary.calls)
    list(sparql.run(store, attacks(canary.server_port)[case], allow_service=True))
    assert len(canary.calls) > before


@pytest.mark.parametrize("case", CASES)
def test_the_library_refuses_each_attack_by_default(canary, store, case):
    before = len(canary.calls)
    assert sparql.uses_service(attacks(canary.server_port)[case])
    with pytest.raises(QueryError, match="SERVICE"):
        sparql.run(store, attacks(canary.server_port)[case])
    assert len(canary.calls) == before


@pytest.fixture(scope="module")
def graph(sample_graph_dir, tmp_path_factory):
    import kg

    folder = tmp_path_factory.mktemp("guard") / "g"
    shutil.copytree(sample_graph_dir, folder, symlinks=True)
    return kg.open(folder)


@pytest.mark.parametrize("case", CASES)
def test_graph_sparql_refuses_each_attack_unless_allowed(canary, graph, case):
    before = len(canary.calls)
    with pytest.raises(QueryError, match="SERVICE"):
        graph.sparql(attacks(canary.server_port)[case])
    assert len(canary.calls) == before
    graph.sparql(attacks(canary.server_port)[case], allow_service=True)
    assert len(canary.calls) > before


def test_kg_sparql_refuses_the_attacks(canary, graph):
    before = len(canary.calls)
    for case, text in attacks(canary.server_port).items():
        proc = subprocess.run([sys.executable, "-m", "kg.cli", "sparql", text, "-g", str(graph.folder)],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 2 and "SERVICE" in proc.stderr and "Traceback" not in proc.stderr, (case, proc.stderr)
    assert len(canary.calls) == before


def test_kg_serve_refuses_the_attacks(canary, graph):
    from kg.sinks.rdf.endpoint import make_server, url_of

    server = make_server(graph.folder, port=0, log=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    before = len(canary.calls)
    try:
        for case, text in attacks(canary.server_port).items():
            url = f"{url_of(server)}?{urllib.parse.urlencode({'query': text})}"
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(url, timeout=120)
            assert info.value.code == 400 and b"SERVICE" in info.value.read(), case
    finally:
        server.shutdown()
        server.server_close()
    assert len(canary.calls) == before


@pytest.mark.parametrize("text", [
    'SELECT * { ?s kg:name "SERVICE" }',
    "SELECT * { ?s kg:name 'a SERVICE b' } # SERVICE <http://x/> { }",
    "SELECT * { ?s kg:SERVICE ?o . ?s <http://x/SERVICE> ?service }",
    'SELECT * { ?s kg:name """\nSERVICE <http://x/> { }\n""" }',
    "SELECT * { ?s kg:a\\'SERVICE ?o }",
])
def test_service_as_text_is_not_a_call(text):
    assert not sparql.uses_service(text)


def test_a_keyword_right_after_a_dot_is_a_keyword():
    assert sparql.uses_service("SELECT * { ?s ?p true.SERVICE <http://x/> { ?s ?p ?o } }")
    assert sparql.uses_service("SELECT * { ?s ?p ?o.SERVICE <http://x/> { ?s ?p ?o } }")
    assert not sparql.uses_service("SELECT * { ?s ?p kg:x.SERVICE }")  # a local name may hold dots


def test_code_point_escapes_are_read_as_the_parser_may_read_them():
    assert keyword_used("SELECT * { \\u0053ERVICE <http://x/> { } }", "SERVICE")
    assert keyword_used("SELECT * { SERVIC\\U00000045 <http://x/> { } }", "SERVICE")


def test_the_tokens_follow_the_grammar_of_local_names_and_strings():
    got = [(t.kind, t.text) for t in tokens("?s kg:a\\'b.c\\#d%41. 'x\\'y' \"\"\"a\"b\"\"\" _:b1 @en-GB 1.5e3")]
    assert got == [("var", "?s"), ("pname", "kg:a\\'b.c\\#d%41"), ("punct", "."), ("string", "'x\\'y'"),
                   ("string", '"""a"b"""'), ("bnode", "_:b1"), ("lang", "@en-GB"), ("number", "1.5e3")]


@pytest.mark.parametrize("text", ["a-" * 100_000, "<a" * 100_000, '"a' * 100_000, "kg:" + "a." * 100_000])
def test_tokenising_hostile_text_takes_linear_time(text):
    import time

    t0 = time.process_time()
    keyword_used(text, "SERVICE")
    assert time.process_time() - t0 < 30  # quadratic would be hours
