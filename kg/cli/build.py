"""``kg build`` and ``kg extract``: paper lists in, a graph folder or extraction records out."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from kg.cli import consoles, progress_bar, report_problems, use_model
from kg.defaults import GRAPH_DIR
from kg.errors import KgError


def _folder(value: str | Path) -> Path:
    """A graph folder to write: an empty path would be the working folder itself."""
    if not str(value).strip():
        raise typer.BadParameter("an empty path; name the graph folder", param_hint="--out")
    return Path(value)


def build(
    ctx: typer.Context,
    inputs: Annotated[list[str], typer.Argument(help="Paper lists (.txt, .jsonl, .json, .csv) or - for stdin.")],
    out_dir: Annotated[Path, typer.Option("--graph", "-g", "--out", "-o", parser=_folder, metavar="PATH",
                                          help="Graph folder to write or extend.")] = GRAPH_DIR,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Extraction processes; 0 = all cores.")] = 1,
    dask: Annotated[str | None, typer.Option("--dask", help="Dask scheduler address, e.g. tcp://host:8786.")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Ignore papers already in the folder.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print skipped records only.")] = False,
    ner: Annotated[Path | None, typer.Option("--ner", envvar="KG_NER_MODEL", help="Also use an optional trained span model in this folder (GPL-3.0-derived; trained from a kg checkout).")] = None,
    model: Annotated[str | None, typer.Option("--model", envvar="KG_SPANS", help="The extraction pipeline: default (the contextual encoder and rules), fast (the span CNN and rules: faster, less accurate), off (rules only), or a span model's folder.")] = None,
    wait: Annotated[bool, typer.Option("--wait", help="If another build is writing the folder, wait for it instead of exiting with code 5.")] = False,
    curation: Annotated[Path | None, typer.Option("--curation", help="A curation file (kg curate) to make the folder's own and apply, e.g. one copied from another graph.")] = None,
) -> None:
    """Build the graph from paper lists, or add papers to an existing one.

    Example: [bold]kg build icml2026.txt neurips2025.jsonl -o exports[/]
    """
    from kg.builder import build as run_build
    from kg.io.readers import ReadReport

    err = consoles(ctx).err
    use_model(model)
    report = ReadReport()
    with progress_bar(err) as prog:
        tasks: dict[str, int] = {}

        def progress(desc: str, total: int | None):
            for t in tasks.values():
                prog.update(t, completed=prog.tasks[t].total or 0)
            tasks[desc] = prog.add_task(desc, total=total)
            return lambda n: prog.advance(tasks[desc], n)

        def waiting(holder: str) -> None:
            err.print(f"waiting for the build writing {out_dir}/ ({holder}) to finish", markup=False)

        try:
            result = run_build(inputs, out_dir, workers=workers, dask=dask, report=report, fresh=fresh,
                               progress=progress, ner_model=str(ner or ""), wait=wait, waiting=waiting,
                               curation=curation)
        except KgError:
            prog.stop()
            report_problems(err, report, quiet)
            raise
        for t in tasks.values():
            prog.update(t, total=prog.tasks[t].total or 1, completed=prog.tasks[t].total or 1)
    code = report_problems(err, report, quiet)
    cur = result.curation
    for line in (*cur.stale, *cur.skipped):
        err.print(f"[yellow]warning[/]: {line}", markup=True, highlight=False)
    if cur.applied or cur.stale or cur.skipped:
        err.print(f"curation: {cur.applied} decision(s) applied, {len(cur.stale)} no longer apply, "
                  f"{len(cur.skipped)} line(s) skipped")
    m = result.manifest
    err.print(f"graph: {m['papers']} papers ({result.new} extracted, {result.reused} reused), "
              f"{m['nodes']} nodes, {m['edges']} edges -> {out_dir}/")
    raise typer.Exit(code)


def extract(
    ctx: typer.Context,
    inputs: Annotated[list[str], typer.Argument(help="Paper lists or - for stdin.")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="jsonl|table", help="jsonl (one object per paper) or table.")] = "jsonl",
    ner: Annotated[Path | None, typer.Option("--ner", envvar="KG_NER_MODEL", help="Also use an optional trained span model in this folder (GPL-3.0-derived; trained from a kg checkout).")] = None,
    model: Annotated[str | None, typer.Option("--model", envvar="KG_SPANS", help="The extraction pipeline: default (the contextual encoder and rules), fast (the span CNN and rules: faster, less accurate), off (rules only), or a span model's folder.")] = None,
) -> None:
    """Print what is extracted from each paper, without building a graph.

    Example: [bold]kg extract icml2026.txt --format table[/]
    """
    from kg.extract import Extractor
    from kg.io.readers import ReadReport, read_papers

    if fmt not in ("jsonl", "table"):
        raise typer.BadParameter("use jsonl or table", param_hint="--format")
    con = consoles(ctx)
    report = ReadReport()
    use_model(model)
    ex = Extractor(ner_model=str(ner or ""))
    papers = read_papers(inputs, report)
    if fmt == "jsonl":
        for e in ex.extract_all(papers):
            sys.stdout.write(json.dumps(e.to_json(), ensure_ascii=False) + "\n")
    else:
        from rich.table import Table

        for e in ex.extract_all(papers):
            t = Table(title=f"{e.paper.id}: {e.paper.title}", title_justify="left", expand=False)
            for col in ("type", "name", "aliases", "mentions", "relations"):
                t.add_column(col)
            for ent in e.entities:
                rels = ", ".join(sorted({r.type for r in e.relations if r.target == ent.id}))
                t.add_row(ent.type, ent.name, ", ".join(ent.aliases), str(len(ent.mentions)), rels)
            con.out.print(t)
    raise typer.Exit(report_problems(con.err, report))


def register(app: typer.Typer) -> None:
    app.command()(build)
    app.command()(extract)
