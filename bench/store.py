"""Query latency with the persistent SPARQL store vs reloading the export into memory per call.

``python -m bench.store GRAPH_DIR`` (a folder built by ``kg build``; ICLR 2024 in RESULTS.md)
prints JSON. Both ways run in the same run on the same folder: *before* is what every query
cost until the store existed (the N-Triples export bulk-loaded into an in-memory store, as
``kg sparql --data graph.nt`` still does); *after* is the on-disk store, first call (the store
built from the export) and later calls. Through the CLI (a subprocess, as a user sees it; a
bare ``kg --version`` gives the start-up cost) and through the library (one call = open and
query, as a new process would; and a ``kg.open(...)`` kept open between queries).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERIES = {"ask": "ASK { ?s ?p ?o }", "top_tasks": "top_tasks", "proposals": "proposals",
           "papers_using_technique": "papers_using_technique"}


def _cli(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kg.cli", *args], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _text(query: str) -> str:
    from kg.queries import bind_sparql, find_query

    path = find_query(query, "sparql")
    return bind_sparql(path.read_text(encoding="utf-8"), {}, path.stem) if path else query


def bench_store(graph_dir: Path, repeat: int = 3) -> dict:
    from kg.io.generations import current
    from kg.sinks.rdf import sparql
    from kg.sinks.rdf.store import STORE_DIR, open_store

    graph_dir = Path(graph_dir)
    nt = sparql.ensure_export(graph_dir)
    store_dir = current(graph_dir) / STORE_DIR
    out: dict = {"triples": None, "cli_startup_ms": _ms(min(_cli(["--version"]) for _ in range(repeat))),
                 "cli_ms": {}, "library_ms": {}}
    for name, query in QUERIES.items():
        before = [_cli(["sparql", query, "--data", str(nt), "-f", "json"]) for _ in range(repeat)]
        shutil.rmtree(store_dir, ignore_errors=True)
        first = _cli(["sparql", query, "-g", str(graph_dir), "-f", "json"])
        later = [_cli(["sparql", query, "-g", str(graph_dir), "-f", "json"]) for _ in range(repeat)]
        b, a = statistics.median(before), statistics.median(later)
        out["cli_ms"][name] = {"before": _ms(b), "after_first": _ms(first), "after_later": _ms(a),
                               "ratio_before_vs_after_later": round(b / a, 1),
                               "ratio_before_vs_after_first": round(b / first, 2)}
    import kg

    for name, query in QUERIES.items():
        text = _text(query)

        def in_memory(text=text) -> float:
            t = time.perf_counter()
            store = sparql.load_store([nt])
            sparql.serialize(sparql.run(store, text), "json")
            return time.perf_counter() - t

        def on_disk(text=text) -> float:
            t = time.perf_counter()
            sparql.serialize(sparql.run(open_store(graph_dir).store, text), "json")
            return time.perf_counter() - t

        before = [in_memory() for _ in range(repeat)]
        shutil.rmtree(store_dir, ignore_errors=True)
        first = on_disk()
        later = [on_disk() for _ in range(repeat)]
        g = kg.open(graph_dir)
        g.sparql(text)
        kept = []
        for _ in range(repeat):
            t = time.perf_counter()
            g.sparql(text)
            kept.append(time.perf_counter() - t)
        b, a = statistics.median(before), statistics.median(later)
        out["library_ms"][name] = {"before": _ms(b), "after_first": _ms(first), "after_later": _ms(a),
                                   "graph_kept_open": _ms(statistics.median(kept)),
                                   "ratio_before_vs_after_later": round(b / a, 1)}
    out["triples"] = len(sparql.load_store([nt]))
    out["store_mb"] = round(sum(p.stat().st_size for p in store_dir.iterdir()) / 2**20, 1)
    out["export_mb"] = round(nt.stat().st_size / 2**20, 1)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m bench.store GRAPH_DIR  (a folder written by kg build)")
    print(json.dumps(bench_store(Path(sys.argv[1])), indent=2))
