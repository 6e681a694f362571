"""Benchmarks of the sinks: RDF export, SPARQL, Neo4j load, each against a baseline in the same run."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench_export(graph_dir: Path, tmp: Path) -> dict:
    """kg's Turtle and N-Triples writers vs rdflib's Graph.serialize and vs plain string writing
    of the same N-Triples lines."""
    import rdflib

    from kg.io.format import load_graph, read_manifest
    from kg.sinks import export

    G = load_graph(graph_dir)
    manifest = read_manifest(graph_dir)
    out: dict = {}
    for fmt in ("nt", "ttl"):
        times = []
        for _ in range(2):
            res = export(G, tmp / f"bench.{fmt}", fmt, manifest=manifest)
            times.append(res.seconds)
        out[f"kg_{fmt}_s"] = round(min(times), 3)
        out["triples"] = res.triples
    lines = (tmp / "bench.nt").read_text(encoding="utf-8").splitlines()
    parts = [line[:-2].split(" ", 2) for line in lines if line.endswith(" .")]
    t = time.perf_counter()
    with open(tmp / "plain.nt", "w", encoding="utf-8") as fh:
        fh.write("".join(f"{s} {p} {o} .\n" for s, p, o in parts))
    out["plain_string_nt_s"] = round(time.perf_counter() - t, 3)
    g = rdflib.Graph()
    t = time.perf_counter()
    g.parse(tmp / "bench.nt", format="nt")
    out["rdflib_parse_nt_s"] = round(time.perf_counter() - t, 3)
    for fmt, name in (("nt", "nt"), ("ttl", "turtle")):
        t = time.perf_counter()
        g.serialize(destination=str(tmp / f"rdflib.{fmt}"), format=name)
        out[f"rdflib_serialize_{fmt}_s"] = round(time.perf_counter() - t, 3)
    # extra information, not a target: rdflib from the file to N-Triples (Graph built, then serialised)
    out["rdflib_parse_and_serialize_nt_s"] = round(out["rdflib_parse_nt_s"] + out["rdflib_serialize_nt_s"], 3)
    for fmt in ("nt", "ttl"):
        out[f"{fmt}_triples_per_s"] = round(out["triples"] / out[f"kg_{fmt}_s"])
        out[f"ratio_{fmt}_vs_rdflib_serialize"] = round(out[f"rdflib_serialize_{fmt}_s"] / out[f"kg_{fmt}_s"], 2)
    out["ratio_nt_vs_plain_string"] = round(out["plain_string_nt_s"] / out["kg_nt_s"], 3)
    return out


_RDFLIB_RUNNER = r"""
import json, signal, sys, time, statistics, rdflib
from kg.sinks.rdf import sparql
g = rdflib.Graph(); t = time.perf_counter(); g.parse(sys.argv[1], format="nt")
out = {"load_s": round(time.perf_counter() - t, 3), "queries": {}}
limit = int(sys.argv[2])
def alarm(*_): raise TimeoutError
signal.signal(signal.SIGALRM, alarm)
for path in sys.argv[3:]:
    text, _ = sparql.read_query(path)
    name = path.rsplit("/", 1)[-1][:-3]
    pre = "".join(f"PREFIX {k}: <{v}>\n" for k, v in sparql.PREFIXES.items() if f"PREFIX {k}:" not in text)
    try:
        signal.alarm(limit); t = time.perf_counter(); list(g.query(pre + text)); signal.alarm(0)
        out["queries"][name] = round((time.perf_counter() - t) * 1000, 2)  # once: some take minutes
    except TimeoutError:
        out["queries"][name] = f">{limit}000"
    except Exception as exc:
        signal.alarm(0); out["queries"][name] = f"error: {type(exc).__name__}"
print(json.dumps(out))
"""


def bench_sparql(graph_dir: Path, tmp: Path, rdflib_limit_s: int = 20) -> dict:
    """Median latency of every canned query on pyoxigraph (shipped) and on rdflib."""
    from kg.sinks.rdf import sparql

    nt = sparql.ensure_export(graph_dir)
    t = time.perf_counter()
    store = sparql.load_store([nt])
    out: dict = {"pyoxigraph_load_s": round(time.perf_counter() - t, 3), "pyoxigraph_ms": {}}
    queries = sorted((ROOT / "queries").glob("*.rq"))
    for path in queries:
        text, name = sparql.read_query(str(path))
        times = []
        for _ in range(5):
            t = time.perf_counter()
            list(sparql.run(store, text, name))
            times.append(time.perf_counter() - t)
        out["pyoxigraph_ms"][path.stem] = round(statistics.median(times) * 1000, 2)
    proc = subprocess.run([sys.executable, "-c", _RDFLIB_RUNNER, str(nt), str(rdflib_limit_s),
                           *map(str, queries)], capture_output=True, text=True, timeout=3600)
    rd = json.loads(proc.stdout) if proc.returncode == 0 else {}
    if proc.returncode != 0:
        out["rdflib_error"] = proc.stderr[-500:]
    out["rdflib_load_s"] = rd.get("load_s")
    out["rdflib_ms"] = rd.get("queries", {})
    ratios = {}
    for q, ms in out["pyoxigraph_ms"].items():
        r = out["rdflib_ms"].get(q)
        ratios[q] = round(r / ms, 1) if isinstance(r, (int, float)) and ms else (f">{r}/{ms}" if r else None)
    out["ratio_rdflib_vs_pyoxigraph"] = ratios
    out["max_pyoxigraph_ms"] = max(out["pyoxigraph_ms"].values())
    return out


def bench_neo4j(graph_dir: Path, subset_edges: int = 5000) -> dict:
    """Batched UNWIND MERGE vs one MERGE per row, same graph subset, same server."""
    import networkx as nx

    from kg.io.format import load_graph
    from kg.sinks.neo4j import store as ns

    if not os.environ.get("NEO4J_URI"):
        return {"skipped": "NEO4J_URI is not set (start one: bash scripts/neo4j start; eval $(bash scripts/neo4j env))"}
    G = load_graph(graph_dir)
    d = ns.connect(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USERNAME", "neo4j"),
                   os.environ.get("NEO4J_PASSWORD"))
    out: dict = {"nodes": G.number_of_nodes(), "relationships": G.number_of_edges()}
    try:
        ns.wipe(d)
        full = ns.load(G, d)
        out["batch_full"] = {"node_s": round(full.node_seconds, 2), "rel_s": round(full.relationship_seconds, 2),
                             "nodes_per_s": round(out["nodes"] / full.node_seconds),
                             "relationships_per_s": round(out["relationships"] / full.relationship_seconds)}
        t = time.perf_counter()
        again = ns.load(G, d)
        out["second_load_s"] = round(time.perf_counter() - t, 2)
        out["second_load_created"] = again.nodes_created + again.relationships_created
        edges = sorted(G.edges(keys=True, data=True), key=lambda e: (e[0], e[3]["type"], e[1], e[2]))[:subset_edges]
        H = nx.MultiDiGraph()
        for u, v, k, dd in edges:
            H.add_node(u, **G.nodes[u])
            H.add_node(v, **G.nodes[v])
            H.add_edge(u, v, key=k, **dd)
        sub: dict = {"nodes": H.number_of_nodes(), "relationships": H.number_of_edges()}
        for mode in ("batch", "row"):
            ns.wipe(d)
            r = ns.load(H, d, mode=mode)
            sub[mode] = {"node_s": round(r.node_seconds, 3), "rel_s": round(r.relationship_seconds, 3)}
        sub["ratio_row_vs_batch"] = round((sub["row"]["node_s"] + sub["row"]["rel_s"])
                                          / (sub["batch"]["node_s"] + sub["batch"]["rel_s"]), 1)
        out["subset"] = sub
        ns.wipe(d)
    finally:
        d.close()
    return out
