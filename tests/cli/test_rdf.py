"""``kg export``, ``kg validate`` and ``kg sparql`` through the CLI (typer's CliRunner on
``kg.cli.app``; one subprocess each for the real exit codes), plus the slow end-to-end checks
that the seed list and ICML 2024 exports conform to the shapes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.cli import app, exit_code
from kg.errors import InputError, QueryError, ValidationFailed

from ..conftest import PAPERS, SEED, need

runner = CliRunner()

BROKEN_TTL = """\
@prefix kg: <https://w3id.org/kg/ontology#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix x: <https://example.org/> .

x:p1 a kg:Paper ; dcterms:identifier "paper:p1" ; kg:year "twenty" ; kg:uses x:v1 .
x:p2 a kg:Paper ; dcterms:identifier "paper:p2" ; rdfs:label "P2" ; kg:uses "a literal" .
x:v1 a kg:Venue ; dcterms:identifier "venue:v1" ; rdfs:label "V1", "V one" .
x:m1 a kg:Method ; dcterms:identifier "method:m1" ; rdfs:label "M1" ; kg:papers -1 .
x:v1 kg:outperforms x:m1 .
x:s1 a rdf:Statement ; rdf:subject x:p2 ; rdf:predicate rdfs:label ; rdf:object x:m1 ;
    prov:wasDerivedFrom x:m1 ; kg:confidence 1.5 ; kg:startOffset 9 ; kg:endOffset 3 .
"""


@pytest.fixture(scope="module")
def folder(sample_graph_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli-rdf") / "g"
    shutil.copytree(sample_graph_dir, out)
    return out


def kg(*args: str):
    return runner.invoke(app, list(args))


def test_the_three_commands_are_registered_with_examples():
    for name in ("export", "validate", "sparql"):
        res = kg(name, "--help")
        assert res.exit_code == 0, res.output
        assert "Example:" in res.output


# ---------------------------------------------------------------- export


def test_export_defaults_to_ttl_in_the_graph_folder(folder):
    res = kg("export", "-g", str(folder))
    assert res.exit_code == 0, res.output
    assert (folder / "graph.ttl").exists()
    assert "wrote" in res.stderr and "triples" in res.stderr


@pytest.mark.parametrize("fmt,name", [("nt", "graph.nt"), ("jsonld", "graph.jsonld"), ("graphml", "graph.graphml")])
def test_export_each_format(folder, tmp_path, fmt, name):
    res = kg("export", "--format", fmt, "-g", str(folder), "-o", str(tmp_path / name))
    assert res.exit_code == 0, res.output
    assert (tmp_path / name).stat().st_size > 1000


def test_export_with_another_base(folder, tmp_path):
    out = tmp_path / "b.nt"
    res = kg("export", "-f", "nt", "-g", str(folder), "-o", str(out), "--base", "https://example.org/kg#")
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert "<https://example.org/kg#technique/" in text and "w3id.org/kg/technique" not in text


@pytest.mark.parametrize("args", [["--format", "xml"], ["--base", "not an iri"]])
def test_export_refuses_bad_options(folder, args):
    res = kg("export", "-g", str(folder), *args)
    assert res.exit_code == 2 and "Invalid value" in res.output


def test_export_to_standard_output_writes_no_file_named_dash(folder, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = kg("export", "-f", "nt", "-g", str(folder), "-o", "-")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) > 100 and all(x.endswith(" .") for x in lines), lines[:3]
    assert "wrote standard output" in res.stderr
    assert not (tmp_path / "-").exists() and list(tmp_path.iterdir()) == []
    res = kg("export", "-f", "neo4j-csv", "-g", str(folder), "-o", "-")  # a folder of files: no stream
    assert res.exit_code == 2 and "-o FOLDER" in res.output


def test_export_of_a_missing_graph_says_to_build(tmp_path):
    res = kg("export", "-g", str(tmp_path))
    assert "kg build" in str(res.exception)


# ---------------------------------------------------------------- validate


def test_validate_a_good_export_exits_0(folder):
    kg("export", "-g", str(folder))
    res = kg("validate", str(folder / "graph.ttl"))
    assert res.exit_code == 0, res.output
    assert "conforms" in res.stderr


def test_validate_a_broken_file_lists_violations_and_exits_1(tmp_path):
    bad = tmp_path / "broken.ttl"
    bad.write_text(BROKEN_TTL, encoding="utf-8")
    res = kg("validate", str(bad))
    assert isinstance(res.exception, ValidationFailed) and exit_code(res.exception) == 1
    out = res.stdout
    for expected in ("kgsh:Paper-label", "kgsh:Paper-year", "kgsh:Paper-uses", "kgsh:Venue-label",
                     "kgsh:Method-papers", "kgsh:outperforms-subject", "kgsh:Statement-confidence",
                     "kgsh:Statement-start", "kgsh:Statement-predicate", "kgsh:Statement-paper"):
        assert expected in out, expected
    assert "e.g." in out and "× Violation" in out


def test_validate_exit_codes_from_the_real_command(tmp_path):
    bad = tmp_path / "broken.ttl"
    bad.write_text(BROKEN_TTL, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "kg.cli", "validate", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "kg: error:" in proc.stderr and "SHACL violation" in proc.stderr and "Traceback" not in proc.stderr
    junk = tmp_path / "junk.ttl"
    junk.write_text("this is not turtle", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "kg.cli", "validate", str(junk)], capture_output=True, text=True)
    err = " ".join(proc.stderr.split())  # rich wraps long messages
    assert proc.returncode == 2 and "junk.ttl:1:" in err and "cannot parse" in err and "Traceback" not in err


def test_validate_a_missing_file(tmp_path):
    res = kg("validate", str(tmp_path / "none.ttl"))
    assert isinstance(res.exception, InputError)


# ---------------------------------------------------------------- sparql


def test_sparql_table_is_readable(folder):
    res = kg("sparql", "queries/proposals.rq", "-g", str(folder))
    assert res.exit_code == 0, res.output
    assert "DraftMixer" in res.stdout and "paper" in res.stdout and "rows" in res.stderr


def test_sparql_json_and_csv(folder):
    q = "SELECT ?name WHERE { ?m a kg:Method ; rdfs:label ?name } ORDER BY ?name"
    res = kg("sparql", q, "-g", str(folder), "--format", "json")
    doc = json.loads(res.stdout)
    assert doc["head"]["vars"] == ["name"] and doc["results"]["bindings"]
    res = kg("sparql", q, "-g", str(folder), "-f", "csv")
    assert res.stdout_bytes.startswith(b"name\r\nAnchor Replay Tuning\r\n")  # CRLF, per RFC 4180


def test_sparql_on_data_files(folder):
    kg("export", "-f", "ttl", "-g", str(folder))
    res = kg("sparql", "ASK { ?p a kg:Paper }", "--data", str(folder / "graph.ttl"), "-f", "json")
    assert json.loads(res.stdout) == {"head": {}, "boolean": True}


def test_sparql_syntax_error(folder):
    res = kg("sparql", "SELECT ?x WHERE {\n  ?x ?y\n}", "-g", str(folder))
    assert isinstance(res.exception, QueryError) and exit_code(res.exception) == 2
    assert "query:3:" in str(res.exception)
    res = kg("sparql", "SELECT ?x WHERE { ?x ?y ?z }", "-g", str(folder), "-f", "xml")
    assert res.exit_code == 2


# ---------------------------------------------------------------- the shared paper lists


def _export_and_validate(graph_dir: Path) -> None:
    from kg.sinks import export_graph
    from kg.sinks.rdf.validate import validate

    for fmt in ("nt", "ttl"):
        result = export_graph(graph_dir, fmt)
        report = validate(result.path)
        assert report.conforms, [(g.shape, g.message, g.count, g.examples) for g in report.groups]
        assert report.triples > result.triples


def test_seed_list_export_conforms(tmp_path):
    from kg.builder import build

    build([str(need(SEED))], tmp_path)
    _export_and_validate(tmp_path)


@pytest.mark.slow
def test_icml2024_export_conforms(tmp_path_factory):
    from kg.builder import build

    papers = need(PAPERS / "icml2024.jsonl")
    out = tmp_path_factory.mktemp("icml2024")
    build([str(papers)], out, workers=0)
    _export_and_validate(out)
