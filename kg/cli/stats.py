"""``kg stats``: counts, components, degrees, central entities and coverage of a graph."""

from __future__ import annotations

import json
import sys
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
    plot: Annotated[Path | None, typer.Option("--plot", help="Also draw the statistics to this PNG file.")] = None,
) -> None:
    """Counts per label and edge type, components, degrees, central entities, coverage.

    Example: [bold]kg stats -g exports --json[/]
    """
    from kg.graph import load_graph
    from kg.stats import summary

    con = consoles(ctx)
    G = load_graph(graph)
    s = summary(G, top)
    if as_json:
        sys.stdout.write(json.dumps(s, indent=2, ensure_ascii=False) + "\n")
    else:
        from kg.stats_view import print_summary

        print_summary(s, con.out)
    if plot is not None:
        from kg.stats_view import plot_summary

        plot_summary(G, s, plot)
        con.err.print(f"plot written to {plot}")


def register(app: typer.Typer) -> None:
    app.command()(stats)
