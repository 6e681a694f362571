"""SPARQL over the export: every shipped query runs and gives rows that are true of
examples/sample.txt; result formats follow SPARQL 1.1 JSON / CSV; errors are clear."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.errors import GraphNotFoundError, InputError, QueryError
from kg.io.format import load_graph
from kg.sinks.rdf import render, sparql

from ...conftest import SAMPLE, SEED, need

ROOT = Path(__file__).resolve().parents[3]
QUERIES = sorted((ROOT / "queries").glob("*.rq"))
SAMPLE_TEXT = (ROOT / "examples" / "sample.txt").read_text(encoding="utf-8")
ABSTRACTS = [p.strip() for p in SAMPLE_TEXT.split("\n\n")[1:] if p.strip()]


def mentions(name: str) -> int:
    """How many abstracts of the sample mention ``name`` (case-insensitive)."""
    return sum(name.lower() in a.lower() for a in ABSTRACTS)


@pytest.fixture(scope="module")
def folder(sample_graph_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sparql-sample") / "g"
    shutil.copytree(sample_graph_dir, out)
    return out


@pytest.fixture(scope="module")
def store(folder) -> ox.Store:
    return sparql.load_store([sparql.ensure_export(folder)])


@pytest.fixture(scope="module")
def abstract_of(folder) -> dict[str, str]:
    """Paper label (title) -> abstract, from the graph."""
    G = load_graph(folder)
    return {d["name"]: d["abstract"] for _, d in G.nodes(data=True) if d["label"] == "Paper"}


def select(store: ox.Store, query: str, **params) -> list[dict[str, str]]:
    from kg.queries import bind_sparql

    text, qname = sparql.read_query(str(ROOT / "queries" / f"{query}.rq"))
    text = bind_sparql(text, params, query)
    names, rows = sparql.rows(sparql.run(store, text, qname), sparql.PREFIXES)
    return [dict(zip(names, r, strict=True)) for r in rows]


# ---------------------------------------------------------------- the shipped queries


def test_there_are_at_least_ten_queries_including_proposals():
    assert len(QUERIES) >= 10
    assert ROOT / "queries" / "proposals.rq" in QUERIES


@pytest.mark.parametrize("path", QUERIES, ids=lambda p: p.stem)
def test_every_query_says_what_it_answers_and_runs(path, store):
    text = path.read_text(encoding="utf-8")
    assert re.match(r"# \S.*\?", text.splitlines()[0]), "first line: # <the question it answers>?"
    result = sparql.run(store, text, path.name)
    assert isinstance(result, ox.QuerySolutions)
    list(result)


def test_proposals(store, abstract_of):
    rows = select(store, "proposals")
    proposed = {r["proposes"] for r in rows}
    # each of the eight abstracts says "We propose / introduce / present / release X"
    assert {"DraftMixer", "Anchor Replay Tuning", "HeteroLens", "TestReward", "StepCut", "PolyVQA",
            "SparseOrder", "FedTrim"} <= proposed
    for r in rows:
        assert r["proposes"] in abstract_of[r["paper"]]
        assert r["label"] in ("Method", "Dataset", "Model", "Technique", "Software", "Task", "Metric")
    assert {r["label"] for r in rows if r["proposes"] == "PolyVQA"} == {"Dataset"}  # "a benchmark"


def test_papers_using_technique(store, abstract_of):
    rows = select(store, "papers_using_technique", technique="speculative decoding")
    assert [r["paper"] for r in rows] == ["DraftMixer"]
    assert "speculative decoding" in rows[0]["via"].split("; ")  # and its narrower draft model
    assert "speculative decoding" in abstract_of[rows[0]["paper"]]
    assert mentions("speculative decoding") == 1
    assert select(store, "papers_using_technique", technique="MOE") == [{"paper": "DraftMixer", "via": "mixture-of-experts"}]  # an alias
    assert select(store, "papers_using_technique")  # the default is the technique most papers use


def test_top_tasks(store):
    rows = select(store, "top_tasks")
    tasks = {r["task"]: int(r["papers"]) for r in rows}
    assert {"node classification", "link prediction"} <= set(tasks)  # "HeteroLens addresses ..."
    for task, n in tasks.items():
        if mentions(task):
            assert n <= mentions(task), task
    assert [int(r["papers"]) for r in rows] == sorted((int(r["papers"]) for r in rows), reverse=True)


def test_shared_models(store):
    rows = {r["model"]: int(r["papers"]) for r in select(store, "shared_models")}
    # Qwen2.5-Coder-7B (TestReward) and Qwen2.5-VL-7B (PolyVQA) are both Qwen2.5 models
    assert rows.get("Qwen2.5") == 2 == mentions("Qwen2.5")
    for model, n in rows.items():
        assert n > 1 and n <= mentions(model), model


def test_papers_with_code(store):
    rows = select(store, "papers_with_code")
    urls_in_text = {u.rstrip(".") for u in re.findall(r"https?://\S+", SAMPLE_TEXT)}
    assert {r["code"] for r in rows} == urls_in_text == {"https://github.com/example-lab/draftmixer",
                                                        "https://example-lab.github.io/stepcut/"}
    assert {r["paper"] for r in rows} == {"DraftMixer", "StepCut"}


def uses_graph():
    """Three papers: a uses t1 itself and t2 through its method; b's method uses both; c uses
    t1 and only mentions t2. Only (t1, t2) is used together by two papers (a and b)."""
    import networkx as nx

    G = nx.MultiDiGraph()
    for p in "abc":
        G.add_node(f"paper:{p}", label="Paper", name=p, title=p, abstract="We use X.")
        G.add_node(f"method:m{p}", label="Method", name=f"M{p}", papers=1)
        G.add_edge(f"paper:{p}", f"method:m{p}", key=f"PROPOSES|{p}", type="PROPOSES", paper=p, rule="r",
                   confidence=0.9)
    for t in ("t1", "t2"):
        G.add_node(f"technique:{t}", label="Technique", name=t, papers=2)
    for u, v, p, rtype in [("paper:a", "t1", "a", "USES"), ("method:ma", "t2", "a", "USES"),
                           ("method:mb", "t1", "b", "USES"), ("method:mb", "t2", "b", "USES"),
                           ("method:mc", "t1", "c", "USES"), ("paper:c", "t2", "c", "MENTIONS")]:
        G.add_edge(u, f"technique:{v}", key=f"{rtype}|{p}", type=rtype, paper=p, rule="r", confidence=0.5)
    return G


JOINED_PAIRS = """
    PREFIX kg: <https://w3id.org/kg/ontology#>
    SELECT ?t1 ?t2 (COUNT(DISTINCT ?p) AS ?n) WHERE {
      ?p a kg:Paper ; kg:proposes?/kg:uses ?t1, ?t2 . ?t1 a kg:Technique . ?t2 a kg:Technique .
      FILTER (STR(?t1) < STR(?t2)) } GROUP BY ?t1 ?t2 HAVING (COUNT(DISTINCT ?p) >= 2)"""
STORED_PAIRS = """
    PREFIX kg: <https://w3id.org/kg/ontology#>
    SELECT ?t1 ?t2 ?n WHERE {
      ?pair a kg:TechniquePair ; kg:papers ?n ; kg:hasTechnique ?t1, ?t2 . FILTER (STR(?t1) < STR(?t2)) }"""


def _pairs(result) -> set[tuple[str, str, int]]:
    return {(s["t1"].value.rsplit("/", 1)[-1], s["t2"].value.rsplit("/", 1)[-1], int(s["n"].value)) for s in result}


def test_technique_pairs_count_what_papers_and_their_proposals_use():
    """The exported kg:TechniquePair counts are what a join over kg:uses (from the paper or
    what it proposes) counts, and what kg.stats counts; a mention is not a use."""
    from kg.stats import technique_pairs

    G = uses_graph()
    store = ox.Store()
    store.load("".join(render.rdf_chunks(G, "nt")).encode(), ox.RdfFormat.N_TRIPLES)
    assert _pairs(store.query(STORED_PAIRS)) == _pairs(store.query(JOINED_PAIRS)) == {("t1", "t2", 2)}
    assert technique_pairs(G) == [("technique:t1", "technique:t2", 2)]
    rows = [(r["technique"].value, r["other"].value, int(r["papers"].value))
            for r in sparql.run(store, sparql.read_query(str(ROOT / "queries" / "cooccurring_techniques.rq"))[0], "q")]
    assert rows == [("t1", "t2", 2)]


def test_cooccurring_techniques_agree_with_the_graph(store, folder):
    from kg.stats import technique_pairs

    G = load_graph(folder)
    expected = sorted((G.nodes[a]["name"], G.nodes[b]["name"], n) for a, b, n in technique_pairs(G))
    rows = select(store, "cooccurring_techniques")
    assert sorted((r["technique"], r["other"], int(r["papers"])) for r in rows) == expected
    assert _pairs(store.query(STORED_PAIRS)) == _pairs(store.query(JOINED_PAIRS))


def test_comparisons(store, abstract_of):
    rows = select(store, "comparisons")
    assert {"method": "DraftMixer", "relation": "OUTPERFORMS", "other": "EAGLE-2",
            "paper": "DraftMixer"} in rows
    for r in rows:
        abstract = abstract_of[r["paper"]]
        assert r["method"] in abstract and r["other"] in abstract, r


def test_model_families(store):
    rows = select(store, "model_families")
    assert {"family": "Qwen3", "model": "Qwen3-8B", "size": "8B", "papers": "1"} in rows
    assert {"family": "Qwen", "model": "Qwen3-8B", "size": "8B", "papers": "1"} in rows  # a chain

    def key(s):
        return re.sub(r"[^a-z0-9]", "", s.lower())

    for r in rows:
        assert key(r["model"]).startswith(key(r["family"])), r
        assert not r["size"] or r["size"] in r["model"]


def test_taxonomy_steps_are_lexicon_facts_up_to_a_root(store):
    from kg.lexicon import default_lexicon
    from kg.schema import LABELS

    lexicon = default_lexicon()
    rows = select(store, "taxonomy", name="rlhf")  # by alias, case-insensitive
    steps = {(r["narrower"], r["broader"]) for r in rows}
    assert {r["entity"] for r in rows} == {"reinforcement learning from human feedback"}
    assert ("reinforcement learning from human feedback", "reinforcement learning") in steps
    for child, parent in steps:
        entries = [e for lab in LABELS if (e := lexicon.get(lab, child)) is not None]
        parents = {b for e in entries for b in e.broader}
        parents |= {hit.name for b in parents if (hit := lexicon.lookup(b)) is not None}
        assert parent in parents, (child, parent)
    children = {c for c, _ in steps}
    assert {p for _, p in steps} - children, "the chain ends at a root"
    assert select(store, "taxonomy")  # the default: the most named entity with something broader
    assert select(store, "taxonomy", name="no such entity") == []


def test_edge_evidence(store, abstract_of):
    rows = select(store, "edge_evidence", source="draftmixer", target="EAGLE-2")
    assert any(r["relation"] == "OUTPERFORMS" for r in rows)
    default = select(store, "edge_evidence")  # the ends of the comparison stated most surely
    assert default and any(r["relation"] in ("OUTPERFORMS", "COMPARED_WITH") for r in default)
    assert select(store, "edge_evidence", source="DraftMixer", target="EAGLE-2", type="USES") == []
    for r in rows:
        assert (r["subject"], r["object"]) == ("DraftMixer", "EAGLE-2")
        assert abstract_of[r["paper"]][int(r["start"]):int(r["end"])] == r["evidence"]
        assert "DraftMixer outperforms EAGLE-2" in r["evidence"]
        assert 0 < float(r["confidence"]) <= 1 and r["rule"]


def test_datasets_per_task(store):
    rows = select(store, "datasets_per_task")
    pairs = {(r["task"], r["dataset"]) for r in rows}
    assert {t for t, _ in pairs} & {"node classification", "link prediction"}  # HeteroLens, on benchmarks
    for task, dataset in pairs:
        assert any(task.lower() in a.lower() and dataset in a for a in ABSTRACTS), (task, dataset)


def test_venue_summary(store):
    [row] = select(store, "venue_summary")
    assert "Workshop 2026" in row["venue"] and row["year"] == "2026"
    assert int(row["papers"]) == len(ABSTRACTS) == 8
    assert int(row["with_code"]) == 2
    assert int(row["proposing"]) == 8


def test_shared_entities(store):
    rows = {r["name"]: int(r["papers"]) for r in select(store, "shared_entities")}
    assert rows["HumanEval"] == 2 == mentions("HumanEval")  # DraftMixer and TestReward
    assert all(n > 1 for n in rows.values())
    assert [r["name"] for r in select(store, "shared_entities", label="Dataset")] == ["HumanEval"]
    assert len(select(store, "shared_entities", limit=1)) == 1


def test_aliases(store):
    rows = {r["name"]: r["aliases"].split("; ") for r in select(store, "aliases")}
    assert "ART" in rows["Anchor Replay Tuning"]  # "Anchor Replay Tuning (ART)"


def test_dataset_summary_matches_the_graph(store, folder):
    G = load_graph(folder)
    from kg.stats import summary

    rows = select(store, "dataset_summary")
    s = summary(G)
    assert {r["name"]: int(r["count"]) for r in rows if r["kind"] == "node"} == s["nodes_per_label"]
    assert {r["name"]: int(r["count"]) for r in rows if r["kind"] == "relationship"} == s["edges_per_type"]


# ---------------------------------------------------------------- formats


def test_json_results_follow_the_spec(store):
    q = "SELECT ?name ?papers WHERE { ?e a kg:Dataset ; rdfs:label ?name ; kg:papers ?papers } ORDER BY ?name"
    doc = json.loads(sparql.serialize(sparql.run(store, q), "json"))
    assert doc["head"] == {"vars": ["name", "papers"]}
    bindings = doc["results"]["bindings"]
    assert bindings and set(bindings[0]) <= {"name", "papers"}
    assert bindings[0]["name"]["type"] == "literal" and "datatype" not in bindings[0]["name"]
    assert bindings[0]["papers"] == {"type": "literal", "value": bindings[0]["papers"]["value"],
                                     "datatype": "http://www.w3.org/2001/XMLSchema#integer"}
    iri = json.loads(sparql.serialize(sparql.run(store, "SELECT ?p WHERE { ?p a kg:Paper } LIMIT 1"), "json"))
    assert iri["results"]["bindings"][0]["p"]["type"] == "uri"
    assert json.loads(sparql.serialize(sparql.run(store, "ASK { ?p a kg:Paper }"), "json")) == {
        "head": {}, "boolean": True}


def test_csv_results_follow_the_spec(store):
    q = 'SELECT ?p ?name WHERE { ?p a kg:Paper ; rdfs:label ?name } ORDER BY ?name'
    data = sparql.serialize(sparql.run(store, q), "csv").decode()
    lines = data.split("\r\n")
    assert lines[0] == "p,name" and lines[-1] == ""
    assert lines[1].startswith("https://w3id.org/kg/paper/")  # IRIs bare, without <>
    assert len(lines) == 2 + 8


def test_construct_results_become_subject_predicate_object(store):
    q = "CONSTRUCT { ?p kg:proposes ?e } WHERE { ?p kg:proposes ?e }"
    data = sparql.serialize(sparql.run(store, q), "csv").decode()
    assert data.split("\r\n")[0] == "subject,predicate,object"
    assert data.count("\r\n") == 1 + len(select(store, "proposals"))


# ---------------------------------------------------------------- prefixes and errors


def test_standard_prefixes_may_be_omitted_and_declared_ones_win(store):
    assert bool(sparql.run(store, "ASK { ?p a kg:Paper ; dcterms:title ?t }"))
    assert not bool(sparql.run(store, "PREFIX kg: <http://example.org/other#>\nASK { ?p a kg:Paper }"))


def test_syntax_errors_give_line_and_column(store):
    with pytest.raises(QueryError) as e:
        sparql.run(store, "SELECT ?p\nWHERE { ?p a kg:Paper\n  FILTER(?p = ) }", "bad.rq")
    msg = str(e.value)
    assert re.match(r"bad\.rq:3:\d+: SPARQL syntax error: ", msg), msg
    assert "FILTER(?p = ) }" in msg and msg.rstrip().endswith("^")
    assert len(msg) < 600


def test_missing_query_file_data_and_graph_are_clear_errors(tmp_path):
    with pytest.raises(QueryError, match="no such query file"):
        sparql.read_query(str(tmp_path / "nope.rq"))
    with pytest.raises(InputError, match="no such data file"):
        sparql.load_store([tmp_path / "nope.nt"])
    with pytest.raises(GraphNotFoundError, match="kg build"):
        sparql.ensure_export(tmp_path)
    bad = tmp_path / "bad.nt"
    bad.write_text("<a> <b> .\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.nt"):
        sparql.load_store([bad])


def test_the_export_is_made_on_demand_and_belongs_to_its_graph(tmp_path):
    from kg.builder import build
    from kg.io.generations import current

    g = tmp_path / "g"
    build([str(SAMPLE)], g)
    nt = current(g) / "graph.nt"
    assert not nt.exists()
    assert sparql.ensure_export(g) == nt and nt.exists()
    before = nt.stat().st_mtime_ns
    assert sparql.ensure_export(g) == nt and nt.stat().st_mtime_ns == before  # made once: reused
    build([str(need(SEED))], g)  # a new generation: its own export, made when first asked for
    assert current(g) / "graph.nt" != nt and sparql.ensure_export(g) == current(g) / "graph.nt"
    assert b"icml2026" in (current(g) / "graph.nt").read_bytes() and b"icml2026" not in nt.read_bytes()


def test_results(store):
    rows = select(store, "results")
    by = {(r["method"], float(r["value"]), r["unit"]): r for r in rows}
    # DraftMixer: "up to 2.9x end-to-end speedup on vLLM"; ART: "reduces forgetting by 31%"
    draft = by[("DraftMixer", 2.9, "x")]
    assert draft["direction"] == "increase" and "speedup" in draft["measure"] and "vLLM" in draft["setting"]
    art = by[("Anchor Replay Tuning", 31.0, "%")]
    assert art["direction"] == "decrease" and art["measure"] == "forgetting"


def test_service_is_refused_unless_allowed(folder):
    import subprocess
    import sys

    q = "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"
    base = [sys.executable, "-m", "kg.cli", "sparql", q, "-g", str(folder)]
    res = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "--allow-service" in res.stderr and "Traceback" not in res.stderr
    res = subprocess.run([*base, "--allow-service"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr  # nothing listens there: a clean error
    assert not sparql.uses_service('SELECT ?s { ?s kg:name "SERVICE" } # SERVICE')
    assert sparql.uses_service("select * { service silent <http://x/> { ?s ?p ?o } }")
