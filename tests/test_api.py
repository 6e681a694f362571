"""The Python API gives what the command line gives."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import kg
from kg.errors import GraphNotFoundError, InputError, NotFound, QueryError, UsageError

from .conftest import SAMPLE


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> kg.Graph:
    return kg.build([SAMPLE], out=tmp_path_factory.mktemp("api") / "g")


def test_build_and_stats_equal_the_command_line(graph):
    out = subprocess.run([sys.executable, "-m", "kg.cli", "stats", "-g", str(graph.folder), "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(json.dumps(graph.stats())) == json.loads(out)
    assert graph.manifest["papers"] == 8 and repr(graph).startswith("Graph(")
    assert graph.nx.number_of_nodes() == graph.manifest["nodes"]
    assert len(graph.extractions) == 8 and not graph.report.skipped


def test_sparql_binds_parameters_and_returns_plain_values(graph):
    q = "SELECT ?title ?year WHERE { ?p a kg:Paper ; rdfs:label ?title ; kg:year ?year }"
    rows = graph.sparql(q)
    assert len(rows) == 8 and all(isinstance(r["year"], int) for r in rows)
    title = rows[0]["title"]
    assert graph.sparql(q, title=title) == [r for r in rows if r["title"] == title]
    assert graph.sparql(q, year=1999) == []
    assert graph.sparql("ASK { ?p a kg:Paper }") is True
    assert graph.sparql("ASK { ?p a kg:Paper }", p="https://example.org/none") is False
    triples = graph.sparql("CONSTRUCT { ?p a kg:Paper } WHERE { ?p a kg:Paper }")
    assert len(triples) == 8 and set(triples[0]) == {"subject", "predicate", "object"}
    with pytest.raises(QueryError):
        graph.sparql("SELECT WHERE {")


def test_sparql_runs_named_queries_and_refuses_unknown_parameters_as_the_cli_does(graph):
    """One binder: ``Graph.sparql`` and ``kg sparql`` find named queries by name, bind the same
    parameters the same way, and refuse the same names."""
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "kg.cli", "sparql", *args, "-g", str(graph.folder), "-f", "json"],
                              capture_output=True, text=True)

    rows = graph.sparql("proposals")
    assert rows and {"paper", "proposes", "label"} <= set(rows[0])
    shown = json.loads(cli("proposals").stdout)["results"]["bindings"]
    assert len(shown) == len(rows)
    assert len(graph.sparql("top_tasks", limit=1)) == 1 == len(json.loads(cli("top_tasks", "-p", "limit=1").stdout)["results"]["bindings"])
    for bad in ({"lmit": 5}, {"nosuchvariable": "x"}, {"task": "x"}):  # a named query takes its parameters only
        with pytest.raises(QueryError, match="no parameter"):
            graph.sparql("top_tasks", **bad)
        (name, value), = bad.items()
        proc = cli("top_tasks", "-p", f"{name}={value}")
        assert proc.returncode == 2 and "no parameter" in proc.stderr
    q = "SELECT ?p WHERE { ?p a kg:Paper }"
    with pytest.raises(QueryError, match="no parameter name"):
        graph.sparql(q, name="FooNet")  # not a variable of the query: never silently ignored
    assert cli(q, "-p", "name=FooNet").returncode == 2
    one = graph.sparql(q)[0]["p"]
    assert graph.sparql(q, p=one) == [{"p": one}]
    assert json.loads(cli(q, "-p", f"p={one}").stdout)["results"]["bindings"] == [{"p": {"type": "uri", "value": one}}]


def test_export_format_comes_from_the_extension(graph, tmp_path):
    assert graph.export(tmp_path / "g.nt").read_text(encoding="utf-8").count(" .\n") > 100
    assert graph.export(tmp_path / "g.data", format="ttl").exists()
    with pytest.raises(UsageError, match="pass format='ttl'"):  # a usage error, with Python's advice
        graph.export(tmp_path / "g.xyz")
    assert graph.export(tmp_path / "g.data", format="turtle").exists()  # kg export's aliases too
    page = graph.export(tmp_path / "near.html", around="speculative decoding", depth=1)
    assert "within 1 step of speculative decoding" in page.read_text(encoding="utf-8")


def test_extract_takes_text_papers_or_many():
    one = kg.extract("We propose FooNet, a transformer evaluated on ImageNet.")
    assert isinstance(one, kg.Extraction) and "FooNet" in {e.name for e in one.entities}
    many = kg.extract(["We propose FooNet.", kg.Paper(id="p2", abstract="We propose BarNet for segmentation.")])
    assert [e.paper.id for e in many][1] == "p2"


def test_a_name_that_finds_nothing_gives_python_advice_too(graph):
    with pytest.raises(NotFound, match=r"Graph\.search\(text\) in Python"):
        graph.show("zzzzqqq")
    with pytest.raises(QueryError, match=r"did you mean top_tasks\?.*kg\.queries\.named_queries\(\) in Python"):
        graph.sparql("top_task")


def test_errors_are_library_errors(tmp_path):
    with pytest.raises(GraphNotFoundError):
        kg.open(tmp_path)
    with pytest.raises(InputError):
        kg.build([tmp_path / "missing.jsonl"], out=tmp_path / "g")
    assert not (tmp_path / "g").exists()


def test_graph_diff_trends_and_plot(toy_folders, tmp_path):
    import pytest

    import kg

    old, new = kg.open(toy_folders["old"]), kg.open(toy_folders["new"])
    d = old.diff(new, min_papers=3)
    assert [c.name for c in d.grown] == ["diffusion model"]
    assert kg.open(toy_folders["both"]).diff(old="year=2021-2022", new="year=2023-2024",
                                                   min_papers=3).grown == d.grown
    t = kg.open(toy_folders["both"]).trends(window=2, min_papers=4)
    assert [m.name for m in t.falling] == ["reinforcement learning"]
    pytest.importorskip("matplotlib")
    paths = kg.open(toy_folders["both"]).plot(tmp_path / "pics")
    assert paths[-1].name == "trends.png" and all(p.exists() for p in paths)
