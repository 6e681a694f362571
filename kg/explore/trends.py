"""Trends over years (or venues): papers per period, and for the top entities of each label
the papers per period and their share of the period's papers, with the entities that rise
and fall most.

Rule for rising and falling (by year only): take the last ``window`` years that have papers
(*recent*) and the ``window`` years before them (*before*); an entity's share in each is the
papers of those years that name it over all papers of those years (a paper names what it links
to, itself or through what it proposes: :func:`kg.stats.paper_entities`). Entities named by at
least ``min_papers`` papers across both windows are ranked by the change of share, in
percentage points (recent − before). With fewer than ``2 * window`` years there are none.

By venue, a period is a venue series (``ICML 2024`` and ``ICML 2025`` are both ``ICML``);
venues have no order, so there is no rising or falling.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.explore.slices import entity_counts, is_entity, paper_venue, venue_series
from kg.schema import ENTITY_LABELS

if TYPE_CHECKING:
    import networkx as nx

WINDOW = 3
MIN_PAPERS = 10
TOP = 10
BY = ("year", "venue")


@dataclass(frozen=True)
class Period:
    key: str  # the year (as text) or venue series
    papers: int


@dataclass(frozen=True)
class Series:
    """An entity's papers in each period (in the order of :attr:`Trends.periods`) and their
    share of the period's papers."""

    id: str
    label: str
    name: str
    papers: int
    counts: tuple[int, ...]
    shares: tuple[float, ...]


@dataclass(frozen=True)
class Mover:
    id: str
    label: str
    name: str
    before_papers: int
    recent_papers: int
    before_share: float
    recent_share: float
    change: float  # recent_share - before_share, in percentage points
    shares: tuple[float, ...]  # share of papers in each period, as Series.shares


@dataclass(frozen=True)
class Trends:
    by: str
    periods: tuple[Period, ...]
    unknown: int  # papers without a year (or venue), left out
    top: dict[str, tuple[Series, ...]]
    before: tuple[str, ...]  # the periods of the two windows compared
    recent: tuple[str, ...]
    window: int
    min_papers: int
    rising: tuple[Mover, ...]
    falling: tuple[Mover, ...]


def paper_periods(G: nx.MultiDiGraph, by: str = "year") -> tuple[dict[str, list[str]], int]:
    """Papers per period (years in order, venue series by name), and how many papers have no
    year (or venue) and are left out."""
    if by not in BY:
        raise UsageError(f"trends by {by!r}: use one of {', '.join(BY)}")
    out: dict = defaultdict(list)
    unknown = 0
    for n, d in G.nodes(data=True):
        if d.get("label") != "Paper":
            continue
        if by == "year":
            key = d.get("year")
        else:
            venue = paper_venue(G, n)
            key = venue_series(venue) if venue else None
        if key is None:
            unknown += 1
        else:
            out[key].append(n)
    return {str(k): sorted(out[k]) for k in sorted(out)}, unknown


def trends(G: nx.MultiDiGraph, by: str = "year", *, top: int = TOP, window: int = WINDOW,
           min_papers: int = MIN_PAPERS) -> Trends:
    """Trends of graph ``G`` (rules in the module's docstring). A graph without any paper
    that has a year (or venue) is a :class:`~kg.errors.UsageError`.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_node("technique:x", label="Technique", name="X")
    >>> for i, y in enumerate([2020, 2021, 2022, 2023]):
    ...     G.add_node(f"paper:{i}", label="Paper", year=y)
    ...     if y >= 2022: _ = G.add_edge(f"paper:{i}", "technique:x", type="USES")
    >>> t = trends(G, window=2, min_papers=1)
    >>> [p.key for p in t.periods], t.top["Technique"][0].counts, t.rising[0].change
    (['2020', '2021', '2022', '2023'], (0, 0, 1, 1), 100.0)
    """
    if window < 1 or min_papers < 1:
        raise UsageError("window and min_papers must be at least 1")
    groups, unknown = paper_periods(G, by)
    if not groups:
        raise UsageError(f"no paper of the graph has a {by}: trends need papers with one")
    keys = list(groups)
    per = {k: entity_counts(G, ps) for k, ps in groups.items()}
    sizes = {k: len(ps) for k, ps in groups.items()}
    total: Counter = Counter()
    for c in per.values():
        total.update(c)
    by_label: dict[str, list[str]] = defaultdict(list)
    for e in total:
        if is_entity(G, e):
            by_label[G.nodes[e]["label"]].append(e)
    tops: dict[str, tuple[Series, ...]] = {}
    for lab in ENTITY_LABELS:
        ids = sorted(by_label.get(lab, ()), key=lambda e: (-total[e], e))[:top]
        if ids:
            tops[lab] = tuple(Series(e, lab, G.nodes[e].get("name", e), total[e],
                                     tuple(per[k][e] for k in keys),
                                     tuple(round(per[k][e] / sizes[k], 6) for k in keys)) for e in ids)
    before: tuple[str, ...] = ()
    recent: tuple[str, ...] = ()
    rising: list[Mover] = []
    falling: list[Mover] = []
    if by == "year" and len(keys) >= 2 * window:
        before, recent = tuple(keys[-2 * window:-window]), tuple(keys[-window:])
        nb, nr = sum(sizes[k] for k in before), sum(sizes[k] for k in recent)
        movers = []
        for e in total:
            b, r = sum(per[k][e] for k in before), sum(per[k][e] for k in recent)
            if b + r >= min_papers and is_entity(G, e):
                d = G.nodes[e]
                movers.append(Mover(e, d["label"], d.get("name", e), b, r, round(b / nb, 6), round(r / nr, 6),
                                    round(100 * (r / nr - b / nb), 4),
                                    tuple(round(per[k][e] / sizes[k], 6) for k in keys)))
        rising = sorted((m for m in movers if m.change > 0), key=lambda m: (-m.change, m.id))[:top]
        falling = sorted((m for m in movers if m.change < 0), key=lambda m: (m.change, m.id))[:top]
    return Trends(by, tuple(Period(k, sizes[k]) for k in keys), unknown, tops, before, recent, window, min_papers,
                  tuple(rising), tuple(falling))
