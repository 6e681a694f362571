"""``kg info``: kg's version, its data folders, the graphs found under a folder, and whether
Neo4j answers at ``$NEO4J_URI``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from kg.cli import consoles
from kg.defaults import NEO4J_URI


def info(
    ctx: typer.Context,
    where: Annotated[Path, typer.Argument(help="Folder to look for graphs in (and up to 3 levels below).")] = Path("."),
    uri: Annotated[str, typer.Option("--uri", envvar="NEO4J_URI", show_envvar=True,
                                     help="Bolt URI of the Neo4j server to check.")] = NEO4J_URI,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show kg's version, data folders, the graphs found here, and whether Neo4j is reachable.

    Example: [bold]kg info[/]
    """
    from kg.diagnostics import info as gather

    report = gather(where, uri)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return
    out = consoles(ctx).out
    data = report["data"]
    lines = [f"kg {report['kg']} (Python {report['python']})",
             f"data:      {data['package']}",
             f"queries:   {data['queries']} (kg queries lists them)",
             f"span model: {data['span_model'] or 'missing: rules only'}"]
    neo = report["neo4j"]
    state = {True: "reachable", False: f"not reachable ({neo.get('why', '')})", None: "not configured"}[neo["reachable"]]
    lines.append(f"neo4j:     {neo['uri'] or ''} {state}".rstrip())
    graphs = report["graphs"]
    lines.append(f"graphs under {where}: {len(graphs) or 'none (kg build PAPERS -g FOLDER makes one)'}")
    for g in graphs:
        if "error" in g:
            lines.append(f"  {g['folder']}: {g['error']}")
        else:
            lines.append(f"  {g['folder']}: {g['papers']:,} papers, {g['nodes']:,} nodes, {g['edges']:,} edges"
                         f" (built {g['built']})")
    for line in lines:
        out.print(line, markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.command("info")(info)
