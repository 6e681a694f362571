"""``kg diff``: what changed between two graphs, or two slices of one."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from kg.cli import consoles

_SELECTOR = "year=2024, year=2021-2023, venue=ICML 2024 (alternatives with |, conditions joined by ;)"


def diff(
    ctx: typer.Context,
    old: Annotated[Path | None, typer.Argument(help="The older graph folder (or use -g with --old/--new).")] = None,
    new: Annotated[Path | None, typer.Argument(help="The newer graph folder (default: OLD).")] = None,
    graph: Annotated[Path | None, typer.Option("--graph", "-g", help="One graph folder to cut into two slices.")] = None,
    old_sel: Annotated[str | None, typer.Option("--old", help=f"Slice of OLD: {_SELECTOR}.")] = None,
    new_sel: Annotated[str | None, typer.Option("--new", help="Slice of NEW, as --old.")] = None,
    top: Annotated[int, typer.Option("--top", "-k", help="Rows per table.")] = 10,
    min_papers: Annotated[int, typer.Option("--min-papers", help="Papers an entity needs on one side to "
                                            "count as grown or shrunk.")] = 5,
    min_link_papers: Annotated[int, typer.Option("--min-link-papers", help="Papers of NEW a technique–task "
                                                 "link needs to be listed as new.")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="Also draw the grown and shrunk shares to this PNG.")] = None,
) -> None:
    """New and vanished entities, shares of papers that grew or shrank most, and new
    technique–task links between two graph folders, or two slices of one.

    Entities match by label and normalised name (their node id); one named on both sides under
    another label, or as an alias, is neither new nor vanished. An entity's share is the
    papers naming it over the papers of its side; grown and shrunk need --min-papers papers
    on one side; ranked by the change in percentage points. A new link is a technique and a
    task that --min-link-papers papers of NEW use and address (themselves or through what
    they propose) and no paper of OLD does, and not one concept (a name in common, or an
    acronym of the other).

    Example: [bold]kg diff exports/icml2024 exports/iclr2024[/]
    Example: [bold]kg diff -g exports --old "venue=ICML 2024" --new "venue=ICLR 2024" --plot diff.png[/]
    """
    from kg.errors import UsageError
    from kg.explore.diff import diff_folders

    con = consoles(ctx)
    if graph is not None and old is not None:
        raise UsageError("give graph folders as OLD NEW, or one with -g, not both")
    first = graph if graph is not None else old
    if first is None:
        raise UsageError("say what to compare: kg diff OLD NEW, or kg diff -g FOLDER --old SELECTOR --new SELECTOR")
    d = diff_folders(first, new, old_select=old_sel, new_select=new_sel, top=top, min_papers=min_papers,
                     min_link_papers=min_link_papers)
    if as_json:
        sys.stdout.write(json.dumps(asdict(d), indent=2, ensure_ascii=False) + "\n")
    else:
        print_diff(d, con.out)
    if plot is not None:
        from kg.explore.plots import diff_picture

        diff_picture(d, plot)
        con.err.print(f"plot written to {plot}")


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def print_diff(d, out: Console) -> None:
    """The tables of a :class:`kg.explore.diff.Diff`."""
    o, n = d.old, d.new
    out.print(f"[bold]{o.name}[/] ({o.papers:,} papers) → [bold]{n.name}[/] ({n.papers:,} papers)")
    t = Table(title="Entities per label", title_justify="left")
    for col in ("label", "new", "vanished", "in both", "in both by name"):
        t.add_column(col, justify="left" if col == "label" else "right")
    for lab, c in d.counts.items():
        t.add_row(lab, f"{c['new']:,}", f"{c['vanished']:,}", f"{c['common']:,}", f"{c.get('same_name', 0):,}")
    out.print(t)
    if any(c.get("same_name") for c in d.counts.values()):
        out.print(f"in both by name: entities of {n.name} that {o.name} names too, under another label or as "
                  "another node's name or alias; neither new nor vanished")
    for title, groups, side in (("New in", d.new_entities, "new"), ("Vanished from", d.vanished, "old")):
        for lab, rows in groups.items():
            where = n.name if side == "new" else o.name
            t = Table(title=f"{title} {where}: {lab}", title_justify="left")
            t.add_column("name")
            t.add_column("papers", justify="right")
            for r in rows:
                t.add_row(r.name, str(r.new_papers if side == "new" else r.old_papers))
            out.print(t)
    for title, rows in (("Grown most", d.grown), ("Shrunk most", d.shrunk)):
        t = Table(title=f"{title}: share of papers (old, new: papers naming it; ≥ {d.min_papers} on one side)",
                  title_justify="left")
        t.add_column("name", min_width=18)
        t.add_column("label")
        for col in ("old", "new", "old %", "new %", "Δ pp"):
            t.add_column(col, justify="right")
        for r in rows:
            t.add_row(r.name, r.label, str(r.old_papers), str(r.new_papers), _pct(r.old_share), _pct(r.new_share),
                      f"{r.change:+.2f}")
        out.print(t)
    t = Table(title=f"New technique–task links ({d.new_links_total:,} with ≥ {d.min_link_papers} papers in "
              f"{n.name}, none in {o.name})", title_justify="left")
    for col in ("technique", "task", "papers", "both known before"):
        t.add_column(col, justify="right" if col == "papers" else "left")
    for r in d.new_links:
        t.add_row(r.technique, r.task, str(r.papers), "yes" if r.known else "no")
    out.print(t)


def register(app: typer.Typer) -> None:
    app.command()(diff)
