"""The one adapter from an annotated ``Doc`` to an :class:`~kg.records.Extraction`."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace
from functools import lru_cache

from spacy.tokens import Doc

from kg.calibration import calibrate_relations, shipped
from kg.extract import cues, rules
from kg.extract.docutil import doc_text, sentences
from kg.extract.names import lower_common_words, stoplist
from kg.extract.results import find_results
from kg.records import Entity, Evidence, Extraction, Mention, Paper, Relation
from kg.schema import LEXICON_DIR, MENTION_RELATION
from kg.text import GREEK, entity_id, fold

# a sentence in which the authors speak of their work
_AUTHOR_CUE = re.compile(r"\b(?:[Ww]e|[Oo]ur|[Tt]he proposed|[Tt]his (?:method|approach|framework|algorithm|model))\b")
# How often each kind of proposal reading is right, on the development papers of the training
# draw (both learned pipelines; docs/quality.md): a name in the title's opening phrase is the
# weakest (0.44 and 0.27), the learned decision's right 0.82/0.74 of the time, the title's
# "Name:" and the proposal rules 0.86-0.87. The learned pipelines' calibration maps no PROPOSES
# score (isotonic fitting on four values made it worse), so these are the confidences shown.
_PROPOSES_CONFIDENCE = {"title-colon": 0.85, "title-lead": 0.4, "learned": 0.75, "learned-title": 0.4}
_PROPOSAL_RULE_CONFIDENCE = 0.85


def repository_id(name: str) -> str:
    return entity_id("Repository", name)


@lru_cache(maxsize=1 << 16)
def make_id(label: str, name: str) -> str:
    """Entity ids fold case, dashes and plurals, so spelling variants share one id."""
    if label == "Repository":
        return repository_id(name)
    return entity_id(label, fold(name) or name)


def doc_to_extraction(doc: Doc, paper: Paper, title_doc: Doc | None = None, proposer=None,
                      roles=None, calibration=None) -> Extraction:
    """Turn the annotated abstract (and title) into the paper's Extraction record; ``proposer``
    (a :class:`~kg.extract.propose.ProposalModel`) makes the last decision on what the paper
    proposes, ``roles`` (a :class:`~kg.extract.roles.RoleModel`) on the role the text states
    for each other entity (without it, only the comparison rule and a shared sentence with the
    proposal state one). When the contextual encoder read the paper (``doc._.kg_reading``), its
    view of each entity is a feature of both decisions. ``calibration`` (kind -> mapping, see
    :mod:`kg.calibration`) maps the relations' scores; None reads the rules' file."""
    fr = doc._.kg_reading if Doc.has_extension("kg_reading") else None
    reading = fr.reading if fr is not None else None
    text = doc_text(doc)
    if title_doc is not None:
        from kg.extract.relations import echo_title

        echo_title(doc, title_doc)
    proposed = dict(doc.user_data.get("kg_proposed", {}))
    sents = [(s[2], s[3]) for s in sentences(doc)]
    sent_starts = [s[0] for s in sents]
    title = doc_text(title_doc) if title_doc is not None else ""
    if title_doc is not None:
        from kg.extract.relations import title_proposal

        tp = title_proposal(title_doc)
        if tp is not None:
            proposed.setdefault(tp[0], (tp[1], "title-colon", (0, len(title))))
        for key, val in title_doc.user_data.get("kg_proposed", {}).items():
            proposed.setdefault(key, val)
        if not proposed:  # a method named only in the title's opening phrase
            from kg.extract.relations import title_lead_proposal

            lead = title_lead_proposal(title_doc, text)
            if lead is not None:
                proposed[lead[0]] = (lead[1], "title-lead", (0, len(title)))

    def sentence_of(pos: int) -> tuple[int, int]:
        k = bisect_right(sent_starts, pos) - 1
        if 0 <= k < len(sents) and pos < sents[k][1]:
            return sents[k]
        return 0, len(text)

    sentence_evidence: dict[tuple[int, int], Evidence] = {}  # one per sentence: records are immutable

    def span_evidence(s0: int, s1: int) -> Evidence:
        ev = sentence_evidence.get((s0, s1))
        if ev is None:
            ev = sentence_evidence[s0, s1] = Evidence(text[s0:s1], s0, s1)
        return ev

    def evidence(m: Mention) -> Evidence:
        if m.field == "title":
            return Evidence(title, 0, len(title), "title")
        return span_evidence(*sentence_of(m.start))

    # group mentions into entities (label may be overridden by what the paper proposes)
    groups: dict[str, dict] = {}
    stop = stoplist(str(LEXICON_DIR))
    for d, field in ((doc, "abstract"), (title_doc, "title")):
        if d is None:
            continue
        info = d.user_data.get("kg_info", {})
        offsets = d.user_data.get("kg_offsets", {})
        sure = d.user_data.get("kg_entity_confidence", {})
        dtext = text if d is doc else title  # Doc.text rebuilds the string on every access
        for sp in d.spans.get("kg", []):
            start, end = offsets.get((sp.start, sp.end), (sp.start_char, sp.end_char))
            key = (sp.label_, sp.kb_id_)
            if sp.id_ == "name-weak" and key not in proposed or fold(sp.kb_id_) in stop:
                continue  # (names the proposal rules make are checked against the stoplist here)
            label = proposed[key][0] if key in proposed else sp.label_
            eid = make_id(label, sp.kb_id_)
            name = sp.kb_id_
            if sp.id_ == "acronym" and label in ("Technique", "Task", "Metric"):
                name = lower_common_words(name)
            g = groups.get(eid)
            if g is None:
                g = groups[eid] = {"label": label, "name": name, "rule": sp.id_,
                                   "aliases": set(), "mentions": [], "keys": set(), "props": {}}
            g["keys"].add(key)
            conf = sure.get((sp.start, sp.end))
            if conf is not None:  # an entity is as sure as its surest reading
                g["confidence"] = max(g.get("confidence", 0.0), conf)
            surface = dtext[start:end]
            g["mentions"].append(Mention(surface, start, end, field))
            extra = info.get(key)
            if extra:
                g["aliases"] |= extra.get("aliases", set())
                for k, v in extra.get("props", {}).items():
                    g["props"].setdefault(k, v)
            if sp.id_ in ("lexicon", "model-name", "model-generic") and fold(surface) != fold(sp.kb_id_) \
                    and surface != sp.kb_id_:
                g["aliases"].add(re.sub(r"(?<=[A-Z])s$", "", surface))
    _unglue(groups)
    _merge_title_names(groups)
    _one_label_per_name(groups, set(proposed))
    key_to_id = {k: eid for eid, g in groups.items() for k in g["keys"]}

    entities: list[Entity] = []
    relations: list[Relation] = []
    variant_of: list[tuple[str, str, Mention]] = []
    entity_map = (calibration if calibration is not None else shipped()).get("entity")
    for eid, g in groups.items():
        aliases = tuple(sorted(a for a in g["aliases"] if a != g["name"])) if g["aliases"] else ()
        props = g["props"]
        if "confidence" in g:
            c = g["confidence"]
            props = {**props, "confidence": entity_map(c) if entity_map is not None else round(c, 4)}
        entities.append(Entity(eid, g["label"], g["name"], aliases, tuple(g["mentions"]),
                               tuple(sorted(props.items())) if props else ()))
        family = props.get("family")
        if g["label"] == "Model" and family and family != g["name"]:
            variant_of.append((eid, family, g["mentions"][0]))

    derived: set[str] = set()  # families implied by a model name: linked by VARIANT_OF only
    for eid, family, m in variant_of:  # model -> family, with the family as an entity too
        fid = make_id("Model", family)
        if fid not in groups:
            src = title if m.field == "title" else text
            fm = Mention(family, m.start, m.start + len(family), m.field) \
                if src[m.start : m.start + len(family)] == family else None
            entities.append(Entity(fid, "Model", family, (), (fm,) if fm else ()))
            groups[fid] = {"label": "Model", "rule": "model-name"}
            derived.add(fid)
        relations.append(Relation("VARIANT_OF", eid, fid, evidence(m), 0.95, "model-name"))

    proposed_ids: dict[str, tuple[str, tuple[int, int]]] = {}
    for key, (_label, rule, sent) in proposed.items():
        if key in key_to_id:
            proposed_ids.setdefault(key_to_id[key], (rule, sent))

    if proposer is not None:
        extra = None
        if reading is not None:
            from kg.extract.contextual import entity_features

            extra = entity_features(reading, [e for e in entities if e.id not in derived])[0]
        proposed_ids = proposer.decide([e for e in entities if e.id not in derived], groups, proposed_ids,
                                       title, text, sents, sentence_of, extra)
    ent_by_id = {e.id: e for e in entities}
    for e in entities:
        if e.id in proposed_ids and e.mentions and e.id not in derived:
            rule, (p0, p1) = proposed_ids[e.id]
            from_title = rule in ("title-colon", "title-lead", "learned-title")
            pev = Evidence(title, 0, len(title), "title") if from_title else span_evidence(p0, p1)
            conf = _PROPOSES_CONFIDENCE.get(rule, _PROPOSAL_RULE_CONFIDENCE)
            relations.append(Relation("PROPOSES", paper.id, e.id, pev, conf, rule))

    # what the comparison rule found: (kind, source id or None) per target
    compared: dict[str, tuple[str, str | None]] = {}
    for kind, skey, okey, _sent in doc.user_data.get("kg_compared", []):
        target = key_to_id.get(okey)
        if target and (target not in compared or kind == "OUTPERFORMS"):
            compared[target] = (kind, key_to_id.get(skey))
    role_extra = None
    if reading is not None and roles is not None:
        from kg.extract.contextual import entity_features

        role_extra = entity_features(reading, [e for e in entities if e.id not in derived], set(proposed_ids))[1]
    relations += _roles(paper.id, entities, groups, proposed_ids, derived, title, text, sents, sentence_of,
                        compared, roles, evidence, span_evidence, role_extra)
    for e in entities:  # a repository is the code of the proposal it names, else of the main one
        if e.type != "Repository" or not e.mentions or not proposed_ids:
            continue
        owner, rule = _code_owner(e, proposed_ids, ent_by_id)
        if owner and not any(r.source == owner and r.target == e.id for r in relations):
            relations.append(Relation("HAS_CODE", owner, e.id, evidence(e.mentions[0]), 0.8, rule))

    if paper.github:  # a record's own code link
        from kg.extract.patterns import normalize_url

        name = normalize_url(paper.github)
        rid = repository_id(name)
        if rid not in ent_by_id:
            url = paper.github if "://" in paper.github else "https://" + paper.github
            entities.append(Entity(rid, "Repository", name, (), (), (("url", url),)))
            relations.append(Relation("HAS_CODE", paper.id, rid, None, 1.0, "record:github"))

    relations = _dedupe(relations)
    title = paper.title or _title(paper, entities, proposed_ids)
    results = find_results(text, sents, [e for e in entities if e.id not in derived], set(proposed_ids))
    return Extraction(replace(paper, title=title), tuple(entities), tuple(calibrate_relations(relations, calibration)),
                      tuple(results))


_GREEK = str.maketrans({k: v + " " for k, v in GREEK.items()})


def _surface_key(name: str) -> str:
    """Matching key of a name: folded, Greek letters spelled out (``Δ-AI`` ~ ``Delta-AI``)."""
    return " ".join(fold(name).translate(_GREEK).split())


# words that lost their space next to a name in glued text ("AnomalyCLIPis trained")
_GLUE_WORDS = cues.words("glued_words")


def _unglue(groups: dict[str, dict]) -> None:
    """A coined name glued to a function word (``AnomalyCLIPis``, ``thatAnomalyCLIP``) where
    the paper also writes the name alone is that name: its mentions move over, trimmed."""
    by_name = {g["name"]: eid for eid, g in groups.items() if g["label"] != "Repository"}
    for eid in list(groups):
        g = groups[eid]
        name = g["name"]
        for w in _GLUE_WORDS:
            if name.endswith(w) and name[:-len(w)] in by_name and name[-len(w) - 1].isupper():
                core, cut = name[:-len(w)], (0, len(w))
            elif name.startswith(w) and name[len(w):] in by_name and name[len(w)].isupper():
                core, cut = name[len(w):], (len(w), 0)
            else:
                continue
            target = groups.get(by_name[core])
            if target is None or target is g:
                continue
            for m in g["mentions"]:
                if len(m.text) == len(name):
                    target["mentions"].append(Mention(core, m.start + cut[0], m.end - cut[1], m.field))
            target["mentions"].sort(key=lambda m: (m.field == "title", m.start))
            target["keys"] |= g["keys"]
            _absorb_confidence(target, g)
            del groups[eid]
            break


def _merge_title_names(groups: dict[str, dict]) -> None:
    """A name only the title writes (``FADAS: Towards ...``) that the abstract gives as an
    alias of a long form (``federated adaptive asynchronous optimization, named FADAS``) is
    that entity, not a second one."""
    index: dict[str, str] = {}
    for eid, g in groups.items():
        if any(m.field == "abstract" for m in g["mentions"]):
            for s in (g["name"], *g["aliases"]):
                index.setdefault(_surface_key(s), eid)
    for eid in [e for e, g in groups.items() if g["mentions"] and all(m.field == "title" for m in g["mentions"])]:
        g = groups[eid]
        target = index.get(_surface_key(g["name"]))
        if target is None or target == eid or not (
                groups[target]["label"] == g["label"] or g["rule"] in ("new-name", "name-shape", "model-coined", "name-weak")):
            continue
        t = groups[target]
        t["mentions"] += g["mentions"]
        t["keys"] |= g["keys"]
        t["aliases"] |= g["aliases"] | ({g["name"]} if fold(g["name"]) != fold(t["name"]) else set())
        _absorb_confidence(t, g)
        del groups[eid]



def _one_label_per_name(groups: dict[str, dict], proposed: set) -> None:
    """One name, one entity per paper (the guidelines' rule): when the same name was read with
    two labels ("energy-based transition model" as a phrase and as a defined acronym), the
    reading of the proposal, else of the most specific rule, wins and takes the mentions."""
    by_name: dict[str, list[str]] = {}
    for eid, g in groups.items():
        if g["label"] != "Repository":
            by_name.setdefault(_surface_key(g["name"]), []).append(eid)
    for eids in by_name.values():
        if len(eids) < 2:
            continue
        eids.sort(key=lambda e: (not (groups[e]["keys"] & proposed), -rules.rank(groups[e]["rule"]), e))
        t = groups[eids[0]]
        for eid in eids[1:]:
            g = groups.pop(eid)
            t["mentions"] += g["mentions"]
            t["keys"] |= g["keys"]
            t["aliases"] |= g["aliases"]
            _absorb_confidence(t, g)
            for k, v in g["props"].items():
                t["props"].setdefault(k, v)


def _absorb_confidence(target: dict, group: dict) -> None:
    """A group that takes another's mentions is as sure as the surer of the two."""
    if "confidence" in group:
        target["confidence"] = max(target.get("confidence", 0.0), group["confidence"])


def _code_owner(repo: Entity, proposed_ids: dict, ent_by_id: dict) -> tuple[str | None, str]:
    """Which proposal a repository URL is the code of: the one its last path segment names
    (github.com/tmlr-group/RGIB -> RGIB), the only one, or the first named in the text that is
    not a variant or a coordinated component."""
    last = re.sub(r"[^a-z0-9]", "", repo.name.rstrip("/").rsplit("/", 1)[-1].lower())
    for pid in proposed_ids:
        e = ent_by_id[pid]
        if last and any(re.sub(r"[^a-z0-9]", "", n.lower()) == last for n in (e.name, *e.aliases)):
            return pid, "repository-name"
    if len(proposed_ids) == 1:
        return next(iter(proposed_ids)), "single-proposal"
    first = _main_proposal(proposed_ids, ent_by_id)
    return first, "main-proposal" if first else ""


ROLE_SOURCES = frozenset({"Method", "Technique", "Model", "Software"})
#: share of the comparison rule's targets that the annotated relations call a compared
#: baseline (39 of 61 on the training papers)
COMPARISON_PRECISION = 0.64


def _roles(paper_id: str, entities: list[Entity], groups: dict, proposed_ids: dict, derived: set[str], title: str,
           text: str, sents: list[tuple[int, int]], sentence_of, compared: dict[str, tuple[str, str | None]],
           roles, evidence, span_evidence, extra: dict[str, list[str]] | None = None) -> list[Relation]:
    """One edge per mentioned entity: the role the text states for it (USES, ADDRESSES,
    EVALUATED_ON or MEASURES by its label; COMPARED_WITH or OUTPERFORMS for a baseline), from
    the proposed method, technique, model or software it shares a sentence with, else the
    paper's main such proposal, else the paper; or MENTIONS from the paper when no role is
    stated."""
    from kg.extract.roles import candidates, set_aside

    ent_by_id = {e.id: e for e in entities}
    # a proposed Dataset or Metric is a target, not a source: the paper evaluates on it
    sources = {pid: v for pid, v in proposed_ids.items() if ent_by_id[pid].type in ROLE_SOURCES}
    psents: dict[tuple[int, int], str] = {}
    for pid in sources:
        for m in ent_by_id[pid].mentions:
            if m.field == "abstract":
                psents.setdefault(sentence_of(m.start), pid)
    main = _main_proposal(sources, ent_by_id)
    out = [Relation("HAS_CODE", paper_id, e.id, evidence(e.mentions[0]), rules.confidence("url") * 0.85, "mention:url")
           for e in entities if e.type == "Repository" and e.mentions]
    for e, feats in candidates(entities, groups, proposed_ids, derived, title, text, sents, sentence_of,
                               {k: v[0] for k, v in compared.items()}, extra):
        msents = [sentence_of(m.start) for m in e.mentions if m.field == "abstract"]
        shared = next((s for s in msents if s in psents), None)
        if roles is not None:
            kind, conf = roles.decide(e, feats)
            rule = "learned-role"
        elif shared is not None:
            kind, conf, rule = "role", 0.6, "sentence"
        elif sources and any(_AUTHOR_CUE.search(text, s[0], s[1]) for s in msents):
            kind, conf, rule = "role", 0.5, "author-sentence"
        else:
            kind, conf, rule = "none", 0.6, ""
        if e.id in compared:  # the comparison rule is exact where it fires
            kind, conf, rule = "compared", COMPARISON_PRECISION, "comparison"
        elif kind == "role" and MENTION_RELATION[e.type] == "USES" and e.mentions \
                and all(m.field == "abstract" and set_aside(text, m.start) for m in e.mentions):
            kind = "none"  # every mention is set aside ("instead of X"): no use is stated
        if kind != "none":
            cmp_kind, cmp_source = compared.get(e.id, ("COMPARED_WITH", None))
            source = cmp_source if kind == "compared" and cmp_source in sources else \
                psents[shared] if shared is not None else main or paper_id
            rtype = cmp_kind if kind == "compared" else MENTION_RELATION[e.type]
            if source != e.id:
                sent = shared or next((s for s in msents if _AUTHOR_CUE.search(text, s[0], s[1])), None)
                ev = span_evidence(*sent) if sent else evidence(e.mentions[0])
                out.append(Relation(rtype, source, e.id, ev, round(conf, 3), rule))
                continue
        grule = groups.get(e.id, {}).get("rule", "")
        conf = round(conf, 3) if roles is not None else rules.confidence(grule) * 0.85
        out.append(Relation("MENTIONS", paper_id, e.id, evidence(e.mentions[0]), conf, f"mention:{grule}"))
    return out


def _main_proposal(proposed_ids: dict, ent_by_id: dict) -> str | None:
    """The paper's main proposal: the first named in the text that is not a variant or a
    coordinated component."""
    main = [pid for pid, (rule, _) in proposed_ids.items()
            if rule not in ("proposal:coordinated", "proposal:variant") and ent_by_id[pid].mentions]
    if not main:
        return None
    return min(main, key=lambda pid: (ent_by_id[pid].mentions[0].field != "abstract", ent_by_id[pid].mentions[0].start,
                                      pid))


def _dedupe(relations: list[Relation]) -> list[Relation]:
    best: dict[tuple[str, str, str], Relation] = {}
    for r in relations:
        k = (r.type, r.source, r.target)
        if k not in best or r.confidence > best[k].confidence:
            best[k] = r
    return list(best.values())


def _title(paper: Paper, entities: list[Entity], proposed_ids: dict) -> str:
    """A readable title for a paper that has none: what it proposes, else its first words."""
    names = [e.name for e in entities if e.id in proposed_ids]
    if names:
        return ", ".join(names[:3])
    first = re.split(r"(?<=[.!?])\s", paper.abstract, maxsplit=1)[0]
    return first if len(first) <= 90 else first[:87].rsplit(" ", 1)[0] + "…"
