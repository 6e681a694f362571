"""Resolution: one node per real-world entity across all papers.

Within a paper, extraction already folds case, dashes and plurals into one id and turns
acronym definitions into aliases. Across papers, :func:`resolve` merges

- the same name found under different labels (the lexicon's label wins, else the majority),
- a short name that another entity declares as its acronym (``RDMReg`` -> the long form),

and picks one display name per entity (the lexicon's canonical name, else the most frequent).
Resolving an already resolved set changes nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from kg.extract.lexicon import Lexicon, case_sensitive
from kg.records import Extraction
from kg.schema import ENTITY_LABELS
from kg.text import fold


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


def resolve(extractions: Iterable[Extraction], lexicon: Lexicon | None = None
            ) -> tuple[dict[str, Resolved], dict[str, str]]:
    """Canonical entities by id, and the map from every extracted id to its canonical id."""
    names: dict[str, Counter] = defaultdict(Counter)
    aliases: dict[str, set[str]] = defaultdict(set)
    props: dict[str, dict] = defaultdict(dict)
    papers: dict[str, set[str]] = defaultdict(set)
    label_of: dict[str, str] = {}
    for ex in extractions:
        for e in ex.entities:
            label_of[e.id] = e.type
            names[e.id][e.name] += 1
            aliases[e.id].update(e.aliases)
            for k, v in e.props:
                props[e.id].setdefault(k, v)
            papers[e.id].add(ex.paper.id)

    remap: dict[str, str] = {}
    # 1. one label per name
    by_key: dict[str, list[str]] = defaultdict(list)
    for eid, label in label_of.items():
        if label != "Repository":
            by_key[_key(eid)].append(eid)
    for ids in by_key.values():
        if len(ids) < 2:
            continue

        def rank(eid: str) -> tuple:
            name = names[eid].most_common(1)[0][0]
            known = lexicon is not None and lexicon.get(label_of[eid], name) is not None
            return (not known, -len(papers[eid]), ENTITY_LABELS.index(label_of[eid]))

        best = min(ids, key=rank)
        for eid in ids:
            if eid != best:
                remap[eid] = best

    def final(eid: str) -> str:
        seen = set()
        while eid in remap and eid not in seen:
            seen.add(eid)
            eid = remap[eid]
        return eid

    # 2. a short name that is another entity's declared acronym; repeated until nothing
    # changes, since a merge can make a name an acronym of one entity only
    changed = True
    while changed:
        changed = False
        acronym_owner: dict[str, set[str]] = defaultdict(set)
        for eid, al in aliases.items():
            for a in al:
                if case_sensitive(a):
                    acronym_owner[a].add(final(eid))
        for eid in sorted(label_of):
            if eid in remap or label_of[eid] == "Repository" or lexicon is not None and any(
                    lexicon.get(label_of[eid], n) or lexicon.lookup(n) for n in names[eid]):
                continue  # a known entity (OPT the model) is not another paper's acronym
            for name in sorted(names[eid]):
                owners = {final(o) for o in acronym_owner.get(name, ())} - {eid}
                if len(owners) == 1 and case_sensitive(name):
                    remap[eid] = next(iter(owners))  # owners are final ids other than eid: no cycle
                    changed = True
                    break

    remap = {k: f for k in remap if (f := final(k)) != k}
    out: dict[str, Resolved] = {}
    merged_names: dict[str, Counter] = defaultdict(Counter)
    for eid in label_of:
        cid = remap.get(eid, eid)
        merged_names[cid].update(names[eid])
        r = out.setdefault(cid, Resolved(cid, label_of[cid] if cid in label_of else label_of[eid], ""))
        r.papers |= papers[eid]
        for k, v in sorted(props[eid].items()):
            r.props.setdefault(k, v)
        r.aliases = sorted(set(r.aliases) | aliases[eid])
    for cid, r in out.items():
        counts = merged_names[cid]
        entry = None
        if lexicon is not None:
            for n in counts:
                entry = lexicon.get(r.label, n)
                if entry:
                    break
        own = names.get(cid) or counts  # the canonical id's own spellings come first
        r.name = entry.name if entry else sorted(own.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        extra = {n for n in counts if n != r.name and n.lower() != r.name.lower()}
        r.aliases = sorted((set(r.aliases) | extra) - {r.name})
        if fold(r.name) in {fold(a) for a in r.aliases if not case_sensitive(a)}:
            r.aliases = [a for a in r.aliases if case_sensitive(a) or fold(a) != fold(r.name)]
    return out, remap
