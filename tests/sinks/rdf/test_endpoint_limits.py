"""The endpoint under load and abuse: a query past its time is stopped, results are capped,
threads are bounded and idle connections closed, bursts are queued, the Host header is checked,
chunked bodies are read as bodies, and a folder removed while served is an answer, not a crash."""

from __future__ import annotations

import shutil
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager

import pytest

from kg.sinks.rdf.endpoint import make_server, url_of

HEAVY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"  # ~10^10 rows
ASK = "ASK { ?s a kg:Paper }"


@pytest.fixture
def folder(sample_graph_dir, tmp_path):
    out = tmp_path / "g"
    shutil.copytree(sample_graph_dir, out, symlinks=True)
    return out


@contextmanager
def serving(folder, **options):
    server = make_server(folder, port=0, log=False, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, url_of(server)
    finally:
        server.shutdown()
        server.server_close()


def get(url: str, query: str, headers: dict | None = None, timeout: float = 120) -> tuple[int, bytes]:
    req = urllib.request.Request(f"{url}?{urllib.parse.urlencode({'query': query})}", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_a_query_past_its_time_is_stopped_and_the_endpoint_goes_on(folder):
    with serving(folder, workers=1, query_timeout=2) as (server, url):
        t0 = time.monotonic()
        status, body = get(url, HEAVY)
        assert status == 503 and b"longer than 2 s" in body, body
        assert time.monotonic() - t0 < 60  # not the hours the query would take
        assert get(url, ASK) == (200, b'{"head":{},"boolean":true}\n')  # a new worker answers


def test_results_are_capped(folder):
    with serving(folder, workers=1, max_bytes=10_000) as (_, url):
        status, body = get(url, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
        assert status == 400 and b"over 10,000 bytes" in body
        assert get(url, ASK)[0] == 200
    with serving(folder, workers=0, max_bytes=10_000) as (_, url):  # in the serving thread too
        status, body = get(url, "SELECT * WHERE { ?s ?p ?o }")
        assert status == 400 and b"over 10,000 bytes" in body


def test_idle_connections_are_closed_and_threads_stay_bounded(folder):
    with serving(folder, workers=0, threads=4, socket_timeout=1) as (server, url):
        base = threading.active_count()
        host, port = server.server_address[:2]
        idle = [socket.create_connection((host, port), timeout=60) for _ in range(40)]  # they send nothing
        try:
            deadline = time.monotonic() + 120
            while (status := get(url, ASK)[0]) == 503 and time.monotonic() < deadline:
                time.sleep(0.2)  # busy: asked again until the idle ones are closed
            assert status == 200
            assert threading.active_count() - base <= 4
            closed = sum(s.recv(1) == b"" for s in idle[:4])  # the server hung up on them
            assert closed == 4
        finally:
            for s in idle:
                s.close()


def test_a_burst_of_clients_is_answered_or_told_to_retry_never_reset(folder):
    with serving(folder, workers=0) as (server, url):
        assert server.request_queue_size >= 128
        start, results = threading.Barrier(120), []

        def client() -> None:
            start.wait()
            try:
                results.append(get(url, ASK, timeout=300)[0])
            except (ConnectionError, urllib.error.URLError) as exc:
                results.append(repr(exc))

        threads = [threading.Thread(target=client) for _ in range(120)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        assert len(results) == 120 and set(results) <= {200, 503}, [r for r in results if r not in (200, 503)][:3]


@pytest.mark.parametrize(("host", "status"), [
    ("evil.example:{port}", 421), ("evil.example", 421), ("localhost:{port}", 200), ("127.0.0.1:{port}", 200),
    ("graph.lab:{port}", 200), ("localhost:1", 421), ("[::1]:{port}", 200),
])
def test_the_host_header_must_name_the_endpoint(folder, host, status):
    with serving(folder, workers=0, allow_hosts=("graph.lab",)) as (server, url):
        assert get(url, ASK, {"Host": host.format(port=server.server_address[1])})[0] == status


def raw(server, data: bytes) -> bytes:
    """Everything the server sends back on one connection for ``data``, until it hangs up."""
    with socket.create_connection(server.server_address[:2], timeout=60) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def test_a_chunked_body_is_read_as_the_body_not_as_the_next_request(folder):
    smuggled = b"GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    query = ASK.encode()
    body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(query), query)
    with serving(folder, workers=0, socket_timeout=2) as (server, _):
        out = raw(server, b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\n"
                          b"Transfer-Encoding: chunked\r\n\r\n" + body)
        assert out.count(b"HTTP/1.1 ") == 1 and out.startswith(b"HTTP/1.1 200") and b'"boolean":true' in out, out
        chunk = b"%x\r\n%s\r\n0\r\n\r\n" % (len(smuggled), smuggled)
        out = raw(server, b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\n"
                          b"Transfer-Encoding: chunked\r\n\r\n" + chunk)
        assert out.count(b"HTTP/1.1 ") == 1 and b"404" not in out.split(b"\r\n")[0], out
        out = raw(server, b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\n"
                          b"Content-Length: 2000000\r\n\r\n" + smuggled)
        assert out.count(b"HTTP/1.1 ") == 1 and out.startswith(b"HTTP/1.1 413"), out


def test_a_folder_removed_while_served_is_an_answer_not_a_crash(folder, capfd):
    with serving(folder, workers=1) as (_, url):
        assert get(url, ASK)[0] == 200
        shutil.rmtree(folder)
        status, body = get(url, ASK)
        assert status in (503, 200), body  # a worker may still hold the store it opened
        status, body = get(url, "SELECT * { ?s ?p ?o } LIMIT 1", {"Host": "bad host name"})
        assert status in (400, 421)
    assert "Traceback" not in capfd.readouterr().err
