"""A learned decision on what role a paper's text states for an entity it mentions (``RoleModel``).

Naming an entity is not using it: an abstract names baselines it beats, approaches it avoids,
the field's history and neighbouring problems. Every entity a paper mentions (other than what
it proposes) is an example with three classes:

- ``role``: the text states that the paper's contribution is built on or run with it, solves it,
  is evaluated on it or reports it (USES, ADDRESSES, EVALUATED_ON or MEASURES, by its label);
- ``compared``: a named baseline the contribution is compared with (COMPARED_WITH);
- ``none``: a mention with no stated role (MENTIONS).

The features are the entity's label and reading rule, whether it shares a sentence with what the
paper proposes or with the authors' "we"/"our", where and how often it occurs, what the comparison
rule said, and the words around its mentions ("built on", "unlike", "outperforms", "such as").
A logistic regression over them, trained by ``scripts/train_roles.py`` on the annotated
relations; its weights ship with the span model (``MODEL/roles``), and the probability it gives
is the edge's confidence (its calibration on held-out papers is in ``meta.json``).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path

import numpy as np

from kg.extract.select import fit, load_linear, save_linear
from kg.schema import MENTION_LABELS, SCHEMA_DIR, data_file

CLASSES = ("none", "role", "compared")
ROLE_LABELS = frozenset(MENTION_LABELS)
_WORD = re.compile(r"[\w][\w'-]*|[()\[\],;:]")
_AUTHOR = re.compile(r"\b(?:we|our|the proposed|this (?:method|approach|framework|algorithm|model|paper|work))\b",
                     re.IGNORECASE)
LEFT, RIGHT, MENTIONS_READ = 5, 3, 3


# A name the text sets aside: "instead of X", "rather than X", "without X", "unlike X", "in place
# of X", "as opposed to X", "no need for X", "does not require X", "replacing X", with at most
# three words between (no new clause: no comma, "we" or "our"; and not "without sacrificing X",
# which keeps X) - GUIDELINES.md section 7.
_KEPT = r"sacrific\w*|compromis\w*|los(?:e|es|ing)|hurt\w*|harm\w*|degrad\w*|sacrifice|trading|much|any\s+loss"
_ASIDE = re.compile(
    r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|as\s+opposed\s+to|without|unlike|no\s+need\s+for"
    r"|(?:does|do|did)\s+not\s+(?:require|need|rely\s+on|use)|(?:replace|replaces|replacing)(?:\s+the)?)"
    rf"(?:\s+(?!we\b|our\b|{_KEPT})[A-Za-z][\w\-]*){{0,3}}\s+$", re.IGNORECASE)


def set_aside(text: str, start: int) -> bool:
    """Whether the mention at ``start`` of ``text`` is a name the text sets aside (the words
    right before it say the work does without it), which states no use of it.

    >>> t = "FooNet uses LoRA instead of full fine-tuning."
    >>> set_aside(t, t.index("full")), set_aside(t, t.index("LoRA"))
    (True, False)
    >>> t = "Unlike prior work, we use LoRA."
    >>> set_aside(t, t.index("LoRA"))
    False
    >>> t = "FooNet is faster without sacrificing accuracy."
    >>> set_aside(t, t.index("accuracy"))
    False
    """
    return bool(_ASIDE.search(text, max(0, start - 80), start))


@lru_cache(maxsize=1)
def cue_classes() -> dict[str, str]:
    """Cue word -> its class, from ``schema/role_cues.txt``."""
    out = {}
    for line in data_file(SCHEMA_DIR / "role_cues.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            cls, _, words = line.partition("\t")
            for w in words.split():
                out.setdefault(w, cls)
    return out


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def features(e, group_rule: str, proposed: set[str], proposed_sents: dict[tuple[int, int], list[tuple[int, int]]],
             title: str, text: str, sents: list[tuple[int, int]], sentence_of, compared: str | None) -> list[str]:
    """Features of entity ``e`` (an :class:`~kg.records.Entity`, not proposed by its paper):
    ``proposed`` the ids the paper proposes, ``proposed_sents`` the sentences that mention them
    (with the proposals' mention offsets in each), ``compared`` what the comparison rule made of
    ``e`` (COMPARED_WITH, OUTPERFORMS or None)."""
    lab = e.type
    f = ["bias", f"label={lab}", f"grule={group_rule}", f"nprop={min(len(proposed), 2)}",
         f"nprop={min(len(proposed), 2)}|label={lab}"]
    if compared:
        f += [f"cmp={compared}", f"cmp={compared}|label={lab}"]
    abstract = [m for m in e.mentions if m.field == "abstract"]
    if any(m.field == "title" for m in e.mentions):
        f += ["in-title", f"in-title|label={lab}"]
        if not abstract:
            f.append("title-only")
    f.append(f"nment={min(len(abstract), 4)}|label={lab}")
    if not abstract:
        return f
    msents = []
    for m in abstract:
        s = sentence_of(m.start)
        if s not in msents:
            msents.append(s)
    with_prop = [s for s in msents if s in proposed_sents]
    if with_prop:
        f += ["with-proposal", f"with-proposal|label={lab}"]
    authors = [s for s in msents if _AUTHOR.search(text, s[0], s[1])]
    if authors:
        f += ["author-sentence", f"author-sentence|label={lab}"]
    if with_prop or authors:
        f.append(f"ours|label={lab}")
    n = len(sents)
    first = sents.index(msents[0]) if msents[0] in sents else 0
    f.append(f"sent={min(first, 4)}")
    f.append(f"relpos={int(4 * first / max(1, n))}|label={lab}")
    if n and msents[-1] == sents[-1]:
        f.append("in-last-sentence")
    cues = cue_classes()
    for m in abstract[:MENTIONS_READ]:
        s0, s1 = sentence_of(m.start)
        words = _words(text[s0:s1])
        if words:
            f += [f"S0:{words[0][0]}", f"S0:{words[0][0]}|label={lab}"]
        pm = proposed_sents.get((s0, s1))
        if pm:  # the words between this mention and the nearest mention of a proposal
            a, b = min(pm, key=lambda x: abs(x[0] - m.start))
            lo, hi, side = (b, m.start, "after") if a < m.start else (m.end, a, "before")
            between = [w for w, x, _ in words if lo <= x + s0 < hi]
            f += [f"prop-{side}", f"prop-{side}|label={lab}", f"gap={min(len(between), 6) // 2}"]
            f += [f"B:{w}" for w in between[:8]]
            f += [f"cue-B:{c}" for c in {cues[w] for w in between if w in cues}]
        left = [w for w, a, _ in words if a + s0 < m.start][-LEFT:]
        right = [w for w, a, _ in words if a + s0 >= m.end][:RIGHT]
        for i, w in enumerate(reversed(left)):
            f.append(f"L:{w}")
            if i == 0:
                f += [f"L1:{w}", f"L1:{w}|label={lab}"]
            if i == 1:
                f.append(f"L2:{w}_{left[-1]}")
        for i, w in enumerate(right):
            f.append(f"R:{w}")
            if i == 0:
                f += [f"R1:{w}", f"R1:{w}|label={lab}"]
    s0, s1 = msents[0]
    words = _words(text[s0:s1])
    f += [f"S:{w}" for w in {w for w, _, _ in words if len(w) > 2}]
    first = abstract[0].start
    f += [f"cue-S:{c}|label={lab}" for c in {cues[w] for w, _, _ in words if w in cues}]
    f += [f"cue-L:{c}" for c in {cues[w] for w, a, _ in words if w in cues and first - 40 <= a + s0 < first}]
    return f


class RoleModel:
    """Multinomial logistic regression over :func:`features` (classes :data:`CLASSES`) and the
    threshold on P(role) + P(compared) above which a role is stated."""

    def __init__(self, index: dict[str, int], weights: np.ndarray, threshold: float,
                 calibration: list[tuple[float, float]] | None = None):
        self.index = index
        self.weights = weights
        self.threshold = threshold
        #: (lowest score, precision measured on held-out papers from that score up), ascending
        self.calibration = calibration or []

    @classmethod
    def load(cls, folder: Path | str) -> RoleModel:
        index, weights, meta = load_linear(folder)
        cal = [(float(b["from"]), float(b["calibrated"])) for b in meta.get("calibration", ())]
        return cls(index, weights, float(meta["threshold"]), cal)

    def confidence(self, score: float) -> float:
        """The precision measured on held-out papers for edges of this score (the score itself
        when the model carries no calibration)."""
        out = score
        for lo, prec in self.calibration:
            if score >= lo:
                out = prec
        return out

    def save(self, folder: Path | str, meta: dict) -> None:
        save_linear(folder, self.index, self.weights, {**meta, "threshold": self.threshold})

    def probs(self, feats: list[str]) -> np.ndarray:
        """Class probabilities. The weights are summed exactly (``math.fsum``): a vectorised
        float32 sum rounds differently with memory alignment, and a confidence printed to
        three places must not depend on the process that computed it."""
        rows = sorted(self.index[x] for x in feats if x in self.index)
        w = self.weights[rows].tolist()
        z = np.array([math.fsum(r[c] for r in w) for c in range(len(CLASSES))])
        z = z - z.max()
        p = np.exp(z)
        return p / p.sum()

    def score(self, feats: list[str]) -> tuple[str, float]:
        """``(role or compared, P(some role is stated))``."""
        p = self.probs(feats)
        return ("compared" if p[2] > p[1] else "role"), float(p[1] + p[2])

    def decide(self, entity, feats: list[str]) -> tuple[str, float]:
        """``(class, confidence)`` for ``entity`` with features ``feats``: ``role`` or
        ``compared`` with the calibrated confidence that it is right, else ``none`` with the
        probability that no role is stated."""
        kind, stated = self.score(feats)
        if stated >= self.threshold:
            return kind, self.confidence(stated)
        return "none", 1.0 - stated

    @classmethod
    def fit(cls, feats: list[list[str]], labels: list[str], l2: float = 1.0, threshold: float = 0.5) -> RoleModel:
        index, weights = fit(feats, labels, l2=l2, min_count=2, classes=CLASSES)
        return cls(index, weights, threshold)


def candidates(entities, groups: dict, proposed_ids: dict, derived: set[str], title: str, text: str,
               sents: list[tuple[int, int]], sentence_of, compared: dict[str, str],
               extra: dict[str, list[str]] | None = None):
    """``(entity, features)`` for each entity of a paper whose role the text may state: every
    mentioned entity but the proposals, the model families a name implies and repositories."""
    proposed = set(proposed_ids)
    psents: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for e in entities:
        if e.id in proposed:
            for m in e.mentions:
                if m.field == "abstract":
                    psents.setdefault(sentence_of(m.start), []).append((m.start, m.end))
    for e in entities:
        if e.id in proposed or e.id in derived or e.type not in ROLE_LABELS or not e.mentions:
            continue
        f = features(e, groups.get(e.id, {}).get("rule", "-"), proposed, psents, title, text, sents,
                     sentence_of, compared.get(e.id))
        if extra is not None:  # the contextual encoder's view of the entity
            f += extra.get(e.id, ["no-encr"])
        yield e, f
