"""The ``kg`` command line: a thin typer layer over the library.

Exit codes (every command):
  0  success
  1  finished, but some input records were skipped (see the summary), or SHACL violations
  2  bad usage, or an input/graph/query that cannot be used at all
  3  Neo4j unreachable or credentials refused
  4  output could not be written (read-only folder, disk full); previous files intact
  5  another build is writing the graph folder (kg build --wait queues behind it)
  130 interrupted (Ctrl-C); the previous graph is left intact
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from kg import errors as E
from kg.errors import KgError

app = typer.Typer(
    name="kg",
    help="Build knowledge graphs of machine-learning research from conference paper lists.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)

GraphDir = Annotated[Path, typer.Option("--graph", "-g", help="Graph folder written by kg build.")]
DEFAULT_GRAPH = Path("exports")


#: each kind of library error and the exit code it gives (the first class that matches)
EXIT_CODES: tuple[tuple[type[KgError], int], ...] = (
    (E.ValidationFailed, 1),
    (E.Neo4jUnavailable, 3),
    (E.ExportError, 4),
    (E.FolderBusy, 5),
    (E.UsageError, 2), (E.ConfigError, 2), (E.InputError, 2), (E.GraphNotFoundError, 2),
    (E.GraphDamaged, 2), (E.QueryError, 2), (E.ExtractionError, 2),
    (KgError, 2),
)


def exit_code(exc: KgError) -> int:
    """The exit code of a library error."""
    return next(code for cls, code in EXIT_CODES if isinstance(exc, cls))


def _report_problems(report, quiet: bool = False) -> int:
    """Print skipped records and warnings; return the exit code they imply."""
    for p in report.problems[:50]:
        style = "yellow" if p.severity == "warning" else "red"
        if not quiet or p.severity == "skipped":
            err.print(f"[{style}]{p.severity}[/]: {p}", markup=True)
    if len(report.problems) > 50:
        err.print(f"… and {len(report.problems) - 50} more problems")
    skipped = report.skipped
    if skipped:
        reasons = ", ".join(f"{n} {r}" for r, n in report.summary().items())
        err.print(f"[red]skipped {len(skipped)} record(s)[/]: {reasons}; read {report.read}", markup=True)
        return 1
    return 0


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err, transient=False,
                    disable=not err.is_terminal and not _force_progress())


def _use_model(model: str | None) -> None:
    """Check the span model the user named and hand it to the library (and to extraction
    worker processes, which inherit the environment) as ``$KG_SPANS``."""
    import os

    from kg.extract.spans import ENV_VAR, resolve_model

    if model is not None:
        found = resolve_model(model)  # a folder without a model is an error here, not in a worker
        os.environ[ENV_VAR] = str(found) if found else "off"


def _force_progress() -> bool:
    import os

    return os.environ.get("KG_PROGRESS") == "1"


@app.command()
def build(
    inputs: Annotated[list[str], typer.Argument(help="Paper lists (.txt, .jsonl, .json, .csv) or - for stdin.")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Graph folder to write or extend.")] = DEFAULT_GRAPH,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Extraction processes; 0 = all cores.")] = 1,
    dask: Annotated[str | None, typer.Option("--dask", help="Dask scheduler address, e.g. tcp://host:8786.")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Ignore papers already in the folder.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print skipped records only.")] = False,
    ner: Annotated[Path | None, typer.Option("--ner", envvar="KG_NER_MODEL", help="Also use the optional trained span model in this folder (train: python scripts/train_ner.py --out DIR; GPL-3.0-derived).")] = None,
    model: Annotated[str | None, typer.Option("--model", envvar="KG_SPANS", help="kg's span model: a folder, or 'off' for rules only (default: the packaged model).")] = None,
    wait: Annotated[bool, typer.Option("--wait", help="If another build is writing the folder, wait for it instead of exiting with code 5.")] = False,
) -> None:
    """Build the graph from paper lists, or add papers to an existing one.

    Example: [bold]kg build ../shared/data/papers/icml2026-seed.txt -o exports[/]
    """
    from kg.builder import build as run_build
    from kg.readers import ReadReport

    _use_model(model)
    report = ReadReport()
    with _progress() as prog:
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
                               progress=progress, ner_model=str(ner or ""), wait=wait, waiting=waiting)
        except KgError:
            prog.stop()
            _report_problems(report, quiet)
            raise
        for t in tasks.values():
            prog.update(t, total=prog.tasks[t].total or 1, completed=prog.tasks[t].total or 1)
    code = _report_problems(report, quiet)
    m = result.manifest
    err.print(f"graph: {m['papers']} papers ({result.new} extracted, {result.reused} reused), "
              f"{m['nodes']} nodes, {m['edges']} edges -> {out_dir}/")
    raise typer.Exit(code)


@app.command()
def extract(
    inputs: Annotated[list[str], typer.Argument(help="Paper lists or - for stdin.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="jsonl (one object per paper) or table.")] = "jsonl",
    ner: Annotated[Path | None, typer.Option("--ner", envvar="KG_NER_MODEL", help="Also use the optional trained span model in this folder (train: python scripts/train_ner.py --out DIR; GPL-3.0-derived).")] = None,
    model: Annotated[str | None, typer.Option("--model", envvar="KG_SPANS", help="kg's span model: a folder, or 'off' for rules only (default: the packaged model).")] = None,
) -> None:
    """Print what is extracted from each paper, without building a graph.

    Example: [bold]kg extract ../shared/data/papers/icml2026-seed.txt --format table[/]
    """
    from kg.extract import Extractor
    from kg.readers import ReadReport, read_papers

    if fmt not in ("jsonl", "table"):
        raise typer.BadParameter("use jsonl or table", param_hint="--format")
    report = ReadReport()
    _use_model(model)
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
            out.print(t)
    raise typer.Exit(_report_problems(report))


@app.command()
def stats(
    graph: GraphDir = DEFAULT_GRAPH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    top: Annotated[int, typer.Option("--top", "-k", help="Entities shown per label.")] = 10,
    plot: Annotated[Path | None, typer.Option("--plot", help="Also draw the statistics to this PNG file.")] = None,
) -> None:
    """Counts per label and edge type, components, degrees, central entities, coverage.

    Example: [bold]kg stats -g exports --json[/]
    """
    from kg.graph import load_graph
    from kg.stats import summary

    G = load_graph(graph)
    s = summary(G, top)
    if as_json:
        sys.stdout.write(json.dumps(s, indent=2, ensure_ascii=False) + "\n")
    else:
        from kg.stats_view import print_summary

        print_summary(s, out)
    if plot is not None:
        from kg.stats_view import plot_summary

        plot_summary(G, s, plot)
        err.print(f"plot written to {plot}")


def _register_optional() -> None:
    """Commands that live in their own modules (one per sink)."""
    import importlib

    for mod in ("kg.cli_rdf", "kg.cli_neo4j", "kg.cli_eval"):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name == mod:
                continue
            raise
        m.register(app)


_register_optional()


def main() -> None:
    """Entry point: library errors become one line on stderr and an exit code."""
    try:
        rc = app(standalone_mode=False)
    except KgError as exc:
        err.print(f"kg: error: {exc}", markup=False)
        sys.exit(exit_code(exc))
    except (KeyboardInterrupt, typer.Abort):
        err.print("kg: interrupted; the previous graph is left intact", markup=False)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # click's usage errors (typer vendors click: match by behaviour)
        if hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int):
            exc.show()
            sys.exit(exc.exit_code)
        raise
    if rc == 130:  # typer turns Ctrl-C into exit code 130 itself
        err.print("kg: interrupted; the previous graph is left intact", markup=False)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
