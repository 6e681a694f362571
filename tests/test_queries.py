"""Named queries: found by name from any folder, parameters declared by the query itself, and a
parameter the query does not take is an error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kg.errors import QueryError
from kg.queries import bind_sparql, find_query, named_queries, query_params

from .conftest import SAMPLE

KG = [sys.executable, "-m", "kg.cli"]


def test_every_shipped_query_has_a_name_a_summary_and_its_parameters():
    found = named_queries()
    assert {q.language for q in found} == {"sparql", "cypher"} and len(found) >= 30
    assert all(q.summary for q in found)
    by = {(q.name, q.language): q for q in found}
    assert by[("papers_using_technique", "sparql")].params == {"technique": "UNDEF"}  # from the graph
    assert "COLLECT" in by[("papers_using_technique", "cypher")].params["technique"]
    assert by[("top_tasks", "cypher")].params == {"limit": "20"} == by[("top_tasks", "sparql")].params
    for name in {q.name for q in found if q.language == "sparql"} & {q.name for q in found if q.language == "cypher"}:
        assert set(by[(name, "sparql")].params) == set(by[(name, "cypher")].params), name  # one interface


def test_parameters_come_from_the_query_text():
    assert query_params("// uses $not_this\n:param k => 5;\nMATCH (n) WHERE n.name = $name\nRETURN n LIMIT $k",
                        "cypher") == {"name": None, "k": "5"}
    q = 'SELECT * { VALUES ?t { "a" } ?x ?p ?t }'
    assert bind_sparql(q, {"t": 'say "b"'}) == 'SELECT * { VALUES ?t { "say \\"b\\"" } ?x ?p ?t }'
    with pytest.raises(QueryError, match="no parameter tt; its parameters: t"):
        bind_sparql(q, {"tt": "b"})
    sub = 'SELECT * { VALUES ?t { UNDEF } { SELECT ?x { VALUES ?in { 1 2 } ?x ?p ?in } LIMIT 3 } } LIMIT 10'
    assert query_params(sub, "sparql") == {"t": "UNDEF", "limit": "10"}  # not the subquery's
    assert bind_sparql(sub, {"limit": 4}).endswith("} LIMIT 3 } } LIMIT 4")
    with pytest.raises(QueryError, match="whole number"):
        bind_sparql(sub, {"limit": "ten"})


def test_named_queries_run_from_any_folder(tmp_path):
    g = tmp_path / "g"
    assert subprocess.run([*KG, "build", str(SAMPLE), "-g", str(g)], capture_output=True).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert find_query("top_tasks", "sparql").name == "top_tasks.rq" and find_query("SELECT 1", "sparql") is None
    run = subprocess.run([*KG, "sparql", "papers_using_technique", "-p", "technique=speculative decoding",
                          "-g", str(g), "-f", "csv"], capture_output=True, text=True, cwd=elsewhere)
    assert run.returncode == 0 and "DraftMixer" in run.stdout, run.stderr
    bad = subprocess.run([*KG, "sparql", "papers_using_technique", "-p", "lmit=5", "-g", str(g)],
                         capture_output=True, text=True, cwd=elsewhere)
    assert bad.returncode == 2 and "no parameter lmit" in bad.stderr and "Traceback" not in bad.stderr
    cy = subprocess.run([*KG, "cypher", "top_tasks", "-p", "lmit=5", "--uri", "bolt://127.0.0.1:1"],
                        capture_output=True, text=True, cwd=elsewhere)
    assert cy.returncode == 2 and "no parameter lmit; its parameters: limit" in cy.stderr  # before connecting
    listed = subprocess.run([*KG, "queries", "--json"], capture_output=True, text=True, cwd=elsewhere)
    names = {(q["name"], q["language"]) for q in json.loads(listed.stdout)}
    assert ("top_tasks", "sparql") in names and ("top_tasks", "cypher") in names
    table = subprocess.run([*KG, "queries"], capture_output=True, text=True, cwd=elsewhere,
                           env={**os.environ, "COLUMNS": "80"})  # a pipe, or a terminal of 80 columns
    shown = {line.split("│")[1].strip() for line in table.stdout.splitlines() if line.count("│") > 2}
    assert {n for n, _ in names} <= shown, sorted({n for n, _ in names} - shown)  # every name whole
