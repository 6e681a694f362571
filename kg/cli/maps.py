"""``kg map``: a map of the field as one self-contained HTML page (the ``map`` view of the
HTML sink, :mod:`kg.sinks.html`; ``kg export --format html`` without ``--around`` writes the
same page).

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> [c.name for c in app.registered_commands]
['map']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.cli import GraphDir, consoles
from kg.defaults import GRAPH_DIR, MAP_NODES

MAP_FILE = "map.html"


def map_(
    ctx: typer.Context,
    graph: GraphDir = GRAPH_DIR,
    out_path: Annotated[Path | None, typer.Option("--out", "-o", help=f"The page to write; default: {MAP_FILE} in the graph folder.")] = None,
    select: Annotated[str | None, typer.Option(
        "--select", metavar="SLICE", help="Only these papers: year=2024, year=2021-2023, venue=ICML 2024 (conditions joined by ;).")] = None,
    diff: Annotated[str | None, typer.Option(
        "--diff", metavar="OLD", help="Mark what is new or grown since OLD: another graph folder, or a slice of this graph (year=2023).")] = None,
    max_nodes: Annotated[int, typer.Option("--max-nodes", metavar="N", min=0, help="The most entities drawn, the most named first (0: all).")] = MAP_NODES,
) -> None:
    """Draw a map of the field: techniques, tasks, datasets, models and methods, sized by the
    papers naming them, linked by the papers naming both, grouped into areas named by their
    most central members.

    Click an entity, a link or an area for its papers and the evidence sentences. The page
    works offline, from disk. With --diff, entities no paper of OLD named, and those whose
    share of papers at least doubled (both with 5 papers or more), are ringed.

    Example: [bold]kg map -g exports[/]  (writes exports/map.html)
    Example: [bold]kg map -g exports --select year=2024 --diff year=2023 -o 2024.html[/]
    """
    from kg.sinks import export_graph

    result = export_graph(graph, "html", out_path or Path(graph) / MAP_FILE, view="map", select=select, diff=diff,
                          max_nodes=max_nodes)
    err = consoles(ctx).err
    err.print(f"wrote {result.path} in {result.seconds:.2f}s", markup=False)
    err.print(result.detail.note, markup=False)


def register(app: typer.Typer) -> None:
    """Add ``map`` to the ``kg`` app."""
    app.command("map")(map_)
