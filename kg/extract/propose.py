"""A learned decision on what a paper proposes (``ProposalModel``).

The proposal rules (:mod:`kg.extract.proposals`) are exact where a cue is explicit ("we propose
X", "X, a novel ...", "called X"), but many papers introduce their method less explicitly: the
name only recurs as the subject of the authors' sentences, or the title names it. The decision
here looks at every named entity of a paper and asks whether it is what the paper introduces,
from what the rules said (and which rule), the name's shape (coined, acronym, known to the
lexicon), where it first appears (title, before the title's colon, which sentence), the words
around its first mention (trigger verbs, "we"/"our", "existing", "baseline") and how often the
paper uses it. A logistic regression over these features, trained by ``scripts/train_select.py``
on the annotated proposals; its weights ship with the span model (``MODEL/propose``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from kg.extract import cues
from kg.extract.proposals import NAMING, OUTPERFORM, TRIGGERS
from kg.extract.select import coined, fit, load_linear, save_linear

PROPOSABLE = frozenset({"Method", "Technique", "Model", "Dataset", "Metric", "Software"})
CLASSES = ("no", "yes")
_NOVEL = cues.word_set("novel_words")
_OLD = cues.word_set("old_words")
_WORD = re.compile(r"[\w][\w'-]*")


def features(e, rule: str | None, group_rule: str, n_proposed: int, title: str, text: str,
             sentence: tuple[int, int], sent_index: int, n_sents: int) -> list[str]:
    """Features of entity ``e`` (an :class:`~kg.records.Entity`) as a proposal of its paper;
    ``rule`` is the proposal rule that fired for it (None if none), ``sentence`` the bounds of
    its first abstract mention's sentence."""
    names = [e.name, *e.aliases]
    f = ["bias", f"label={e.type}", f"grule={group_rule}", f"rule={rule or '-'}", f"nprop={min(n_proposed, 3)}",
         f"rule={rule or '-'}|label={e.type}"]
    if any(coined(n) for n in names):
        f.append("coined")
    if any(n.isupper() and len(n) > 1 for n in e.aliases):
        f.append("acronym-alias")
    if group_rule in ("lexicon", "lexicon-acronym"):
        f.append("known")
    in_title = [m for m in e.mentions if m.field == "title"]
    if in_title:
        f.append("in-title")
        colon = title.find(":")
        if colon > 0 and any(m.end <= colon for m in in_title):
            f.append("title-head")
    n = len([m for m in e.mentions if m.field == "abstract"])
    f.append(f"nment={min(n, 4)}")
    if n:
        f.append(f"sent={min(sent_index, 4)}")
        f.append(f"relpos={int(4 * sent_index / max(1, n_sents))}")
        s0, s1 = sentence
        words = [w.lower() for w in _WORD.findall(text[s0:s1])]
        first = next(m for m in e.mentions if m.field == "abstract")
        before = [w.lower() for w in _WORD.findall(text[max(s0, first.start - 50):first.start])][-3:]
        for w in before:
            f.append(f"b={w}")
        ws = set(words)
        if ws & TRIGGERS:
            f.append("s-trigger")
        if ws & NAMING:
            f.append("s-naming")
        if ws & _NOVEL:
            f.append("s-novel")
        if ws & _OLD:
            f.append("s-old")
        if ws & OUTPERFORM:
            f.append("s-outperform")
        if set(before) & (TRIGGERS | NAMING | _NOVEL):
            f.append("b-cue")
    else:
        f.append("title-only")
    return f


class ProposalModel:
    """Binary logistic regression over :func:`features` with a decision threshold."""

    def __init__(self, index: dict[str, int], weights: np.ndarray, threshold: float):
        self.index = index
        self.weights = weights
        self.threshold = threshold

    @classmethod
    def load(cls, folder: Path | str) -> ProposalModel:
        index, weights, meta = load_linear(folder)
        return cls(index, weights, float(meta["threshold"]))

    def save(self, folder: Path | str, meta: dict) -> None:
        save_linear(folder, self.index, self.weights, {**meta, "threshold": self.threshold})

    def decide(self, entities, groups: dict, proposed_ids: dict, title: str, text: str,
               sents: list[tuple[int, int]], sentence_of,
               extra: dict[str, list[str]] | None = None) -> dict[str, tuple[str, tuple[int, int]]]:
        """What the paper proposes: what the proposal cues found (they are exact where they fire),
        and the entities the model accepts, with the sentence of their first mention; ``extra``
        are more features per entity id (the contextual encoder's view)."""
        out = dict(proposed_ids)
        for e, f, rule, sent in candidates(entities, groups, proposed_ids, title, text, sents, sentence_of, extra):
            if rule is None and self.prob(f) >= self.threshold:
                out[e.id] = ("learned", sent) if sent else ("learned-title", (0, len(title)))
        return out

    def prob(self, feats: list[str]) -> float:
        rows = [self.index[x] for x in feats if x in self.index]
        z = self.weights[rows].sum(axis=0) if rows else np.zeros(2)
        z = z - z.max()
        p = np.exp(z)
        return float(p[1] / p.sum())

    @classmethod
    def fit(cls, feats: list[list[str]], labels: list[bool], l2: float = 1.0, threshold: float = 0.5) -> ProposalModel:
        index, weights = fit(feats, ["yes" if y else "no" for y in labels], l2=l2, min_count=2, classes=CLASSES)
        return cls(index, weights, threshold)



def candidates(entities, groups: dict, proposed_ids: dict, title: str, text: str,
               sents: list[tuple[int, int]], sentence_of, extra: dict[str, list[str]] | None = None):
    """``(entity, features, rule proposal or None, first-mention sentence)`` for each entity of
    a paper that could be a proposal."""
    from bisect import bisect_right

    starts = [s[0] for s in sents]
    for e in entities:
        if e.type not in PROPOSABLE or not e.mentions or "rule" not in groups.get(e.id, {}):
            continue
        first = next((m for m in e.mentions if m.field == "abstract"), None)
        sent = sentence_of(first.start) if first is not None else None
        k = bisect_right(starts, first.start) - 1 if first is not None else 0
        rule = proposed_ids.get(e.id)
        f = features(e, rule[0] if rule else None, groups[e.id]["rule"], len(proposed_ids), title, text,
                     sent or (0, 0), k, len(sents))
        if extra is not None:
            f += extra.get(e.id, ["no-encp"])
        yield e, f, rule, sent
