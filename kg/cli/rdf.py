"""``kg export``, ``kg validate`` and ``kg sparql``: the RDF side of the command line.

:mod:`kg.cli` calls :func:`register` at import time. Library errors (``kg.errors``) propagate
to ``kg.cli.main``, which prints them without a traceback and exits with their code.

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> sorted(c.name for c in app.registered_commands)
['export', 'sparql', 'validate']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.cli import MinConfidence, consoles, parse_param
from kg.defaults import BASE_IRI, GRAPH_DIR, HTML_DEPTH, HTML_MAX_NODES, MAP_NODES, MIN_CONFIDENCE
from kg.errors import QueryError

GraphOpt = Annotated[Path, typer.Option("--graph", "-g", help="Graph folder written by kg build.")]




def export(
    ctx: typer.Context,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="ttl|nt|jsonld|graphml|neo4j-csv|html", help="ttl (alias turtle), nt (ntriples), jsonld (json-ld), graphml, neo4j-csv (csv) or html (an interactive page).")] = "ttl",
    graph: GraphOpt = GRAPH_DIR,
    out_path: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Output file (a folder for neo4j-csv; - for standard output); default: graph.<ext> in the graph folder.")] = None,
    base: Annotated[str, typer.Option("--base", help="Base IRI of node IRIs (ends in / or #).")] = BASE_IRI,
    around: Annotated[str | None, typer.Option(
        "--around", metavar="NAME", help="html: draw only this node's neighbourhood (an id, a name or an alias).")] = None,
    depth: Annotated[int, typer.Option("--depth", metavar="N", min=0, help="html: steps from --around.")] = HTML_DEPTH,
    max_nodes: Annotated[int | None, typer.Option(
        "--max-nodes", metavar="N", min=0, help=f"html: the most nodes drawn, the best connected first (0: all; default {HTML_MAX_NODES:,}, "
        f"or {MAP_NODES} entities on the map).")] = None,
    view: Annotated[str | None, typer.Option(
        "--view", metavar="map|graph", help="html: map (entities in areas; the default without --around) or graph (the nodes, papers included).")] = None,
    min_confidence: MinConfidence = MIN_CONFIDENCE,
) -> None:
    """Export the graph as RDF (Turtle, N-Triples, JSON-LD), GraphML, CSV for neo4j-admin, or
    one self-contained interactive HTML page.

    RDF exports carry the provenance of every extracted edge (PROV-O) and a VoID description.
    The HTML page is a map of the field (as kg map draws it), or with --around a node's
    neighbourhood; it draws at most --max-nodes nodes and says so when it leaves some out.

    Example: [bold]kg export --format ttl -g exports[/]  (writes exports/graph.ttl)
    Example: [bold]kg export --format html --around "speculative decoding" --depth 2 -g exports[/]
    """
    from rich.markup import escape

    from kg.errors import ExportError, NotFound, UsageError
    from kg.sinks import FORMATS, export_graph, resolve_format
    from kg.sinks.rdf.terms import check_base

    err = consoles(ctx).err
    try:
        fmt = resolve_format(fmt)
    except UsageError:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format") from None
    try:
        check_base(base)
    except ExportError as exc:
        raise typer.BadParameter(str(exc), param_hint="--base") from None
    options: dict = {}
    if fmt == "html":
        if view is not None and view not in ("map", "graph"):
            raise typer.BadParameter("use map or graph", param_hint="--view")
        if view == "map" and around is not None:
            raise typer.BadParameter("draws a neighbourhood in the graph view; leave --view out", param_hint="--around")
        options = {"around": around, "depth": depth, "max_nodes": max_nodes, "view": view}
    elif around is not None or view is not None or max_nodes is not None:
        hint = "--around" if around is not None else "--view" if view is not None else "--max-nodes"
        raise typer.BadParameter("applies to the html export only; add --format html", param_hint=hint)
    to_stdout = out_path is not None and str(out_path) == "-"
    if to_stdout and fmt == "neo4j-csv":
        raise typer.BadParameter("neo4j-csv writes a folder of files: give -o FOLDER", param_hint="--out")
    try:
        if to_stdout:  # written whole to a private file first, so a failed export prints nothing
            import shutil
            import sys
            import tempfile

            from kg.sinks import default_path

            with tempfile.TemporaryDirectory(prefix="kg-export-") as tmp:
                result = export_graph(graph, fmt, default_path(Path(tmp), fmt), base, min_confidence, **options)
                with open(result.path, "rb") as fh:
                    shutil.copyfileobj(fh, sys.stdout.buffer)
                sys.stdout.buffer.flush()
        else:
            result = export_graph(graph, fmt, out_path, base, min_confidence, **options)
    except (UsageError, NotFound) as exc:
        if around is None:
            raise
        raise typer.BadParameter(str(exc), param_hint="--around") from None
    for reason, n in result.skipped.items():
        err.print(f"[yellow]skipped[/] {n} {escape(reason)}", markup=True, emoji=False)
    if result.skipped:
        err.print("  (the export keeps to kg's schema, kg.owl.ttl in the data folder kg info names; these come from extraction)")
    size = f", {result.triples:,} triples" if result.triples is not None else ""
    err.print(f"wrote {'standard output' if to_stdout else result.path}{size} in {result.seconds:.2f}s")
    note = getattr(result.detail, "note", None)
    if isinstance(note, str):
        err.print(note, markup=False)
    command = getattr(result.detail, "command", None)
    if callable(command):
        err.print(f"import it into a stopped Neo4j with:\n  {command()}", markup=False)


def validate(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="RDF file to check (.ttl, .nt, .jsonld, .rdf).")],
    examples: Annotated[int, typer.Option("--limit", "--examples", "-n", help="Examples shown per group.")] = 3,
) -> None:
    """Check an RDF file against kg's SHACL shapes (pySHACL; kg.shacl.ttl in the data folder kg info names).

    Violations are grouped by shape and message, with counts and examples; exit code 1 when
    there is any.

    Example: [bold]kg validate exports/graph.ttl[/]
    """
    from kg.errors import ValidationFailed
    from kg.sinks.rdf.validate import summarize
    from kg.sinks.rdf.validate import validate as run_validate

    err, out = consoles(ctx).err, consoles(ctx).out
    size = file.stat().st_size if file.is_file() else 0
    err.print(f"checking {file} ({size / 1e6:.1f} MB) against the SHACL shapes with pySHACL…", markup=False)
    with err.status("validating…", spinner="dots"):  # shown on a terminal only
        report = run_validate(file, examples=examples)
    if report.groups:
        out.print(summarize(report), markup=False, emoji=False, highlight=False)
    if not report.conforms:
        raise ValidationFailed(f"{file}: {report.violations} SHACL violation(s) in "
                               f"{sum(g.severity == 'Violation' for g in report.groups)} group(s), "
                               f"listed above; fix the data, or re-export it with kg export")
    err.print(f"{file}: conforms to the shapes ({report.triples:,} triples, {report.seconds:.1f}s)")


def sparql(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="A SPARQL query, a .rq file, or the name of a query kg ships (kg queries).")],
    graph: GraphOpt = GRAPH_DIR,
    data: Annotated[list[Path] | None, typer.Option(
        "--data", "-d", help="RDF file(s) to query instead of the graph folder's export.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|csv|json", help="table, csv or json (SPARQL 1.1 results).")] = "table",
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="name=value (repeatable): the value of the query's VALUES ?name block (a query written on the spot may bind any of its variables).")] = None,
    allow_service: Annotated[bool, typer.Option("--allow-service", help="Let SERVICE clauses query remote endpoints over the network.")] = False,
) -> None:
    """Run a SPARQL 1.1 query over the graph with pyoxigraph.

    The graph is queried from a persistent store in its folder, built on the first query
    after each build (--data files are loaded in memory instead).

    Standard prefixes (kg:, rdf:, rdfs:, skos:, schema:, dcterms:, prov:, xsd:, owl:) may be
    left undeclared.

    Example: [bold]kg sparql papers_using_technique -p technique="LoRA" -g exports[/]
    """
    from rich.markup import escape

    from kg.sinks.rdf.sparql import (
        FORMATS,
        data_prefixes,
        load_store,
        rows,
        run,
        serialize,
        sparql_defaults,
    )

    err, out = consoles(ctx).err, consoles(ctx).out
    if fmt not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format")
    from kg.explore.params import ENTITY_PARAMS, resolve_names
    from kg.queries import sparql_query

    params = dict(parse_param(p) for p in param or [])
    text, name = sparql_query(query, params)
    if not data and any(isinstance(params.get(p), str) for p in ENTITY_PARAMS.get(name, ())):
        from kg.io.format import load_graph

        found = resolve_names(load_graph(graph), name, params)  # as kg show reads a name
        for line in found.notes:
            err.print(line, markup=False, soft_wrap=True)
        for line in found.warnings:
            err.print(f"[yellow]warning:[/] {escape(line)}", soft_wrap=True)
        if found.params != params:
            params = found.params
            text, name = sparql_query(query, params)
    if data:
        store = load_store(data)
    else:
        from kg.sinks.rdf.store import open_store

        opened = open_store(graph, say=lambda line: err.print(line, markup=False, soft_wrap=True))
        store = opened.store
        if opened.note:
            err.print(f"note: {opened.note}", markup=False)
    for p, value in sparql_defaults(store, text, params).items():
        err.print(f"{p}: {value!r}, taken from the graph (-p {p}=... for another)", markup=False, soft_wrap=True)
    result = run(store, text, name, allow_service)
    try:  # results are lazy: a remote endpoint fails while they are read
        if fmt != "table":
            payload = serialize(result, fmt)
        else:
            names, table_rows = rows(result, data_prefixes(store))
    except (OSError, ValueError, RuntimeError) as exc:
        raise QueryError(f"{name}: query failed: {str(exc)[:300]}") from None
    if fmt != "table":
        typer.echo(payload + (b"\n" if fmt == "json" else b""), nl=False)
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(*names, show_lines=False, expand=False)
    for r in table_rows:
        table.add_row(*(Text(c) for c in r))  # cells are data, not rich markup
    out.print(table, markup=False)
    err.print(f"{len(table_rows)} row{'s' if len(table_rows) != 1 else ''}")


def register(app: typer.Typer) -> None:
    """Add ``export``, ``validate`` and ``sparql`` to the ``kg`` app."""
    app.command("export")(export)
    app.command("validate")(validate)
    app.command("sparql")(sparql)
