"""The curator's verbs on a graph folder: record a decision once it is known to apply, and
say which recorded decisions still apply (the decisions themselves: :mod:`kg.curate`).

>>> # decide(Path("exports"), make("merge", node="method:fn", into="method:foonet"))
"""

from __future__ import annotations

from pathlib import Path

from kg.curate import CurationReport, Decision, apply, check, curation_path, read, record
from kg.errors import NotFound
from kg.graph import load_graph


def decide(folder: Path, decision: Decision) -> Decision:
    """Record ``decision`` in the folder's curation file once it is known to apply to the
    graph as it stands (curated) and to agree with the decisions already there; else raise
    (:class:`~kg.errors.NotFound` when it names nothing, :class:`~kg.errors.CurationConflict`)
    and record nothing. Returns the decision as recorded (with its file and line)."""
    path = curation_path(folder)
    old = read(path, [])
    G = load_graph(folder)
    where = f"{path}:{_line_count(path) + 1 + (not path.exists())}"
    new = Decision(**{**{k: getattr(decision, k) for k in decision.__slots__ if k != "where"}}, where=where)
    check([*old, new])
    report = apply(G, [new])
    if report.stale:
        raise NotFound(report.stale[0].replace("; the decision no longer applies", "; nothing was recorded"))
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
