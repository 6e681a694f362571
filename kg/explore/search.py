"""Searching a graph: papers and entities whose names, aliases, titles or abstracts hold a
text, filtered by label, venue and year, and papers by what they use and address.

Ranking, best first: an exact name or alias (0); a name or alias with a word that starts
with the text (1); a paper title that does (2); a paper abstract that does (3). Within a
rank, more papers first (a paper counts one), then newer, then by name. Matching ignores
case, dashes and spacing, as :func:`kg.explore.lookup.key` does.

``uses=X`` keeps the papers that use X, as the named query ``papers_using_technique`` says
it: the paper, or what it proposes, has a USES edge to X or to an entity narrower than X
(BROADER and VARIANT_OF chains); a mere mention does not count. ``addresses=Y`` is the same
with ADDRESSES. X and Y are found as :func:`kg.explore.lookup.show` finds a name.

>>> from kg.records import Paper, Entity, Relation, Extraction
>>> from kg.graph import build_graph
>>> G = build_graph([Extraction(Paper("p1", "We use LoRA for code generation.", title="Coder", year=2024),
...     (Entity("method:lora", "Method", "LoRA"), Entity("task:code-generation", "Task", "code generation")),
...     (Relation("USES", "p1", "method:lora"), Relation("ADDRESSES", "p1", "task:code-generation")))])
>>> [h.name for h in search(G, uses="lora", addresses="Code Generation").hits]
['Coder']
>>> [(h.name, h.match) for h in search(G, "code").hits]
[('code generation', 'prefix'), ('Coder', 'title')]
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.explore.lookup import Index, index_of, key
from kg.schema import LABELS

if TYPE_CHECKING:
    import networkx as nx

DEFAULT_LIMIT = 20
#: the rank of each kind of match (lower is better)
RANKS = {"name": 0, "alias": 0, "prefix": 1, "title": 2, "abstract": 3, "filter": 0}
#: labels that are not searched (generated names)
UNSEARCHED = frozenset({"Result"})


@dataclass(frozen=True, slots=True)
class Hit:
    """One paper or entity that matches, and how (``name``, ``alias``, ``prefix``,
    ``title``, ``abstract``, or ``filter`` when no text was given)."""

    id: str
    label: str
    name: str
    match: str
    rank: int
    papers: int
    venue: str | None = None
    year: int | None = None
    via: tuple[str, ...] = ()  # for --uses/--addresses: what the paper uses or addresses


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What ``kg search`` prints: the query, how many matched, and the best ``limit``."""

    text: str | None
    filters: tuple[tuple[str, str], ...]
    total: int
    hits: tuple[Hit, ...]


def flat(text: str) -> str:
    """Lower case, dashes, underscores, slashes and spacing as one space."""
    return re.sub(r"[-_/\\\s]+", " ", text.lower()).strip()


def narrower(G: nx.MultiDiGraph, roots: list[str]) -> set[str]:
    """``roots`` and everything narrower than them (BROADER and VARIANT_OF chains into them)."""
    seen, todo = set(roots), list(roots)
    while todo:
        n = todo.pop()
        for u, _, d in G.in_edges(n, data=True):
            if d.get("type") in ("BROADER", "VARIANT_OF") and u not in seen:
                seen.add(u)
                todo.append(u)
    return seen


def papers_with(idx: Index, rtype: str, name: str) -> dict[str, set[str]]:
    """Papers whose own ``rtype`` edge, or one of what they propose, reaches the entity
    ``name`` names or one narrower: {paper: names of the entities reached}."""
    G = idx.G
    roots = [c.node.id for c in idx.resolve(name)[0]]
    out: dict[str, set[str]] = defaultdict(set)
    for n in narrower(G, roots):
        for u, _, d in G.in_edges(n, data=True):
            if d.get("type") != rtype:
                continue
            sources = [u] if G.nodes[u].get("label") == "Paper" else [
                p for p, _, e in G.in_edges(u, data=True) if e.get("type") == "PROPOSES"]
            for p in sources:
                out[p].add(str(G.nodes[n].get("name", n)))
    return out


def _label(label: str | None) -> str | None:
    if label is None:
        return None
    for name in LABELS:
        if name.lower() == label.strip().lower():
            return name
    raise UsageError(f"--label {label}: not a label; use one of {', '.join(n for n in LABELS if n not in UNSEARCHED)}")


def _entity_papers(idx: Index, n: str) -> set[str]:
    """The papers that name entity ``n``: neighbours, and the papers of its edges."""
    G = idx.G
    out = set()
    for u, v, d in [*G.out_edges(n, data=True), *G.in_edges(n, data=True)]:
        other = v if u == n else u
        if G.nodes[other].get("label") == "Paper":
            out.add(other)
        elif d.get("paper") and f"paper:{d['paper']}" in G:
            out.add(f"paper:{d['paper']}")
    return out


def search(G: nx.MultiDiGraph, text: str | None = None, *, label: str | None = None, venue: str | None = None,
           year: int | None = None, uses: str | None = None, addresses: str | None = None,
           limit: int = DEFAULT_LIMIT) -> SearchResult:
    """Papers and entities matching ``text`` and every filter given, ranked (see the module's
    docstring). ``venue`` matches a paper's venue by words (``ICLR`` finds ICLR 2024);
    ``venue`` and ``year`` keep entities that a paper of that venue or year names. ``uses``
    and ``addresses`` select papers. With no text, every node the filters keep matches."""
    text = (text or "").strip() or None
    if text is None and not any(x is not None for x in (label, venue, year, uses, addresses)):
        raise UsageError("give a text to search for, or a filter: label, venue, year, uses or addresses")
    want = _label(label)
    if (uses or addresses) and want not in (None, "Paper"):
        raise UsageError(f"--uses and --addresses select papers; drop --label {label}")
    idx = index_of(G)
    only: dict[str, set[str]] | None = None
    for rtype, name in (("USES", uses), ("ADDRESSES", addresses)):
        if name is not None:
            found = papers_with(idx, rtype, name)
            only = found if only is None else {p: only[p] | found[p] for p in only.keys() & found.keys()}
    venue_key = flat(venue) if venue else None

    def paper_ok(p: str) -> bool:
        if year is not None and idx.G.nodes[p].get("year") != year:
            return False
        return venue_key is None or _words_start(venue_key, flat(idx.venues.get(p, "")))

    hits: dict[str, Hit] = {}
    k = key(text) if text else None
    q = flat(text) if text else None
    start = re.compile(r"(?<!\w)" + re.escape(k)) if k else None
    qstart = re.compile(r"(?<!\w)" + re.escape(q)) if q else None
    for n, d in G.nodes(data=True):
        lab = d.get("label", "")
        if lab in UNSEARCHED or (want and lab != want) or (only is not None and n not in only):
            continue
        if lab == "Paper":
            match = "filter" if text is None else _paper_match(d, k, qstart)
            if match is None or not paper_ok(n):
                continue
            hits[n] = Hit(n, lab, idx.paper(n).title, match, RANKS[match], 1, idx.venues.get(n), d.get("year"),
                          tuple(sorted(only[n])) if only is not None else ())
            continue
        match = "filter" if text is None else _entity_match(d, n, k, start)
        if match is None:
            continue
        if (venue_key is not None or year is not None) and not any(paper_ok(p) for p in _entity_papers(idx, n)):
            continue
        hits[n] = Hit(n, lab, str(d.get("name") or n), match, RANKS[match], idx.papers(n))
    ranked = sorted(hits.values(), key=lambda h: (h.rank, -h.papers, -(h.year or 0), h.name.lower(), h.id))
    filters = tuple((f, str(v)) for f, v in (("label", want), ("venue", venue), ("year", year), ("uses", uses),
                                             ("addresses", addresses)) if v is not None)
    return SearchResult(text, filters, len(ranked), tuple(ranked[:limit]))


def _words_start(needle: str, hay: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", hay) is not None


def _entity_match(d: dict, n: str, k: str, start: re.Pattern) -> str | None:
    names = [(key(str(d.get("name") or n)), "name")] + [(key(a), "alias") for a in d.get("aliases") or ()]
    for cand, how in names:
        if cand == k:
            return how
    return "prefix" if any(start.search(cand) for cand, _ in names) else None


def _paper_match(d: dict, k: str, qstart: re.Pattern) -> str | None:
    title = d.get("title") or d.get("name") or ""
    if key(title) == k:
        return "name"
    if qstart.search(flat(title)):
        return "title"
    if qstart.search(flat(d.get("abstract") or "")):
        return "abstract"
    return None
