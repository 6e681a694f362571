"""The learned chooser of readings (``Selector``): which candidate spans are entities, and of what label.

The rules, the lexicons and the span model (:mod:`kg.extract.spans`) each offer readings of a
stretch of text. Without a selector the merger takes them by a fixed rule priority; the selector
instead scores every distinct stretch with a multinomial logistic regression over what offered
it (each rule with its label, the lexicon's label, the span model's label, exact or
overlapping), the words themselves (surface, head, first word, shape, length) and their
context (two words either side, title or abstract, sentence start). The readings then win in
order of confidence, one per stretch, while the chance that the stretch is no entity stays
below the threshold. So the lexicon's "precision" is dropped where the text means numerical
precision, and "recall" where it is a verb, because annotators did not mark them there.

Trained by ``scripts/train_select.py`` on kg's mention-level gold, from span-model readings
made out of fold (a model that never saw the paper), so the weights learn how far to trust it.
The weights ship in the package (``kg/data/select``).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from spacy.tokens import Doc

from kg.extract import rules
from kg.schema import MENTION_LABELS

SELECT_VERSION = "1"
DEFAULT_SELECTOR = Path(__file__).resolve().parents[1] / "data" / "select"
NONE = "-"
CLASSES = (NONE, *MENTION_LABELS)  # the order of the weights' columns
_WORD = re.compile(r"[\w][\w'.+-]*[\w+]|[\w]")
Cand = tuple[int, int, str, str, str]


def _shape(w: str) -> str:
    if w.isdigit():
        return "d"
    if w.isupper():
        return "X" if len(w) > 1 else "x1"
    if w[:1].isupper():
        return "Xx" if w[1:].islower() or not w[1:] else "XxX"
    if any(c.isupper() for c in w):
        return "xX"
    return "x"


def _norm(w: str) -> str:
    w = w.lower()
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def features(text: str, start: int, end: int, group: list[Cand], around: list[Cand],
             is_title: bool, encoder: dict[tuple[int, int], tuple[str, float]] | None = None) -> list[str]:
    """The features of one stretch ``text[start:end]``: ``group`` are the candidates with exactly
    these bounds, ``around`` the other candidates that overlap it, ``encoder`` the contextual
    encoder's spans (bounds -> label, confidence) when it ran."""
    surface = text[start:end]
    words = _WORD.findall(surface) or [surface]
    before = _WORD.findall(text[max(0, start - 60):start])[-2:]
    after = _WORD.findall(text[end:end + 60])[:2]
    before = [""] * (2 - len(before)) + [w.lower() for w in before]
    after = [w.lower() for w in after] + [""] * (2 - len(after))
    head, first = _norm(words[-1]), words[0].lower()
    f = ["bias", f"s={_norm(surface)}", f"h={head}", f"w0={first}", f"n={min(len(words), 5)}",
         f"sh={_shape(words[0])}|{_shape(words[-1])}", f"p1={before[1]}", f"p2={before[0]}",
         f"n1={after[0]}", f"n2={after[1]}", f"h|n1={head}|{after[0]}", f"p1|h={before[1]}|{head}",
         f"title={is_title}"]
    sent_start = start == 0 or text[:start].rstrip()[-1:] in (".", "!", "?", ":", ";")
    if sent_start:
        f.append("sent0")
    if any(c.isdigit() for c in surface):
        f.append("digit")
    if "-" in surface:
        f.append("hyphen")
    if text[end:end + 1] == "-":
        f.append("next-hyphen")
    if text[end:end + 2] == " (" or text[max(0, start - 1):start] == "(":
        f.append("paren")
    rules = sorted({(c[4], c[2]) for c in group})
    for rule, label in rules:
        f += [f"r={rule}|{label}", f"r={rule}", f"l={label}", f"r={rule}|{label}|h={head}"]
    if not any(r == "model" for r, _ in rules):
        f.append("no-model")
        f += [f"mo={c[2]}" for c in around if c[4] == "model"][:2]
    if len(rules) > 1:
        f.append(f"nrules={min(len(rules), 4)}")
    f += sorted({f"ov={c[4]}" for c in around if c[4] not in ("model", "encoder")})[:4]
    if encoder is not None:
        got = encoder.get((start, end))
        if got is not None:
            lab, conf = got
            b = min(4, int(conf * 5))
            f += [f"enc={lab}|{b}", f"enc-conf={b}", f"enc={lab}|r={'+'.join(sorted({r for r, _ in rules if r != 'encoder'})) or '-'}"]
        else:
            f.append("no-enc")
            f += [f"enc-ov={lab}" for (s0, e0), (lab, _) in encoder.items() if s0 < end and start < e0][:2]
    return f


class Selector:
    """A multinomial logistic regression over :func:`features`: ``weights`` (features × classes),
    ``index`` (feature -> row) and the threshold on the probability of no entity."""

    def __init__(self, index: dict[str, int], weights: np.ndarray, threshold: float,
                 name_of: Callable[[str, str], str] | None = None):
        self.index = index
        self.weights = weights
        self.threshold = threshold
        self.name_of = name_of or (lambda surface, label: surface)

    @classmethod
    def load(cls, folder: Path | str = DEFAULT_SELECTOR, name_of=None) -> Selector:
        index, weights, meta = load_linear(folder)
        return cls(index, weights, float(meta["threshold"]), name_of)

    def save(self, folder: Path | str, meta: dict) -> None:
        save_linear(folder, self.index, self.weights,
                    {**meta, "threshold": self.threshold, "classes": list(CLASSES), "version": SELECT_VERSION})

    def probs(self, feats: list[list[str]]) -> np.ndarray:
        out = np.zeros((len(feats), len(CLASSES)), dtype=np.float64)
        for i, fs in enumerate(feats):
            rows = [self.index[x] for x in fs if x in self.index]
            if rows:
                out[i] = self.weights[rows].sum(axis=0)
        out -= out.max(axis=1, keepdims=True)
        np.exp(out, out=out)
        return out / out.sum(axis=1, keepdims=True)

    def choose(self, doc, text: str, cands: list[Cand]) -> list[Cand]:
        """One reading per stretch, in order of confidence, while P(no entity) < threshold."""
        return [c for c, _ in self.choose_scored(doc, text, cands)]

    def choose_scored(self, doc, text: str, cands: list[Cand]) -> list[tuple[Cand, float]]:
        """:meth:`choose`, each reading with the probability that the stretch is an entity of
        its label (1.0 for a URL or a parsed model name; for a reading of an exact rule, which
        is kept whatever the selector says, the share of its label among the entity labels)."""
        stretches, feats = stretch_features(doc, text, cands)
        if not stretches:
            return []
        p = self.probs(feats)
        for i, (_, group) in enumerate(stretches):
            if any(c[4] in rules.EXACT for c in group):
                p[i, 0] = 0.0  # exact rules are kept; the selector only gives their label
        order = sorted(range(len(stretches)), key=lambda i: (p[i, 0], stretches[i][0], stretches[i][1]))
        taken = bytearray(len(text) + 1)
        chosen = []
        for i in order:
            if p[i, 0] >= self.threshold:
                break
            (start, end), group = stretches[i]
            if any(taken[start:end]):
                continue
            fixed = [c for c in group if c[4] in rules.FIXED]
            if fixed:  # a URL is a repository, a parsed model name a model: nothing to decide
                chosen.append((fixed[0], 1.0))
            else:
                k = 1 + int(np.argmax(p[i, 1:]))
                conf = p[i, k] / p[i, 1:].sum() if p[i, 0] == 0.0 else p[i, k]
                chosen.append((reading(text, start, end, CLASSES[k], group, self.name_of), round(float(conf), 4)))
            taken[start:end] = b"\x01" * (end - start)
        return chosen


def reading(text: str, start: int, end: int, label: str, group: list[Cand],
            name_of: Callable[[str, str], str]) -> Cand:
    """The chosen reading of a stretch: the best rule's candidate with that label, else the best
    rule's candidate relabelled, its rule kept (so proposal cues still see a coined name) and its
    name too (an acronym and its long form stay one entity), unless the name came with the label
    (a lexicon entry, a common noun), which then takes the name the label gives the surface."""
    group = sorted(group, key=lambda c: (rules.order(c[4]), c[3]))
    same = [c for c in group if c[2] == label]
    best = same[0] if same else group[0]
    rule = best[4]
    if rule in ("model", "encoder") and coined(text[start:end]):
        rule = "model-coined"  # a coined name the model found: proposal cues read it as a name
    if same:
        return (*best[:4], rule)
    name = name_of(text[start:end], label) if best[4] in rules.LABEL_NAMED else best[3]
    return (start, end, label, name, rule)


def coined(surface: str) -> bool:
    """A coined name's shape: a capital after the first letter or a digit with letters, in one
    word ("CAPABOOST", "FooNet", "GPT-4", "H²CL"), not a capitalised common word.

    >>> [coined(s) for s in ("CAPABOOST", "FooNet", "GPT-4", "Dropout", "graph attention", "UP2ME")]
    [True, True, True, False, False, True]
    """
    return " " not in surface.strip() and (any(c.isupper() for c in surface[1:])
                                           or any(c.isdigit() for c in surface) and any(c.isalpha() for c in surface))


def stretch_features(doc, text: str, cands: Iterable[Cand]) -> tuple[list, list[list[str]]]:
    """``[((start, end), group)]`` for every distinct stretch and its features."""
    groups: dict[tuple[int, int], list[Cand]] = {}
    for c in cands:
        if c[1] > c[0]:
            groups.setdefault((c[0], c[1]), []).append(c)
    keys = sorted(groups)
    is_title = _is_title(text)
    encoder = None
    if doc is not None and Doc.has_extension("kg_reading") and doc._.kg_reading is not None:
        encoder = {(s.start, s.end): (s.label, s.confidence) for s in doc._.kg_encoder_spans}
    out, feats = [], []
    for k, near in zip(keys, overlapping(keys), strict=True):
        around = [c for k2 in near for c in groups[k2]]
        out.append((k, groups[k]))
        feats.append(features(text, k[0], k[1], groups[k], around, is_title, encoder))
    return out, feats


def overlapping(keys: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """For each of the sorted, distinct ``keys`` (start, end), the other keys that overlap it,
    in order. Only keys that start less than the longest key's length before it can reach it,
    so the cost grows with the number of keys times the overlaps, not with its square (a run-on
    abstract of 125,000 characters spent 70% of its extraction comparing every pair).

    >>> overlapping([(0, 5), (2, 4), (3, 9), (10, 12)])
    [[(2, 4), (3, 9)], [(0, 5), (3, 9)], [(0, 5), (2, 4)], []]
    """
    reach = max((e - s for s, e in keys), default=0)
    starts = [s for s, _ in keys]
    out = []
    for i, (s, e) in enumerate(keys):
        lo, hi = bisect_right(starts, s - reach), bisect_left(starts, e)
        out.append([k for j, k in enumerate(keys[lo:hi], lo) if j != i and k[1] > s])
    return out


def _is_title(text: str) -> bool:
    return len(text) < 300 and not text.rstrip().endswith(".")


# ---------------------------------------------------------------- training


def save_linear(folder: Path | str, index: dict[str, int], weights: np.ndarray, meta: dict) -> None:
    """A linear model's folder: ``features.txt`` (one feature per weight row), ``weights.npy``
    (float32) and ``meta.json``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "features.txt").write_text("\n".join(sorted(index, key=index.get)), encoding="utf-8")
    np.save(folder / "weights.npy", weights.astype(np.float32))
    (folder / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def load_linear(folder: Path | str) -> tuple[dict[str, int], np.ndarray, dict]:
    """``(feature index, weights, meta)`` of a folder :func:`save_linear` wrote."""
    folder = Path(folder)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    feats = (folder / "features.txt").read_text(encoding="utf-8").split("\n")
    return {f: i for i, f in enumerate(feats)}, np.load(folder / "weights.npy"), meta


def fit(feats: list[list[str]], labels: list[str], l2: float = 1.0, min_count: int = 2,
        max_iter: int = 300, classes: tuple[str, ...] = CLASSES) -> tuple[dict[str, int], np.ndarray]:
    """Multinomial logistic regression with an L2 penalty, by L-BFGS (scipy), on features seen
    at least ``min_count`` times. Deterministic: no sampling, fixed initialisation."""
    from collections import Counter

    from scipy.optimize import minimize
    from scipy.sparse import csr_matrix

    counts = Counter(x for fs in feats for x in set(fs))
    vocab = sorted(x for x, n in counts.items() if n >= min_count)
    index = {x: i for i, x in enumerate(vocab)}
    rows, cols = [], []
    for i, fs in enumerate(feats):
        for x in set(fs):
            j = index.get(x)
            if j is not None:
                rows.append(i)
                cols.append(j)
    X = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(feats), len(vocab)))
    y = np.array([classes.index(lab) for lab in labels])
    Y = np.zeros((len(y), len(classes)))
    Y[np.arange(len(y)), y] = 1.0
    F, C = len(vocab), len(classes)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        W = w.reshape(F, C)
        Z = X @ W
        Z -= Z.max(axis=1, keepdims=True)
        logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
        P = np.exp(logp)
        val = -(Y * logp).sum() + 0.5 * l2 * (W * W).sum()
        grad = X.T @ (P - Y) + l2 * W
        return val, grad.ravel()

    res = minimize(loss, np.zeros(F * C), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    return index, res.x.reshape(F, C)

