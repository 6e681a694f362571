"""A map of the field: the entities papers name (techniques, tasks, datasets, models, methods),
linked by the papers that name them together, grouped into areas.

The rules:

- a paper *names* an entity when it links to it, itself or through what it proposes
  (:func:`kg.stats.paper_entities`, as ``kg diff`` and ``kg show`` count); the link is a
  *stated role* when it is PROPOSES, USES, ADDRESSES or EVALUATED_ON, else a mention;
- the map keeps the ``max_nodes`` entities named by the most papers (ties by id);
- two entities are linked by the papers naming both: each paper adds 1 when it states a role
  for both, :data:`MENTION_WEIGHT` otherwise;
- areas are the Louvain communities of that weighted graph (networkx, fixed seed), on the
  links' association strength (weight over the geometric mean of the two entities' papers,
  so that the broadest entities do not pull every area into theirs);
- an area is named by its most central members (the largest sum of link weights inside it),
  skipping a name that repeats one already chosen (``language model`` after ``large
  language model``).

With an older graph or slice to compare with (:func:`changes_between`), an entity is *new*
when no paper of the old side names it, *grown* when its share of papers is at least
:data:`GROWTH` times the old one and larger than chance would make it (:func:`growth_z` at
least :data:`MIN_Z`); both need :data:`MIN_PAPERS` papers; a fifth of the map's
places go to the new and grown entities named by the most papers, so that they are drawn
even when older, larger entities would fill the map.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> for i in range(4):
...     G.add_node(f"paper:p{i}", label="Paper")
>>> for e in ("technique:a", "technique:b", "task:c", "task:d"):
...     G.add_node(e, label=e.split(":")[0].title(), name=e.split(":")[1].upper())
>>> for p, e in [(0, "technique:a"), (0, "technique:b"), (1, "technique:a"), (1, "technique:b"),
...              (2, "task:c"), (2, "task:d"), (3, "task:c"), (3, "task:d")]:
...     _ = G.add_edge(f"paper:p{p}", e, key="USES", type="USES")
>>> m = field_map(G)
>>> [a.name for a in m.areas], m.weights[("technique:a", "technique:b")]
(['C · D', 'A · B'], 2.0)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import UsageError

if TYPE_CHECKING:
    import networkx as nx

    from kg.explore.slices import Selector

MAP_LABELS = ("Technique", "Task", "Dataset", "Model", "Method")
ROLES = ("PROPOSES", "USES", "ADDRESSES", "EVALUATED_ON")  # stated roles, strongest first
MENTION_WEIGHT = 0.5  # a paper that only mentions one of two entities links them half as much
SEED = 7  # Louvain's and the layout's random seed: the same graph gives the same map
RESOLUTION = 1.0  # Louvain's resolution: higher gives more, smaller areas
NAMES = 3  # members that name an area
GROWTH = 1.5  # an entity has grown when its share of papers is at least this many times the old one,
MIN_Z = 3.0  # ... larger than chance would make it (a two-proportion z score at least this),
MIN_PAPERS = 5  # ... and it is named by at least this many papers (new ones too)
NEW_SHARE = 5  # with a comparison, up to 1/NEW_SHARE of the map's places go to new and grown entities


@dataclass(frozen=True)
class Link:
    """How one paper names one entity: the relation, the proposal it goes through (None when
    the paper itself links to the entity), and the evidence sentence."""

    paper: str
    entity: str
    role: str
    via: str | None = None
    evidence: str | None = None

    @property
    def stated(self) -> bool:
        return self.role in ROLES


@dataclass(frozen=True)
class Area:
    """One community of the map: its number (largest first), its name, its members (the most
    central first) and the papers naming any of them."""

    id: int
    name: str
    members: tuple[str, ...]
    papers: int


@dataclass(frozen=True)
class Change:
    """An entity's papers and share of papers on the old side and on the map's side, and its
    status: ``new``, ``grown`` or ``""``."""

    old_papers: int
    new_papers: int
    old_share: float
    new_share: float
    status: str


@dataclass(frozen=True)
class FieldMap:
    """What the map draws. ``weights`` and ``pairs`` are keyed by sorted id pairs;
    ``links`` holds, per entity, every paper naming it (stated roles first, then by paper)."""

    entities: tuple[str, ...]
    papers: dict[str, int]
    weights: dict[tuple[str, str], float]
    pairs: dict[tuple[str, str], tuple[str, ...]]
    areas: tuple[Area, ...]
    area_of: dict[str, int]
    links: dict[str, tuple[Link, ...]]
    total_papers: int
    candidates: int
    changes: dict[str, Change] = field(default_factory=dict)
    compared_with: str | None = None


def _rank(link: Link) -> tuple:
    role = ROLES.index(link.role) if link.role in ROLES else len(ROLES)
    return (role, link.via is not None, link.role, link.via or "", link.evidence or "")


def paper_links(G: nx.MultiDiGraph, paper: str, labels: tuple[str, ...] = MAP_LABELS) -> dict[str, Link]:
    """Per entity of ``labels`` that ``paper`` names, the strongest link: a stated role before
    a mention, the paper's own edge before one through its proposal."""
    pid = paper.split(":", 1)[1]
    nodes = G.nodes
    found: dict[str, list[Link]] = defaultdict(list)
    for _, v, d in G.out_edges(paper, data=True):
        lab = nodes[v].get("label")
        kind = str(d.get("type") or "")
        if lab in labels:
            found[v].append(Link(paper, v, kind, None, _text(d.get("evidence"))))
        if kind == "PROPOSES":
            for _, w, e in G.out_edges(v, data=True):
                if e.get("paper") == pid and nodes[w].get("label") in labels and w != v:
                    found[w].append(Link(paper, w, str(e.get("type") or ""), v, _text(e.get("evidence"))))
    return {e: min(ls, key=_rank) for e, ls in found.items()}


def _text(v) -> str | None:
    return v if isinstance(v, str) and v else None


def all_links(G: nx.MultiDiGraph, papers: list[str]) -> dict[str, dict[str, Link]]:
    """:func:`paper_links` of each paper."""
    return {p: paper_links(G, p) for p in papers}


def _keep(counts: Counter, max_nodes: int, favoured: list[str]) -> list[str]:
    ranked = sorted(counts, key=lambda e: (-counts[e], e))
    if not max_nodes:
        return ranked
    reserved = sorted(favoured, key=lambda e: (-counts[e], e))[: max_nodes // NEW_SHARE]
    keep = set(reserved)
    for e in ranked:
        if len(keep) >= max_nodes:
            break
        keep.add(e)
    return sorted(keep, key=lambda e: (-counts[e], e))


def field_map(G: nx.MultiDiGraph, papers: list[str] | None = None, max_nodes: int = 300,
              old: tuple[nx.MultiDiGraph, list[str], str] | None = None,
              resolution: float = RESOLUTION, min_papers: int = MIN_PAPERS, min_z: float = MIN_Z) -> FieldMap:
    """The map of ``papers`` (default: every paper of ``G``), as the module's rules say;
    ``old`` is ``(graph, its papers, its name)`` to compare with."""
    import networkx as nx

    if max_nodes < 0:
        raise UsageError(f"the most entities drawn must be 0 (all) or more, not {max_nodes}")
    if papers is None:
        papers = sorted(n for n, d in G.nodes(data=True) if d.get("label") == "Paper")
    links = all_links(G, papers)
    counts: Counter = Counter()
    for per in links.values():
        counts.update(per.keys())
    changes = changes_between(old, counts, len(papers), min_papers, min_z) if old is not None else {}
    favoured = [e for e, c in changes.items() if c.status]
    entities = _keep(counts, max_nodes, favoured)
    keep = set(entities)
    weights: dict[tuple[str, str], float] = defaultdict(float)
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    by_entity: dict[str, list[Link]] = defaultdict(list)
    for p in papers:
        per = {e: lk for e, lk in links[p].items() if e in keep}
        for e, lk in per.items():
            by_entity[e].append(lk)
        for a, b in combinations(sorted(per), 2):
            both = per[a].stated and per[b].stated
            weights[(a, b)] += 1.0 if both else MENTION_WEIGHT
            pairs[(a, b)].append(p)
    H = nx.Graph()
    H.add_nodes_from(entities)
    for (a, b), w in sorted(weights.items()):
        H.add_edge(a, b, weight=w, assoc=w / (counts[a] * counts[b]) ** 0.5)
    areas = _areas(G, H, links, papers, counts, resolution)
    area_of = {e: a.id for a in areas for e in a.members}
    return FieldMap(tuple(entities), {e: counts[e] for e in entities}, dict(weights),
                    {k: tuple(v) for k, v in pairs.items()}, areas, area_of,
                    {e: tuple(sorted(ls, key=lambda lk: (not lk.stated, lk.paper))) for e, ls in by_entity.items()},
                    len(papers), len(counts), {e: c for e, c in changes.items() if e in keep},
                    old[2] if old is not None else None)


def _areas(G, H, links, papers, counts, resolution) -> tuple[Area, ...]:
    import networkx as nx

    if H.number_of_nodes() == 0:
        return ()
    found = nx.community.louvain_communities(H, weight="assoc", seed=SEED, resolution=resolution)
    named = []
    for members in found:
        strength = {e: sum(d["weight"] for v, d in H[e].items() if v in members) for e in members}
        order = tuple(sorted(members, key=lambda e: (-strength[e], -counts[e], e)))
        n_papers = sum(1 for p in papers if any(e in members for e in links[p]))
        named.append((order, n_papers))
    named.sort(key=lambda x: (-x[1], -len(x[0]), x[0][0]))
    return tuple(Area(i, area_name(G, order), order, n) for i, (order, n) in enumerate(named))


def area_name(G: nx.MultiDiGraph, members: tuple[str, ...], names: int = NAMES) -> str:
    """The names of an area's first members, joined by `` · ``; a name that contains, or is
    contained in, one already chosen is skipped."""
    chosen: list[str] = []
    for e in members:
        name = str(G.nodes[e].get("name") or e)
        low = name.lower()
        if any(low in c.lower() or c.lower() in low for c in chosen):
            continue
        chosen.append(name)
        if len(chosen) == names:
            break
    return " · ".join(chosen)


def changes_between(old: tuple[nx.MultiDiGraph, list[str], str], counts: Counter, total: int,
                    min_papers: int = MIN_PAPERS, min_z: float = MIN_Z) -> dict[str, Change]:
    """Per entity of the map's side, its :class:`Change` against ``old`` (graph, papers, name)."""
    G_old, old_papers, _ = old
    before: Counter = Counter()
    for p in old_papers:
        before.update(paper_links(G_old, p).keys())
    n_old, out = max(len(old_papers), 1), {}
    for e, n in counts.items():
        o = before.get(e, 0)
        os_, ns = o / n_old, n / max(total, 1)
        status = ""
        if n >= min_papers and o == 0:
            status = "new"
        elif n >= min_papers and ns >= GROWTH * os_ and growth_z(o, n_old, n, max(total, 1)) >= min_z:
            status = "grown"
        out[e] = Change(o, n, round(os_, 6), round(ns, 6), status)
    return out


def growth_z(old: int, old_total: int, new: int, new_total: int) -> float:
    """The two-proportion z score of a share of papers going from ``old/old_total`` to
    ``new/new_total``: how many standard errors the change is (pooled proportion).

    >>> round(growth_z(10, 1000, 30, 1000), 2), round(growth_z(2, 1000, 5, 1000), 2)
    (3.19, 1.14)
    """
    p = (old + new) / (old_total + new_total)
    se = (p * (1 - p) * (1 / old_total + 1 / new_total)) ** 0.5
    return (new / new_total - old / old_total) / se if se else 0.0


def old_side(G: nx.MultiDiGraph, spec: str | Path, folder: Path | None = None,
             current: Selector | None = None) -> tuple[nx.MultiDiGraph, list[str], str]:
    """What a map is compared with: ``spec`` names another graph folder (all its papers), or a
    slice of ``G`` (a selector such as ``year=2023``); ``(graph, papers, name)``."""
    from kg.explore.diff import side_papers
    from kg.explore.slices import graph_name, parse_selector

    path = Path(spec)
    if path.is_dir():
        from kg.io.format import load_graph, read_manifest

        if folder is not None and path.resolve() == Path(folder).resolve() and not current:
            raise UsageError(f"{spec} is the graph drawn: compare with another folder, or a slice such as year=2023")
        old = load_graph(path)
        name = graph_name(path, read_manifest(path))
        return old, side_papers(old, parse_selector(None), name), name
    if "=" not in str(spec):
        raise UsageError(f"{str(spec)!r} is neither a graph folder nor a slice of this graph "
                         "(year=2023, year=2021-2023, venue=ICML 2023)")
    sel = parse_selector(str(spec))
    return G, side_papers(G, sel, "the graph"), sel.text


__all__ = ["GROWTH", "MAP_LABELS", "MENTION_WEIGHT", "MIN_PAPERS", "ROLES", "SEED", "Area", "Change",
           "FieldMap", "Link", "all_links", "area_name", "changes_between", "field_map", "growth_z", "old_side", "paper_links"]
