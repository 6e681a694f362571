"""``kg stats``: counts, components, degrees, central entities and coverage of a graph, its
trends over years or venues, and pictures of both."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from kg.cli import GraphDir, consoles
from kg.defaults import GRAPH_DIR


def stats(
    ctx: typer.Context,
    graph: GraphDir = GRAPH_DIR,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    top: Annotated[int, typer.Option("--top", "-k", help="Entities shown per label.")] = 10,
    by_year: Annotated[bool, typer.Option("--by-year", help="Trends: papers and top entities per year, "
                                          "with the entities rising and falling most.")] = False,
    by_venue: Annotated[bool, typer.Option("--by-venue", help="Papers and top entities per venue series.")] = False,
    window: Annotated[int, typer.Option("--window", help="Years in each of the two windows --by-year "
                                        "compares (the last N years against the N before).")] = 3,
    min_papers: Annotated[int, typer.Option("--min-papers", help="Papers (in both windows) an entity "
                                            "needs to rank as rising or falling.")] = 10,
    plot: Annotated[Path | None, typer.Option("--plot", help="Also draw PNGs into this folder (a path "
                                              "ending in .png: one overview picture).")] = None,
) -> None:
    """Counts per label and edge type, components, degrees, central entities, coverage;
    with --by-year or --by-venue, trends instead.

    --by-year ranks entities by the change of their share of papers (papers naming them over
    all papers) between the last --window years and the --window years before, in percentage
    points, among entities named by at least --min-papers papers in those years.

    Example: [bold]kg stats -g exports --json[/]
    Example: [bold]kg stats -g exports --by-year --plot pictures/[/]
    """
    from kg.errors import UsageError
    from kg.io.format import load_graph, read_manifest
    from kg.stats import summary

    con = consoles(ctx)
    if by_year and by_venue:
        raise UsageError("--by-year and --by-venue: choose one")
    if plot is not None:
        from kg.explore.plots import require

        require()  # before any table is printed
    G = load_graph(graph)
    trend = None
    if by_year or by_venue:
        from kg.explore.trends import trends

        trend = trends(G, "year" if by_year else "venue", top=top, window=window, min_papers=min_papers)
        if as_json:
            sys.stdout.write(json.dumps(asdict(trend), indent=2, ensure_ascii=False) + "\n")
        else:
            from kg.stats_view import print_trends

            print_trends(trend, con.out)
    s = summary(G, top) if trend is None or plot is not None else None
    if trend is None:
        if as_json:
            sys.stdout.write(json.dumps(s, indent=2, ensure_ascii=False) + "\n")
        else:
            from kg.stats_view import print_summary

            print_summary(s, con.out)
    if plot is not None:
        from kg.explore.plots import overview_picture, size_title, stats_pictures
        from kg.explore.slices import graph_name

        title = size_title(graph_name(graph, read_manifest(graph)), s["coverage"]["papers"], s["nodes"], s["edges"])
        if plot.suffix.lower() == ".png":
            overview_picture(G, s, plot, title)
            con.err.print(f"plot written to {plot}")
        else:
            if trend is None or trend.by != "year":
                from kg.explore.trends import paper_periods, trends

                trend = trends(G, "year", top=top) if len(paper_periods(G)[0]) >= 2 else None
            written = stats_pictures(G, s, plot, title, trend)
            con.err.print(f"{len(written)} pictures written to {plot}/: {', '.join(p.name for p in written)}")


def register(app: typer.Typer) -> None:
    app.command()(stats)
