"""Benchmarks of the sinks: RDF export, SPARQL, Neo4j load. Filled in per sink module."""

from __future__ import annotations

from pathlib import Path


def bench_export(graph_dir: Path, tmp: Path) -> dict:
    import kg.rdf  # noqa: F401

    raise ModuleNotFoundError("kg.rdf benchmark not wired yet")


def bench_sparql(graph_dir: Path, tmp: Path) -> dict:
    import kg.sparql  # noqa: F401

    raise ModuleNotFoundError("kg.sparql benchmark not wired yet")


def bench_neo4j(graph_dir: Path) -> dict:
    import kg.neo4j_store  # noqa: F401

    raise ModuleNotFoundError("kg.neo4j_store benchmark not wired yet")
