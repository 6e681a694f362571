"""The RDF exports as Apache Jena reads them (``scripts/jena``, assembled from Maven Central):
every export and the schema files parse without a warning, an export alone conforms to the
shapes in Jena's SHACL, and every shipped SPARQL query gives in Jena what ``kg sparql`` gives.

Skipped without Java or Maven, except in CI (``CI=true``), where a missing tool fails.
Deselect with ``-m "not jena"``. One JVM per tool call: riot reads all files in one call, the
queries run two at a time.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import rdflib
from typer.testing import CliRunner

import kg.sinks as sinks
from kg.cli import app
from kg.queries import named_queries
from kg.sinks.rdf.ontology import CONTEXT_FILE, OWL_FILE, SHACL_FILE
from kg.sinks.rdf.sparql import PREFIXES
from tests.conftest import PAPERS, ROOT, need

pytestmark = pytest.mark.jena

JENA = ROOT / "scripts" / "jena"
FORMATS = ("ttl", "nt", "jsonld")
QUERIES = {q.name: q for q in named_queries("sparql")}
# ICML 2024 papers about language models: technique pairs that two papers share, in a small graph
SLICE, TOPIC = 100, "language model"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


def jena_run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(JENA), *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def jena() -> None:
    """The Jena tools, assembled once (``scripts/jena assemble``)."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        why = f"{' and '.join(missing)} not found: the Jena checks need Java 17 and Maven (once)"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    done = jena_run("assemble", timeout=900)
    assert done.returncode == 0, f"scripts/jena assemble failed:\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def graphs(sample_graph_dir, seed_build, tmp_path_factory) -> dict[str, Path]:
    """The sample, the seed list and a slice of ICML 2024 built, with every RDF export."""
    from kg.builder import build

    papers = tmp_path_factory.mktemp("jena-icml2024") / "icml2024-lm.jsonl"
    with need(PAPERS / "icml2024.jsonl").open(encoding="utf-8") as fh:
        lines = [line for line in fh if TOPIC in json.loads(line).get("abstract", "").lower()]
    papers.write_text("".join(lines[:SLICE]), encoding="utf-8")
    out = {}
    for name, folder in (("sample", sample_graph_dir), ("seed", seed_build.folder)):
        out[name] = tmp_path_factory.mktemp(f"jena-{name}") / "g"
        shutil.copytree(folder, out[name])
    out["icml2024-lm"] = build([str(papers)], papers.parent / "g").folder
    for folder in out.values():
        for fmt in FORMATS:
            sinks.export_graph(folder, fmt)
    return out


# ---------------------------------------------------------------- riot


def messages_by_file(output: str) -> dict[str, list[str]]:
    """riot's WARN and ERROR lines, by the file it was reading (its ``File: ...`` lines)."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in output.splitlines():
        m = re.search(r" INFO +riot +:: File: (.*)$", line)
        if m:
            current = m.group(1).strip()
            out.setdefault(current, [])
        elif re.search(r" (WARN|ERROR) ", line):
            out.setdefault(current, []).append(line)
    return out


def test_riot_reads_every_export_and_the_schema_files_without_a_warning(jena, graphs, tmp_path):
    files = [graphs[g] / f"graph.{fmt}" for g in graphs for fmt in FORMATS] + [OWL_FILE, SHACL_FILE]
    control = [tmp_path / "ok.nt", tmp_path / "bad.ttl"]  # one bad decimal: warnings are seen and placed
    control[0].write_text("", encoding="utf-8")
    control[1].write_text('<https://example.org/s> <https://example.org/p> '
                          '"20.0x"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n', encoding="utf-8")
    with ThreadPoolExecutor(2) as pool:
        done, bad = pool.map(lambda fs: jena_run("riot", "--validate", *map(str, fs)), (files, control))
    found = messages_by_file(done.stdout + done.stderr)
    assert found == {str(f): [] for f in files}, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, done.stderr[-2000:]
    found = messages_by_file(bad.stdout + bad.stderr)
    assert not found[str(control[0])] and "not valid for datatype" in found[str(control[1])][0]
    assert bad.returncode != 0


def test_riot_reads_the_jsonld_context_as_a_document_of_its_own(jena):
    # the context alone is a JSON-LD document with no triples: it must parse, without warnings
    done = jena_run("riot", "--validate", "--syntax=jsonld", str(CONTEXT_FILE))
    assert done.returncode == 0 and not re.search(r" (WARN|ERROR) ", done.stderr), done.stderr[-2000:]


# ---------------------------------------------------------------- SHACL


def test_jena_shacl_finds_an_export_alone_conforms(jena, graphs):
    with ThreadPoolExecutor(2) as pool:
        reports = dict(zip(graphs, pool.map(
            lambda g: jena_run("shacl", "validate", "--shapes", str(SHACL_FILE), "--data", str(g / "graph.ttl")),
            graphs.values()), strict=True))
    for name, done in reports.items():
        assert done.returncode == 0, done.stderr[-2000:]
        report = rdflib.Graph().parse(data=done.stdout, format="turtle")
        results = list(report.subjects(rdflib.RDF.type, SH.ValidationResult))
        assert (None, SH.conforms, rdflib.Literal(True)) in report, (name, len(results), done.stdout[:3000])


# ---------------------------------------------------------------- the shipped SPARQL queries


def for_jena(text: str) -> str:
    """The query with the standard prefixes it leaves undeclared (kg sparql supplies them)."""
    declared = set(re.findall(r"(?im)^\s*PREFIX\s+([\w-]*):", text))
    return "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items() if k not in declared) + text


def concat_separators(text: str) -> dict[str, str]:
    """Variable -> separator of each ``GROUP_CONCAT(...; separator="...") AS ?var``: SPARQL leaves
    the order of the values undefined, so engines may list them differently."""
    return {m.group(2): m.group(1) for m in re.finditer(
        r'GROUP_CONCAT\s*\([^;()]*;\s*separator\s*=\s*"([^"]*)"\s*\)\s*AS\s+\?(\w+)', text, re.I)}


def order_keys(text: str, columns: list[str]) -> list[int] | None:
    """Columns of the outermost ORDER BY, when every key is a projected variable; else None."""
    tail = text[text.rfind("}") + 1:]
    m = re.search(r"ORDER\s+BY\s+(.*?)(?:\bLIMIT\b|\bOFFSET\b|$)", tail, re.I | re.S)
    if m is None:
        return None
    keys = re.findall(r"(?:ASC|DESC)\s*\(\s*\?(\w+)\s*\)|\?(\w+)|(\S)", m.group(1), re.I)
    names = [a or b for a, b, other in keys if not other]
    if len(names) != len(keys) or not set(names) <= set(columns):
        return None
    return [columns.index(n) for n in names]


def table(csv_text: str, separators: dict[str, str]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Header and rows of SPARQL CSV results, GROUP_CONCAT values in sorted order."""
    header, *rows = list(csv.reader(io.StringIO(csv_text))) or [[]]
    fix = {header.index(v): sep for v, sep in separators.items() if v in header}
    return header, [tuple(fix[i].join(sorted(c.split(fix[i]))) if i in fix and c else c for i, c in enumerate(r))
                    for r in rows]


@pytest.fixture(scope="module")
def jena_results(jena, graphs, tmp_path_factory) -> dict[tuple[str, str], subprocess.CompletedProcess]:
    """Every shipped query run by Jena's ``sparql`` on every graph's N-Triples, two at a time."""
    folder = tmp_path_factory.mktemp("jena-queries")
    jobs = []
    for name, q in QUERIES.items():
        path = folder / f"{name}.rq"
        path.write_text(for_jena(q.path.read_text(encoding="utf-8")), encoding="utf-8")
        jobs += [(g, name, path) for g in graphs]
    jobs.sort(key=lambda job: job[0] != "icml2024-lm")  # the largest graph first: a shorter tail
    with ThreadPoolExecutor(2) as pool:
        done = pool.map(lambda job: jena_run("sparql", "--data", str(graphs[job[0]] / "graph.nt"),
                                             "--query", str(job[2]), "--results", "CSV"), jobs)
        return {(g, name): d for (g, name, _), d in zip(jobs, done, strict=True)}


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_a_shipped_query_gives_in_jena_what_kg_sparql_gives(query, graphs, jena_results):
    text = QUERIES[query].path.read_text(encoding="utf-8")
    separators = concat_separators(text)
    rows_seen = 0
    for g, folder in graphs.items():
        done = jena_results[(g, query)]
        assert done.returncode == 0, f"{g}: {done.stderr[-2000:]}"
        res = CliRunner().invoke(app, ["sparql", query, "--data", str(folder / "graph.nt"), "-f", "csv"])
        assert res.exit_code == 0, res.output
        header, ours = table(res.stdout, separators)
        jena_header, theirs = table(done.stdout, separators)
        assert header == jena_header, g
        only_ours, only_theirs = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
        assert sorted(ours) == sorted(theirs), f"{g}: kg only {only_ours[:5]}; Jena only {only_theirs[:5]}"
        keys = order_keys(text, header)
        if keys is not None:  # rows tied on the ORDER BY keys may come in any order
            assert [[r[i] for i in keys] for r in ours] == [[r[i] for i in keys] for r in theirs], g
        rows_seen += len(ours)
    if not QUERIES[query].params:  # a query for a value the graphs lack may find nothing
        assert rows_seen > 0, f"{query} finds nothing in the sample and seed graphs: the comparison is empty"


def test_the_comparison_helpers():
    text = 'SELECT ?a ?b (GROUP_CONCAT(DISTINCT ?x; separator=", ") AS ?c) WHERE { } ORDER BY DESC(?b) ?a LIMIT 3'
    assert concat_separators(text) == {"c": ", "}
    assert order_keys(text, ["a", "b", "c"]) == [1, 0]
    assert order_keys("SELECT * WHERE { } ORDER BY LCASE(?a)", ["a"]) is None
    assert order_keys("SELECT * WHERE { { SELECT ?a WHERE {} ORDER BY ?a } }", ["a"]) is None
    assert table('a,c\r\n1,"y, x"\r\n', {"c": ", "}) == (["a", "c"], [("1", "x, y")])
    assert for_jena("PREFIX kg: <x#>\nASK {}").count("PREFIX kg:") == 1
