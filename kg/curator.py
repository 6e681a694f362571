"""The curator's verbs on a graph folder: record a decision once it is known to apply, and
say which recorded decisions still apply (the decisions themselves: :mod:`kg.curate`).

>>> # decide(Path("exports"), make("merge", node="method:fn", into="method:foonet"))
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kg.curate import CurationReport, Decision, apply, check, curation_path, read, record
from kg.errors import NotFound
from kg.graph import load_graph


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


def _line_count(path: Path) -> int:
    try:
        return len(path.read_text(encoding="utf-8").splitlines())
    except OSError:
        return 0
