"""``kg queries``: the named SPARQL and Cypher queries kg ships, with what each answers and
the parameters it takes."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from kg.cli import consoles


def queries(
    ctx: typer.Context,
    language: Annotated[str | None, typer.Option("--language", help="sparql or cypher (default: both).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the named queries: run one by name from any folder with kg sparql NAME or kg cypher NAME.

    Example: [bold]kg queries --language sparql[/]
    """
    from kg.queries import SUFFIX, named_queries

    if language is not None and language not in SUFFIX:
        raise typer.BadParameter("use sparql or cypher", param_hint="--language")
    found = named_queries(language)
    if as_json:
        rows = [{"name": q.name, "language": q.language, "answers": q.summary, "params": q.params,
                 "file": str(q.path)} for q in found]
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return
    from rich.table import Table
    from rich.text import Text

    from kg.queries import default_of

    by_name: dict[str, list] = {}
    for q in found:
        by_name.setdefault(q.name, []).append(q)
    t = Table(expand=False)  # a name is what one types: never cut, however narrow the output
    t.add_column("name", no_wrap=True, min_width=max(map(len, by_name), default=4))
    t.add_column("languages", no_wrap=True)
    t.add_column("what it answers")
    t.add_column("parameters (default)")
    for name, qs in by_name.items():
        params = dict.fromkeys(p for q in qs for p in q.params)
        shown = ", ".join(f"{p} ({default_of(qs, p)})" for p in params)
        t.add_row(name, ", ".join(q.language for q in qs), Text(qs[0].summary), Text(shown))
    consoles(ctx).out.print(t)
    consoles(ctx).err.print("run one with: kg sparql NAME [-p name=value] or kg cypher NAME [-p name=value]")


def register(app: typer.Typer) -> None:
    app.command("queries")(queries)
