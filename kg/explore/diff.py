"""What changed between two graphs, or two slices of one: entities that are new or gone,
entities whose share of papers grew or shrank most, and technique–task links that are new.

Entities are matched by node id, which is the label and the slug of the canonical name
(``technique:speculative-decoding``), so the same name under the same label is the same entity
in both graphs however each was built. A paper *names* an entity when it links to it, itself
or through what it proposes (:func:`kg.stats.paper_entities`); an entity's *share* is the
papers naming it over the papers of its graph or slice.

Rules:

- *new*: named by papers of NEW and by none of OLD; *vanished*: the other way round. Ranked
  by papers. An entity whose name or alias the other side's entities name (folded as
  :func:`kg.text.fold` folds names: case, dashes, a plural) is one concept under another label
  or name ("Monte Carlo" a Technique in OLD and a Method in NEW): neither new nor vanished, but
  counted as ``same_name``.
- *grown* / *shrunk*: named in both, and by at least ``min_papers`` papers in one of them (so
  that one paper becoming two is not a doubling); ranked by the change of share in percentage
  points (NEW share − OLD share).
- *new links*: a technique T and a task A that at least ``min_link_papers`` papers of NEW both use
  and address (a paper uses T when it, or something it proposes, USES T; it addresses A when
  it, or something it proposes, ADDRESSES A: as the named Cypher queries count them) and no
  paper of OLD does. ``known`` says whether both T and A were already named in OLD. A
  technique and a task that are one concept (a name or alias in common, or one the acronym of
  the other: "test-time adaptation" and "TTA") are not a link.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.explore.slices import (
    Selector,
    describe,
    entity_counts,
    graph_name,
    is_entity,
    papers_of,
    parse_selector,
    uses_and_addresses,
)
from kg.schema import ENTITY_LABELS
from kg.text import fold

if TYPE_CHECKING:
    import networkx as nx

MIN_PAPERS = 5  # grown/shrunk need this many papers on one side
MIN_LINK_PAPERS = 3  # a new technique-task link needs this many papers of NEW
TOP = 10


@dataclass(frozen=True)
class Side:
    """One side of a comparison: its name, the selector that cut it, and its size."""

    name: str
    selector: str
    papers: int
    nodes: int
    edges: int


@dataclass(frozen=True)
class EntityChange:
    id: str
    label: str
    name: str
    old_papers: int
    new_papers: int
    old_share: float
    new_share: float
    change: float  # new_share - old_share, in percentage points


@dataclass(frozen=True)
class LinkChange:
    technique_id: str
    technique: str
    task_id: str
    task: str
    papers: int  # papers of NEW that use the technique and address the task
    known: bool  # both were named in OLD


@dataclass(frozen=True)
class Diff:
    old: Side
    new: Side
    min_papers: int
    min_link_papers: int
    new_entities: dict[str, tuple[EntityChange, ...]]  # per label, the top ranked by papers
    vanished: dict[str, tuple[EntityChange, ...]]
    counts: dict[str, dict[str, int]]  # per label: new, vanished, common, same_name
    grown: tuple[EntityChange, ...]
    shrunk: tuple[EntityChange, ...]
    new_links: tuple[LinkChange, ...]
    new_links_total: int


def side_papers(G: nx.MultiDiGraph, selector: Selector, name: str) -> list[str]:
    """The papers of one side; a selector that keeps none is a :class:`~kg.errors.UsageError`."""
    papers = papers_of(G, selector)
    if not papers:
        what = f"no paper of {name} matches {selector.text!r}" if selector else f"{name} holds no paper"
        raise UsageError(f"{what}; it has {describe(G)}")
    return papers


def names_of(G: nx.MultiDiGraph, node: str) -> list[str]:
    """A node's name and aliases."""
    d = G.nodes[node]
    return [str(n) for n in (d.get("name"), *(d.get("aliases") or ())) if n]


def name_keys(G: nx.MultiDiGraph, node: str) -> set[str]:
    """The folded keys of a node's name and aliases."""
    return {k for k in map(fold, names_of(G, node)) if k}


def is_acronym_of(short: str, name: str) -> bool:
    """Whether ``short`` (two capitals or more, one word, a plural ``s`` allowed) spells the
    initials of ``name``'s words (split at spaces and dashes).

    >>> is_acronym_of("TTA", "test-time adaptation"), is_acronym_of("LLMs", "large language models")
    (True, True)
    >>> is_acronym_of("MoE", "mixture-of-experts"), is_acronym_of("TTA", "test-time training set")
    (True, False)
    >>> is_acronym_of("ImageNet", "image net")
    False
    """
    short = short.strip()
    if " " in short or sum(c.isupper() for c in short) < 2 or not re.fullmatch(r"[A-Za-z0-9]+", short):
        return False
    core = short[:-1] if short.endswith("s") and short[-2:-1].isupper() else short
    if sum(c.islower() for c in core) > len(core) // 2:  # a word with capitals inside, not initials
        return False
    words = [w for w in re.split(r"[\s\-‐–/]+", name.strip()) if w]
    return len(words) >= 2 and "".join(w[0] for w in words).lower() == core.lower()


def same_concept(G: nx.MultiDiGraph, a: str, b: str) -> bool:
    """Whether two nodes of ``G`` name one concept: a folded name or alias in common, or a name
    of one the acronym of a name of the other."""
    if name_keys(G, a) & name_keys(G, b):
        return True
    na, nb = names_of(G, a), names_of(G, b)
    return any(is_acronym_of(x, y) or is_acronym_of(y, x) for x in na for y in nb)


def _links(G: nx.MultiDiGraph, papers: list[str]) -> Counter:
    counts: Counter = Counter()
    for p in papers:
        techniques, tasks = uses_and_addresses(G, p)
        counts.update((t, a) for t in techniques for a in tasks)
    return counts


def diff(old: nx.MultiDiGraph, new: nx.MultiDiGraph, *, old_select: str | Selector | None = None,
         new_select: str | Selector | None = None, old_name: str = "old", new_name: str = "new",
         top: int = TOP, min_papers: int = MIN_PAPERS, min_link_papers: int = MIN_LINK_PAPERS) -> Diff:
    """Compare graph ``old`` (or its slice ``old_select``) with ``new`` (or its slice): the
    rules are in the module's docstring. ``old`` and ``new`` may be the same graph.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> for p, y in [("a", 2023), ("b", 2024)]:
    ...     G.add_node(f"paper:{p}", label="Paper", year=y)
    >>> G.add_node("technique:x", label="Technique", name="X"); G.add_node("task:t", label="Task", name="T")
    >>> _ = G.add_edge("paper:b", "technique:x", type="USES"); _ = G.add_edge("paper:b", "task:t", type="ADDRESSES")
    >>> d = diff(G, G, old_select="year=2023", new_select="year=2024", min_link_papers=1)
    >>> [e.name for e in d.new_entities["Technique"]], d.new_links[0].papers, d.new_links[0].known
    (['X'], 1, False)
    """
    osel = old_select if isinstance(old_select, Selector) else parse_selector(old_select)
    nsel = new_select if isinstance(new_select, Selector) else parse_selector(new_select)
    if min_papers < 1 or min_link_papers < 1:
        raise UsageError(f"the minimum counts of papers must be at least 1, not {min(min_papers, min_link_papers)}")
    op, np_ = side_papers(old, osel, old_name), side_papers(new, nsel, new_name)
    oc = {e: n for e, n in entity_counts(old, op).items() if is_entity(old, e)}
    nc = {e: n for e, n in entity_counts(new, np_).items() if is_entity(new, e)}
    no, nn = len(op), len(np_)

    def change(e: str) -> EntityChange:
        d = new.nodes[e] if e in nc else old.nodes[e]
        os_, ns = oc.get(e, 0) / no, nc.get(e, 0) / nn
        return EntityChange(e, d["label"], d.get("name", e), oc.get(e, 0), nc.get(e, 0), round(os_, 6),
                            round(ns, 6), round(100 * (ns - os_), 4))

    def ranked(ids, side: dict[str, int]) -> list[EntityChange]:
        return [change(e) for e in sorted(ids, key=lambda e: (-side[e], e))]

    counts: dict[str, dict[str, int]] = {}
    new_entities: dict[str, tuple[EntityChange, ...]] = {}
    vanished: dict[str, tuple[EntityChange, ...]] = {}
    label = {e: new.nodes[e]["label"] for e in nc} | {e: old.nodes[e]["label"] for e in oc}
    old_keys = {k for e in oc for k in name_keys(old, e)}
    new_keys = {k for e in nc for k in name_keys(new, e)}
    for lab in ENTITY_LABELS:
        added = [e for e in nc if e not in oc and label[e] == lab]
        gone = [e for e in oc if e not in nc and label[e] == lab]
        named = [e for e in added if name_keys(new, e) & old_keys]  # one concept, another label or node
        added = [e for e in added if e not in set(named)]
        gone = [e for e in gone if not name_keys(old, e) & new_keys]
        common = sum(1 for e in nc if e in oc and label[e] == lab)
        if added or gone or common or named:
            counts[lab] = {"new": len(added), "vanished": len(gone), "common": common, "same_name": len(named)}
        if added:
            new_entities[lab] = tuple(ranked(added, nc)[:top])
        if gone:
            vanished[lab] = tuple(ranked(gone, oc)[:top])
    both = [change(e) for e in nc if e in oc and max(nc[e], oc[e]) >= min_papers]
    grown = sorted((c for c in both if c.change > 0), key=lambda c: (-c.change, c.id))[:top]
    shrunk = sorted((c for c in both if c.change < 0), key=lambda c: (c.change, c.id))[:top]

    ol, nl = _links(old, op), _links(new, np_)
    fresh = sorted(((pair, n) for pair, n in nl.items()
                    if n >= min_link_papers and pair not in ol and not same_concept(new, *pair)),
                   key=lambda x: (-x[1], x[0]))
    links = tuple(LinkChange(t, new.nodes[t].get("name", t), a, new.nodes[a].get("name", a), n,
                             t in oc and a in oc) for (t, a), n in fresh[:top])

    def side(G: nx.MultiDiGraph, sel: Selector, name: str, papers: int) -> Side:
        return Side(name, sel.text, papers, G.number_of_nodes(), G.number_of_edges())

    return Diff(side(old, osel, old_name, no), side(new, nsel, new_name, nn), min_papers, min_link_papers,
                new_entities,
                vanished, counts, tuple(grown), tuple(shrunk), links, len(fresh))


def side_name(folder: Path, manifest: dict, selector: str | None, same: bool) -> str:
    """What a side is called: its graph's name, the selector, or both."""
    sel = (selector or "").strip()
    base = graph_name(folder, manifest)
    if not sel or sel.lower() == "all":
        return base
    return sel if same else f"{base} [{sel}]"


def diff_folders(old: str | Path, new: str | Path | None = None, *, old_select: str | None = None,
                 new_select: str | None = None, top: int = TOP, min_papers: int = MIN_PAPERS,
                 min_link_papers: int = MIN_LINK_PAPERS) -> Diff:
    """:func:`diff` of two graph folders, or of two slices of one (``new`` None or equal)."""
    from kg.io.format import load_graph, read_manifest

    old, new = Path(old), Path(new) if new is not None else Path(old)
    same = old.resolve() == new.resolve()
    G_old = load_graph(old)
    G_new = G_old if same else load_graph(new)
    so, sn = parse_selector(old_select), parse_selector(new_select)
    if same and (so.years, so.venues) == (sn.years, sn.venues):
        raise UsageError(f"both sides are the whole of {old}: give two folders, or --old and --new selectors")
    mo, mn = read_manifest(old), read_manifest(new)
    return diff(G_old, G_new, old_select=so, new_select=sn,
                old_name=side_name(old, mo, old_select, same), new_name=side_name(new, mn, new_select, same),
                top=top, min_papers=min_papers, min_link_papers=min_link_papers)
