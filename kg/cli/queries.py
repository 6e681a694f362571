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
    language: Annotated[str | None, typer.Option("--language", "-l", help="sparql or cypher (default: both).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the named queries: run one by name from any folder with kg sparql NAME or kg cypher NAME.

    Example: [bold]kg queries -l sparql[/]
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

    t = Table("name", "language", "what it answers", "parameters (default)", expand=False)
    for q in found:
        params = ", ".join(f"{k}={v}" if v is not None else k for k, v in q.params.items())
        t.add_row(q.name, q.language, Text(q.summary), Text(params))
    consoles(ctx).out.print(t)


def register(app: typer.Typer) -> None:
    app.command("queries")(queries)
