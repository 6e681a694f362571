"""A named query's parameter that names an entity is read as kg show reads a name (case, dashes,
spacing, a plural, aliases), a name that finds nothing is a warning naming the closest nodes,
and a default taken from the graph is said, in kg sparql, Graph.sparql and kg cypher alike.
Before, ``-p technique=Speculative-Decoding`` gave 0 rows without a word, and the default was
only "from the graph"."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import kg
from kg.cli import app
from kg.explore.params import ENTITY_PARAMS
from kg.io.format import load_graph
from kg.queries import bind_sparql, graph_defaults, named_queries
from kg.sinks.rdf.sparql import run

runner = CliRunner()


def sparql(folder, *args):
    res = runner.invoke(app, ["sparql", *args, "-g", str(folder), "-f", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"]["bindings"], res.stderr


def test_a_name_is_read_as_kg_show_reads_it(sample_graph_dir):
    want, said = sparql(sample_graph_dir, "papers_using_technique", "-p", "technique=speculative decoding")
    assert want and "as kg show finds it" not in said
    for spelling in ("Speculative-Decoding", "SPECULATIVE  decoding", "speculative decodings"):
        got, said = sparql(sample_graph_dir, "papers_using_technique", "-p", f"technique={spelling}")
        assert got == want, spelling
        assert f"technique: {spelling!r} is speculative decoding (Technique), as kg show finds it" in said


def test_a_name_that_finds_nothing_is_a_warning_naming_the_closest(sample_graph_dir):
    got, said = sparql(sample_graph_dir, "papers_using_technique", "-p", "technique=speculativ decoding")
    assert got == []
    assert "warning: technique: no entity or paper named 'speculativ decoding'; did you mean: speculative " \
           "decoding (Technique)" in " ".join(said.split())
    g = kg.open(sample_graph_dir)
    with pytest.warns(UserWarning, match="did you mean: speculative decoding"):
        assert g.sparql("papers_using_technique", technique="speculativ decoding") == []
    assert g.sparql("papers_using_technique", technique="Speculative-Decoding") == \
        g.sparql("papers_using_technique", technique="speculative decoding") != []


def test_a_default_taken_from_the_graph_is_said_and_is_the_one_the_query_takes(sample_graph_dir):
    got, said = sparql(sample_graph_dir, "papers_using_technique")
    line = next(x for x in said.splitlines() if x.startswith("technique: "))
    value = line.split("'")[1]
    assert line.endswith("taken from the graph (-p technique=... for another)")
    assert sparql(sample_graph_dir, "papers_using_technique", "-p", f"technique={value}")[0] == got
    assert "taken from the graph" not in sparql(sample_graph_dir, "papers_using_technique", "-p",
                                                f"technique={value}")[1]


def test_every_default_a_shipped_query_takes_is_found_and_gives_its_rows(sample_graph_dir):
    """The defaults are read from the queries themselves; binding the value read gives the rows
    the query gives without it."""
    store = kg.open(sample_graph_dir)._stores.get().store
    found = 0
    for q in named_queries("sparql"):
        text = q.path.read_text(encoding="utf-8")
        defaults = graph_defaults(text)
        assert set(defaults) == {p for p, v in q.params.items() if v == "UNDEF"} - {"label", "type"}, q.name
        if not defaults:
            continue
        values = {p: list(run(store, d))[0][v].value for p, (v, d) in defaults.items()}
        as_is = sorted(str(r) for r in run(store, text))
        assert as_is == sorted(str(r) for r in run(store, bind_sparql(text, values, q.name))), q.name
        found += 1
    assert found == 3
    assert set(ENTITY_PARAMS) <= {q.name for q in named_queries()}
    for name, params in ENTITY_PARAMS.items():
        assert all(p in q.params for q in named_queries() if q.name == name for p in params)


def test_kg_cypher_reads_a_name_as_kg_show_and_says_its_defaults(sample_graph_dir, monkeypatch):
    from kg.cli import neo4j as cli
    from kg.sinks.neo4j import store as ns

    G = load_graph(sample_graph_dir)
    names = [{"id": n, "label": d["label"], "name": d.get("name"), "aliases": d.get("aliases"),
              "title": d.get("title"), "papers": d.get("papers")} for n, d in G.nodes(data=True)
             if d["label"] not in ("Venue", "Author", "Result")]
    sent = []

    def run_cypher(driver, query, params=None, **_):
        if query == cli.NAMES_QUERY:
            return ns.QueryResult(list(names[0]), names)
        sent.append(dict(params or {}))
        given = set(params or {})
        return ns.QueryResult(["paper"], [], (), tuple((k, "from-the-graph") for k in query.param_examples
                                                         if k not in given))

    class Driver:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(ns, "connect", lambda *a, **k: Driver())
    monkeypatch.setattr(ns, "run_cypher", run_cypher)
    res = runner.invoke(app, ["cypher", "papers_using_technique", "-p", "technique=Speculative-Decoding"])
    assert res.exit_code == 0, res.output
    assert sent[-1] == {"technique": "speculative decoding"}
    assert "as kg show finds it" in res.stderr and "taken from the graph" not in res.stderr
    res = runner.invoke(app, ["cypher", "papers_using_technique", "-p", "technique=speculativ decoding"])
    assert "warning: technique: no entity or paper named" in res.stderr and sent[-1] == {"technique": "speculativ decoding"}
    res = runner.invoke(app, ["cypher", "papers_using_technique"])
    assert "technique: 'from-the-graph', taken from the graph (-p technique=... for another)" in res.stderr


def test_run_cypher_returns_the_defaults_the_server_evaluated():
    from kg.sinks.neo4j import store as ns

    class Res:
        def __init__(self, query):
            self.query = query

        def single(self):
            return {"value": "speculative decoding"}

        def keys(self):
            return ["paper"]

        def __iter__(self):
            return iter([])

        def consume(self):
            return type("Summary", (), {"gql_status_objects": []})()

    class Session:
        def __init__(self):
            self.sent = []

        def session(self, **_):
            return self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def execute_read(self, fn, *args):
            me = self

            class Tx:
                def run(self, query, params=None):
                    me.sent.append((query, params))
                    return Res(query)

            return fn(Tx(), *args)

    script = ns.CypherScript("MATCH (t) WHERE t.name = $technique RETURN t.name AS paper",
                             {"technique": "COLLECT { MATCH (t:Technique) RETURN t.name }[0]"})
    d = Session()
    assert ns.run_cypher(d, script).defaults == (("technique", "speculative decoding"),)
    assert d.sent[-1][1] == {"technique": "speculative decoding"}
    assert ns.run_cypher(Session(), script, {"technique": "LoRA"}).defaults == ()
