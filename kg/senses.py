"""Short forms and their senses: what a paper's acronyms mean, decided from the paper.

A short form (``SAM``, ``SD``, ``DP``) names different things in different papers, so it
resolves only through evidence:

- :func:`scope` folds a paper's bare short form into the entity the same paper defines it for
  (``Segment Anything (SAM)`` ... ``SAM``), and gives a short form the paper does not define
  (and the lexicon does not know) an id of its own paper, ``method:sam--<paper hash>``, so that
  resolution decides for each paper apart which entity it names;
- :func:`scope` also reads a paper's proposal of a concept the lexicon knows as a use;
- :func:`context_bag` is what a paper is about, as hashed features (its content words and the
  ids of its entities), and :func:`similarity` the TF-IDF cosine of two such bags, the
  evidence resolution weighs before a short form joins a long form another paper defines.

>>> is_short_form("SAM"), is_short_form("ViT"), is_short_form("diffusion"), is_short_form("S")
(True, True, False, False)
>>> base_id("method:sam--1a2b3c4d"), base_id("method:sam")
('method:sam', 'method:sam')
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import replace

from kg.lexicon import Lexicon, case_sensitive
from kg.records import Entity, Extraction, Relation
from kg.text import entity_id, fold, short_hash

#: the labels whose short forms are scoped: the names of approaches, concepts, tasks and measures
#: that papers abbreviate as they please (a model's, dataset's or tool's name is its own name)
SCOPED_LABELS = frozenset({"Method", "Technique", "Task", "Metric"})
#: the separator of a paper-scoped id: ``method:sam--1a2b3c4d`` (a slug never holds two dashes)
SCOPE = "--"
_SHORT = re.compile(r"[A-Za-z][A-Za-z0-9\-]{1,7}")
_WORD = re.compile(r"[a-z][a-z0-9]{3,}")
# words that say nothing of a paper's topic (most of the others a TF-IDF weight makes small)
_STOP = frozenset(["this", "that", "with", "from", "their", "these", "those", "which", "while", "where", "when", "have", "been", "were", "into", "than", "then", "also", "such", "both", "more", "most", "much", "many", "each", "other", "over", "under", "only", "between", "through", "based", "using", "used", "uses", "show", "shows", "shown", "paper", "propose", "proposed", "approach", "method", "methods", "results", "result", "model", "models", "work", "works", "task", "tasks", "data", "learning", "training", "performance", "existing", "novel", "however", "further", "without", "across", "within", "experiments", "experimental", "demonstrate", "achieve", "achieves", "state", "first", "however", "framework", "study", "problem", "problems", "significantly", "improve", "improves", "improved", "different", "various", "large", "small", "number", "specific", "well", "make", "making", "often"])


def is_short_form(name: str) -> bool:
    """A name written as a short form: one token of 2-8 characters, at least half of its
    letters capitals, read case-sensitively (``SAM``, ``ViT``, ``DP-SGD``; not ``Adam``)."""
    if not _SHORT.fullmatch(name):
        return False
    letters = [c for c in name if c.isalpha()]
    return 2 * sum(c.isupper() for c in letters) >= len(letters) >= 1 and case_sensitive(name) \
        and sum(c.isupper() for c in letters) >= 2


def base_id(eid: str) -> str:
    """The id a paper-scoped id was made from."""
    return eid.partition(SCOPE)[0]


def scoped_id(eid: str, paper_id: str) -> str:
    return f"{eid}{SCOPE}{short_hash(paper_id, 8)}"


def _known(e: Entity, lexicon: Lexicon | None) -> bool:
    return lexicon is not None and (lexicon.get(e.type, e.name) is not None or lexicon.lookup(e.name) is not None)


def paper_map(ex: Extraction, lexicon: Lexicon | None) -> dict[str, str]:
    """The ids :func:`scope` renames in one paper: a bare short form (of a method, technique,
    task or metric the paper does not propose) to the id of the entity the paper defines it for
    (when one does), else to its own paper-scoped id."""
    out: dict[str, str] = {}
    proposed = {r.target for r in ex.relations if r.type == "PROPOSES"}
    defined: dict[str, set[str]] = {}
    for e in ex.entities:
        for a in e.aliases:
            defined.setdefault(a, set()).add(e.id)
    for e in ex.entities:
        if e.type not in SCOPED_LABELS or e.aliases or e.id in proposed or SCOPE in e.id \
                or not is_short_form(e.name) or _known(e, lexicon):
            continue
        owners = defined.get(e.name, set()) - {e.id}
        if len(owners) == 1:
            out[e.id] = next(iter(owners))  # the paper's acronym and its expansion are one node
        elif not owners:
            out[e.id] = scoped_id(e.id, ex.paper.id)
    return out


def known_proposals(ex: Extraction, lexicon: Lexicon | None) -> set[str]:
    """The ids the paper proposes that the lexicon knows: a known concept (LoRA, CLIP, gradient
    descent) is used, never introduced, whatever the proposal rules read."""
    if lexicon is None:
        return set()
    by_id = {e.id: e for e in ex.entities}
    return {r.target for r in ex.relations
            if r.type == "PROPOSES" and r.target in by_id and _known(by_id[r.target], lexicon)}


def initials(text: str) -> str:
    """``Forward Learning`` -> ``FL``."""
    return "".join(w[0] for w in re.split(r"[\s\-]+", text) if w).upper()


def redefined(ex: Extraction, lexicon: Lexicon | None) -> dict[str, tuple[str, str]]:
    """The lexicon entities of the paper whose short form the paper defines as another thing:
    id -> (new id, long form). ``Forward Learning (FL)`` is not the lexicon's FL (federated
    learning) even when extraction linked the two by the acronym: the long form is written,
    spells the acronym, and the lexicon does not know it."""
    if lexicon is None:
        return {}
    out: dict[str, tuple[str, str]] = {}
    ids = {e.id for e in ex.entities}
    for e in ex.entities:
        shorts = {a for a in (*e.aliases, *(m.text for m in e.mentions)) if is_short_form(a)}
        if not shorts or not _known(e, lexicon):
            continue
        for m in e.mentions:
            t = m.text
            new = entity_id(e.type, fold(t) or t)
            if " " in t and initials(t) in shorts and lexicon.lookup(t) is None and new not in ids:
                out[e.id] = (new, t)
                break
    return out


def scope(ex: Extraction, lexicon: Lexicon | None) -> Extraction:
    """``ex`` with its short forms folded or scoped (:func:`paper_map`) and its proposals of
    known concepts read as uses (:func:`known_proposals`); ``ex`` itself when nothing changes.
    Depends on the paper and the lexicon only."""
    other = redefined(ex, lexicon)
    if other:
        # the paper's own sense keeps the short form it writes as an alias: the acronym and its
        # expansion are one node, found under either name
        ex = replace(ex, entities=tuple(
            replace(e, id=other[e.id][0], name=other[e.id][1],
                    aliases=tuple(dict.fromkeys(a for a in (*e.aliases, e.name) if is_short_form(a))))
            if e.id in other else e
            for e in ex.entities))
    m = paper_map(ex, lexicon) | {k: v for k, (v, _) in other.items()}
    known = known_proposals(ex, lexicon)
    if not m and not known:
        return ex
    by_id = {e.id: e for e in ex.entities}
    entities: dict[str, Entity] = {}
    for e in ex.entities:
        target = m.get(e.id, e.id)
        if target in by_id and target != e.id:  # folded: its mentions join the definition's
            continue
        if target != e.id:
            e = replace(e, id=target)
        entities[e.id] = e
    for eid, target in m.items():
        if target in by_id and eid in by_id:
            t = entities[target]
            extra = tuple(x for x in by_id[eid].mentions if x not in t.mentions)
            entities[target] = replace(t, mentions=t.mentions + extra)
    relations: list[Relation] = []
    seen: set[tuple[str, str, str]] = set()
    for r in ex.relations:
        if r.type == "PROPOSES" and r.target in known:
            r = replace(r, type="USES")
        r2 = replace(r, source=m.get(r.source, r.source), target=m.get(r.target, r.target))
        key = (r2.type, r2.source, r2.target)
        if r2.source == r2.target or key in seen:
            continue
        seen.add(key)
        relations.append(r2)
    results = tuple(_scope_result(res, m) for res in ex.results)
    return replace(ex, entities=tuple(entities.values()), relations=tuple(relations), results=results)


def _scope_result(res: dict, m: Mapping[str, str]) -> dict:
    if not any(isinstance(v, str) and v in m for v in res.values()):
        return res
    return {k: m.get(v, v) if isinstance(v, str) else v for k, v in res.items()}


def context_bag(ex: Extraction) -> tuple[int, ...]:
    """What the paper is about: hashes of its title's and abstract's content words and of its
    entities' ids (scoped ids by the id they were made from), sorted, each once."""
    text = f"{ex.paper.title} {ex.paper.abstract}".lower()
    feats = {w for w in _WORD.findall(text) if w not in _STOP}
    feats |= {"=" + base_id(e.id) for e in ex.entities}
    return tuple(sorted({zlib.crc32(f.encode()) for f in feats}))


def idf(bags: Iterable[tuple[int, ...]]) -> dict[int, float]:
    """Inverse document frequency of each feature over ``bags`` (one per paper)."""
    df: dict[int, int] = {}
    n = 0
    for b in bags:
        n += 1
        for f in b:
            df[f] = df.get(f, 0) + 1
    return {f: math.log((1 + n) / (1 + c)) + 1.0 for f, c in df.items()}


def similarity(one: tuple[int, ...], many: Iterable[tuple[int, ...]], weights: Mapping[int, float]) -> float:
    """TF-IDF cosine between one paper's bag and the summed bags of ``many`` papers, in [0, 1].

    >>> w = {1: 1.0, 2: 1.0, 3: 1.0}
    >>> similarity((1, 2), [(1, 2)], w), similarity((1,), [(2, 3)], w)
    (1.0, 0.0)
    """
    acc: dict[int, float] = {}
    for b in many:
        for f in b:
            acc[f] = acc.get(f, 0.0) + 1.0
    if not acc or not one:
        return 0.0
    dot = sum(acc.get(f, 0.0) * weights.get(f, 1.0) ** 2 for f in one)
    na = math.sqrt(sum(weights.get(f, 1.0) ** 2 for f in one))
    nb = math.sqrt(sum((c * weights.get(f, 1.0)) ** 2 for f, c in acc.items()))
    return round(dot / (na * nb), 4) if dot else 0.0
