"""What a paper proposes: the rules behind the ``kg_relations`` component.

:class:`Proposals` reads the entity spans of one Doc and finds the names the paper
introduces: after trigger verbs ("we propose X", "this paper introduces X"), after naming
words ("an algorithm called ATP", "a concept termed graded non-convexity", "namely meta-VBO"),
after "a novel" ("a novel Extended Finite Difference technique"), in appositives ("X, a
training-free decoding strategy"), coordinated with another proposal ("Learnable Mapping,
Learnable Reduction, and Spectral Regularization"), as named variants (RGIB-SSL of RGIB) and
in the passive ("(MFA-FS) is derived and proposed"). Names no finder produced become
``new-name`` spans.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from spacy.tokens import Doc, Span

from kg.extract import cues
from kg.extract.docutil import doc_text, positions, sentences
from kg.extract.rules import NAMEABLE

TRIGGERS = cues.word_set("proposal_verbs")
SUBJECTS = cues.word_set("author_subjects")
STOPS = {"that", "which", "to", "where", "whose", "when", "if", "because", ";", ".", "by"}
OUTPERFORM = cues.word_set("outperform_words")
COMPARE = cues.word_set("compare_words")
APPOSITIVE_HEADS = cues.labels("appositive_heads")
_GLUE = cues.word_set("name_glue")
NAMING = cues.word_set("naming_words")


_KIND_SUFFIXES = {"based", "type", "like", "style", "inspired", "driven", "guided", "aware"}


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
        if tok.lower_ in APPOSITIVE_HEADS and not (tok.i + 1 < len(doc) and doc[tok.i + 1].text == "-"):
            if tok.lower_ == "suite" and any(t.lower_.startswith("model") for t in doc[tok.i : tok.i + 8]):
                return "Model"
            return APPOSITIVE_HEADS[tok.lower_]
        if tok.text in {",", ";", "."} or tok.lower_ in {"that", "which", "for"}:
            break
    return None


_CUES = TRIGGERS | NAMING | OUTPERFORM | COMPARE | {"introduction", "novel", "new", "our"}
_PREPS = {"for", "of", "in", "on", "with", "to", "that", "which", "based", "using", "via", "where", "from"}
_FILLERS = {"as", "the", "a", "an", "it", "this", "these", "them", '"', "'", "`", "‘", "“"}
_STRONG_NAMING = {"dubbed", "termed", "coined", "dub", "term", "coin"}
# the noun a naming word follows gives the label of the new name ("a concept termed graded non-convexity")
_NAMED_KIND = cues.labels("named_kinds")
# second and first parts of hyphenated adjectives, never the coined part of a name ("training-free", "two-stage")
ADJ_PARTS = cues.word_set("adjective_last_parts")
_NUMBER_WORDS = cues.word_set("adjective_first_parts")
_OURS_STOP = cues.word_set("ours_stops")
_PASSIVE = {"proposed", "introduced", "presented", "developed"}
_BASE_VERBS = {"name", "call", "term", "coin", "dub"}  # "we call X": only with the subject right before
_NOVELTY = {"novel", "new", "our", "proposed"}
_NOT_NOVEL = {"recently", "previously", "originally", "commonly", "widely", "popular", "existing"}


_RUN_GLUE = {"of", "for", "to", "via", "with", "in", "on", "and"}
EPONYM_WORDS = cues.word_set("eponyms")


def _capish(tok) -> bool:
    """A token that can be part of a capitalised name: Title, UPPER, CamelCase or Greek capital."""
    c = tok.text[:1]
    return c.isupper() and c.isalpha() and (tok.is_alpha or any(ch.isdigit() for ch in tok.text[1:]))


def coined_compound(word: str) -> bool:
    """A lower-case hyphenated coinage that can name a method ("threshold-greedy", "policy-as-video",
    "middle-out"), not a hyphenated adjective ("training-free", "two-stage", "data-driven").

    >>> [coined_compound(w) for w in ["threshold-greedy", "policy-as-video", "training-free", "two-stage"]]
    [True, True, False, False]
    """
    parts = word.split("-")
    if len(parts) < 2 or not all(p.isalpha() and p.islower() for p in parts):
        return False
    if parts[0] in _NUMBER_WORDS or parts[-1] in ADJ_PARTS or parts[-1].endswith(("ed", "able", "ive")):
        return False
    return not (len(parts) == 2 and parts[1] in _GLUE)


class Proposals:
    """What a paper proposes (and, from that, what it compares against) in one Doc."""

    def __init__(self, doc: Doc):
        self.doc = doc
        self.spans: list[Span] = list(doc.spans.get("kg", []))
        self.changed = False
        self.by_token: dict[int, Span] = {}
        for sp in self.spans:
            for t in range(sp.start, sp.end):
                self.by_token[t] = sp
        self.sents = sentences(doc)
        self.starts = [x[0] for x in self.sents]
        self.proposed: dict[tuple[str, str], tuple[str, str, tuple[int, int]]] = {}
        self.unnamed: list[tuple[int, int, str]] = []  # trigger objects that named nothing (see echo_title)
        self.triggers: list[int] = []
        self._first: dict | None = None
        from kg.extract.ner import looks_like_title

        self.prose = not looks_like_title(doc_text(doc))  # titles are all capitals: no new-name guessing

    # ------------------------------------------------------------ spans

    def sent(self, i: int) -> tuple[int, int, int, int]:
        return _sent_at(self.sents, self.starts, i)

    def new_span(self, j: int, k: int, label: str, name: str | None = None) -> Span:
        """A span for a name no finder produced; the spans it overlaps give way."""
        for t in range(j, k):
            old = self.by_token.get(t)
            if old is not None:
                j, k = min(j, old.start), max(k, old.end)
        for t in range(j, k):
            old = self.by_token.pop(t, None)
            if old is not None and old in self.spans:
                self.spans.remove(old)
        sp = Span(self.doc, j, k, label=label, kb_id=name or self.doc[j:k].text)
        sp.id_ = "new-name"
        self.spans.append(sp)
        for t in range(j, k):
            self.by_token[t] = sp
        self.changed = True
        return sp

    def propose(self, sp: Span, rule: str, label: str | None = None) -> Span:
        st = self.sent(sp.start)
        if sp.id_ in ("name-shape", "model-coined", "name-weak", "new-name"):
            sp = self.extend_right(sp, st[1])
        label = label or _appositive(self.doc, sp, st[1]) or self.head_after(sp) \
            or ("Method" if sp.label_ in ("Technique", "Task") else sp.label_)
        if label != "Task":  # "a new task called X": an entity, not a proposal
            self.proposed.setdefault((sp.label_, sp.kb_id_), (label, rule, (st[2], st[3])))
        return sp

    def extend_right(self, sp: Span, sent_end: int) -> Span:
        """``Time-Shift Sampler``: a coined name continues over following Title-case words."""
        doc, k = self.doc, sp.end
        while k < min(sp.end + 4, sent_end) and doc[k].is_title and doc[k].is_alpha \
                and k not in self.by_token and doc[k].lower_ not in _GLUE:
            k += 1
        if k == sp.end:
            return sp
        return self.new_span(sp.start, k, sp.label_)

    def head_after(self, sp: Span) -> str | None:
        """``the Good Gestalt (GG) datasets``: the label a head noun right after the name implies."""
        doc, k = self.doc, sp.end
        if k < len(doc) and doc[k].text == "(" and k + 2 < len(doc) and doc[k + 2].text == ")":
            k += 3
        if k < len(doc) and doc[k].lower_.rstrip("s") in APPOSITIVE_HEADS and not (
                k + 1 < len(doc) and doc[k + 1].text == "-"):
            return APPOSITIVE_HEADS[doc[k].lower_.rstrip("s")]
        return None

    def capital_run(self, j: int, limit: int, allow_and: bool = False) -> int:
        """End of the run of capitalised words from ``j`` ("Learnable Mapping", "Federated
        Learning for Global Flatness", "ATP"), joined by hyphens and lower-case function words;
        lexicon spans inside the run are swallowed. "and" joins only before an acronym
        ("Adaptive Aggregation and Splitting (A3S)") or when ``allow_and``."""
        doc, k, end = self.doc, j, j
        while k < min(limit, j + 10):
            t = doc[k]
            if t.text == "-" and k > j and k + 1 < limit and _capish(doc[k + 1]) and not doc[k - 1].whitespace_:
                k += 1
                continue
            if k > j and t.lower_ in _RUN_GLUE and k + 1 < limit and _capish(doc[k + 1]):
                k += 1
                continue
            if not _capish(t) or t.lower_ in _GLUE:
                break
            sp = self.by_token.get(k)
            if sp is not None and (sp.start < j or sp.end > limit or sp.id_ not in ("lexicon", "name-weak")):
                break
            k += 1
            end = k
        if not allow_and and "and" in {t.lower_ for t in doc[j:end]} and not (
                end < len(doc) and doc[end].text == "(" or end + 1 < len(doc) and doc[end].text == ","
                and doc[end + 1].lower_ in ("a", "an", "the")):  # "Fast and Forgetful Memory, an algorithm"
            end = next(i for i in range(j, end) if doc[i].lower_ == "and")
        while end > j and doc[end - 1].lower_ in _RUN_GLUE:
            end -= 1
        return end

    def word_groups(self, j: int, limit: int) -> list[tuple[int, int, str]]:
        """Whitespace-delimited words from ``j`` as (start token, end token, text)."""
        doc, out, a = self.doc, [], j
        for k in range(j, limit):
            if doc[k].whitespace_ or k == limit - 1:
                out.append((a, k + 1, doc[a : k + 1].text))
                a = k + 1
        return out

    def lower_name(self, j: int, limit: int) -> int:
        """End of a lower-case name after a naming word ("an online coreset", "graded
        non-convexity", "Δ-amortized inference"): up to four words, no function words."""
        k = j
        for a, b, word in self.word_groups(j, min(limit, j + 12))[:4]:
            w = word.rstrip(",.;:)\"'”’")
            if not w or w != word and b - a == 1 or not re.fullmatch(r"[a-zΑ-Ωα-ω][\w'-]*", w) \
                    or any(c.isupper() for c in w if "a" <= c.lower() <= "z") or w in _GLUE or w in STOPS \
                    or w in _PREPS:
                break
            k = b
            if w != word:
                break
        while k > j and not (self.doc[k - 1].is_alpha or self.doc[k - 1].text[-1:].isalnum()):
            k -= 1  # trailing punctuation and quotes
        return k

    def first_mention(self, sp: Span) -> bool:
        if self._first is None:
            self._first = {}
            for x in sorted(self.spans, key=lambda x: x.start):
                self._first.setdefault((x.label_, x.kb_id_), x.start)
        return self._first.get((sp.label_, sp.kb_id_), sp.start) >= sp.start

    def new_name(self, j: int, k: int, label: str, name: str | None = None) -> Span:
        """A new-name span; "(ACR)" right after it is its alias."""
        sp = self.new_span(j, k, label, name)
        doc = self.doc
        if k + 2 < len(doc) and doc[k].text == "(" and doc[k + 2].text == ")":
            from kg.extract.patterns import is_short_form

            if is_short_form(doc[k + 1].text):
                info = doc.user_data.setdefault("kg_info", {})
                info.setdefault((sp.label_, sp.kb_id_), {}).setdefault("aliases", set()).add(doc[k + 1].text)
        return sp

    # ------------------------------------------------------------ rules

    def run(self) -> Doc:
        doc = self.doc
        cues = positions(doc, _CUES)
        for i in cues:
            low = doc[i].lower_
            s0, s1 = self.sent(i)[:2]
            if i > 0 and doc[i - 1].text == "-" and not doc[i - 2].whitespace_:  # "long-term"
                continue
            if low in TRIGGERS and self.has_subject(i, s0):
                self.triggers.append(i)
                self.trigger(i, min(i + 15, s1), f"proposal:{low}")
            elif low in _PASSIVE and i > 1 and doc[i - 1].lower_ in ("is", "are") or \
                    low in _PASSIVE and i > 3 and doc[i - 1].lower_ == "and" and doc[i - 3].lower_ in ("is", "are"):
                self.passive(i, s0)
            elif low == "introduction" and i + 1 < len(doc) and doc[i + 1].lower_ == "of":
                self.trigger(i, min(i + 15, s1), "proposal:introduction-of")
        for i in cues:  # "a framework, named UP2ME", "an algorithm called ATP"
            if doc[i].lower_ in NAMING and i + 1 < len(doc) and not (i > 0 and doc[i - 1].text == "-"):
                self.naming(i)
        if self.prose:
            for i in cues:  # "enabled by a novel Extended Finite Difference technique"
                if doc[i].lower_ in ("novel", "new") and i + 1 < len(doc) and _capish(doc[i + 1]) \
                        and (i + 1) not in self.by_token:
                    s1 = self.sent(i)[1]
                    k = self.capital_run(i + 1, s1)
                    if k - (i + 1) >= 2 or k < s1 and k > i + 1 and doc[k].lower_ in APPOSITIVE_HEADS \
                            and doc[i + 1].text not in EPONYM_WORDS:
                        self.coordinated(self.propose(self.new_name(i + 1, k, "Method"), "proposal:novel"), s1)
        for i in cues:  # "The proposed method, separable PINN (SPINN), operates"; "our ... algorithm (ExpGen)"
            low = doc[i].lower_
            if low == "our" or low == "proposed" and i > 0 and doc[i - 1].lower_ == "the":
                self.ours(i)
        self.variants()
        sent_starts = set(self.starts)
        for sp in list(self.spans):  # appositives define names even without a trigger verb
            if sp.start in sent_starts and sp.id_ in ("name-shape", "model-coined", "name-weak", "acronym") \
                    and (sp.label_, sp.kb_id_) not in self.proposed \
                    and _appositive(doc, sp, self.sent(sp.start)[1]) is not None:
                self.propose(sp, "appositive")
        if self.changed:
            doc.spans["kg"] = sorted(self.spans, key=lambda s: s.start)
        doc.user_data["kg_unnamed"] = self.unnamed
        comparisons(doc, cues, self.by_token, self.proposed, self.sents, self.starts)
        doc.user_data["kg_proposed"] = self.proposed
        return doc

    def has_subject(self, i: int, s0: int) -> bool:
        """``we propose`` / ``this paper presents``, not ``the proposed method``; base forms
        ("we call", "we name") only with the subject right before."""
        doc, low = self.doc, self.doc[i].lower_
        if low in _BASE_VERBS:
            return i > 0 and doc[i - 1].lower_ in ("we", "i")
        if low.endswith("ing"):  # "we address this by introducing AmP"
            return any(t.lower_ in ("we", "i") for t in doc[s0:i])
        if low == "proposed" and i > 0 and doc[i - 1].lower_ in ("the", "our", "a", "an", "recently", "previously",
                                                                "originally", "been", "was", "were", "is", "are"):
            return False
        return any(t.lower_ in SUBJECTS for t in doc[max(s0, i - 5) : i])

    def modifier(self, sp: Span, end: int) -> bool:
        """``a novel FRL algorithm FLUTE``, ``a ... DuAL framework named HEAL``: the span only
        modifies a head noun that is itself named next."""
        doc, k = self.doc, sp.end
        while k < min(end, sp.end + 4) and doc[k].is_lower and doc[k].is_alpha \
                and doc[k].lower_.rstrip("s") not in APPOSITIVE_HEADS and doc[k].lower_ not in _PREPS:
            k += 1
        if k >= end or doc[k].lower_.rstrip("s") not in APPOSITIVE_HEADS:
            return False
        k += 1
        if k < end and doc[k].text == ",":
            k += 1
        nxt = self.by_token.get(k)
        return k < end and (doc[k].lower_ in NAMING or nxt is not None and nxt.id_ in (
            "name-shape", "model-coined", "name-weak", "acronym") or _capish(doc[k]) and k not in self.by_token)

    def known_modifier(self, sp: Span, end: int) -> bool:
        """``we propose an upper confidence bound algorithm``, ``a UCB-type method``: a known
        name that only says what kind of unnamed contribution follows is not what is proposed."""
        doc, k = self.doc, sp.end
        if k + 1 < end and doc[k].text == "-" and doc[k + 1].lower_ in _KIND_SUFFIXES:
            k += 2
        return k < end and doc[k].lower_.rstrip("s") in APPOSITIVE_HEADS and doc[sp.start - 1].lower_ in ("a", "an")

    def trigger(self, i: int, end: int, rule: str) -> None:
        """``we propose X``: the first name in the verb's object, and names coordinated with it.
        Past a preposition only new names count; past "an algorithm for", only an acronym
        defined there ("a framework for Similarity-driven ... (SiBBlInGS)")."""
        doc, by_token = self.doc, self.by_token
        j, pp = i + 1, 0  # 0: object; 1: inside a prepositional phrase; 2: after "an algorithm for"
        while j < end:
            t = doc[j]
            low = t.lower_
            if low in NAMING or low == "namely":
                return  # "a framework, named X": the naming word decides
            if low in STOPS:
                end = j
                break
            if t.text == "(" and not (j + 2 < end and doc[j + 2].text == ")" and (j + 1) in by_token):
                depth, j = 1, j + 1  # "(i.e., value-at-risk (VaR) ...)": examples, not the name
                while j < end and depth:
                    depth += {"(": 1, ")": -1}.get(doc[j].text, 0)
                    j += 1
                continue
            sp = by_token.get(j)
            if sp is not None:
                if sp.id_ == "lexicon":
                    ok = pp == 0 and sp.label_ in ("Method", "Dataset", "Software") and not rule.startswith("proposal:releas") \
                        and not self.known_modifier(sp, end)
                elif pp == 2:  # "a framework for ... prediction network (TempNet)"
                    ok = sp.id_ in ("acronym", "name-shape", "model-coined") and self.first_mention(sp) and doc[j - 1].text == "("
                else:
                    ok = sp.id_ in NAMEABLE and (pp == 0 or self.first_mention(sp))
                if ok and not self.modifier(sp, end):
                    self.coordinated(self.propose(sp, rule), end)
                    return
                j = sp.end
                continue
            if j > i + 1 and (low in _PREPS or low.endswith("ing") and t.is_lower):
                if doc[j - 1].lower_.rstrip("s") in APPOSITIVE_HEADS:  # "an algorithm for X": X is not the name
                    pp = 2
                elif low in _PREPS:
                    pp = max(pp, 1)
            if self.prose and pp == 0 and _capish(t) and doc[j - 1].lower_ in TRIGGERS | {
                    "the", "a", "an", "novel", "new", ",", "-", "--", "—", ":"}:
                k = self.capital_run(j, end)
                if k > j and (k - j >= 2 or k < len(doc) and (doc[k].text in {",", "(", ":", "-", "--", "—"}
                                                               or doc[k].lower_ in APPOSITIVE_HEADS)) \
                        and not (k - j == 1 and t.text in EPONYM_WORDS):
                    self.coordinated(self.propose(self.new_name(j, k, "Method"), rule), end)
                    return
            if self.prose and pp == 0 and not t.whitespace_ and j + 1 < end and doc[j + 1].text == "-":
                groups = self.word_groups(j, end)
                if groups and coined_compound(groups[0][2]) and groups[0][1] + 1 < end:
                    a, b, _ = groups[0]
                    head = doc[b].lower_.rstrip("s")
                    if head in APPOSITIVE_HEADS or head == "a" and doc[b].lower_ == "as" and doc[b + 1].lower_ in (
                            "a", "an"):  # "we propose parallel-mentoring as an effective method"
                        self.propose(self.new_span(a, b, "Method"), rule, APPOSITIVE_HEADS.get(head, "Method"))
                        return
            j += 1
        self.unnamed.append((i + 1, end, doc[i].lower_))

    def ours(self, i: int) -> None:
        """A new name inside "our ..." or "the proposed ..." noun phrases."""
        doc = self.doc
        s1 = self.sent(i)[1]
        for k in range(i + 1, min(i + 9, s1)):
            t = doc[k]
            if t.text in {".", ";"} or t.lower_ in _OURS_STOP or t.lower_ in STOPS and not (
                    k + 1 < s1 and _capish(doc[k + 1])):
                return
            sp = self.by_token.get(k)
            if sp is None or sp.start != k:
                continue
            if sp.id_ in ("name-shape", "model-coined", "acronym", "new-name") and (
                    k == i + 1 or doc[k - 1].text in {"(", ","}) and self.first_mention(sp):
                self.propose(sp, "proposal:our")
            return

    def passive(self, i: int, s0: int) -> None:
        """``The Fisher score ... (MFA-FS) is derived and proposed as``: the name before the verb."""
        doc = self.doc
        if i + 1 < len(doc) and doc[i + 1].lower_ in ("by", "in"):  # "was proposed by [12]"
            return
        for k in range(i - 2, max(s0, i - 14) - 1, -1):
            sp = self.by_token.get(k)
            if sp is not None and sp.id_ in ("name-shape", "model-coined", "acronym", "new-name") and self.first_mention(sp):
                self.propose(sp, "proposal:passive")
                return

    def variants(self) -> None:
        """``RGIB-SSL`` and ``RGIB-REP`` after the paper proposes RGIB: named variants."""
        if not self.proposed:
            return
        info = self.doc.user_data.get("kg_info", {})
        stems = set()
        for key in self.proposed:
            stems.add(key[1])
            stems |= info.get(key, {}).get("aliases", set())
        for sp in list(self.spans):
            head, _, tail = sp.kb_id_.partition("-")
            if sp.id_ in ("name-shape", "model-coined") and head in stems and tail.isalpha() and tail.isupper():
                self.propose(sp, "proposal:variant")

    def coordinated(self, sp: Span, end: int) -> None:
        """``we propose Learnable Mapping, Learnable Reduction, and Spectral Regularization``;
        ``Frob-SAM and Det-SAM``."""
        doc, j = self.doc, sp.end
        for _ in range(5):
            if j + 2 < end and doc[j].text == "(" and doc[j + 2].text == ")":
                j += 3
            k = j
            while k < end and doc[k].lower_ in {",", "and", "or"}:
                k += 1
            if k == j or k >= end:
                return
            nxt = self.by_token.get(k)
            if nxt is not None and nxt.start == k and nxt.id_ in ("name-shape", "model-coined", "acronym", "new-name"):
                sp = self.propose(nxt, "proposal:coordinated")
            elif nxt is None and self.prose and _capish(doc[k]):
                e = self.capital_run(k, end)
                if e - k < 2:
                    return
                sp = self.propose(self.new_name(k, e, "Method"), "proposal:coordinated")
            else:
                return
            j = sp.end

    def naming(self, i: int) -> None:
        """``a framework, named UP2ME``; ``a data structure called an online coreset``."""
        doc, tok = self.doc, self.doc[i]
        s0, s1 = self.sent(i)[:2]
        low = tok.lower_
        if low in _BASE_VERBS:
            if not (i > 0 and doc[i - 1].lower_ in ("we", "i")):
                return
        elif low not in _STRONG_NAMING and not any(s0 <= t < i for t in self.triggers) and (low == "namely" or not any(
                t.lower_ in _NOVELTY and doc[t.i - 1].lower_ not in _NOT_NOVEL for t in doc[max(s0, i - 20) : i])):
            return  # "namely" needs a trigger verb; "called", "named" a trigger or a novelty word
        if any(t.lower_ in ("they", "et", "authors", "previously", "recently") for t in doc[s0:i]):
            return  # "which they dubbed the deep kernel machine": someone else's name
        j = i + 1
        while j < min(i + 5, s1) and (doc[j].lower_ in _FILLERS or low in _BASE_VERBS and doc[j].lower_ in (
                "method", "algorithm", "approach", "framework", "model", "procedure", "resulting")):
            j += 1
        if j >= s1:
            return
        kind = None  # from the nearest head noun before: "a concept termed X", "a metric called X"
        for t in reversed(doc[max(s0, i - 16) : i]):
            if t.lower_ in {"where", "given", "with", "when", "while", ";"}:
                break
            w = t.lower_.rstrip("s") if t.lower_ not in _NAMED_KIND else t.lower_
            if (w in _NAMED_KIND or w in APPOSITIVE_HEADS) and not (
                    t.i + 1 < len(doc) and doc[t.i + 1].text in ("-", "'s", "’s")):
                kind = _NAMED_KIND.get(w)
                break
        rule = f"proposal:{low}"
        sp = self.by_token.get(j)
        if sp is not None and sp.start == j and sp.id_ in NAMEABLE and (sp.label_ != "Task" or sp.id_ == "acronym") and (
                sp.id_ in ("name-shape", "model-coined", "name-weak", "acronym", "new-name") or self.lower_name(j, s1) <= sp.end):
            self.propose(sp, rule, kind)
            return
        if not self.prose or j == s0:
            return
        if _capish(doc[j]):
            k = self.capital_run(j, s1, allow_and=True)
            if k > j:
                self.propose(self.new_name(j, k, "Method"), rule, kind)
            return
        k = self.lower_name(j, s1)
        if k > j and (len(self.word_groups(j, k)) >= 2 or "-" in doc[j:k].text):
            name = doc[j:k].text
            if (kind or "Technique") != "Method":
                from kg.extract.names import canonical_long_form

                name = canonical_long_form(name, "Technique")
            self.propose(self.new_name(j, k, kind or "Method", name), rule, kind or "Method")


def comparisons(doc: Doc, cues: list[int], by_token: dict[int, Span], proposed: dict,
                 sents: list[tuple[int, int, int, int]], starts: list[int]) -> None:
    """OUTPERFORMS / COMPARED_WITH between what the paper proposes and named baselines."""
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
    doc.user_data["kg_compared"] = compared
