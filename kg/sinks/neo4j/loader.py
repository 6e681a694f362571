"""The batched, idempotent load of a graph into Neo4j: constraints, nodes per label, then
relationships, each an ``UNWIND`` of parameter rows in a managed write transaction."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.defaults import NEO4J_BATCH
from kg.errors import GraphDamaged
from kg.sinks.neo4j.connection import DEFAULT_URI, translate
from kg.sinks.neo4j.cypher import (
    batches,
    count_nodes_query,
    count_relationships_query,
    foreign_papers_query,
    merge_node_row_query,
    merge_nodes_query,
    merge_relationship_row_query,
    merge_relationships_query,
    node_rows,
    relationship_rows,
    schema_statements,
    wipe_query,
)

if TYPE_CHECKING:
    import networkx as nx
    from neo4j import Driver

DEFAULT_BATCH = NEO4J_BATCH  # kg.defaults
MODES = ("batch", "row")

Progress = Callable[[str, int | None], Callable[[int], None] | None]


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What a load did: rows sent, what the server created, and the time each phase took."""

    nodes: int
    relationships: int
    nodes_created: int
    relationships_created: int
    node_seconds: float
    relationship_seconds: float
    mode: str = "batch"
    others: int = 0  # papers of another graph the database held, kept beside this one (not wiped)

    @property
    def seconds(self) -> float:
        return self.node_seconds + self.relationship_seconds


def ensure_schema(driver: Driver, database: str | None = None) -> list[str]:
    """Create the constraints and indexes (idempotent) and wait until they are online."""
    stmts = schema_statements()
    with driver.session(database=database) as s:
        for q in stmts:
            s.run(q).consume()
        s.run("CALL db.awaitIndexes(300)").consume()
    return stmts


def wipe(driver: Driver, database: str | None = None) -> int:
    """Delete every kg node and its relationships, in batches; returns how many nodes went."""
    total = 0
    with driver.session(database=database) as s:
        while n := s.execute_write(lambda tx: tx.run(wipe_query()).single()["n"]):
            total += n
    return total


def _write(tx, query: str, params: dict, sent: int) -> tuple[int, int, int]:
    """(rows written, nodes created, relationships created) of one statement."""
    res = tx.run(query, params)
    records = list(res)
    c = res.consume().counters
    done = records[0]["n"] if records else sent  # relationship queries count what they matched
    return done, c.nodes_created, c.relationships_created


def load(G: nx.MultiDiGraph, driver: Driver, *, database: str | None = None,
         batch_size: int = DEFAULT_BATCH, mode: str = "batch", wipe_first: bool = False,
         progress: Progress | None = None, uri: str = DEFAULT_URI) -> LoadResult:
    """MERGE the graph into Neo4j: constraints, then nodes per label, then relationships.

    ``mode="batch"`` sends ``batch_size`` rows per ``UNWIND`` statement, one managed write
    transaction per batch (retried on transient errors). ``mode="row"`` runs one MERGE per row
    in its own transaction: the naive baseline for benchmarks. Loading the same graph again
    changes nothing; loading a bigger graph over a smaller one adds only the difference. Papers
    of another graph already in the database stay (``LoadResult.others`` counts them) unless
    ``wipe_first``.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    nrows, rrows = node_rows(G), relationship_rows(G)  # validates every label and type first
    others = 0
    try:
        ensure_schema(driver, database)
        if wipe_first:
            wipe(driver, database)
        else:
            with driver.session(database=database) as s:
                found = list(s.run(foreign_papers_query(), {"ids": [r["id"] for r in nrows.get("Paper", ())]}))
            others = int(found[0]["n"]) if found else 0
        n_stats, t_nodes = _run_groups(driver, database, mode, batch_size, progress, "loading nodes",
                                       [(merge_nodes_query(lab), merge_node_row_query(lab), rows)
                                        for lab, rows in sorted(nrows.items())])
        r_stats, t_rels = _run_groups(driver, database, mode, batch_size, progress, "loading relationships",
                                      [(merge_relationships_query(*g), merge_relationship_row_query(*g), rows)
                                       for g, rows in sorted(rrows.items())])
    except Exception as exc:
        err = translate(exc, uri, database=database)
        if err is exc:
            raise
        raise err from None
    sent = sum(map(len, rrows.values()))
    if r_stats[0] != sent:
        raise GraphDamaged(f"{sent - r_stats[0]} of {sent} relationships were not loaded because an end "
                          "node is missing in Neo4j; reload with --wipe")
    return LoadResult(G.number_of_nodes(), sent, n_stats[1], r_stats[2], t_nodes, t_rels, mode, others)


def _run_groups(driver, database, mode, batch_size, progress, desc, groups):
    total = sum(len(rows) for _, _, rows in groups)
    tick = progress(desc, total) if progress else None
    stats = [0, 0, 0]
    t0 = time.perf_counter()
    with driver.session(database=database) as s:
        for batch_q, row_q, rows in groups:
            if mode == "row":
                for row in rows:
                    got = s.execute_write(_write, row_q, row, 1)
                    stats = [a + b for a, b in zip(stats, got, strict=True)]
                    if tick:
                        tick(1)
                continue
            for chunk in batches(rows, batch_size):
                got = s.execute_write(_write, batch_q, {"rows": chunk}, len(chunk))
                stats = [a + b for a, b in zip(stats, got, strict=True)]
                if tick:
                    tick(len(chunk))
    return stats, time.perf_counter() - t0


def count_graph(driver: Driver, database: str | None = None) -> tuple[int, int]:
    """(kg nodes, kg relationships) currently in the database."""
    with driver.session(database=database) as s:
        n = s.execute_read(lambda tx: tx.run(count_nodes_query()).single()["n"])
        r = s.execute_read(lambda tx: tx.run(count_relationships_query()).single()["n"])
    return n, r
