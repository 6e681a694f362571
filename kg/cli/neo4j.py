"""``kg load`` and ``kg cypher``: the Neo4j commands, registered by :mod:`kg.cli`.

Connection options default to the standard ``NEO4J_URI``, ``NEO4J_USERNAME``,
``NEO4J_PASSWORD`` and ``NEO4J_DATABASE`` variables (``eval "$(bash scripts/neo4j env)"``
sets the first three for the local server). The password is never printed.
"""

from __future__ import annotations

import csv
import json
import sys
from typing import Annotated

import typer

from kg.cli import GraphDir, MinConfidence, consoles, parse_param, progress_bar
from kg.defaults import GRAPH_DIR, MIN_CONFIDENCE, NEO4J_BATCH, NEO4J_URI, NEO4J_USER
from kg.errors import QueryError

FORMATS = ("table", "json", "csv")

Uri = Annotated[str, typer.Option(
    "--uri", envvar="NEO4J_URI", show_envvar=True,
    help="Bolt URI of the server.")]
User = Annotated[str, typer.Option(
    "--user", envvar="NEO4J_USERNAME", show_envvar=True, help="User name.")]
Password = Annotated[str | None, typer.Option(
    "--password", envvar="NEO4J_PASSWORD", show_envvar=True, show_default=False,
    help="Password; prefer the environment variable (command lines are visible to other users).")]
Database = Annotated[str | None, typer.Option(
    "--database", envvar="NEO4J_DATABASE", show_envvar=True, show_default=False,
    help="Database name; the server's default database when unset.")]


def _quiet_driver_logs() -> None:
    """The driver logs notifications and connection failures; kg reports them itself."""
    import logging

    logging.getLogger("neo4j").setLevel(logging.CRITICAL)


def load(
    ctx: typer.Context,
    graph: GraphDir = GRAPH_DIR,
    uri: Uri = NEO4J_URI,
    user: User = NEO4J_USER,
    password: Password = None,
    database: Database = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Rows per UNWIND transaction.")] = NEO4J_BATCH,
    mode: Annotated[str, typer.Option("--mode", help="batch (UNWIND … MERGE) or row (one MERGE per "
                                                     "row: a slow baseline for benchmarks).")] = "batch",
    wipe: Annotated[bool, typer.Option("--wipe", help="Delete the kg nodes already in the database "
                                                      "first (other nodes are kept).")] = False,
    min_confidence: MinConfidence = MIN_CONFIDENCE,
) -> None:
    """Load the graph into Neo4j: constraints and indexes, then MERGE nodes and relationships.

    Loading again changes nothing; loading a bigger graph adds only what is new.

    Example: [bold]NEO4J_URI=bolt://127.0.0.1:7687 NEO4J_PASSWORD=… kg load -g exports[/]
    """
    err = consoles(ctx).err
    from kg.io.format import load_graph
    from kg.sinks.neo4j.store import MODES, connect, safe_uri
    from kg.sinks.neo4j.store import load as run_load

    if mode not in MODES:
        raise typer.BadParameter(f"use one of {', '.join(MODES)}", param_hint="--mode")
    _quiet_driver_logs()
    G = load_graph(graph, min_confidence=min_confidence)
    driver = connect(uri, user, password, database)
    with driver, progress_bar(err) as prog:
        def progress(desc: str, total: int | None):
            task = prog.add_task(desc, total=total)
            return lambda n: prog.advance(task, n)

        res = run_load(G, driver, database=database, batch_size=batch_size, mode=mode,
                       wipe_first=wipe, progress=progress, uri=uri)
    if res.others:
        err.print(f"warning: {safe_uri(uri)} already held {res.others:,} papers that are not in {graph}/ (another "
                  "graph's, or papers this one no longer has); they stay beside it, and queries count them: "
                  "kg load --wipe replaces them with this graph", markup=False, soft_wrap=True)
    rate = (res.nodes + res.relationships) / res.seconds if res.seconds else 0.0
    err.print(f"loaded {res.nodes} nodes ({res.nodes_created} new) and {res.relationships} "
              f"relationships ({res.relationships_created} new) into {safe_uri(uri)} "
              f"in {res.seconds:.1f} s ({rate:,.0f} rows/s)", markup=False, soft_wrap=True)


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def write_result(result, fmt: str, stream) -> None:
    """Print rows as a rich table, a JSON array of objects, or CSV with a header."""
    if fmt == "json":
        stream.write(json.dumps(result.rows, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "csv":
        w = csv.writer(stream, lineterminator="\n")
        w.writerow(result.keys)
        for row in result.rows:
            w.writerow([_cell(row[k]) for k in result.keys])
    else:
        from rich.console import Console
        from rich.table import Table

        t = Table(*result.keys, expand=False)
        for row in result.rows:
            t.add_row(*(_cell(row[k]) for k in result.keys))
        Console(file=stream, highlight=False, soft_wrap=False).print(t)


def cypher(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="A Cypher statement, a .cypher file, or the name of a query kg ships (kg queries).")],
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="name=value (repeatable); JSON values (numbers, lists) are parsed.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|json|csv", help="table, json or csv.")] = "table",
    write: Annotated[bool, typer.Option("--write", help="Allow the statement to write.")] = False,
    uri: Uri = NEO4J_URI,
    user: User = NEO4J_USER,
    password: Password = None,
    database: Database = None,
) -> None:
    """Run a Cypher query against Neo4j; read-only unless --write.

    A file's [bold]:param name => value[/] lines (Browser syntax) give defaults for its parameters.

    Example: [bold]kg cypher papers_using_technique -p technique="KV caching"[/]
    """
    err = consoles(ctx).err
    from kg.explore.params import ENTITY_PARAMS, resolve_names
    from kg.queries import check_params, describe_default, find_query, query_params
    from kg.schema import QUERIES_DIR
    from kg.sinks.neo4j.store import CypherScript, connect, read_cypher_file, run_cypher

    if fmt not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format")
    params = dict(parse_param(p) for p in param or [])
    path = find_query(query, "cypher")
    if path is None:
        from kg.queries import unknown_name

        unknown_name(query, "cypher")
    if path is not None:
        script = read_cypher_file(path)
    else:
        script = CypherScript(query.strip().removesuffix(";"), {})
        if not script.query:
            raise QueryError("the query is empty")
    check_params(params, query_params(script.query, "cypher"), path.stem if path else "the query")
    _quiet_driver_logs()
    driver = connect(uri, user, password, database)
    with driver:
        shipped = path.stem if path is not None and path.parent == QUERIES_DIR else None
        if shipped and any(isinstance(params.get(p), str) for p in ENTITY_PARAMS.get(shipped, ())):
            found = resolve_names(_names(driver, database, uri), shipped, params)  # as kg show reads a name
            for line in found.notes:
                err.print(line, markup=False, soft_wrap=True)
            for line in found.warnings:
                err.print(f"warning: {line}", markup=False, soft_wrap=True)
            params = found.params
        result = run_cypher(driver, script, params, write=write, database=database, uri=uri)
    for name, value in result.defaults:
        if describe_default(script.param_examples[name]) == "from the graph":
            err.print(f"{name}: {value!r}, taken from the graph (-p {name}=... for another)", markup=False,
                      soft_wrap=True)
    write_result(result, fmt, sys.stdout)
    for w in result.warnings:
        err.print(f"warning: {w}", markup=False, soft_wrap=True)
    err.print(f"{len(result.rows)} row{'s' if len(result.rows) != 1 else ''}", markup=False)


#: every entity's and paper's names in Neo4j, to read a query's name parameter as kg show reads it
NAMES_QUERY = ("MATCH (n) WHERE n:Entity OR n:Paper RETURN n.id AS id, "
               "[x IN labels(n) WHERE x <> 'Entity'][0] AS label, n.name AS name, n.aliases AS aliases, "
               "n.title AS title, n.papers AS papers")


def _names(driver, database: str | None, uri: str):
    """A graph of the database's entities and papers, with their names, aliases and titles
    only: what :func:`kg.explore.lookup.find` reads."""
    import networkx as nx

    from kg.sinks.neo4j.store import run_cypher

    G = nx.MultiDiGraph()
    for r in run_cypher(driver, NAMES_QUERY, database=database, uri=uri).rows:
        if r.get("id"):
            G.add_node(r["id"], **{k: v for k, v in r.items() if k != "id" and v is not None})
    return G


def register(app: typer.Typer) -> None:
    app.command("load")(load)
    app.command("cypher")(cypher)
