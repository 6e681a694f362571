"""Finding one entity or paper by what a reader calls it, and everything the graph says about it.

A name is looked up case-, hyphen- and space-insensitively (``Low-Rank Adaptation``,
``low rank adaptation`` and ``lora`` all find LoRA when the graph has those names), against
node ids, canonical names, aliases and paper titles:

1. a node id (``method:lora``, or a paper's id with or without ``paper:``) is that node;
2. otherwise the nodes whose name (a paper's title) folds to the same key are the matches;
3. otherwise the nodes with such an alias.

All nodes of the first tier that matches are shown (one name can be a Method and a Task, or
two senses); the exact matches of a later tier are listed as ``also``. When nothing matches
exactly, :class:`~kg.errors.NotFound` carries ranked suggestions: names and aliases that
start a word with the text, then close spellings (``difflib``), more papers first.

>>> from kg.records import Paper, Entity, Relation, Extraction
>>> from kg.graph import build_graph
>>> ex = Extraction(Paper("p1", "We use low-rank adaptation (LoRA).", title="Tuning", venue="ICLR 2024", year=2024),
...                 (Entity("method:lora", "Method", "LoRA", ("low-rank adaptation",)),),
...                 (Relation("USES", "p1", "method:lora"),))
>>> G = build_graph([ex])
>>> [m.name for m in show(G, "Low Rank Adaptation").matches]
['LoRA']
>>> show(G, "lora").matches[0].papers[0].roles
('USES',)
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kg.errors import NotFound
from kg.schema import RELATIONS
from kg.text import fold

if TYPE_CHECKING:
    import networkx as nx

#: rows shown per relation type (and papers shown) unless asked otherwise
DEFAULT_LIMIT = 10
#: suggestions offered when nothing matches
SUGGESTIONS = 5
#: labels never looked up by name (their names are generated, e.g. "1 points ROUGE-1")
UNNAMED = frozenset({"Result"})
#: the order of edge types in a view: what a paper proposes first, a bare mention last
ROLE_ORDER = ("PROPOSES", *(t for t in RELATIONS if t not in ("PROPOSES", "MENTIONS")), "MENTIONS")
#: edges shown in their own sections of an entity, not among its relations
TAXONOMY = ("VARIANT_OF", "BROADER")


def key(text: str) -> str:
    """The lookup key of a name: case-folded, dashes, underscores and spaces as one space,
    the last word singular (:func:`kg.text.fold`).

    >>> key("Low-Rank Adaptation") == key("low rank  adaptation") == key("low-rank_adaptations")
    True
    """
    return fold(text) or text.strip().lower()


# ---------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A node as a row names it."""

    id: str
    label: str
    name: str


@dataclass(frozen=True, slots=True)
class PaperRef:
    """A paper as a row names it."""

    id: str
    title: str
    venue: str | None = None
    year: int | None = None


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """One edge: its type, ends, the paper that states it and the sentence that does."""

    type: str
    source: NodeRef
    target: NodeRef
    paper: PaperRef | None = None
    evidence: str | None = None


@dataclass(frozen=True, slots=True)
class Group:
    """Edges of one type in one direction: ``out`` from the node, ``in`` to it, or, for a
    paper, ``stated`` (between two entities, as the paper states it). ``total`` counts them
    all; ``edges`` holds at most the limit asked for."""

    type: str
    direction: str
    total: int
    edges: tuple[EdgeRow, ...]


@dataclass(frozen=True, slots=True)
class PaperRole:
    """A paper that names an entity: how (edge types, PROPOSES first) and one sentence."""

    paper: PaperRef
    roles: tuple[str, ...]
    evidence: str | None = None


@dataclass(frozen=True, slots=True)
class EntityView:
    """Everything the graph says about one entity (or venue, author)."""

    id: str
    label: str
    name: str
    aliases: tuple[str, ...]
    paper_count: int  # papers that name it (the node's ``papers``)
    papers: tuple[PaperRole, ...]  # at most the limit, proposers first
    papers_total: int
    proposed_by: tuple[PaperRef, ...]
    variants: tuple[NodeRef, ...]  # VARIANT_OF into it
    family: tuple[NodeRef, ...]  # VARIANT_OF out of it
    broader: tuple[NodeRef, ...]
    narrower: tuple[NodeRef, ...]
    relations: tuple[Group, ...]
    props: tuple[tuple[str, Any], ...] = ()  # other properties (model family, size; url)
    kind: str = "entity"


@dataclass(frozen=True, slots=True)
class PaperView:
    """Everything the graph says about one paper."""

    id: str
    title: str
    venue: str | None
    year: int | None
    url: str | None
    authors: tuple[str, ...]
    proposes: tuple[NodeRef, ...]
    relations: tuple[Group, ...]
    kind: str = "paper"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node a text may mean, and why: ``id``, ``name``, ``alias``, ``title`` (exact),
    ``prefix`` or ``fuzzy``."""

    node: NodeRef
    match: str
    papers: int = 0
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class ShowResult:
    """What ``kg show TEXT`` prints: the matching nodes, and other exact matches of a weaker
    kind (an alias when a name matched)."""

    query: str
    matches: tuple[EntityView | PaperView, ...]
    also: tuple[Candidate, ...] = ()


# ---------------------------------------------------------------- the index


class Index:
    """Names, aliases, titles and ids of a graph's nodes by lookup key, and each paper's
    venue; made once per graph (:func:`index_of`)."""

    def __init__(self, G: nx.MultiDiGraph):
        self.G = G
        self.ids: dict[str, str] = {}
        self.names: dict[str, list[str]] = defaultdict(list)
        self.aliases: dict[str, list[str]] = defaultdict(list)
        for n, d in G.nodes(data=True):
            self.ids[n.lower()] = n
            if d.get("label") in UNNAMED:
                continue
            self.names[key(str(d.get("name") or n))].append(n)
            for a in d.get("aliases") or ():
                k = key(a)
                if n not in self.aliases[k]:
                    self.aliases[k].append(n)
        for n, d in G.nodes(data=True):
            if d.get("label") == "Paper":
                self.ids.setdefault(n.partition(":")[2].lower(), n)

    @cached_property
    def venues(self) -> dict[str, str]:
        """Each paper's venue name (its PUBLISHED_IN edge)."""
        return {u: self.G.nodes[v].get("name", v) for u, v, d in self.G.edges(data=True)
                if d.get("type") == "PUBLISHED_IN"}

    @cached_property
    def keys(self) -> list[tuple[str, str, str]]:
        """(key, node, name or alias) for fuzzy matching, names first."""
        return ([(k, n, "name") for k, ns in self.names.items() for n in ns]
                + [(k, n, "alias") for k, ns in self.aliases.items() for n in ns])

    def ref(self, n: str) -> NodeRef:
        d = self.G.nodes[n]
        return NodeRef(n, d.get("label", ""), str(d.get("name") or n))

    def paper(self, n: str) -> PaperRef:
        d = self.G.nodes[n]
        return PaperRef(n, d.get("title") or d.get("name") or n, self.venues.get(n), d.get("year"))

    def papers(self, n: str) -> int:
        d = self.G.nodes[n]
        return 1 if d.get("label") == "Paper" else int(d.get("papers") or 0)

    def candidate(self, n: str, match: str, score: float = 1.0) -> Candidate:
        return Candidate(self.ref(n), match, self.papers(n), round(score, 3))

    def exact(self, text: str) -> list[list[Candidate]]:
        """The exact matches of ``text``, tier by tier (id, name or title, alias); a node
        appears in its first tier only."""
        seen: set[str] = set()
        tiers: list[list[Candidate]] = []
        k = key(text)
        node = self.ids.get(text.strip().lower())
        for match, nodes in (("id", [node] if node else []), ("name", self.names.get(k, [])),
                             ("alias", self.aliases.get(k, []))):
            fresh = sorted((n for n in nodes if n not in seen), key=lambda n: (-self.papers(n), n))
            seen.update(fresh)
            tiers.append([self.candidate(n, "title" if match == "name" and self.G.nodes[n].get("label") == "Paper"
                                         else match) for n in fresh])
        return [t for t in tiers if t]

    def suggest(self, text: str, n: int = SUGGESTIONS) -> list[Candidate]:
        """Nodes ``text`` may mean when nothing matches exactly: names and aliases with a word
        that starts with it (score 0.7 to 1, by how much of the name it covers) and close
        spellings (difflib's ratio, at least 0.6); the best score of each node, more papers
        first among equal scores."""
        k = key(text)
        if not k:
            return []
        best: dict[str, tuple[float, str]] = {}
        start = re.compile(r"(?<!\w)" + re.escape(k))
        matcher = difflib.SequenceMatcher(b=k, autojunk=False)
        for cand, node, _ in self.keys:
            if start.search(cand):  # the more of the name the text covers, the better
                score = 0.7 + 0.3 * len(k) / max(len(cand), 1)
                how = "prefix"
            else:
                matcher.set_seq1(cand)
                if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
                    continue
                score = matcher.ratio()
                if score < 0.6:
                    continue
                how = "fuzzy"
            if score > best.get(node, (0.0, ""))[0]:
                best[node] = (score, how)
        ranked = sorted(best, key=lambda m: (-round(best[m][0], 3), -self.papers(m), m))
        return [self.candidate(m, best[m][1], best[m][0]) for m in ranked[:n]]

    def resolve(self, text: str) -> tuple[list[Candidate], list[Candidate]]:
        """The nodes ``text`` names (the first tier of exact matches) and the other exact
        matches; :class:`~kg.errors.NotFound` with suggestions when there is none."""
        tiers = self.exact(text)
        if not tiers:
            suggestions = self.suggest(text)
            raise NotFound(not_found_message(text, suggestions), tuple(suggestions))
        return tiers[0], [c for t in tiers[1:] for c in t]


def not_found_message(text: str, suggestions: Iterable[Candidate]) -> str:
    """``no entity or paper named X; did you mean: A (Method), B (Task)?``"""
    shown = [f"{c.node.name} ({c.node.label})" for c in suggestions]
    hint = f"; did you mean: {', '.join(shown)}?" if shown else "; try kg search TEXT (Graph.search(text) in Python)"
    return f"no entity or paper named {text!r}{hint}"


_INDEXES: dict[int, tuple[Any, Index]] = {}


def index_of(G: nx.MultiDiGraph) -> Index:
    """The index of ``G``, made on first use and kept while ``G`` lives (the graph is not
    expected to change after loading)."""
    hit = _INDEXES.get(id(G))
    if hit is not None and hit[0] is G:
        return hit[1]
    idx = Index(G)
    _INDEXES.clear()  # one graph at a time: a command looks at one
    _INDEXES[id(G)] = (G, idx)
    return idx


def find(G: nx.MultiDiGraph, text: str) -> list[Candidate]:
    """The nodes ``text`` names, as :func:`show` finds them; :class:`~kg.errors.NotFound`
    (with ranked suggestions) when none.

    >>> from kg.graph import build_graph
    >>> from kg.records import Paper, Entity, Extraction
    >>> G = build_graph([Extraction(Paper("p", "x"), (Entity("task:qa", "Task", "question answering"),))])
    >>> [c.node.id for c in find(G, "Question-Answering")]
    ['task:qa']
    """
    return index_of(G).resolve(text)[0]


# ---------------------------------------------------------------- views


def show(G: nx.MultiDiGraph, text: str, limit: int = DEFAULT_LIMIT) -> ShowResult:
    """Every node ``text`` names (see the module's docstring), each with what the graph says
    about it; ``limit`` caps the rows per relation type and the papers listed."""
    idx = index_of(G)
    first, also = idx.resolve(text)
    views = [paper_view(idx, c.node.id, limit) if c.node.label == "Paper" else entity_view(idx, c.node.id, limit)
             for c in first]
    return ShowResult(text, tuple(views), tuple(also))


def _edges(G: nx.MultiDiGraph, n: str) -> Iterator[tuple[str, str, dict, str]]:
    """(source, target, data, direction) of every edge at ``n``."""
    for u, v, d in G.out_edges(n, data=True):
        yield u, v, d, "out"
    for u, v, d in G.in_edges(n, data=True):
        if u != v:
            yield u, v, d, "in"


def _row(idx: Index, u: str, v: str, d: dict) -> EdgeRow:
    pid = f"paper:{d['paper']}" if d.get("paper") else None
    paper = idx.paper(pid) if pid in idx.G else None
    return EdgeRow(d.get("type", ""), idx.ref(u), idx.ref(v), paper, d.get("evidence"))


def _groups(idx: Index, rows: Iterable[tuple[str, str, str, dict]], limit: int) -> tuple[Group, ...]:
    """Rows (direction, source, target, data) grouped by type and direction, in the schema's
    order of types, out before in; evidence-bearing rows first, then by the other end's name."""
    by: dict[tuple[str, str], list[tuple[str, str, dict]]] = defaultdict(list)
    for direction, u, v, d in rows:
        by[(d.get("type", ""), direction)].append((u, v, d))
    order = {t: i for i, t in enumerate(ROLE_ORDER)}
    out = []
    for (rtype, direction), edges in sorted(by.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0][1] != "out",
                                                                       kv[0][1])):
        def sort_key(e, direction=direction):
            other = e[1] if direction != "in" else e[0]
            return (e[2].get("evidence") is None, str(idx.G.nodes[other].get("name", other)).lower(),
                    str(e[2].get("paper", "")))
        edges.sort(key=sort_key)
        out.append(Group(rtype, direction, len(edges), tuple(_row(idx, u, v, d) for u, v, d in edges[:limit])))
    return tuple(out)


def entity_view(idx: Index, n: str, limit: int = DEFAULT_LIMIT) -> EntityView:
    """What the graph says about entity ``n``: the papers that name it (directly, or through
    an edge between entities that a paper states), who proposes it, its taxonomy and its
    other edges grouped by type."""
    G = idx.G
    d = G.nodes[n]
    roles: dict[str, set[str]] = defaultdict(set)
    evidence: dict[str, tuple[int, str]] = {}
    taxonomy: dict[tuple[str, str], list[str]] = defaultdict(list)
    rows = []
    order = {t: i for i, t in enumerate(ROLE_ORDER)}
    for u, v, e, direction in _edges(G, n):
        other = v if direction == "out" else u
        rtype = e.get("type", "")
        olabel = G.nodes[other].get("label")
        paper = other if olabel == "Paper" else (f"paper:{e['paper']}" if e.get("paper") else None)
        if paper in G and olabel != "Result":  # a numeric claim's edges are listed, not roles
            roles[paper].add(rtype)
            rank = order.get(rtype, 99)
            if e.get("evidence") and (paper not in evidence or rank < evidence[paper][0]):
                evidence[paper] = (rank, e["evidence"])
        if rtype in TAXONOMY:
            taxonomy[(rtype, direction)].append(other)
        elif olabel != "Paper":
            rows.append((direction, u, v, e))
    papers = sorted(roles, key=lambda p: (min(order.get(r, 99) for r in roles[p]),
                                          -(G.nodes[p].get("year") or 0), idx.paper(p).title.lower()))
    refs = lambda ns: tuple(sorted((idx.ref(m) for m in set(ns)), key=lambda r: (r.name.lower(), r.id)))  # noqa: E731
    proposers = [p for p in papers if "PROPOSES" in roles[p]]  # only a paper's own edge PROPOSES
    skip = {"label", "name", "aliases", "papers"}
    return EntityView(
        id=n, label=d.get("label", ""), name=str(d.get("name") or n), aliases=tuple(d.get("aliases") or ()),
        paper_count=int(d.get("papers") or len(papers)),
        papers=tuple(PaperRole(idx.paper(p), tuple(sorted(roles[p], key=lambda r: order.get(r, 99))),
                               evidence.get(p, (0, None))[1]) for p in papers[:limit]),
        papers_total=len(papers), proposed_by=tuple(idx.paper(p) for p in proposers),
        variants=refs(taxonomy[("VARIANT_OF", "in")]), family=refs(taxonomy[("VARIANT_OF", "out")]),
        broader=refs(taxonomy[("BROADER", "out")]), narrower=refs(taxonomy[("BROADER", "in")]),
        relations=_groups(idx, rows, limit),
        props=tuple(sorted((k, v) for k, v in d.items() if k not in skip)))


def paper_view(idx: Index, n: str, limit: int = DEFAULT_LIMIT) -> PaperView:
    """What the graph says about paper ``n``: its record, what it proposes, its edges by type
    (with evidence) and the edges between entities it states (``stated``)."""
    G = idx.G
    d = G.nodes[n]
    pid = n.partition(":")[2]
    rows, authors, proposes = [], [], []
    for u, v, e, direction in _edges(G, n):
        rtype = e.get("type")
        if rtype == "PUBLISHED_IN":
            continue
        if rtype == "AUTHORED":
            authors.append(str(G.nodes[u].get("name", u)))
            continue
        if rtype == "PROPOSES":
            proposes.append(v)
        rows.append((direction, u, v, e))
    touched = {v for _, _, v, _ in rows} | set(proposes)
    for m in touched:  # the edges between entities this paper states start at one it names
        # (a result's own edges are left out: the REPORTS row names the result)
        for u, v, e in G.out_edges(m, data=True):
            if e.get("paper") == pid and u != n and v != n and G.nodes[u].get("label") != "Result":
                rows.append(("stated", u, v, e))
    return PaperView(n, d.get("title") or d.get("name") or n, idx.venues.get(n), d.get("year"), d.get("url"),
                     tuple(sorted(authors)), tuple(sorted((idx.ref(m) for m in set(proposes)), key=lambda r: r.name)),
                     _groups(idx, rows, limit))
