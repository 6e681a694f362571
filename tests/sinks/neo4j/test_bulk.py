"""neo4j-admin import files: written and read back offline, then imported into the real server.

The import test stops the server that scripts/neo4j runs, imports into the one user database
Community has (``neo4j``, with --overwrite-destination), starts it again, checks the counts and
values, and finally reloads the sample graph and its constraints with ``kg load``. Every other
Neo4j test wipes and loads what it needs and opens its own driver, so none depends on the state
this test leaves; the restart only costs them a reconnect, which managed transactions retry.
"""

from __future__ import annotations

import csv
import os
import subprocess
import time
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import ExportError, Neo4jUnavailable
from kg.schema import LABELS
from kg.sinks.neo4j.bulk import ARRAY_DELIMITER, edge_header, node_header, write_neo4j_csv
from kg.sinks.neo4j.display import display_names, shorten, venues

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "neo4j"
URI = os.environ.get("NEO4J_URI")

WEIRD = ['quote " and \'single\'', "comma, semicolon; pipe |", "line\nbreak\r\nand CR", "back\\slash\\",
         "`tick` {brace} <angle>", "zero\u200bwidth \u202eRTL\u202c", " padded ", "", "🙂 中文 é"]


def weird_graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_node("paper:p1", label="Paper", name="P1", title=WEIRD[2], abstract=WEIRD[0], year=2026, url="u")
    G.add_node("venue:v", label="Venue", name="Venue 2026", year=2026)
    G.add_node("method:m", label="Method", name=WEIRD[0], aliases=WEIRD[1:5], papers=3)
    G.add_node("model:q", label="Model", name="Q-8B", family="Q", size="8B", papers=1)
    G.add_node("model:qf", label="Model", name="Q", papers=0)
    G.add_node("task:t", label="Task", name=WEIRD[8], aliases=[WEIRD[6], WEIRD[7]], papers=1)
    G.add_edge("paper:p1", "method:m", key="PROPOSES|p1", type="PROPOSES", paper="p1", evidence=WEIRD[3],
               start=0, end=7, rule="proposal", confidence=0.7224999999999999)
    G.add_edge("paper:p1", "method:m", key="USES|p1", type="USES", paper="p1", confidence=0.5)
    G.add_edge("method:m", "task:t", key="ADDRESSES|p1", type="ADDRESSES", evidence=WEIRD[5])
    G.add_edge("paper:p1", "venue:v", key="PUBLISHED_IN", type="PUBLISHED_IN", rule="record", confidence=1.0)
    G.add_edge("model:q", "model:qf", key="VARIANT_OF", type="VARIANT_OF", rule="model-name", confidence=1.0)
    return G


def read_back(path: Path) -> tuple[list[str], list[list[str]]]:
    """Read a written file with Python's RFC 4180 reader (what neo4j-admin's parser also accepts)."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, strict=True))
    return rows[0], rows[1:]


def test_files_headers_and_arguments(tmp_path):
    out = write_neo4j_csv(weird_graph(), tmp_path)
    names = sorted(p.name for p in out.files)
    assert names == ["nodes-Method.csv", "nodes-Model.csv", "nodes-Paper.csv", "nodes-Task.csv",
                     "nodes-Venue.csv", "relationships-ADDRESSES.csv", "relationships-PROPOSES.csv",
                     "relationships-PUBLISHED_IN.csv", "relationships-USES.csv",
                     "relationships-VARIANT_OF.csv"]
    assert out.args[:4] == ["database", "import", "full", "neo4j"]
    assert f"--nodes=Method:Entity={tmp_path.resolve() / 'nodes-Method.csv'}" in out.args
    assert f"--nodes=Paper={tmp_path.resolve() / 'nodes-Paper.csv'}" in out.args
    assert f"--relationships=USES={tmp_path.resolve() / 'relationships-USES.csv'}" in out.args
    assert "--array-delimiter=U+001F" in out.args and "--multiline-fields=true" in out.args
    header, _ = read_back(tmp_path / "nodes-Paper.csv")
    assert header == ["id:ID(kg)", "name", "title", "abstract", "year:long", "url", "pdf", "keywords:string[]", "area",
                      "source", "display", "venue"]
    _, papers = read_back(tmp_path / "nodes-Paper.csv")
    venue_names = {r[0]: r[-1] for r in read_back(tmp_path / "nodes-Venue.csv")[1]}
    assert papers and all(r[-1] for r in papers) and {r[-1] for r in papers} <= set(venue_names.values())
    header, _ = read_back(tmp_path / "relationships-PROPOSES.csv")
    assert header == [":START_ID(kg)", ":END_ID(kg)", "key", "paper", "evidence", "start:long", "end:long",
                      "rule", "confidence:double", "curated_by", "curated_at"]
    cmd = out.command("bash scripts/neo4j admin")
    assert cmd.startswith("bash scripts/neo4j admin database import full neo4j --overwrite-destination --nodes=")


def test_headers_follow_the_schema_and_type_extra_attributes():
    for label, lab in LABELS.items():
        h = node_header(label, [])
        paper = label == "Paper"  # + the venue's name, as kg show prints it
        assert h[0] == "id:ID(kg)" and len(h) == len(lab.props) + 1 + paper  # id + every declared property
        assert h[-1 - paper] == "display"  # + the caption kg load gives every node
    assert "aliases:string[]" in node_header("Technique", []) and "papers:long" in node_header("Task", [])
    h = node_header("Method", [{"score": 0.5}, {"score": 1}, {"flag": True}, {"tags": ["a"]}, {"misc": "x"}])
    assert h[-4:] == ["flag:boolean", "misc", "score:double", "tags:string[]"]
    assert edge_header([])[:3] == [":START_ID(kg)", ":END_ID(kg)", "key"]


def test_values_round_trip_through_an_rfc4180_reader(tmp_path):
    write_neo4j_csv(weird_graph(), tmp_path)
    _, rows = read_back(tmp_path / "nodes-Method.csv")
    (row,) = rows
    assert row[:4] == ["method:m", WEIRD[0], ARRAY_DELIMITER.join(WEIRD[1:5]), "3"]
    header, rows = read_back(tmp_path / "relationships-PROPOSES.csv")
    assert rows[0][4] == WEIRD[3] and rows[0][header.index("confidence:double")] == "0.7224999999999999"
    text = (tmp_path / "nodes-Model.csv").read_text(encoding="utf-8")
    assert '"model:qf","Q",,0,,,,' in text  # missing: empty and unquoted; strings: always quoted
    text = (tmp_path / "nodes-Task.csv").read_text(encoding="utf-8")
    assert f'" padded {ARRAY_DELIMITER}"' in text  # an empty string element stays in the array


@settings(max_examples=50, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",), exclude_characters=ARRAY_DELIMITER), max_size=30))
def test_any_string_round_trips_offline(tmp_path_factory, s):
    G = nx.MultiDiGraph()
    G.add_node("method:x", label="Method", name=s, aliases=[s, "b"], papers=1)
    out = tmp_path_factory.mktemp("csv")
    write_neo4j_csv(G, out)
    _, rows = read_back(out / "nodes-Method.csv")
    assert rows == [["method:x", s, f"{s}{ARRAY_DELIMITER}b", "1", "", "", "", "", shorten(s)]]  # no merges, no curation


def test_the_array_delimiter_inside_an_alias_is_refused(tmp_path):
    G = nx.MultiDiGraph()
    G.add_node("method:x", label="Method", name="x", aliases=[f"a{ARRAY_DELIMITER}b"])
    with pytest.raises(ExportError, match="U\\+001F"):
        write_neo4j_csv(G, tmp_path)


def test_no_multiline_flag_when_no_value_spans_lines(tmp_path):
    G = nx.MultiDiGraph()
    G.add_node("method:x", label="Method", name="x")
    assert not any(a.startswith("--multiline") for a in write_neo4j_csv(G, tmp_path).args)


# ---------------------------------------------------------------- into the real server


def script(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def wait_until_served(timeout: float = 120):
    """A driver once the restarted server serves the database (the port opens a little earlier)."""
    from kg.sinks.neo4j.store import connect, count_graph

    deadline = time.monotonic() + timeout
    while True:
        try:
            d = connect(URI, os.environ.get("NEO4J_USERNAME", "neo4j"), os.environ.get("NEO4J_PASSWORD"),
                        os.environ.get("NEO4J_DATABASE") or None)
            count_graph(d, os.environ.get("NEO4J_DATABASE") or None)
            return d
        except Neo4jUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


@pytest.mark.neo4j
@pytest.mark.skipif(not URI, reason="NEO4J_URI is not set: run `make test`, or `bash scripts/neo4j "
                                    "start && eval \"$(bash scripts/neo4j env)\"` first")
def test_neo4j_admin_import_gives_the_graph(tmp_path):
    from kg.builder import build
    from kg.sinks.neo4j.store import count_graph, load, run_cypher

    wait_until_served(10).close()  # NEO4J_URI is set: an unreachable server fails here, loudly
    if script("status").returncode != 0:
        pytest.skip("the server at NEO4J_URI is not the one scripts/neo4j runs; this test must stop, "
                    "import into and restart it")
    db = os.environ.get("NEO4J_DATABASE") or "neo4j"
    sample = build([str(ROOT / "examples" / "sample.txt")], tmp_path / "sample").graph
    G = nx.compose(sample, weird_graph())
    out = write_neo4j_csv(G, tmp_path / "csv", database=db)
    stopped = script("stop")
    assert stopped.returncode == 0, stopped.stderr
    try:
        imported = script("admin", *out.args[:4], "--overwrite-destination", *out.args[4:])
    finally:
        started = script("start")
    assert started.returncode == 0, started.stdout + started.stderr
    assert imported.returncode == 0, (imported.stdout + imported.stderr)[-3000:]
    driver = wait_until_served()
    try:
        assert count_graph(driver, db) == (G.number_of_nodes(), G.number_of_edges())
        rows = run_cypher(driver, "MATCH (n) RETURN n ORDER BY n.id", database=db).rows
        got = {r["n"]["id"]: r["n"] for r in rows}
        assert set(got) == set(G.nodes)
        captions, venue = display_names(G), venues(G)
        for n, d in G.nodes(data=True):
            expected = {"_labels": sorted([d["label"]] + (["Entity"] if LABELS[d["label"]].parent else [])),
                        "id": n, **{k: v for k, v in d.items() if k != "label" and v not in (None, [])},
                        "display": captions[n]}
            if venue.get(n) is not None:  # kg load gives a paper its venue's name
                expected["venue"] = venue[n]
            assert got[n] == expected, n
        rows = run_cypher(driver, "MATCH (a)-[r]->(b) RETURN a, r, b", database=db).rows
        got_edges = {(r["a"]["id"], r["b"]["id"], r["r"]["key"]): r["r"] for r in rows}
        assert len(got_edges) == G.number_of_edges()
        for u, v, k, d in G.edges(keys=True, data=True):
            expected = {"_type": d["type"], "_start": u, "_end": v, "key": k,
                        **{a: x for a, x in d.items() if a != "type"}}
            assert got_edges[(u, v, k)] == expected
    finally:  # leave the server as the other tests expect it: constraints, indexes, the sample
        load(sample, driver, database=db, wipe_first=True)
        driver.close()
