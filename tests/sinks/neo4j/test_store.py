"""``kg load`` and ``kg cypher`` against a real Neo4j server.

These tests need NEO4J_URI (``make test`` starts scripts/neo4j and exports it). They skip only
when NEO4J_URI is unset; when it is set, an unreachable server is an error, never a skip.
They wipe the database they are given (``MATCH (n) DETACH DELETE n``) before each test.

Expected query rows are facts of examples/sample.txt (the fixture graph is built from it),
checked against the text, not copied from an output.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.errors import Neo4jUnavailable, QueryError
from kg.sinks.neo4j import store as ns
from kg.stats import technique_pairs

from ...conftest import patience

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "examples" / "sample.txt"
URI = os.environ.get("NEO4J_URI")
USER = os.environ.get("NEO4J_USERNAME", "neo4j")
PASSWORD = os.environ.get("NEO4J_PASSWORD")
DB = os.environ.get("NEO4J_DATABASE") or None

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(not URI, reason="NEO4J_URI is not set: run `make test`, or `bash scripts/neo4j "
                                       "start && eval \"$(bash scripts/neo4j env)\"` first"),
]


@pytest.fixture(scope="module")
def driver():
    d = ns.connect(URI, USER, PASSWORD, DB)  # raises (the test errors) if the server is unreachable
    yield d
    d.close()


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    from kg.builder import build

    with pytest.MonkeyPatch.context() as mp:  # the default pipeline, whatever an earlier test left
        for key in ("KG_ENCODER", "KG_SPANS", "KG_NER_MODEL"):
            mp.delenv(key, raising=False)
        return build([str(SAMPLE)], tmp_path_factory.mktemp("sample")).graph


def wipe_all(driver) -> None:
    driver.execute_query("MATCH (n) DETACH DELETE n", database_=DB)


@pytest.fixture
def empty(driver):
    wipe_all(driver)
    return driver


@pytest.fixture
def sample_db(empty, sample):
    ns.load(sample, empty, database=DB)
    return empty


def kg_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the real ``kg`` entry point (kg.cli.main) in a subprocess."""
    full_env = {**os.environ, "COLUMNS": "300", **(env or {})}
    return subprocess.run([sys.executable, "-c", "from kg.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=ROOT, env=full_env, timeout=120)


def snapshot(driver) -> tuple[list, list]:
    """Every node (labels, properties) and relationship (ends, type, properties), sorted."""
    nodes, _, _ = driver.execute_query(
        "MATCH (n) RETURN labels(n) AS l, properties(n) AS p ORDER BY n.id", database_=DB)
    rels, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p "
        "ORDER BY a, t, b, r.key", database_=DB)
    return ([(sorted(r["l"]), r["p"]) for r in nodes], [(r["a"], r["t"], r["b"], r["p"]) for r in rels])


# ---------------------------------------------------------------- loading


def test_load_counts_equal_the_graph_and_a_second_load_changes_nothing(empty, sample):
    from kg.stats import summary

    first = ns.load(sample, empty, database=DB)
    s = summary(sample)
    assert (first.nodes_created, first.relationships_created) == (s["nodes"], s["edges"])
    assert ns.count_graph(empty, DB) == (s["nodes"], s["edges"])
    per_label = {r["l"]: r["n"] for r in empty.execute_query(
        "MATCH (n) UNWIND [l IN labels(n) WHERE l <> 'Entity'] AS l RETURN l, count(*) AS n",
        database_=DB).records}
    assert per_label == s["nodes_per_label"]
    per_type = {r["t"]: r["n"] for r in empty.execute_query(
        "MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS n", database_=DB).records}
    assert per_type == s["edges_per_type"]
    before = snapshot(empty)
    second = ns.load(sample, empty, database=DB)
    assert (second.nodes_created, second.relationships_created) == (0, 0)
    assert snapshot(empty) == before


def test_entities_carry_the_entity_label_and_typed_properties(sample_db):
    from kg.schema import ENTITY_LABELS

    (rec,) = sample_db.execute_query(
        "MATCH (n:Entity {name: 'mixture-of-experts'}) RETURN n", database_=DB).records
    n = rec["n"]  # "a mixture-of-experts (MoE) draft model"
    assert "Entity" in n.labels and len(n.labels) == 2 and set(n.labels) - {"Entity"} <= set(ENTITY_LABELS)
    assert n["aliases"] == ["MoE"] and n["papers"] == 1
    rec = sample_db.execute_query(
        "MATCH (p:Paper)-[r:PROPOSES]->(m {name: 'DraftMixer'}) RETURN p.year AS y, r", database_=DB).records[0]
    assert rec["y"] == 2026 and isinstance(rec["r"]["confidence"], float)
    assert isinstance(rec["r"]["start"], int) and rec["r"]["evidence"].startswith("We propose DraftMixer")


def test_loading_a_bigger_graph_adds_only_the_difference(empty, tmp_path):
    from kg.builder import build

    paragraphs = SAMPLE.read_text(encoding="utf-8").split("\n\n")
    small_txt = tmp_path / "small.txt"
    small_txt.write_text("\n\n".join(paragraphs[:4]) + "\n", encoding="utf-8")  # title + 3 abstracts
    small = build([str(small_txt)], tmp_path / "small").graph
    big = build([str(SAMPLE)], tmp_path / "big").graph
    assert 0 < small.number_of_nodes() < big.number_of_nodes()
    ns.load(small, empty, database=DB)
    assert ns.count_graph(empty, DB) == (small.number_of_nodes(), small.number_of_edges())
    res = ns.load(big, empty, database=DB)
    new_nodes = set(big.nodes) - set(small.nodes)
    new_edges = set(big.edges(keys=True)) - set(small.edges(keys=True))
    assert (res.nodes_created, res.relationships_created) == (len(new_nodes), len(new_edges))
    assert ns.count_graph(empty, DB) == (len(set(big.nodes) | set(small.nodes)),
                                         len(set(big.edges(keys=True)) | set(small.edges(keys=True))))


def test_reloading_follows_changed_and_removed_properties(empty):
    G = nx.MultiDiGraph()
    G.add_node("method:x", label="Method", name="X", aliases=["XX"], papers=2)
    ns.load(G, empty, database=DB)
    del G.nodes["method:x"]["aliases"]  # a newer build no longer finds the alias
    G.nodes["method:x"]["papers"] = 3
    res = ns.load(G, empty, database=DB)
    assert res.nodes_created == 0
    (rec,) = empty.execute_query("MATCH (n:Method) RETURN properties(n) AS p", database_=DB).records
    assert rec["p"] == {"id": "method:x", "name": "X", "papers": 3, "display": "X"}


def test_row_mode_loads_the_same_graph(empty, sample):
    ns.load(sample, empty, database=DB)
    batched = snapshot(empty)
    wipe_all(empty)
    res = ns.load(sample, empty, database=DB, mode="row")
    assert res.mode == "row"
    assert snapshot(empty) == batched


def test_wipe_removes_only_kg_nodes(sample_db, sample):
    sample_db.execute_query("CREATE (:SomethingElse {x: 1})", database_=DB)
    assert ns.wipe(sample_db, DB) == sample.number_of_nodes()
    assert ns.count_graph(sample_db, DB) == (0, 0)
    assert sample_db.execute_query("MATCH (n) RETURN count(n) AS n", database_=DB).records[0]["n"] == 1


def test_kg_load_cli_loads_and_reports(empty, tmp_path):
    from kg.builder import build

    build([str(SAMPLE)], tmp_path / "g")
    res = kg_cli("load", "-g", str(tmp_path / "g"))
    assert res.returncode == 0, res.stderr
    assert "relationships" in res.stderr and (PASSWORD or "\0") not in res.stdout + res.stderr
    G = build([str(SAMPLE)], tmp_path / "g").graph
    assert ns.count_graph(empty, DB) == (G.number_of_nodes(), G.number_of_edges())


# ---------------------------------------------------------------- failures


@pytest.fixture
def auth_recovers(driver):
    """Failed logins count towards Neo4j's lock-out (3 tries, 5 s): wait until ours work again."""
    yield
    deadline = time.monotonic() + patience(60)
    while True:
        try:
            ns.connect(URI, USER, PASSWORD, DB).close()
            return
        except Neo4jUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_bad_password_is_a_one_line_error_and_exit_3(tmp_path, auth_recovers):
    wrong = "not-the-password-7f3a"
    with pytest.raises(Neo4jUnavailable) as info:
        ns.connect(URI, USER, wrong, DB)
    assert "refused the credentials" in str(info.value) and wrong not in str(info.value)
    (tmp_path / "g").mkdir()
    from kg.io.format import save

    save(tmp_path / "g", nx.MultiDiGraph(), [], [])
    res = kg_cli("load", "-g", str(tmp_path / "g"), env={"NEO4J_PASSWORD": wrong})
    assert res.returncode == 3
    assert res.stdout == ""
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("kg: error: Neo4j at ")
    assert "NEO4J_PASSWORD" in res.stderr and wrong not in res.stderr


def test_unreachable_server_is_a_one_line_error_and_exit_3(tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    uri = f"bolt://127.0.0.1:{port}"
    with pytest.raises(Neo4jUnavailable, match="cannot reach Neo4j at bolt://127.0.0.1:"):
        ns.connect(uri, USER, PASSWORD, DB)
    from kg.io.format import save

    save(tmp_path, nx.MultiDiGraph(), [], [])
    res = kg_cli("load", "-g", str(tmp_path), "--uri", uri)
    assert res.returncode == 3 and res.stdout == ""
    assert res.stderr == (f"kg: error: cannot reach Neo4j at {uri}: start a Neo4j 5 server, or give "
                          "the address of yours (NEO4J_URI, or the uri argument)\n")
    res = kg_cli("cypher", "RETURN 1", "--uri", uri)
    assert res.returncode == 3 and res.stderr.count("\n") == 1


def test_unknown_database_is_neo4j_unavailable(driver):
    with pytest.raises(Neo4jUnavailable, match="no database 'no-such-db-kg'"):
        ns.connect(URI, USER, PASSWORD, "no-such-db-kg")


# ---------------------------------------------------------------- kg cypher


def test_cypher_is_read_only_unless_write(empty):
    with pytest.raises(QueryError, match="--write"):
        ns.run_cypher(empty, "CREATE (n:KgWriteTest) RETURN n", database=DB)
    res = kg_cli("cypher", "CREATE (n:KgWriteTest {v: $v}) RETURN n.v AS v", "-p", "v=1")
    assert res.returncode == 2 and "pass --write" in res.stderr and res.stderr.count("\n") == 1
    assert empty.execute_query("MATCH (n:KgWriteTest) RETURN count(n) AS n", database_=DB).records[0]["n"] == 0
    res = kg_cli("cypher", "CREATE (n:KgWriteTest {v: $v}) RETURN n.v AS v", "-p", "v=1", "--write",
                 "--format", "json")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().replace(" ", "").replace("\n", "") == '[{"v":1}]'
    assert empty.execute_query("MATCH (n:KgWriteTest) RETURN count(n) AS n", database_=DB).records[0]["n"] == 1


@pytest.mark.parametrize("statement", [
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "LOAD CSV WITH HEADERS FROM 'http://127.0.0.1:9/x.csv' AS row RETURN row",
    "CALL dbms.killConnection('bolt-1')",
    "CALL `dbms`.`listConnections`() YIELD connectionId RETURN connectionId",
    "MATCH (n) CALL { WITH n RETURN n.id AS i } IN TRANSACTIONS RETURN i",
])
def test_read_only_cypher_refuses_what_a_read_transaction_lets_through(sample_db, statement):
    res = kg_cli("cypher", statement)
    assert res.returncode == 2 and "read-only" in res.stderr and "--write" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    ok = kg_cli("cypher", "MATCH (n:Paper) WHERE n.title = 'LOAD CSV' RETURN count(n) AS n", "-f", "csv")
    assert ok.returncode == 0 and ok.stdout == "n\n0\n", ok.stderr


def test_a_paper_with_a_huge_id_loads_whole(empty, tmp_path):
    import json as json_

    from kg.builder import build

    src = tmp_path / "long.jsonl"
    src.write_text(json_.dumps({"id": "x" * 10_000, "title": "Long id", "abstract": "We propose FooNet, a "
                                "method for image classification evaluated on ImageNet."}) + "\n", encoding="utf-8")
    G = build([str(src)], tmp_path / "g").graph
    ns.load(G, empty, database=DB)
    n = empty.execute_query("MATCH (p:Paper {title: 'Long id'}) RETURN p.id AS id", database_=DB).records
    assert len(n) == 1 and len(n[0]["id"]) <= len("paper:") + 128
    assert empty.execute_query("MATCH (n) RETURN count(n) AS n", database_=DB).records[0]["n"] == G.number_of_nodes()


def test_the_server_keeps_its_credentials_private():
    home = Path(os.environ.get("KG_NEO4J_HOME", Path.home() / ".cache" / "kg-neo4j" / "5.26"))
    auth = home / "data" / "dbms" / "auth.ini"
    if auth.exists():
        assert auth.stat().st_mode & 0o077 == 0, oct(auth.stat().st_mode)
    assert not (home / "run" / "initial-password.args").exists()


def test_a_secret_in_the_uri_query_is_never_echoed():
    res = kg_cli("cypher", "RETURN 1", "--uri", "bolt://127.0.0.1:1?password=hunter2-zz")
    assert res.returncode in (2, 3) and "hunter2-zz" not in res.stderr and "Traceback" not in res.stderr


def test_cypher_cli_formats_and_params(sample_db):
    q = "MATCH (p:Paper) WHERE p.title IN $titles RETURN p.title AS title, p.year AS year ORDER BY title"
    res = kg_cli("cypher", q, "-p", 'titles=["StepCut", "FedTrim"]', "-f", "csv")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "title,year\nFedTrim,2026\nStepCut,2026\n"
    res = kg_cli("cypher", "queries/papers_using_technique.cypher", "-p", "technique=MoE", "-f", "csv")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[1].startswith("DraftMixer,")
    res = kg_cli("cypher", "RETURN $x AS x")
    assert res.returncode == 2 and "--param" in res.stderr


# ---------------------------------------------------------------- every query file


def run_query(driver, query_file: str, **params) -> list[dict]:
    script = ns.read_cypher_file(ROOT / "queries" / f"{query_file}.cypher")
    return ns.run_cypher(driver, script, params, database=DB).rows


def rows_by(rows: list[dict], key: str) -> dict:
    return {r[key]: r for r in rows}


def check_proposals(db, G):
    rows = run_query(db, "proposals")
    pairs = {(r["paper"], r["proposes"]) for r in rows}
    # every sample abstract introduces something (propose / introduce / present / release)
    assert len({p for p, _ in pairs}) == 8
    for thing in ("DraftMixer", "StepCut", "FedTrim", "HeteroLens", "SparseOrder", "TestReward", "PolyVQA"):
        assert (thing, thing) in pairs
    assert any("Anchor Replay Tuning" in p and e == "Anchor Replay Tuning" for p, e in pairs)
    assert {r["label"] for r in rows if r["proposes"] == "PolyVQA"} == {"Dataset"}  # "a benchmark"


def check_papers_using_technique(db, G):
    assert run_query(db, "papers_using_technique")  # the default: the technique most papers use
    rows = run_query(db, "papers_using_technique", technique="speculative decoding")
    assert [r["paper"] for r in rows] == ["DraftMixer"]  # the only abstract about speculative decoding
    assert "speculative decoding" in rows[0]["via"]
    assert [r["paper"] for r in run_query(db, "papers_using_technique", technique="MoE")] == \
        ["DraftMixer"]  # by alias
    lora = run_query(db, "papers_using_technique", technique="LoRA")  # ART mixes LoRA updates…
    assert [r["paper"] for r in lora] == ["Anchor Replay Tuning"]
    rl = rows_by(run_query(db, "papers_using_technique", technique="reinforcement learning"), "paper")
    assert "reinforcement learning from human feedback" in rl["TestReward"]["via"]  # through BROADER


def addressing(G) -> dict[str, set[str]]:
    """Task name -> the papers that address it, themselves or through what they propose."""
    out: dict[str, set[str]] = {}
    for p, d in G.nodes(data=True):
        if d["label"] != "Paper":
            continue
        starts = [p] + [v for _, v, e in G.out_edges(p, data=True) if e["type"] == "PROPOSES"]
        for u in starts:
            for _, t, e in G.out_edges(u, data=True):
                if e["type"] == "ADDRESSES" and G.nodes[t]["label"] == "Task":
                    out.setdefault(G.nodes[t]["name"], set()).add(p)
    return out


def check_top_tasks(db, G):
    rows = rows_by(run_query(db, "top_tasks"), "task")
    # "HeteroLens addresses node classification and link prediction"; "PolyVQA, a benchmark for
    # visual question answering": each stated in one abstract
    for task in ("node classification", "link prediction", "visual question answering"):
        assert rows[task]["papers"] == 1
    assert {t: r["papers"] for t, r in rows.items()} == {t: len(ps) for t, ps in addressing(G).items()}
    assert len(run_query(db, "top_tasks", limit=2)) == 2


def check_shared_entities(db, G):
    rows = rows_by(run_query(db, "shared_entities"), "name")
    assert rows["HumanEval"]["papers"] == 2  # DraftMixer and TestReward both report HumanEval
    assert rows["HumanEval"]["label"] == "Dataset"
    assert all(r["papers"] > 1 for r in rows.values())
    assert len(run_query(db, "shared_entities", limit=1)) == 1
    models = run_query(db, "shared_entities", label="Model")
    expected = {d["name"]: d["papers"] for _, d in G.nodes(data=True) if d["label"] == "Model" and d.get("papers", 0) > 1}
    assert {r["name"]: r["papers"] for r in models} == expected and {r["label"] for r in models} <= {"Model"}
    assert [r["name"] for r in run_query(db, "shared_entities", label="Dataset")] == ["HumanEval"]


def check_shared_models(db, G):
    rows = rows_by(run_query(db, "shared_models"), "model")
    # Qwen3-8B (DraftMixer), Qwen2.5-Coder-7B (TestReward), Qwen2.5-VL-7B (PolyVQA)
    assert rows["Qwen"]["papers"] == 3
    assert rows["Qwen2.5"]["papers"] == 2 and rows["Qwen2.5"]["used_as"] == ["Qwen2.5-Coder-7B", "Qwen2.5-VL-7B"]
    assert "Qwen3" not in rows  # only DraftMixer uses a Qwen3 model


def check_aliases(db, G):
    rows = rows_by(run_query(db, "aliases"), "name")
    # "structural Hamming distance (SHD)", "mixture-of-experts (MoE)", "Anchor Replay Tuning (ART)"
    assert "SHD" in rows["structural Hamming distance"]["aliases"]
    assert "MoE" in rows["mixture-of-experts"]["aliases"]
    assert "ART" in rows["Anchor Replay Tuning"]["aliases"]
    assert all(r["aliases"] for r in rows.values())


def check_dataset_summary(db, G):
    from kg.stats import summary

    rows = run_query(db, "dataset_summary")
    s = summary(G)
    assert {r["name"]: r["count"] for r in rows if r["kind"] == "node"} == s["nodes_per_label"]
    assert {r["name"]: r["count"] for r in rows if r["kind"] == "relationship"} == s["edges_per_type"]
    nodes = {r["name"]: r["count"] for r in rows if r["kind"] == "node"}
    assert (nodes["Paper"], nodes["Venue"]) == (8, 1)  # eight abstracts, one workshop


def check_papers_with_code(db, G):
    assert run_query(db, "papers_with_code") == [
        {"paper": "DraftMixer", "code": ["https://github.com/example-lab/draftmixer"]},
        {"paper": "StepCut", "code": ["https://example-lab.github.io/stepcut/"]},
    ]


def check_cooccurring_techniques(db, G):
    pairs = {(r["technique"], r["other"]): r["papers"] for r in run_query(db, "cooccurring_techniques", limit=1000)}
    # the RDF export's technique pairs, counted from the graph itself, say the same
    names = {n: d["name"] for n, d in G.nodes(data=True)}
    assert pairs == {tuple(sorted((names[a], names[b]))): c for a, b, c in technique_pairs(G)}


def check_comparisons(db, G):
    rows = run_query(db, "comparisons")
    assert {"method": "DraftMixer", "relation": "OUTPERFORMS", "other": "EAGLE-2", "paper": "DraftMixer"} in rows
    assert any(r["method"] == "HeteroLens" and r["other"] == "GraphSAGE" for r in rows)


def check_model_families(db, G):
    rows = run_query(db, "model_families")
    assert {"family": "Qwen3", "model": "Qwen3-8B", "size": "8B", "papers": 1} in rows
    assert {"family": "Qwen", "model": "Qwen3-8B", "size": "8B", "papers": 1} in rows  # through Qwen3
    for model in ("Qwen2.5-Coder-7B", "Qwen2.5-VL-7B"):  # a 7B model of the Qwen2.5 family
        assert any(r["model"] == model and r["size"] == "7B" and r["family"].startswith("Qwen2.5") for r in rows)
    assert all(r["family"] != r["model"] for r in rows)


def check_taxonomy(db, G):
    rows = run_query(db, "taxonomy", name="RLHF")
    assert rows and {r["entity"] for r in rows} == {"reinforcement learning from human feedback"}
    steps = {(r["narrower"], r["broader"]) for r in rows}
    assert ("reinforcement learning from human feedback", "reinforcement learning") in steps
    names = {d.get("name"): n for n, d in G.nodes(data=True)}
    for child, parent in steps:  # each step is a BROADER edge of the graph
        assert G.has_edge(names[child], names[parent])
    for top in {p for _, p in steps} - {c for c, _ in steps}:  # the chains end at roots
        assert not any(d["type"] == "BROADER" for _, _, d in G.out_edges(names[top], data=True))
    assert run_query(db, "taxonomy")  # the default: the most named entity with something broader
    assert run_query(db, "taxonomy", name="no such entity") == []


def check_edge_evidence(db, G):
    assert run_query(db, "edge_evidence")  # the default: the comparison stated most surely
    (row,) = run_query(db, "edge_evidence", source="draftmixer", target="EAGLE-2", type="OUTPERFORMS")
    assert "DraftMixer outperforms EAGLE-2" in row["evidence"] and row["paper"] == "DraftMixer"
    abstract = next(d["abstract"] for _, d in G.nodes(data=True) if d.get("title") == "DraftMixer")
    assert abstract[row["start"]:row["end"]] == row["evidence"]
    assert 0 < row["confidence"] <= 1
    rows = run_query(db, "edge_evidence", source="TestReward", target="HumanEval", type=None)
    assert rows and all("HumanEval" in r["evidence"] for r in rows)


def check_datasets_per_task(db, G):
    rows = run_query(db, "datasets_per_task")
    # "PolyVQA, a benchmark for visual question answering"
    assert {"task": "visual question answering", "dataset": "PolyVQA", "papers": 1} in rows
    abstracts = [d["abstract"] for _, d in G.nodes(data=True) if d["label"] == "Paper"]
    for r in rows:  # a dataset goes with a task that one abstract names with it
        assert any(r["task"].lower() in a.lower() and r["dataset"] in a for a in abstracts), r


def check_venue_summary(db, G):
    (row,) = run_query(db, "venue_summary")
    assert (row["venue"], row["year"], row["papers"]) == ("Workshop 2026", 2026, 8)
    assert row["proposing"] == 8 and row["with_code"] == 2  # two abstracts give a URL


def check_search_entities(db, G):
    top = max((d for _, d in G.nodes(data=True) if d.get("papers")), key=lambda d: (d["papers"], [-ord(c) for c in d["name"]]))
    assert top["name"] in [r["name"] for r in run_query(db, "search_entities")]  # the default: the most named
    rows = run_query(db, "search_entities", q="LoRA")
    assert "lora" in [rows[0]["name"].lower(), *(a.lower() for a in rows[0]["aliases"] or [])]
    assert "speculative decoding" in [r["name"] for r in run_query(db, "search_entities", q="speculative")]


def check_paper_neighbourhood(db, G):
    assert run_query(db, "paper_neighbourhood")  # the default: the paper with the most relationships
    rows = run_query(db, "paper_neighbourhood", title="draftmixer")
    paper = next(n for n, d in G.nodes(data=True) if d.get("title") == "DraftMixer")
    pid = paper.split(":", 1)[1]
    proposed = [m for _, m, d in G.out_edges(paper, data=True) if d["type"] == "PROPOSES"]
    stated = [d for m in proposed for _, _, d in G.out_edges(m, data=True) if d.get("paper") == pid]
    assert len(rows) == G.degree(paper) + len(stated)
    names = {n.get("name") for r in rows for n in r["path"]["nodes"]}
    assert {"DraftMixer", "speculative decoding", "Workshop 2026", "Qwen3-8B"} <= names


CHECKS = {name.removeprefix("check_"): fn for name, fn in globals().items() if name.startswith("check_")}


def test_every_query_file_has_a_check():
    assert set(CHECKS) == {p.stem for p in (ROOT / "queries").glob("*.cypher")}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_query_file(name, sample_db, sample):
    CHECKS[name](sample_db, sample)


# ---------------------------------------------------------------- arbitrary strings


NASTY = list("'\"`{}[]()<>\\/$;:|,%*?!#&=") + ["\n", "\r\n", "\t", "\u200b", "\u200f", "\u202e",
                                                "\u2028", "\ufeff", "\x00", "\x1f", "é", "中", "🙂", "MATCH", "*/"]
text = st.lists(st.sampled_from(NASTY) | st.text(st.characters(exclude_categories=("Cs",)), max_size=4),
                max_size=12).map("".join)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=text, alias=text, evidence=text)
def test_arbitrary_strings_survive_load_and_read_back(driver, name, alias, evidence):
    G = nx.MultiDiGraph()
    mid, pid = f"method:{name}", f"paper:{alias}"
    G.add_node(mid, label="Method", name=name, aliases=[alias, name], papers=1)
    G.add_node(pid, label="Paper", name=alias, title=alias, abstract=evidence, year=2026)
    G.add_edge(pid, mid, key=f"PROPOSES|{alias}", type="PROPOSES", paper=alias, evidence=evidence,
               start=0, end=len(evidence), confidence=0.5)
    wipe_all(driver)
    ns.load(G, driver, database=DB)
    res = ns.run_cypher(driver, "MATCH (p:Paper)-[r:PROPOSES]->(m:Method) RETURN p, r, m", database=DB)
    (row,) = res.rows
    assert row["m"]["id"] == mid and row["m"]["name"] == name and row["m"]["aliases"] == [alias, name]
    assert row["p"]["id"] == pid and row["p"]["title"] == alias and row["p"]["abstract"] == evidence
    assert row["r"]["key"] == f"PROPOSES|{alias}" and row["r"]["evidence"] == evidence
    assert (row["r"]["_start"], row["r"]["_end"]) == (pid, mid)
    again = ns.load(G, driver, database=DB)
    assert (again.nodes_created, again.relationships_created) == (0, 0)
