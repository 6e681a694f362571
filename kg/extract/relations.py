"""The ``kg_relations`` component: what a paper proposes, and what it compares against.

Writes ``doc.user_data["kg_proposed"]`` ({canonical (label, name): (label, rule, sentence)})
and ``doc.user_data["kg_compared"]`` (list of (type, source key, target key, sentence)).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from spacy.attrs import LOWER
from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.extract.docutil import doc_text, sentences

TRIGGERS = {"propose", "proposes", "proposed", "introduce", "introduces", "introduced",
            "present", "presents", "presented", "develop", "develops", "developed", "design",
            "designs", "designed", "release", "releases", "released", "name", "call", "dub",
            "term", "coin", "devise", "devised", "formulate", "build", "construct", "curate",
            "offer", "contribute", "create", "establish"}
SUBJECTS = {"we", "paper", "work", "study", "here", "article", "authors"}
STOPS = {"that", "which", "to", "where", "whose", "when", "if", "because", ";", ".", "by"}
OUTPERFORM = {"outperform", "outperforms", "outperformed", "outperforming", "surpass",
              "surpasses", "surpassed", "surpassing", "beats", "beat", "exceeds", "exceed",
              "outperformance"}
COMPARE = {"compared", "comparison", "versus", "vs", "vs.", "against", "over"}
APPOSITIVE_HEADS = {
    "framework": "Method", "method": "Method", "approach": "Method", "algorithm": "Method",
    "strategy": "Method", "architecture": "Method", "system": "Method", "technique": "Method",
    "model": "Method", "paradigm": "Method", "pipeline": "Method", "wrapper": "Method",
    "loss": "Method", "regularizer": "Method", "regularization": "Method", "scheme": "Method",
    "network": "Method", "optimizer": "Method", "estimator": "Method", "agent": "Method",
    "procedure": "Method", "module": "Method", "mechanism": "Method", "policy": "Method",
    "dataset": "Dataset", "benchmark": "Dataset", "corpus": "Dataset", "suite": "Dataset",
    "testbed": "Dataset", "library": "Software", "toolkit": "Software", "toolbox": "Software",
    "package": "Software", "engine": "Software", "simulator": "Software", "platform": "Software",
    "metric": "Metric", "measure": "Metric", "score": "Metric",
}
_NAMEABLE_RULES = {"name-shape", "name-weak", "acronym", "lexicon", "new-name"}
_GLUE = {"for", "of", "and", "with", "in", "on", "to", "via", "by", "the", "a", "an", "from", "at"}
NAMING = {"named", "called", "dubbed", "termed", "coined", "name", "call", "term", "dub"}


def _sent_at(sents: list[tuple[int, int, int, int]], starts: list[int], i: int) -> tuple[int, int, int, int]:
    return sents[max(0, bisect_right(starts, i) - 1)]


def _appositive(doc: Doc, span: Span, sent_end: int) -> str | None:
    """``X, a training-free decoding strategy`` -> the label its head noun implies."""
    i = span.end
    if i < len(doc) and doc[i].text == "(":
        while i < len(doc) and doc[i].text != ")" and i - span.end < 6:
            i += 1
        i += 1
    if i + 1 >= len(doc) or doc[i].text not in {",", ":", "—", "-"}:
        return None
    if doc[i + 1].lower_ not in {"a", "an", "the", "which", "our"}:
        return None
    for tok in doc[i + 2 : min(i + 14, sent_end)]:
        if tok.lower_ in APPOSITIVE_HEADS:
            if tok.lower_ == "suite" and any(t.lower_.startswith("model") for t in doc[tok.i : tok.i + 8]):
                return "Model"
            return APPOSITIVE_HEADS[tok.lower_]
        if tok.text in {",", ";", "."} or tok.lower_ in {"that", "which", "for"}:
            break
    return None


_CUES = TRIGGERS | NAMING | OUTPERFORM | COMPARE | {"introduction"}
_CUE_HASHES: dict[int, frozenset[int]] = {}


def _cue_positions(doc: Doc) -> list[int]:
    """Token positions whose lowercase form is a cue word, found without Token objects
    (on abstract-sized arrays a set lookup takes about a third of the time of ``numpy.isin``)."""
    key = id(doc.vocab)
    cues = _CUE_HASHES.get(key)
    if cues is None:
        cues = _CUE_HASHES[key] = frozenset(doc.vocab.strings.add(w) for w in _CUES)
    if not len(doc):
        return []
    return [i for i, h in enumerate(doc.to_array([LOWER]).reshape(-1).tolist()) if h in cues]


@Language.component("kg_relations")
def find_relations(doc: Doc) -> Doc:
    spans: list[Span] = list(doc.spans.get("kg", []))
    by_token: dict[int, Span] = {}
    for sp in spans:
        for t in range(sp.start, sp.end):
            by_token[t] = sp
    sents = sentences(doc)
    starts = [x[0] for x in sents]
    proposed: dict[tuple[str, str], tuple[str, str, tuple[int, int]]] = {}
    new_spans: list[Span] = []

    def propose(sp: Span, rule: str) -> None:
        st = _sent_at(sents, starts, sp.start)
        if sp.id_ in ("name-shape", "name-weak", "new-name"):
            sp = _extend_right(sp, st[1])
        label = _appositive(doc, sp, st[1]) or ("Method" if sp.label_ in ("Technique", "Task") else sp.label_)
        proposed.setdefault((sp.label_, sp.kb_id_), (label, rule, (st[2], st[3])))

    def _extend_right(sp: Span, sent_end: int) -> Span:
        """``Time-Shift Sampler``: a coined name continues over following Title-case words."""
        k = sp.end
        while k < min(sp.end + 4, sent_end) and doc[k].is_title and doc[k].is_alpha \
                and k not in by_token and doc[k].lower_ not in _GLUE:
            k += 1
        if k == sp.end:
            return sp
        longer = Span(doc, sp.start, k, label=sp.label_, kb_id=doc[sp.start:k].text)
        longer.id_ = "new-name"
        if sp in spans:
            spans.remove(sp)
        new_spans.append(longer)
        for t in range(sp.start, k):
            by_token[t] = longer
        return longer

    cues = _cue_positions(doc)
    for i in cues:
        tok = doc[i]
        low = tok.lower_
        s0, s1 = _sent_at(sents, starts, i)[:2]
        trigger = None
        if low in TRIGGERS:
            if any(t.lower_ in SUBJECTS for t in doc[max(s0, i - 5) : i]):
                trigger = f"proposal:{low}"
        elif low == "introduction" and i + 1 < len(doc) and doc[i + 1].lower_ == "of":
            trigger = "proposal:introduction-of"
        if trigger is None:
            continue
        end = min(i + 15, s1)
        j = i + 1
        while j < end:
            t = doc[j]
            if t.lower_ in STOPS:
                break
            sp = by_token.get(j)
            if sp is not None:
                if sp.id_ in _NAMEABLE_RULES and (sp.id_ != "lexicon" or sp.label_ in ("Method", "Dataset", "Software")):
                    propose(sp, trigger)
                    break
                j = sp.end
                continue
            # a capitalised coinage right after the trigger: "we propose Hydra, a ..."
            if t.is_title and j > i and t.is_alpha and len(t) > 2 and j + 1 < len(doc) \
                    and doc[j + 1].text in {",", "(", ":"} and doc[j - 1].lower_ in TRIGGERS | {"the", "of"}:
                sp = Span(doc, j, j + 1, label="Method", kb_id=t.text)
                sp.id_ = "new-name"
                new_spans.append(sp)
                by_token[j] = sp
                propose(sp, trigger)
                break
            j += 1
    for i in cues:  # "a framework, named UP2ME", "an algorithm called ATP"
        tok = doc[i]
        if tok.lower_ not in NAMING or i + 1 >= len(doc):
            continue
        s0, s1 = _sent_at(sents, starts, i)[:2]
        j = i + 1
        while j < min(i + 3, len(doc)) and doc[j].lower_ in {"as", "the", "a", "an", "it", '"', "'"}:
            j += 1
        sp = by_token.get(j)
        context = any(t.lower_ in SUBJECTS | TRIGGERS | {"proposed", "novel", "new"} for t in doc[max(s0, i - 25) : i])
        if not context:
            continue
        if sp is not None and sp.start == j and sp.id_ in _NAMEABLE_RULES and sp.label_ != "Task":
            propose(sp, f"proposal:{tok.lower_}")
        elif sp is None and j < s1 and doc[j].is_title and j != s0:
            k = j
            while k < min(j + 4, s1) and (doc[k].is_title or doc[k].text == "-" or doc[k].is_upper) \
                    and k not in by_token and (doc[k].is_alpha or doc[k].text == "-"):
                k += 1
            if k > j:
                new_sp = Span(doc, j, k, label="Method", kb_id=doc[j:k].text)
                new_sp.id_ = "new-name"
                new_spans.append(new_sp)
                for t in range(j, k):
                    by_token[t] = new_sp
                propose(new_sp, f"proposal:{tok.lower_}")
    sent_starts = set(starts)
    for sp in spans:  # appositives define names even without a trigger verb
        if sp.start in sent_starts and sp.id_ in ("name-shape", "name-weak", "acronym") \
                and (sp.label_, sp.kb_id_) not in proposed \
                and _appositive(doc, sp, _sent_at(sents, starts, sp.start)[1]) is not None:
            propose(sp, "appositive")
    if new_spans:
        doc.spans["kg"] = sorted(spans + new_spans, key=lambda s: s.start)
    compared = []
    verbs_by_sent: dict[int, list[int]] = {}
    for i in cues:
        if doc[i].lower_ in OUTPERFORM or doc[i].lower_ in COMPARE:
            verbs_by_sent.setdefault(bisect_right(starts, i) - 1, []).append(i)
    for k, verbs in verbs_by_sent.items():
        s0, s1, c0, c1 = sents[k]
        ents = list(dict.fromkeys(by_token[i] for i in range(s0, s1) if i in by_token))
        for vi in verbs:
            v = doc[vi]
            kind = "OUTPERFORMS" if v.lower_ in OUTPERFORM else "COMPARED_WITH"
            if kind == "COMPARED_WITH" and v.lower_ == "over" and not any(
                    t.lower_ in {"improve", "improves", "improvement", "improvements", "gains", "gain"}
                    for t in doc[s0:s1]):
                continue
            subj = [s for s in ents if s.end <= vi and (s.label_, s.kb_id_) in proposed]
            objs = [s for s in ents if s.start > vi and s.label_ in ("Method", "Model")
                    and (s.label_, s.kb_id_) not in proposed]
            if not subj and proposed and re.search(r"\b(our|ours|it|the proposed)\b", doc_text(doc)[c0 : v.idx], re.I):
                subj = [None]
            for s in subj:
                for o in objs:
                    compared.append((kind, None if s is None else (s.label_, s.kb_id_),
                                     (o.label_, o.kb_id_), (c0, c1)))
    doc.user_data["kg_proposed"] = proposed
    doc.user_data["kg_compared"] = compared
    return doc


_NOT_NAMES = {"towards", "toward", "beyond", "rethinking", "understanding", "revisiting", "on",
              "when", "why", "how", "what", "learning", "improving", "scaling", "position",
              "benchmarking", "unlocking", "exploring", "demystifying", "the", "a", "an", "from",
              "less", "more", "all", "one", "no", "do", "is", "are", "can", "does"}
_TITLE_NAME = re.compile(r"^\s*([A-Za-z][\w²³¹⁰-⁹+.'-]*(?: [A-Za-z0-9][\w²³¹⁰-⁹+.'-]*){0,2})\s*:\s+(\S.*)$")


def title_proposal(doc: Doc) -> tuple[tuple[str, str], str] | None:
    """``SpecForge: Scalable ...`` -> the (label, name) key of the proposed entity and its label.

    Only a coined name counts: a name-shaped word, or one capitalised word that is not an
    ordinary title opener; multi-word slogans ("Referee Can Play") do not.
    """
    from kg.extract.patterns import is_name_shaped

    m = _TITLE_NAME.match(doc_text(doc))
    if not m:
        return None
    name, rest = m.group(1), m.group(2)
    words = name.split()
    if words[0].lower() in _NOT_NAMES:
        return None
    if not (any(is_name_shaped(w) for w in words) or len(words) == 1 and (
            words[0][0].isupper() and len(words[0]) > 2 and (words[0][1:].islower() or words[0].isupper()))):
        return None
    end = m.end(1)
    label = "Method"
    head = rest.lower()
    for word, lab in APPOSITIVE_HEADS.items():
        if re.match(r"^(?:a|an|the)?\s*(?:[\w-]+\s+){0,5}" + word + r"s?\b", head):
            label = lab
            break
    for sp in doc.spans.get("kg", []):
        if sp.start_char == 0 and sp.end_char == end:
            return (sp.label_, sp.kb_id_), label
    sp = doc.char_span(0, end, label=label, kb_id=name)
    if sp is None:
        return None
    sp.id_ = "new-name"
    doc.spans["kg"] = sorted([*doc.spans.get("kg", []), sp], key=lambda s: s.start)
    return (label, name), label
