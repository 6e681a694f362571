"""The curator's verbs on a graph folder: record a decision once it is known to apply, say
which recorded decisions still apply, and give a folder its curation file (the decisions
themselves: :mod:`kg.curate`; where the file lives and how a read graph applies it:
:mod:`kg.io.format`).

>>> # decide(Path("exports"), make("merge", node="method:fn", into="method:foonet"))
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kg.curate import CurationReport, Decision, apply, check, parse_lines, read
from kg.errors import InputError, NotFound
from kg.io.atomic import write_files
from kg.io.format import curation_path, load_graph


def decide(folder: Path, decision: Decision) -> Decision:
    """Record ``decision`` in the folder's curation file once it is known to apply to the
    resolved graph after the decisions already there, and to agree with the decisions already there; else raise
    (:class:`~kg.errors.NotFound` when it names nothing, :class:`~kg.errors.CurationConflict`)
    and record nothing. Returns the decision as recorded (with its file and line)."""
    path = curation_path(folder)
    old = read(path, [])
    where = f"{path}:{_line_count(path) + 1 + (not path.exists())}"
    new = replace(decision, where=where)
    check([*old, new])
    report = apply(load_graph(folder, curate=False), [*old, new])
    stale = [s for s in report.stale if s.startswith(f"{where}: ")]
    if stale:
        raise NotFound(stale[0].replace("; the decision no longer applies", "; nothing was recorded"))
    record(folder, new)
    return new


def status(folder: Path) -> tuple[list[tuple[Decision, str | None]], tuple[str, ...]]:
    """Each decision of the folder's curation file with why it no longer applies (None when it
    applies), and the lines that could not be read."""
    reports: list[CurationReport] = []
    load_graph(folder, reports)
    stale = {m.split(": ", 1)[0]: m for m in reports[0].stale}
    return [(d, stale.get(d.where)) for d in read(curation_path(folder), [])], reports[0].skipped


def record(folder: Path, decision: Decision) -> Path:
    """Append ``decision`` to the folder's curation file (atomically) and return its path."""
    path = curation_path(folder)
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = "# kg curation decisions: one JSON object a line, applied at every build (kg curate --help)\n"
    lines = old.splitlines() + [decision.line()]
    check(parse_lines(lines, str(path), []))
    write_files({path: lines})
    return path


def copy_into(folder: Path, source: Path) -> Path:
    """Make ``source`` the curation file of ``folder`` (checked first: a file with conflicting
    decisions is refused and nothing is copied)."""
    try:
        text = Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{source}: cannot be read as a curation file ({exc})") from None
    check(parse_lines(text.splitlines(), str(source), []))
    path = curation_path(folder)
    write_files({path: text.splitlines()})
    return path


def check_for_build(folder: Path, curation: Path | None) -> None:
    """Before a build writes anything: the curation file it will apply (``curation``, else the
    folder's own) must be readable and free of conflicts."""
    path = Path(curation) if curation is not None else curation_path(folder)
    if curation is not None and not path.is_file():
        raise InputError(f"{path}: no such curation file")
    check(read(path, []))


def _line_count(path: Path) -> int:
    try:
        return len(path.read_text(encoding="utf-8").splitlines())
    except OSError:
        return 0
