"""``kg show`` and ``kg search``: one entity or paper and what the graph says about it, and
ranked matches of a text (:mod:`kg.explore.lookup`, :mod:`kg.explore.search`)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console

from kg.cli import GraphDir, MinConfidence, consoles
from kg.defaults import GRAPH_DIR, MIN_CONFIDENCE

#: characters of an evidence sentence shown in text output (JSON has all of it)
EVIDENCE_CHARS = 200

Json = Annotated[bool, typer.Option("--json", help="Print one JSON record instead of text.")]


def show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Name, alias, title or node id (case and dashes do not matter).")],
    graph: GraphDir = GRAPH_DIR,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Rows shown per relation type.")] = 10,
    as_json: Json = False,
    min_confidence: MinConfidence = MIN_CONFIDENCE,
) -> None:
    """One entity or paper: its names, papers, taxonomy and edges by type, with evidence.

    A name several nodes share (a Method and a Task, say) shows each of them. Nothing named
    so: suggestions and exit code 2.

    Example: [bold]kg show "low-rank adaptation" -g exports[/]
    """
    from kg.explore.lookup import show as run
    from kg.io.format import load_graph

    result = run(load_graph(graph, min_confidence=min_confidence), name, limit)
    if as_json:
        _print_json(asdict(result))
        return
    out = consoles(ctx).out
    for i, view in enumerate(result.matches):
        if i:
            out.print()
        (_print_paper if view.kind == "paper" else _print_entity)(out, view)
    if len(result.matches) > 1:
        out.print(f"\n{len(result.matches)} nodes are named {name!r}; kg show ID shows one")
    if result.also:
        shown = ", ".join(f"{c.node.name} ({c.node.label}, {c.node.id})" for c in result.also)
        out.print(f"\nalso called {name!r} ({result.also[0].match}): {shown}", markup=False)


def search(
    ctx: typer.Context,
    text: Annotated[str | None, typer.Argument(help="Text to find in names, aliases, titles, abstracts.")] = None,
    graph: GraphDir = GRAPH_DIR,
    label: Annotated[str | None, typer.Option("--label", "-l", help="Only nodes of this label (Paper, Method…).")] = None,
    venue: Annotated[str | None, typer.Option("--venue", help="Only papers of this venue, or entities they name.")] = None,
    year: Annotated[int | None, typer.Option("--year", help="Only papers of this year, or entities they name.")] = None,
    uses: Annotated[str | None, typer.Option("--uses", help="Only papers that use this (or a narrower) entity.")] = None,
    addresses: Annotated[str | None, typer.Option("--addresses", help="Only papers that address this task.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Matches shown.")] = 20,
    as_json: Json = False,
) -> None:
    """Papers and entities matching a text, best first: exact name or alias, then a word of a
    name, then a title, then an abstract; more papers first. TEXT may be left out when a
    filter is given.

    Example: [bold]kg search --uses LoRA --addresses "code generation" -g exports[/]
    """
    from kg.errors import UsageError
    from kg.explore.search import search as run
    from kg.io.format import load_graph

    if not (text or "").strip() and not any((label, venue, year, uses, addresses)):  # the advice in flags
        raise UsageError("give a TEXT to search for, or a filter (--label, --venue, --year, --uses, --addresses)")
    result = run(load_graph(graph), text, label=label, venue=venue, year=year, uses=uses, addresses=addresses,
                 limit=limit)
    if as_json:
        _print_json(asdict(result))
        return
    out = consoles(ctx).out
    for h in result.hits:
        where = ", ".join(str(x) for x in (h.venue, h.year if h.year != _year_in(h.venue) else None) if x)
        extra = f"  {where}" if where else f"  {h.papers} paper{'s' if h.papers != 1 else ''}"
        via = f"  via {', '.join(h.via)}" if h.via else ""
        out.print(f"{h.label:<10} {h.name}{extra}  [{h.match}]{via}  {h.id}", markup=False)
    if result.total > len(result.hits):
        out.print(f"… and {result.total - len(result.hits)} more (--limit N shows more)")
    if not result.hits:
        consoles(ctx).err.print("no match")


def _year_in(venue: str | None) -> int | None:
    tail = (venue or "").rpartition(" ")[2]
    return int(tail) if tail.isdigit() else None


def _print_json(record: dict) -> None:
    sys.stdout.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def _paper_line(p) -> str:
    where = ", ".join(str(x) for x in (p.venue, p.year if p.year != _year_in(p.venue) else None) if x)
    return f"{p.title}" + (f" ({where})" if where else "")


def _evidence(out: Console, text: str | None, indent: str = "      ") -> None:
    if text:
        cut = text if len(text) <= EVIDENCE_CHARS else text[: EVIDENCE_CHARS - 1].rstrip() + "…"
        out.print(f'{indent}"{cut}"', markup=False, style="dim")


def _print_entity(out: Console, v) -> None:
    out.print(f"[bold]{v.name}[/]  {v.label}  {v.id}", markup=True, highlight=False)
    if v.aliases:
        out.print(f"  aliases: {', '.join(v.aliases)}", markup=False)
    for k, value in v.props:
        out.print(f"  {k}: {value}", markup=False)
    for title, refs in (("family", v.family), ("variants", v.variants), ("broader", v.broader),
                        ("narrower", v.narrower)):
        if refs:
            out.print(f"  {title}: {', '.join(r.name for r in refs)}", markup=False)
    if v.proposed_by:
        out.print(f"  proposed by: {'; '.join(_paper_line(p) for p in v.proposed_by)}", markup=False)
    out.print(f"\n[bold]papers[/] ({v.papers_total})", markup=True)
    for pr in v.papers:
        out.print(f"  {'/'.join(pr.roles)}  {_paper_line(pr.paper)}", markup=False)
        _evidence(out, pr.evidence)
    _more(out, v.papers_total, len(v.papers))
    _print_groups(out, v.relations)


def _print_paper(out: Console, v) -> None:
    out.print(f"[bold]{v.title}[/]  Paper  {v.id}", markup=True, highlight=False)
    for k, value in (("venue", v.venue), ("year", v.year), ("url", v.url),
                     ("authors", ", ".join(v.authors) if v.authors else None),
                     ("proposes", ", ".join(f"{r.name} ({r.label})" for r in v.proposes) if v.proposes else None)):
        if value:
            out.print(f"  {k}: {value}", markup=False)
    _print_groups(out, v.relations)


def _print_groups(out: Console, groups) -> None:
    arrows = {"out": "→", "in": "←", "stated": "·"}
    for g in groups:
        title = {"out": g.type, "in": f"{g.type} (incoming)", "stated": f"{g.type} (between entities)"}[g.direction]
        out.print(f"\n[bold]{arrows[g.direction]} {title}[/] ({g.total})", markup=True)
        for e in g.edges:
            ends = (f"{e.target.name} ({e.target.label})" if g.direction == "out" else
                    f"{e.source.name} ({e.source.label})" if g.direction == "in" else
                    f"{e.source.name} → {e.target.name} ({e.target.label})")
            paper = f"  [{_paper_line(e.paper)}]" if e.paper and g.direction != "stated" and \
                e.paper.id not in (e.source.id, e.target.id) else ""
            out.print(f"  {ends}{paper}", markup=False)
            _evidence(out, e.evidence)
        _more(out, g.total, len(g.edges))


def _more(out: Console, total: int, shown: int) -> None:
    if total > shown:
        out.print(f"  … and {total - shown} more (--limit N shows more)", markup=False)


def register(app: typer.Typer) -> None:
    app.command()(show)
    app.command()(search)
