"""``kg curate``: record a person's decisions about the graph (merge, split, reject, relabel,
rename, propose) in the folder's curation file, and list them with whether each still applies.
The decisions and how they apply are :mod:`kg.curate`."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from kg.cli import GraphDir, consoles
from kg.defaults import GRAPH_DIR

curate_app = typer.Typer(
    name="curate",
    help="Record decisions about the graph in GRAPH/curation.jsonl; every build and every reader applies them.\n\n"
         "Example: [bold]kg curate merge method:fn method:foonet -g exports[/]",
    no_args_is_help=True,
    rich_markup_mode="rich",
)

By = Annotated[str | None, typer.Option("--by", help="Who decides (default: $KG_CURATOR, else your login name).")]


def _decide(ctx: typer.Context, graph, op: str, by: str | None, **fields) -> None:
    from kg.api import Graph

    d = Graph(graph).curate(op, by=by, **fields)
    consoles(ctx).err.print(f"recorded {d.where}: {d.describe()}", markup=False)


@curate_app.command()
def merge(ctx: typer.Context, node: Annotated[str, typer.Argument(help="Id of the node that joins the other.")],
          into: Annotated[str, typer.Argument(help="Id of the node that stays.")],
          graph: GraphDir = GRAPH_DIR, by: By = None) -> None:
    """Make two nodes one: NODE's names, papers and edges join INTO.

    Example: [bold]kg curate merge method:fn method:foonet[/]
    """
    _decide(ctx, graph, "merge", by, node=node, into=into)


@curate_app.command()
def split(ctx: typer.Context, node: Annotated[str, typer.Argument(help="Id of the node to split.")],
          name: Annotated[str, typer.Argument(help="Name of the node that the papers move to.")],
          paper: Annotated[list[str] | None, typer.Option("--paper", help="A paper id that moves (repeatable).")] = None,
          form: Annotated[list[str] | None, typer.Option("--form", help="A surface form: papers writing it move (repeatable).")] = None,
          graph: GraphDir = GRAPH_DIR, by: By = None) -> None:
    """Split a node: the papers given (or those writing one of the forms) move to a new node NAME.

    Example: [bold]kg curate split method:ete "ETE (editing)" --form ETE[/]
    """
    _decide(ctx, graph, "split", by, node=node, name=name, papers=tuple(paper or ()), forms=tuple(form or ()))


@curate_app.command()
def reject(ctx: typer.Context, node: Annotated[str, typer.Argument(help="Id of a node, or of an edge's source with --type and --target.")],
           rtype: Annotated[str | None, typer.Option("--type", help="Reject the edges of this type from NODE ...")] = None,
           target: Annotated[str | None, typer.Option("--target", help="... to this node id.")] = None,
           paper: Annotated[str | None, typer.Option("--paper", help="Only the edge read from this paper.")] = None,
           graph: GraphDir = GRAPH_DIR, by: By = None) -> None:
    """Reject a node (it leaves the graph with its edges), or with --type and --target an edge.

    Example: [bold]kg curate reject paper:p1 --type PROPOSES --target method:foo[/]
    """
    if (rtype is None) != (target is None):
        raise typer.BadParameter("give both --type and --target to reject an edge", param_hint="--type")
    if rtype is None:
        if paper is not None:
            raise typer.BadParameter("--paper selects an edge: give --type and --target too", param_hint="--paper")
        _decide(ctx, graph, "reject", by, node=node)
    else:
        _decide(ctx, graph, "reject", by, source=node, type=rtype, target=target, paper=paper)


@curate_app.command()
def relabel(ctx: typer.Context, node: Annotated[str, typer.Argument(help="Id of the node.")],
            label: Annotated[str, typer.Argument(help="Its label: Method, Technique, Model, Task, Dataset, ...")],
            graph: GraphDir = GRAPH_DIR, by: By = None) -> None:
    """Give a node another label (and the id that goes with it).

    Example: [bold]kg curate relabel method:imagenet Dataset[/]
    """
    _decide(ctx, graph, "relabel", by, node=node, label=label)


@curate_app.command()
def rename(ctx: typer.Context, node: Annotated[str, typer.Argument(help="Id of the node.")],
           name: Annotated[str, typer.Argument(help="Its new display name (the id stays).")],
           graph: GraphDir = GRAPH_DIR, by: By = None) -> None:
    """Give a node another name; the old one stays as an alias.

    Example: [bold]kg curate rename technique:lora "low-rank adaptation"[/]
    """
    _decide(ctx, graph, "rename", by, node=node, name=name)


@curate_app.command()
def propose(ctx: typer.Context, paper: Annotated[str, typer.Argument(help="Paper id (without paper:).")],
            node: Annotated[str, typer.Argument(help="Id of what the paper proposes.")],
            graph: GraphDir = GRAPH_DIR, by: By = None) -> None:
    """Add a PROPOSES edge extraction missed.

    Example: [bold]kg curate propose 49eea165 method:foonet[/]
    """
    _decide(ctx, graph, "propose", by, paper=paper, node=node)


@curate_app.command("list")
def list_(ctx: typer.Context, graph: GraphDir = GRAPH_DIR,
          as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False) -> None:
    """List the recorded decisions, each with whether it still applies (exit 1 when one does not).

    Example: [bold]kg curate list -g exports[/]
    """
    from kg.api import Graph

    rows, skipped = Graph(graph).curation()
    err = consoles(ctx).err
    for d, why in rows:
        if as_json:
            sys.stdout.write(json.dumps({**d.to_json(), "where": d.where, "applies": why is None, "why": why},
                                        ensure_ascii=False, sort_keys=True) + "\n")
        else:
            consoles(ctx).out.print(f"{d.where}: {d.describe()} ({d.by}, {d.at})" + ("" if why is None else " [stale]"),
                                    markup=False)
    for line in [*(why for _, why in rows if why), *skipped]:
        err.print(f"warning: {line}", markup=False)
    raise typer.Exit(1 if skipped or any(why for _, why in rows) else 0)


def review(ctx: typer.Context, graph: GraphDir = GRAPH_DIR,
           limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Facts listed.")] = 25,
           as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines, ask nothing.")] = False,
           by: By = None) -> None:
    """The facts to check first: confidence nearest 0.5 times the papers they touch, with evidence.

    On a terminal each is asked about in turn ([r]eject records a curation decision, [s]kip,
    [q]uit); otherwise each is printed with the kg curate command that rejects it.

    Example: [bold]kg review -g exports --limit 10[/]
    """
    from kg.api import Graph

    g = Graph(graph)
    items = g.review(limit)
    out, err = consoles(ctx).out, consoles(ctx).err
    if as_json:
        from dataclasses import asdict

        for item in items:
            sys.stdout.write(json.dumps({**asdict(item), "reject": item.reject_command()}, ensure_ascii=False) + "\n")
        return
    ask = sys.stdin.isatty() and out.is_terminal
    for i, item in enumerate(items, 1):
        if item.kind == "entity":  # is it an entity of its label at all?
            out.print(f"{i}. {item.source_name} ({item.type})  (confidence {item.confidence:.2f}, "
                      f"{item.papers} papers)", markup=False)
        else:
            out.print(f"{i}. {item.source_name} -{item.type}-> {item.target_name}  (confidence {item.confidence:.2f}, "
                      f"{item.papers} papers, paper {item.paper})", markup=False)
        if item.evidence:
            out.print(f'   "{item.evidence}"', markup=False)
        if not ask:
            out.print(f"   {item.reject_command()}", markup=False)
            continue
        answer = typer.prompt("   [r]eject, [s]kip, [q]uit", default="s").strip().lower()[:1]
        if answer == "q":
            break
        if answer == "r":
            d = g.curate("reject", by=by, **item.reject_fields())
            err.print(f"   recorded {d.where}: {d.describe()}", markup=False)


def register(app: typer.Typer) -> None:
    app.add_typer(curate_app)
    app.command("review")(review)
