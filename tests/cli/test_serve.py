"""``kg serve`` as a user runs it: a subprocess on a free port answering GET and POST with the
bytes ``kg sparql -f json/csv`` prints, 400 on a syntax error, updates refused, Ctrl-C clean."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest

from ..conftest import ROOT, patience

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
KG = [sys.executable, "-m", "kg.cli"]


@pytest.fixture(scope="module")
def folder(sample_graph_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("serve") / "g"
    shutil.copytree(sample_graph_dir, out, symlinks=True)
    return out


@pytest.fixture(scope="module")
def server(folder):
    proc = subprocess.Popen([*KG, "serve", "-g", str(folder), "--port", "0"], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, cwd=ROOT, env=ENV, text=True)
    seen = ""
    for _ in range(5):  # the store is built first, and says so
        line = proc.stderr.readline()
        seen += line
        m = re.search(r"at (http://\S+/sparql)", line)
        if m or not line:
            break
    assert m, seen + proc.stderr.read() if proc.poll() is not None else seen
    yield proc, m.group(1)
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def kg_sparql(folder, *args: str) -> bytes:
    res = subprocess.run([*KG, "sparql", *args, "-g", str(folder)], capture_output=True, cwd=ROOT, env=ENV)
    assert res.returncode == 0, res.stderr
    return res.stdout


def fetch(url: str, query: str, method: str, accept: str) -> tuple[int, bytes]:
    if method == "GET":
        req = urllib.request.Request(f"{url}?{urllib.parse.urlencode({'query': query})}")
    else:
        req = urllib.request.Request(url, data=query.encode(), method="POST",
                                     headers={"Content-Type": "application/sparql-query"})
    req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


QUERIES = ["SELECT ?name WHERE { ?p kg:proposes ?m . ?m rdfs:label ?name } ORDER BY ?name",
           "ASK { ?p a kg:Paper }"]


@pytest.mark.parametrize("query", QUERIES, ids=["select", "ask"])
@pytest.mark.parametrize(("fmt", "accept"), [("json", "application/sparql-results+json"), ("csv", "text/csv")])
def test_get_and_post_give_the_bytes_kg_sparql_prints(server, folder, query, fmt, accept):
    _, url = server
    want = kg_sparql(folder, query, "-f", fmt)
    assert want.strip()
    for method in ("GET", "POST"):
        assert fetch(url, query, method, accept) == (200, want), method


def test_a_syntax_error_is_400_and_an_update_is_refused(server):
    _, url = server
    status, body = fetch(url, "SELECT ?x WHERE { ?x ?y }", "GET", "text/csv")
    assert status == 400 and b"SPARQL syntax error" in body
    req = urllib.request.Request(url, data=b"DELETE WHERE { ?s ?p ?o }", method="POST",
                                 headers={"Content-Type": "application/sparql-update"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=patience(60))
    assert info.value.code == 403
    assert fetch(url, "ASK { ?s ?p ?o }", "GET", "text/csv") == (200, b"true")


def test_ctrl_c_stops_it_cleanly(folder):
    # Ctrl-C as a terminal delivers it, even when this suite runs as a background job (which
    # starts its children with SIGINT ignored)
    proc = subprocess.Popen([*KG, "serve", "-g", str(folder), "--port", "0"], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, cwd=ROOT, env=ENV, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = [proc.stderr.readline()]  # the store's build may be said first
    while "serving" not in lines[-1] and lines[-1] and len(lines) < 5:
        lines.append(proc.stderr.readline())
    assert "serving" in lines[-1], lines
    proc.send_signal(signal.SIGINT)
    try:
        _, rest = proc.communicate(timeout=patience(60))
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("kg serve did not stop within its patience after Ctrl-C") from None
    assert proc.returncode == 0
    assert "stopped" in rest and "Traceback" not in rest


def test_a_non_loopback_address_is_refused_with_exit_2(folder):
    res = subprocess.run([*KG, "serve", "-g", str(folder), "--host", "0.0.0.0", "--port", "0"],
                         capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=60)
    assert res.returncode == 2 and "--allow-remote" in res.stderr and "Traceback" not in res.stderr
