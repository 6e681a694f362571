"""The ``kg`` command line: a thin typer layer over the library, one module per noun
(:mod:`.build` build and extract, :mod:`.stats`, :mod:`.explore` show and search, :mod:`.diff`, :mod:`.maps` map,
:mod:`.rdf` export, validate and sparql, :mod:`.serve`, :mod:`.neo4j` load and cypher,
:mod:`.queries`, :mod:`.evaluation` eval, :mod:`.info`). The consoles travel in ``ctx.obj``
(:class:`Consoles`); the exit codes of library errors are :data:`EXIT_CODES`.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from kg import errors as E
from kg.errors import KgError
from kg.text import shown

app = typer.Typer(
    name="kg",
    help="Build knowledge graphs of machine-learning research from conference paper lists.\n\n"
         "Example: [bold]kg build papers.jsonl -o exports[/], then [bold]kg map -g exports[/] (a map of the "
         "field, exports/map.html), [bold]kg show \"diffusion model\" -g exports[/], [bold]kg queries[/]",
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so that nothing written later (or flushed at exit) meets the
    closed pipe again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class PipeConsole(Console):
    """A rich console for which a reader that stops early (``kg stats | head``) is no error:
    rich exits with code 1 there, kg with 0, as ``head`` and ``grep -m`` expect; and which
    prints no control character it was given."""

    def render_str(self, text: str, **kwargs):
        """Every string printed, a graph's names among them, with its control characters shown
        as ``\\xNN`` (:func:`kg.text.shown`), never sent to the terminal."""
        return super().render_str(shown(text), **kwargs)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        _stdout_to_devnull()
        raise SystemExit(0)


@dataclass
class Consoles:
    """Where commands print: ``out`` for results, ``err`` for messages and progress."""

    out: Console = field(default_factory=lambda: PipeConsole(highlight=False, soft_wrap=True))
    err: Console = field(default_factory=lambda: PipeConsole(stderr=True, highlight=False, soft_wrap=True))


@app.callback(invoke_without_command=True)
def _root(ctx: typer.Context, version: Annotated[bool, typer.Option(
        "--version", is_eager=True, help="Print kg's version and exit.")] = False) -> None:
    """Build knowledge graphs of machine-learning research from conference paper lists."""
    if version:
        from kg.version import __version__

        typer.echo(f"kg {__version__}")
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(2)
    ctx.obj = Consoles()


def consoles(ctx: typer.Context) -> Consoles:
    """The consoles of this invocation (``ctx.obj``)."""
    if not isinstance(ctx.obj, Consoles):
        ctx.obj = Consoles()
    return ctx.obj


GraphDir = Annotated[Path, typer.Option("--graph", "-g", help="Graph folder written by kg build.")]
#: a view by confidence (kg.confidence): the default, kg.defaults.MIN_CONFIDENCE, keeps every fact
MinConfidence = Annotated[float, typer.Option(
    "--min-confidence", metavar="P", min=0.0, max=1.0,
    help="Leave out facts whose confidence is below P, and what they alone held (default 0: all).")]


#: each kind of library error and the exit code it gives (the first class that matches)
EXIT_CODES: tuple[tuple[type[KgError], int], ...] = (
    (E.ValidationFailed, 1),
    (E.Neo4jUnavailable, 3),
    (E.ExportError, 4),
    (E.FolderBusy, 5),
    (E.UsageError, 2), (E.ConfigError, 2), (E.InputError, 2), (E.GraphNotFoundError, 2),
    (E.GraphDamaged, 2), (E.QueryError, 2), (E.ExtractionError, 2), (E.NotFound, 2), (E.CurationConflict, 2),
    (KgError, 2),
)


def exit_code(exc: KgError) -> int:
    """The exit code of a library error."""
    return next(code for cls, code in EXIT_CODES if isinstance(exc, cls))


def report_problems(err: Console, report, quiet: bool = False) -> int:
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


def parse_param(text: str) -> tuple[str, object]:
    """``name=value``; the value is JSON when it parses (numbers, lists, null), else a string.

    >>> parse_param("year=2024"), parse_param("t=speculative decoding"), parse_param('l=["a"]')
    (('year', 2024), ('t', 'speculative decoding'), ('l', ['a']))
    """
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise typer.BadParameter(f"{text!r}: use name=value", param_hint="--param")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def progress_bar(err: Console):
    """A progress display on ``err``: a bar on a terminal (or with ``KG_PROGRESS=1``), else
    lines with an ETA for a long task (:class:`kg.cli.progress.LineProgress`: a log, a pipe,
    CI); ``KG_PROGRESS=0`` shows none."""
    import os

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not err.is_terminal and not _force_progress() and os.environ.get("KG_PROGRESS") != "0":
        from kg.cli.progress import LineProgress

        return LineProgress(err)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err, transient=False, disable=not err.is_terminal and not _force_progress())


def use_model(model: str | None) -> None:
    """Check the pipeline the user named (:func:`kg.extract.resolve_pipeline`: ``default``,
    ``fast``, ``off`` or a folder) and hand it to the library, and to extraction worker
    processes, which inherit the environment, as ``$KG_SPANS`` and ``$KG_ENCODER``."""
    import os

    from kg.extract import encoder, resolve_pipeline, spans

    if model is None:
        return
    cnn, enc = resolve_pipeline(model)  # a folder without a model is an error here, not in a worker
    os.environ[encoder.ENV_VAR] = str(enc) if enc else "off"
    os.environ[spans.ENV_VAR] = str(cnn) if cnn else "off"


def _force_progress() -> bool:
    import os

    return os.environ.get("KG_PROGRESS") == "1"


def _register() -> None:
    """The commands, one module per noun, in the order ``kg --help`` lists them."""
    import importlib

    for mod in ("build", "curate", "stats", "explore", "diff", "maps", "rdf", "serve", "neo4j", "queries", "evaluation", "info"):
        importlib.import_module(f"kg.cli.{mod}").register(app)


_register()


_METAVARS = {"<path>": "PATH", "<str>": "TEXT", "<int>": "N", "<float>": "NUMBER",
             "<list[str]>": "TEXT", "<list[path]>": "PATH"}


def unwrap(text: str | None) -> str | None:
    r"""A docstring's paragraphs as the terminal wraps them: the line breaks of the source
    within a paragraph go (rich kept them, so an 80-column terminal showed a short line after
    every one of them); each ``Example:`` keeps its own line.

    >>> unwrap("Counts, coverage;\n    with --by-year, trends.\n\nExample: a\nExample: b")
    'Counts, coverage; with --by-year, trends.\n\nExample: a\nExample: b'
    """
    if not text:
        return text
    paragraphs = []
    for paragraph in text.strip().split("\n\n"):
        lines: list[str] = []
        for line in (x.strip() for x in paragraph.splitlines()):
            if lines and line and not line.startswith("Example:"):
                lines[-1] += " " + line
            elif line:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def tidy_help(command) -> None:
    """Help in the usual style: paragraphs wrapped by the terminal (:func:`unwrap`), no type
    after a flag (``--fresh``, not ``--fresh <bool>``), ``PATH``, ``TEXT`` and ``N`` for
    values; a ``metavar`` a command sets (the choices of ``--format``) is kept."""
    command.help = unwrap(command.help)
    for sub in getattr(command, "commands", {}).values():
        tidy_help(sub)
    ctx = typer.Context(command)
    help_option = command.get_help_option(ctx)  # made once per command, then reused
    if help_option is not None:
        help_option.metavar = ""
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument" and hasattr(param, "display_type"):
            shown = _METAVARS.get(param.display_type(ctx), "TEXT")  # the type column of an argument
            param.display_type_rich = lambda ctx, shown=shown: shown
            # the usage line in the usual style: INPUTS... or [NEW], not typer's {inputs}...
            name = (param.metavar or param.name or "").upper()
            usage = (name if param.required else f"[{name}]") + ("..." if param.nargs != 1 else "")
            param.get_usage_pieces = lambda ctx, usage=usage: [usage]
            continue
        if getattr(param, "param_type_name", "") != "option" or param.metavar is not None:
            continue
        if getattr(param, "is_flag", False):
            param.metavar = ""
        elif hasattr(param, "display_type"):
            shown = param.display_type(ctx)
            param.metavar = _METAVARS.get(shown, shown.strip("<>").upper())


def main() -> None:
    """Entry point: library errors become one line on stderr and an exit code."""
    err = Consoles().err
    command = typer.main.get_command(app)
    tidy_help(command)
    try:
        rc = command.main(standalone_mode=False, prog_name="kg")
    except SystemExit as exc:
        # click turns a closed pipe into exit code 1 and wraps stdout to silence it: a reader
        # that stops early (kg extract ... | head) is no error
        if exc.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            _stdout_to_devnull()
            sys.exit(0)
        raise
    except KgError as exc:
        err.print(f"kg: error: {exc}", markup=False)
        sys.exit(exit_code(exc))
    except (KeyboardInterrupt, typer.Abort):
        err.print("kg: interrupted; the previous graph is left intact", markup=False)
        sys.exit(130)
    except BrokenPipeError:  # the reader stopped early (| head): not an error
        _stdout_to_devnull()
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
