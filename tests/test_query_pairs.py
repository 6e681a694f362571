"""Every question kg ships in both languages gets the same answer from Neo4j (Cypher) and from
the RDF export (SPARQL), on a real build of shared lists: the ICML 2026 seed list and the first
papers of ICML 2024, two venues.

The same columns, in the same order; the same rows as a multiset. A Cypher list is the same
cell as a SPARQL ``GROUP_CONCAT`` joined with ``"; "`` (SPARQL has no lists); numbers compare
as numbers. Each pair runs with its defaults (which come from the graph, so they must give
rows on any graph) and with parameters drawn from the graph.

Needs NEO4J_URI (``make test`` starts the server); the database is wiped and loaded here.
"""

from __future__ import annotations

import os
from collections import Counter

import pyoxigraph as ox
import pytest

from kg.queries import bind_sparql, named_queries
from kg.sinks.neo4j import store as ns
from kg.sinks.rdf.sparql import ensure_export, load_store, run

from .conftest import PAPERS, SEED, need

URI = os.environ.get("NEO4J_URI")
DB = os.environ.get("NEO4J_DATABASE") or None
SEP = "; "
ICML_PAPERS = 250

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(not URI, reason="NEO4J_URI is not set: run `make test`"),
]

PAIRS = sorted({q.name for q in named_queries("sparql")} & {q.name for q in named_queries("cypher")})


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from kg.builder import build

    tmp = tmp_path_factory.mktemp("pairs")
    lines = need(PAPERS / "icml2024.jsonl").read_text(encoding="utf-8").splitlines()[:ICML_PAPERS]
    icml = tmp / "icml2024-head.jsonl"
    icml.write_text("\n".join(lines) + "\n", encoding="utf-8")
    folder = tmp / "graph"
    result = build([str(need(SEED)), str(icml)], folder)
    return folder, result.graph


@pytest.fixture(scope="module")
def engines(built):
    folder, G = built
    driver = ns.connect(URI, os.environ.get("NEO4J_USERNAME", "neo4j"), os.environ.get("NEO4J_PASSWORD"), DB)
    ns.wipe(driver, database=DB)
    ns.load(G, driver, database=DB)
    yield driver, load_store([ensure_export(folder)])
    driver.close()


def _number(v):
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _cell(v, as_list: bool):
    if as_list:
        items = v if isinstance(v, list) else ([] if v in (None, "") else str(v).split(SEP))
        return tuple(sorted(str(x) for x in items))
    return None if v is None else str(_number(v))


def _sparql_value(term):
    if isinstance(term, ox.Literal):
        kind = term.datatype.value.rsplit("#", 1)[-1]
        if kind in ("integer", "int", "long"):
            return int(term.value)
        if kind in ("decimal", "double", "float"):
            return float(term.value)
        return term.value
    return None if term is None else term.value


def answers(name: str, engines, params: dict) -> tuple[list, Counter, Counter]:
    driver, store = engines
    by = {q.language: q for q in named_queries() if q.name == name}
    cy = ns.run_cypher(driver, ns.read_cypher_file(by["cypher"].path), params, database=DB)
    sp = run(store, bind_sparql(by["sparql"].path.read_text(encoding="utf-8"), params, name), name)
    columns = [v.value for v in sp.variables]
    assert columns == cy.keys, f"{name}: columns differ: Cypher {cy.keys}, SPARQL {columns}"
    sp_rows = [{c: _sparql_value(s[c]) for c in columns} for s in sp]
    lists = {k for r in cy.rows for k, v in r.items() if isinstance(v, list)}
    def as_row(r: dict) -> tuple:
        return tuple(_cell(r[k], k in lists) for k in columns)

    return columns, Counter(map(as_row, cy.rows)), Counter(map(as_row, sp_rows))


def graph_params(G) -> dict[str, list[dict]]:
    """Parameters other than the defaults, drawn from the graph."""
    nodes = G.nodes(data=True)
    by_papers = sorted((d for _, d in nodes if d.get("papers")), key=lambda d: (-d["papers"], d["name"]))
    techniques = [d["name"] for d in by_papers if d["label"] == "Technique"][:3]
    aliased = next(d for d in by_papers if d.get("aliases") and d["label"] == "Technique")
    broader = sorted({G.nodes[u]["name"] for u, _, e in G.edges(data=True) if e["type"] == "BROADER"})[:3]
    uses = next((G.nodes[u], G.nodes[v]) for u, v, e in sorted(G.edges(data=True), key=lambda x: x[:2])
                if e["type"] == "USES" and e.get("paper") and G.nodes[u]["label"] != "Paper")
    return {
        "papers_using_technique": [{"technique": t} for t in techniques] + [{"technique": aliased["aliases"][0].upper()}],
        "shared_entities": [{"label": "Dataset"}, {"label": "Task", "limit": 5}, {"limit": 3}],
        "taxonomy": [{"name": n} for n in broader],
        "edge_evidence": [{"source": uses[0]["name"], "target": uses[1]["name"], "type": "USES"},
                          {"source": uses[0]["name"].lower(), "target": uses[1]["name"]}],
        "top_tasks": [{"limit": 3}],
        "cooccurring_techniques": [{"limit": 5}],
    }


def test_every_pair_has_both_languages():
    assert len(PAIRS) >= 14
    assert "proposals" in PAIRS and "datasets_per_task" in PAIRS and "model_families" in PAIRS


@pytest.mark.parametrize("name", PAIRS)
def test_both_languages_give_the_same_answer(name, engines, built):
    _, G = built
    for params in [{}, *graph_params(G).get(name, [])]:
        columns, cypher, sparql = answers(name, engines, params)
        assert cypher, f"{name} {params}: no rows on a graph of {G.number_of_nodes()} nodes"
        assert cypher == sparql, (
            f"{name} {params} ({columns}): only in Cypher {list((cypher - sparql).items())[:3]}; "
            f"only in SPARQL {list((sparql - cypher).items())[:3]}")
