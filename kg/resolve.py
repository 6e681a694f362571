"""Resolution: one node per real-world entity across all papers.

Within a paper, extraction already folds case, dashes and plurals into one id and turns
acronym definitions into aliases. Across papers, :func:`resolve` merges

- the same name found under different labels (the lexicon's label wins, else the majority),
- a short name that another entity declares as its acronym (``RDMReg`` -> the long form): a
  short form a paper does not define is scoped to that paper (:func:`kg.senses.scope`) and
  joins the long form only when the paper's context is close to the long form's papers
  (:data:`SENSE_THRESHOLD`); the papers of a short form no one defines, or of one whose sense
  their context does not decide, join one another by context alone,

and picks one display name per entity (the lexicon's canonical name, else the most frequent).
Resolving an already resolved set changes nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any

import orjson

from kg.errors import ConfigError
from kg.lexicon import Lexicon, case_sensitive
from kg.records import Extraction
from kg.schema import ENTITY_LABELS, SCHEMA_DIR, data_file
from kg.senses import SCOPE, base_id, context_bag, idf, is_short_form, scope, similarity
from kg.text import entity_id, fold

#: the TF-IDF cosine of contexts at or above which a short form a paper does not define is read
#: as a long form another paper defines, or as the same short form in another paper (fitted on
#: the fit half of the second resolution-pairs draw: 0.0-0.5 tried, 0.05 the fewest wrong merges
#: with the fewest missed ones)
SENSE_THRESHOLD = 0.05
#: the context of an entity is the bags of at most this many of its papers (the smallest ids)
CONTEXT_PAPERS = 16


@dataclass
class Resolved:
    """A canonical entity: what the graph node is made of."""

    id: str
    label: str
    name: str
    aliases: list[str] = field(default_factory=list)
    props: dict = field(default_factory=dict)
    papers: set[str] = field(default_factory=set)


def _key(eid: str) -> str:
    return eid.split(":", 1)[1]


class EntityStats:
    """What the papers say about one extracted id, merged paper by paper: the input of
    :func:`resolve_stats`. Merging is order-free (counts, unions, and "first" meaning the
    smallest paper id), so stats collected in several batches equal stats collected at once."""

    __slots__ = ("label", "first", "names", "aliases", "props", "proposed", "bags", "_papers", "_packed")

    def __init__(self, label: str, first: tuple[str, int]):
        self.label = label  # fixed by the id's prefix
        self.first = first  # (paper id, position among its entities) where the id first occurs
        self.names: dict[str, list] = {}  # spelling -> [papers using it, first paper id]
        self.aliases: set[str] = set()
        self.props: dict[str, tuple[str, Any]] = {}  # key -> (first paper id, value)
        self.proposed: set[str] = set()  # the papers that propose it
        self.bags: dict[str, tuple[int, ...]] = {}  # paper -> its context (short forms and their long forms)
        self._papers: set[str] | None = set()
        self._packed = b""

    @property
    def papers(self) -> set[str]:
        """The papers that extract the id. Stored stats keep them packed until asked for:
        most ids of a large folder are not touched when papers are added."""
        if self._papers is None:
            self._papers = set(orjson.loads(self._packed))
        return self._papers

    def pack(self) -> tuple:
        """The stats as a tuple of builtins (quicker to store than objects). The bytes are copied
        to their size: orjson's keep a 4 KB buffer each."""
        packed = self._packed if self._papers is None else bytes(memoryview(orjson.dumps(list(self._papers))))
        return (self.label, self.first, self.names, self.aliases, self.props, self.proposed, self.bags, packed)

    @classmethod
    def unpack(cls, state: tuple) -> EntityStats:
        s = cls.__new__(cls)
        s.label, s.first, s.names, s.aliases, s.props, s.proposed, s.bags, s._packed = state
        s._papers = None
        return s

    def __getstate__(self):
        return self.pack()

    def __setstate__(self, state) -> None:
        self.label, self.first, self.names, self.aliases, self.props, self.proposed, self.bags, self._packed = state
        self._papers = None


def collect(extractions: Iterable[Extraction], stats: dict[str, EntityStats] | None = None,
            lexicon: Lexicon | None = None) -> dict[str, EntityStats]:
    """Add what ``extractions`` say about each entity id to ``stats`` (a new dict if None),
    their short forms scoped with ``lexicon`` (:func:`kg.senses.scope`). Each paper must be
    added once."""
    stats = {} if stats is None else stats
    for ex in extractions:
        ex = scope(ex, lexicon)
        pid = ex.paper.id
        bag = None
        proposed = {r.target for r in ex.relations if r.type == "PROPOSES"}
        for i, e in enumerate(ex.entities):
            s = stats.get(e.id)
            if s is None:
                s = stats[e.id] = EntityStats(e.type, (pid, i))
            elif (pid, i) < s.first:
                s.first = (pid, i)
            seen = s.names.get(e.name)
            if seen is None:
                s.names[e.name] = [1, pid]
            else:
                seen[0] += 1
                if pid < seen[1]:
                    seen[1] = pid
            s.aliases.update(e.aliases)
            if e.id in proposed:
                s.proposed.add(pid)
            for k, v in e.props:
                if k == "confidence":  # a node is as sure as its surest paper (ties: the first paper)
                    if k not in s.props or (-v, pid) < (-s.props[k][1], s.props[k][0]):
                        s.props[k] = (pid, v)
                elif k not in s.props or pid < s.props[k][0]:
                    s.props[k] = (pid, v)
            s.papers.add(pid)
            if SCOPE in e.id or is_short_form(e.name) or any(is_short_form(a) for a in e.aliases):
                bag = context_bag(ex) if bag is None else bag
                s.bags[pid] = bag
                if len(s.bags) > CONTEXT_PAPERS:
                    del s.bags[max(s.bags)]
    return stats


def resolve(extractions: Iterable[Extraction], lexicon: Lexicon | None = None
            ) -> tuple[dict[str, Resolved], dict[str, str]]:
    """Canonical entities by id, and the map from every extracted id to its canonical id.
    Where papers disagree, the smallest paper id comes first, whatever the order given."""
    return resolve_stats(collect(extractions, None, lexicon), lexicon)


def _spellings(s: EntityStats) -> dict[str, int]:
    """Spelling -> number of papers, in the order the spellings first occur."""
    if len(s.names) == 1:
        return {n: c for n, (c, _) in s.names.items()}
    return {n: c for n, (c, _) in sorted(s.names.items(), key=lambda kv: kv[1][1])}


def _case_sensitive(surface: str) -> bool:
    """:func:`case_sensitive`, with a fast path for ASCII."""
    if surface.isascii():
        low = surface.lower()
        return surface != low or low == surface.upper()
    return case_sensitive(surface)


def resolve_stats(stats: dict[str, EntityStats], lexicon: Lexicon | None = None
                  ) -> tuple[dict[str, Resolved], dict[str, str]]:
    """:func:`resolve` over collected stats: global over every id in ``stats``."""
    why: dict[str, str] = {}
    remap = canonical_ids(stats, lexicon, why)
    return aggregate(stats, remap, lexicon, why=why), remap


@lru_cache(maxsize=1)
def spelling_variants() -> tuple[tuple[str, str], ...]:
    """``(British stem, American stem)`` pairs of ``schema/spelling.txt``."""
    out = []
    for line in data_file(SCHEMA_DIR / "spelling.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            left, _, right = line.partition("\t")
            if not right:
                raise ConfigError(f"{SCHEMA_DIR / 'spelling.txt'}: '{line}': expected two stems separated by a tab")
            out.append((left.strip(), right.strip()))
    return tuple(out)


_WORDY = re.compile(r"[A-Za-z][a-z]{2}")


@lru_cache(maxsize=1)
def _spelling_rewrite() -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern for every British stem at the start of a slug's word (in file order: the
    first stem that matches is read), and the American stem of each."""
    variants = spelling_variants()
    stems = "|".join(re.escape(left) for left, _ in variants)
    return re.compile(rf"(?:^|(?<=-))(?:{stems})"), dict(variants)


def resolution_key(slug: str, names, label: str = "") -> str:
    """The key under which ids are one name: the id's slug, with spelling variants read one
    way and, for names made of words (a letter then two lower-case ones in some spelling),
    without hyphens: ``non-linear-regression`` = ``nonlinear-regression``, ``resnet-34`` =
    ``resnet34``, but ``ds-gda`` stays apart from ``d-sgda``. A model's name is its family,
    version, size and variant however they are joined: ``LLaMA-2 70B`` = ``Llama2-70B``, not
    ``Llama-3-70B``."""
    pattern, american = _spelling_rewrite()
    slug = pattern.sub(lambda m: american[m.group(0)], slug)
    if label == "Model" or any(_WORDY.search(n) for n in names):
        return slug.replace("-", "")
    return slug


def canonical_ids(stats: dict[str, EntityStats], lexicon: Lexicon | None = None, why: dict[str, str] | None = None,
                  threshold: float = SENSE_THRESHOLD) -> dict[str, str]:
    """Which ids merge into which: every merged id -> its canonical id. ``why``, if given,
    receives the rule (and score) that merged each id."""
    remap: dict[str, str] = {}
    why = {} if why is None else why
    # 1. one label per name
    by_key: dict[str, list[str]] = defaultdict(list)
    for eid, s in stats.items():
        if s.label != "Repository":
            by_key[resolution_key(eid.partition(":")[2], s.names, s.label)].append(eid)
    for ids in by_key.values():
        if len(ids) < 2:
            continue
        if len({stats[e].label for e in ids if stats[e].proposed}) > 1:
            continue  # two papers introduce two things under one name (GAIA the method, GAIA the benchmark)

        def rank(eid: str) -> tuple:
            spellings = _spellings(stats[eid])
            name = max(spellings, key=spellings.__getitem__)  # the first of the most frequent
            known = lexicon is not None and lexicon.get(stats[eid].label, name) is not None
            return (not known, -len(stats[eid].papers), ENTITY_LABELS.index(stats[eid].label), eid)

        best = min(ids, key=rank)
        for eid in ids:
            if eid != best:
                remap[eid] = best
                why[eid] = "same name" if stats[eid].label == stats[best].label else "same name, label policy"

    # 1b. a name the lexicon knows under another canonical name is that entry's node, when the
    # graph has it ("SVM" read as a Method is the lexicon's support vector machine)
    if lexicon is not None:
        for eid in sorted(stats):
            s = stats[eid]
            if eid in remap or s.label == "Repository":
                continue
            for n in sorted(s.names):
                entry = lexicon.lookup(n)
                if entry is None:
                    continue
                target = entity_id(entry.label, fold(entry.name) or entry.name)
                if target != eid and target in stats and target not in remap:
                    remap[eid] = target
                    why[eid] = "lexicon name"
                break

    def final(eid: str) -> str:
        seen = set()
        while eid in remap and eid not in seen:
            seen.add(eid)
            eid = remap[eid]
        return eid

    # 2. a short name that is another entity's declared acronym; repeated until nothing
    # changes, since a merge can make a name an acronym of one entity only
    members: dict[str, list[str]] = defaultdict(list)  # the names step 1 merged, by canonical id
    for eid in remap:
        members[final(eid)].append(eid)
    declared: dict[str, list[str]] = defaultdict(list)  # acronym -> ids declaring it
    for eid, s in stats.items():
        for a in s.aliases:
            if _case_sensitive(a):
                declared[a].append(eid)
    candidates: list[tuple[str, list[str]]] = []  # (id, its names that some id declares)
    for eid, s in stats.items():
        acronyms = [n for n in s.names if n in declared]
        if not acronyms or s.label == "Repository" or SCOPE in eid or lexicon is not None and any(
                lexicon.get(s.label, n) or lexicon.lookup(n) for n in s.names):
            continue  # a known entity (OPT the model) is not another paper's acronym
        candidates.append((eid, sorted(acronyms)))
    candidates.sort()
    weights: dict[int, float] = {}

    def close(eid: str, owner: str) -> float | None:
        """The context score of a short form's papers against the owner's, or None when the
        name is no short form (a name of words needs no context)."""
        if not weights:
            weights.update(idf({p: b for s in stats.values() for p, b in s.bags.items()}.values()))
        one = tuple(sorted({f for b in stats[eid].bags.values() for f in b}))
        bags = {p: b for m in (owner, *members.get(owner, ())) for p, b in stats[m].bags.items()}
        return similarity(one, [bags[p] for p in sorted(bags)[:CONTEXT_PAPERS]], weights)

    changed = True
    while changed:
        changed = False
        for eid, acronyms in candidates:
            if eid in remap:
                continue
            for name in acronyms:
                owners = {final(o) for o in declared[name]} - {eid}
                if len(owners) == 1 and _established(stats, [*owners, *members.get(next(iter(owners)), ())],
                                                     lexicon):
                    owner = next(iter(owners))
                    score = close(eid, owner) if is_short_form(name) else None
                    if score is not None and score < threshold:
                        continue  # a short form joins a long form by its context, never by its name alone
                    remap[eid] = owner  # owners are final ids other than eid: no cycle
                    why[eid] = "declared acronym" if score is None else f"declared acronym by context {score:.2f}"
                    changed = True
                    break
    _senses(stats, remap, final, members, declared, lexicon, why, threshold)
    return {k: f for k in remap if (f := final(k)) != k}


def _senses(stats: dict[str, EntityStats], remap: dict[str, str], final, members: dict[str, list[str]],
            declared: dict[str, list[str]], lexicon: Lexicon | None, why: dict[str, str], threshold: float) -> None:
    """3. The paper-scoped short forms (:func:`kg.senses.scope`): each joins the long form
    other papers define for it (or the form other papers write with hyphens: VQVAE, VQ-VAE)
    when its paper's context is the closest to that long form's papers and at least
    ``threshold``; the others of one form (of any label) join one another, in id order, when
    their contexts are that close (with or without hyphens). A form two long forms share joins
    neither by its name."""
    scoped = sorted(e for e in stats if SCOPE in e and e not in remap)
    if not scoped:
        return
    unhyphened: dict[str, set[str]] = defaultdict(set)  # VQVAE -> the ids of VQ-VAE
    for eid, s in stats.items():
        if SCOPE not in eid:
            for n in s.names:
                if "-" in n and is_short_form(n):
                    unhyphened[n.replace("-", "")].add(eid)
    weights = idf({p: b for s in stats.values() for p, b in s.bags.items()}.values())

    def context(cid: str) -> list[tuple[int, ...]]:
        bags: dict[str, tuple[int, ...]] = {}
        for m in (cid, *members.get(cid, ())):
            bags.update(stats[m].bags)
        return [bags[p] for p in sorted(bags)[:CONTEXT_PAPERS]]

    contexts: dict[str, list[tuple[int, ...]]] = {}
    clusters: dict[str, list[str]] = defaultdict(list)  # base id -> the scoped ids that stay, by cluster head
    for eid in scoped:
        s = stats[eid]
        one = next(iter(s.bags.values()), ())
        name = min(s.names)
        owners = sorted({final(o) for o in chain(declared.get(name, ()), unhyphened.get(name, ()))} - {eid})
        owners = [o for o in owners if _established(stats, [o, *members.get(o, ())], lexicon)]
        scores = sorted(((similarity(one, contexts.setdefault(o, context(o)), weights), o) for o in owners),
                        reverse=True)
        if scores and scores[0][0] >= threshold and (len(scores) == 1 or scores[0][0] > scores[1][0]):
            remap[eid] = scores[0][1]
            members[scores[0][1]].append(eid)
            why[eid] = f"short form by context {scores[0][0]:.2f}"
            continue
        heads = clusters[base_id(eid).partition(":")[2].replace("-", "")]  # of any label: the first one's wins
        for head in heads:
            other = min(stats[head].names)
            if other != name and "-" in other and "-" in name:
                continue  # acronyms keep their hyphens: DS-GDA is not D-SGDA (VQ-VAE is VQVAE)
            score = similarity(one, [b for m in (head, *members.get(head, ())) for b in stats[m].bags.values()], weights)
            if score >= threshold:
                remap[eid] = head
                members[head].append(eid)
                why[eid] = f"same short form by context {score:.2f}"
                break
        else:
            heads.append(eid)


def _established(stats: dict[str, EntityStats], owner: list[str], lexicon: Lexicon | None) -> bool:
    """Whether a bare acronym may be read as the one long form other papers declare for it:
    the long form (``owner``: its ids) is the lexicon's, or at least two papers write it. One
    paper's ``Contextual Memory Tree (CMT)`` says nothing about what ``CMT`` means in another
    (acronyms collide across papers). Counted over what step 1 merged, so that resolving a
    resolved graph again changes nothing."""
    if lexicon is not None and any(lexicon.get(stats[o].label, n) for o in owner for n in stats[o].names):
        return True
    papers: set[str] = set()
    for o in owner:
        papers |= stats[o].papers
        if len(papers) >= 2:
            return True
    return False


def changed(old_remap: dict[str, str], remap: dict[str, str], touched: Iterable[str]
            ) -> tuple[set[str], set[str]]:
    """After the stats of the ids ``touched`` changed and the remap went from ``old_remap`` to
    ``remap``: the ids that now resolve to another canonical id, and the canonical ids (old
    and new) whose entity may differ. Every other entity is made from the same stats as before
    (see :func:`aggregate`), so it is the same."""
    moved = {e for e in chain(old_remap, remap) if old_remap.get(e, e) != remap.get(e, e)}
    clusters = {remap.get(e, e) for e in chain(touched, moved)} | {old_remap.get(e, e) for e in moved}
    return moved, clusters


def aggregate(stats: dict[str, EntityStats], remap: dict[str, str], lexicon: Lexicon | None = None,
              only: set[str] | None = None, why: dict[str, str] | None = None) -> dict[str, Resolved]:
    """The canonical entities :func:`canonical_ids` gives (those in ``only``, if given): each
    made from the stats of the ids merged into it and why they merged (``why``, as
    :func:`canonical_ids` fills it), which is all it depends on."""
    members: dict[str, list[str]] = defaultdict(list)
    for eid in stats:
        cid = remap.get(eid, eid)
        if only is None or cid in only:
            members[cid].append(eid)
    out: dict[str, Resolved] = {}
    for cid, eids in members.items():
        if len(eids) > 1:
            eids.sort(key=lambda e: stats[e].first)  # in the order papers mention them
        out[cid] = _entity(cid, [stats[e] for e in eids], stats[cid], lexicon)
        if why and len(eids) > 1:
            out[cid].props["merges"] = merge_reasons(why.get(e, "") for e in eids if e != cid)
    return out


def merge_reasons(rules: Iterable[str]) -> list[str]:
    """What merged a node's names, one line per rule: how many names, and the lowest score.

    >>> merge_reasons(["same name", "short form by context 0.41", "short form by context 0.27"])
    ['same name (1)', 'short form by context (2, score >= 0.27)']
    """
    counts: dict[str, list] = {}
    for rule in rules:
        head, _, score = rule.rpartition(" ") if rule[-1:].isdigit() else (rule, "", "")
        c = counts.setdefault(head or "unrecorded", [0, None])
        c[0] += 1
        if score:
            c[1] = score if c[1] is None else min(c[1], score)
    return [f"{k} ({n}{f', score >= {lo}' if lo else ''})" for k, (n, lo) in sorted(counts.items())]


def _entity(cid: str, merged: list[EntityStats], own: EntityStats, lexicon: Lexicon | None) -> Resolved:
    r = Resolved(cid, own.label, "")
    counts: dict[str, int] = {}
    aliases: set[str] = set()
    for s in merged:
        for n, c in _spellings(s).items():
            counts[n] = counts.get(n, 0) + c
        r.papers |= s.papers
        for k in sorted(s.props):
            if k == "confidence":
                r.props[k] = max(r.props.get(k, 0.0), s.props[k][1])
            else:
                r.props.setdefault(k, s.props[k][1])
        aliases |= s.aliases
    entry = None
    if lexicon is not None:
        for n in counts:
            entry = lexicon.get(r.label, n)
            if entry:
                break
    if entry:
        r.name = entry.name
    else:  # the canonical id's own spellings come first
        spellings = own.names
        r.name = min(spellings, key=lambda n: (-spellings[n][0], n)) if len(spellings) > 1 else next(iter(spellings))
    extra = {n for n in counts if n != r.name and n.lower() != r.name.lower()}
    r.aliases = sorted((aliases | extra) - {r.name})
    if r.aliases:
        folded = fold(r.name)
        if folded in {fold(a) for a in r.aliases if not _case_sensitive(a)}:
            r.aliases = [a for a in r.aliases if _case_sensitive(a) or fold(a) != folded]
    return r
