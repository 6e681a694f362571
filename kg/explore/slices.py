"""Slices of a graph: the papers a small selector names, what each paper names, and the name a
graph goes by in titles.

A selector is one or more conditions joined by ``;``, all of which a paper must meet; a
condition may list alternatives with ``|``:

- ``year=2024``, ``year=2021-2023`` (inclusive), ``year=2019|2024``: the paper's year;
- ``venue=ICML 2024``: the venue it was published in, case-insensitive; ``venue=ICML`` names
  every edition (a venue name without its trailing year, or with the paper's year added,
  matches too, so lists that give ``venue`` and ``year`` apart select the same way);
- ``all`` or the empty string: every paper.

>>> s = parse_selector("venue=ICML 2024|ICLR 2024; year=2024")
>>> s.venues, s.years
(('icml 2024', 'iclr 2024'), (2024,))
>>> parse_selector("year=2021-2023").years
(2021, 2022, 2023)
>>> parse_selector("colour=red")
Traceback (most recent call last):
...
kg.errors.UsageError: selector 'colour=red': unknown key 'colour'; use year=2024, year=2021-2023 or venue=ICML 2024 (join conditions with ;)
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.schema import ENTITY_LABELS
from kg.stats import paper_entities

if TYPE_CHECKING:
    import networkx as nx

_HELP = "use year=2024, year=2021-2023 or venue=ICML 2024 (join conditions with ;)"
_TRAILING_YEAR = re.compile(r"\s+(?:19|20)\d\d$")


@dataclass(frozen=True)
class Selector:
    """Which papers a slice holds: years and venues (lower-case) it allows; empty allows all."""

    text: str = ""
    years: tuple[int, ...] = ()
    venues: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.years or self.venues)


def parse_selector(text: str | None) -> Selector:
    """The :class:`Selector` a text names (syntax in the module's docstring); a malformed one
    is a :class:`~kg.errors.UsageError`."""
    text = (text or "").strip()
    if text.lower() in ("", "all"):
        return Selector(text)
    years: list[int] = []
    venues: list[str] = []
    for cond in filter(None, (c.strip() for c in text.split(";"))):
        key, sep, value = cond.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or not value:
            raise UsageError(f"selector {text!r}: {cond!r} is not key=value; {_HELP}")
        alts = [a.strip() for a in value.split("|") if a.strip()]
        if key == "year":
            for a in alts:
                years.extend(_years(text, a))
        elif key == "venue":
            venues.extend(" ".join(a.lower().split()) for a in alts)
        else:
            raise UsageError(f"selector {text!r}: unknown key {key!r}; {_HELP}")
    return Selector(text, tuple(sorted(set(years))), tuple(dict.fromkeys(venues)))


def _years(text: str, value: str) -> list[int]:
    m = re.fullmatch(r"(\d{4})(?:\s*(?:-|\.\.)\s*(\d{4}))?", value)
    if not m:
        raise UsageError(f"selector {text!r}: {value!r} is not a year or a range such as 2021-2023")
    lo, hi = int(m[1]), int(m[2] or m[1])
    if hi < lo:
        raise UsageError(f"selector {text!r}: the range {value!r} ends before it starts")
    return list(range(lo, hi + 1))


def paper_venue(G: nx.MultiDiGraph, paper: str) -> str | None:
    """The name of the venue a paper node is PUBLISHED_IN, if any."""
    for _, v, d in G.out_edges(paper, data=True):
        if d.get("type") == "PUBLISHED_IN":
            return G.nodes[v].get("name")
    return None


def venue_series(name: str) -> str:
    """A venue's name without its edition year: ``ICML 2024`` → ``ICML``."""
    return _TRAILING_YEAR.sub("", name.strip())


def _venue_matches(wanted: tuple[str, ...], venue: str | None, year: int | None) -> bool:
    if venue is None:
        return False
    name = " ".join(venue.lower().split())
    forms = {name, venue_series(name)}
    if year is not None:
        forms.add(f"{venue_series(name)} {year}")
    return any(w in forms for w in wanted)


def papers_of(G: nx.MultiDiGraph, selector: Selector | str | None = None) -> list[str]:
    """The paper nodes a selector keeps, sorted."""
    sel = selector if isinstance(selector, Selector) else parse_selector(selector)
    out = []
    for n, d in G.nodes(data=True):
        if d.get("label") != "Paper":
            continue
        year = d.get("year")
        if sel.years and year not in sel.years:
            continue
        if sel.venues and not _venue_matches(sel.venues, paper_venue(G, n), year):
            continue
        out.append(n)
    return sorted(out)


def describe(G: nx.MultiDiGraph) -> str:
    """What a graph's papers offer to select on: its years and venues (for error messages)."""
    years = Counter(d.get("year") for _, d in G.nodes(data=True) if d.get("label") == "Paper")
    venues = sorted({d["name"] for _, d in G.nodes(data=True) if d.get("label") == "Venue"})
    known = sorted(y for y in years if y is not None)
    ys = f"years {known[0]}-{known[-1]}" if known else "no years"
    vs = ", ".join(venues[:6]) + (f" and {len(venues) - 6} more" if len(venues) > 6 else "") if venues else "no venues"
    return f"{ys}; venues {vs}"


def entity_counts(G: nx.MultiDiGraph, papers: list[str]) -> Counter:
    """Per entity node, how many of ``papers`` name it (directly or through what they
    propose: :func:`kg.stats.paper_entities`)."""
    counts: Counter = Counter()
    for p in papers:
        counts.update(paper_entities(G, p))
    return counts


def uses_and_addresses(G: nx.MultiDiGraph, paper: str) -> tuple[set[str], set[str]]:
    """The techniques a paper uses and the tasks it addresses, as the named queries define
    them: ``(p:Paper)-[:PROPOSES*0..1]->()-[:USES]->(t:Technique)`` and
    ``(p)-[:PROPOSES*0..1]->()-[:ADDRESSES]->(a:Task)``."""
    nodes = G.nodes
    sources = [paper] + [v for _, v, d in G.out_edges(paper, data=True) if d.get("type") == "PROPOSES"]
    techniques, tasks = set(), set()
    for s in sources:
        for _, v, d in G.out_edges(s, data=True):
            t, lab = d.get("type"), nodes[v].get("label")
            if t == "USES" and lab == "Technique":
                techniques.add(v)
            elif t == "ADDRESSES" and lab == "Task":
                tasks.add(v)
    return techniques, tasks


def is_entity(G: nx.MultiDiGraph, node: str) -> bool:
    return G.nodes[node].get("label") in ENTITY_LABELS


def graph_name(folder: str | Path, manifest: dict | None = None) -> str:
    """What titles call a graph folder: the input lists it was built from (up to three, without
    their extensions), else the folder's name."""
    sources = [Path(s).name.split(".")[0] for s in (manifest or {}).get("sources", [])]
    if 0 < len(sources) <= 3:
        return " + ".join(sources)
    return Path(folder).resolve().name or str(folder)
