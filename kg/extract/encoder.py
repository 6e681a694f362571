"""kg's contextual reader: one pass of a small pretrained encoder over a paper's title and abstract.

The rules and the span CNN read a word and a few neighbours; whether "SAM" is Segment Anything,
whether "instead of X" uses X, whether the paper introduces a name, is decided by the words
that govern a mention, possibly a sentence away. A fine-tuned Transformer encoder
(all-MiniLM-L6-v2, 6 layers, 384 wide; provenance in ``kg/data/encoder/meta.json``) reads the
whole title and abstract at once, and small heads on its output make three decisions:

* **spans**: a BIO tag per word for the seven entity labels, decoded with a constrained
  Viterbi (:func:`decode`), offered to the selector as the ``encoder`` reading;
* **proposal**: is this entity what the paper introduces (:meth:`Reading.propose_prob`);
* **role**: is a role stated for this entity toward the paper's contribution, is it a
  compared baseline, or only mentioned (:meth:`Reading.role_probs`).

Everything here runs without torch: the encoder is an ONNX graph run by onnxruntime (one
thread per session, so a paper's reading does not depend on the thread count or on the other
papers of its batch), the tokenizer is the ``tokenizers`` library's, and the heads are a few
matrices applied with numpy. ``scripts/train_encoder.py`` trains it with torch and uses the
same windowing, shape features and tag scheme from this module, so training and inference
read text the same way.

The encoder is uncased; the word's shape (case, digits, hyphens) is an input of its own
(:func:`shape_id`), since "SAM" and "sam" differ.

>>> [shape_id(w) for w in ("sam", "SAM", "Sam", "GPT-4", "2024", "(", "SpecForge", "x")]
[1, 3, 2, 6, 5, 7, 4, 1]
>>> TAGS[:3], len(TAGS)
(('O', 'B-Method', 'I-Method'), 15)
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from kg.errors import UsageError
from kg.schema import DATA_DIR, MENTION_LABELS

ENCODER_VERSION = "1"
DEFAULT_ENCODER = DATA_DIR / "encoder"
ENV_VAR = "KG_ENCODER"  # a folder, or "off"
LABELS = MENTION_LABELS  # a Repository is a URL, found exactly
TAGS = ("O", *(f"{p}-{lab}" for lab in LABELS for p in ("B", "I")))
#: pieces per window, [CLS] and [SEP] included; longer texts are read in overlapping windows
WINDOW = 320
OVERLAP = 64
SHAPES = 9  # shape classes of a word; a continuation piece adds SHAPES
ROLE_CLASSES = ("none", "role", "compared")
#: the most mentions of one entity that its representation averages
MAX_MENTIONS = 8


class EncoderMissing(UsageError):
    """The encoder is not where we were told to look."""


def shape_id(word: str) -> int:
    """The shape class of a word: 1 lower, 2 Title, 3 UPPER, 4 mixed case, 5 digits, 6 letters
    and digits (or a hyphenated name with a capital), 7 punctuation, 8 a single capital."""
    if not word:
        return 0
    if not any(c.isalnum() for c in word):
        return 7
    has_digit = any(c.isdigit() for c in word)
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return 5
    if has_digit or ("-" in word and any(c.isupper() for c in letters)):
        return 6
    if len(letters) == 1 and letters[0].isupper():
        return 8
    if all(c.islower() for c in letters):
        return 1
    if all(c.isupper() for c in letters):
        return 3
    if letters[0].isupper() and all(c.islower() for c in letters[1:]):
        return 2
    return 4


# ---------------------------------------------------------------- reading text as pieces


@dataclass(frozen=True, slots=True)
class Pieces:
    """A paper's title and abstract as word pieces, title first: ``ids`` the vocabulary ids,
    ``shapes`` the shape input, ``field`` 0 (title) or 1 (abstract), ``start``/``end`` character
    offsets into that field's text, ``word`` the word index within the field (a word is what
    the tokenizer's pre-tokenizer splits: punctuation is a word of its own), ``first`` whether
    the piece opens its word."""

    ids: np.ndarray
    shapes: np.ndarray
    field: np.ndarray
    start: np.ndarray
    end: np.ndarray
    word: np.ndarray
    first: np.ndarray
    sep: int  # index of the separator piece between title and abstract (-1: no title)

    def __len__(self) -> int:
        return len(self.ids)

    def of_field(self, f: int) -> np.ndarray:
        return np.flatnonzero(self.field == f)

    def span(self, f: int, start: int, end: int) -> tuple[int, int] | None:
        """The pieces ``[p0, p1)`` of field ``f`` that cover characters ``[start, end)``."""
        idx = self.of_field(f)
        if not len(idx):
            return None
        s, e = self.start[idx], self.end[idx]
        inside = idx[(e > start) & (s < end)]
        if not len(inside):
            return None
        return int(inside[0]), int(inside[-1]) + 1


@dataclass(frozen=True, slots=True)
class Window:
    """One encoder input: ``[CLS] pieces[lo:hi] [SEP]``; ``own`` the positions of the pieces
    whose reading this window gives (a piece is read from the window where it is furthest from
    an edge)."""

    lo: int
    hi: int
    own_lo: int
    own_hi: int


class PieceReader:
    """Text to :class:`Pieces` with the encoder's own tokenizer (``tokenizer.json``)."""

    def __init__(self, tokenizer_file: Path | str):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(tokenizer_file))
        tok.no_padding()
        tok.no_truncation()
        self.tok = tok
        self.cls = tok.token_to_id("[CLS]")
        self.sep = tok.token_to_id("[SEP]")
        self.pad = tok.token_to_id("[PAD]") or 0

    def _field(self, text: str) -> tuple[list[int], list[tuple[int, int]], list[int]]:
        if not text:
            return [], [], []
        enc = self.tok.encode(text, add_special_tokens=False)
        words = [w if w is not None else -1 for w in enc.word_ids]
        return list(enc.ids), list(enc.offsets), words

    def read(self, title: str, abstract: str) -> Pieces:
        ids: list[int] = []
        shapes: list[int] = []
        fields: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        wordix: list[int] = []
        firsts: list[bool] = []
        sep = -1
        for f, text in ((0, title), (1, abstract)):
            pid, offs, words = self._field(text)
            if f == 1 and ids:
                sep = len(ids)
                ids.append(self.sep)
                shapes.append(0)
                fields.append(-1)
                starts.append(0)
                ends.append(0)
                wordix.append(-1)
                firsts.append(False)
            # a word's extent, for its shape
            extent: dict[int, list[int]] = {}
            for (s, e), w in zip(offs, words, strict=True):
                x = extent.setdefault(w, [s, e])
                x[0], x[1] = min(x[0], s), max(x[1], e)
            prev = None
            for i, ((s, e), w) in enumerate(zip(offs, words, strict=True)):
                a, b = extent[w]
                first = w != prev
                prev = w
                ids.append(pid[i])
                shapes.append(shape_id(text[a:b]) + (0 if first else SHAPES))
                fields.append(f)
                starts.append(s)
                ends.append(e)
                wordix.append(w)
                firsts.append(first)
        i32 = np.int32
        return Pieces(np.array(ids, dtype=np.int64), np.array(shapes, dtype=np.int64), np.array(fields, dtype=i32),
                      np.array(starts, dtype=i32), np.array(ends, dtype=i32), np.array(wordix, dtype=i32),
                      np.array(firsts, dtype=bool), sep)


def windows(n: int, size: int = WINDOW, overlap: int = OVERLAP) -> list[Window]:
    """Overlapping windows over ``n`` pieces (``size`` with [CLS] and [SEP]); each piece is
    owned by exactly one window.

    >>> [(w.lo, w.hi, w.own_lo, w.own_hi) for w in windows(10, size=6, overlap=2)]
    [(0, 4, 0, 3), (2, 6, 3, 5), (4, 8, 5, 7), (6, 10, 7, 10)]
    >>> windows(0)
    []
    """
    body = size - 2
    if n <= body:
        return [Window(0, n, 0, n)] if n else []
    step = body - overlap
    starts = list(range(0, n - body, step)) + [n - body]
    out = []
    for k, lo in enumerate(starts):
        hi = lo + body
        own_lo = 0 if k == 0 else (out[-1].own_hi)
        own_hi = n if k == len(starts) - 1 else (hi + starts[k + 1]) // 2 + (overlap % 2)
        own_hi = max(own_hi, own_lo)
        out.append(Window(lo, hi, own_lo, own_hi))
    return out


def window_inputs(pieces: Pieces, w: Window, cls: int, sep: int) -> tuple[np.ndarray, np.ndarray]:
    ids = np.concatenate([[cls], pieces.ids[w.lo:w.hi], [sep]]).astype(np.int64)
    shapes = np.concatenate([[0], pieces.shapes[w.lo:w.hi], [0]]).astype(np.int64)
    return ids, shapes


def bio_tags(pieces: Pieces, gold: dict[int, list[tuple[int, int, str]]]) -> np.ndarray:
    """The gold tag of every piece (index into :data:`TAGS`) from non-overlapping character
    spans per field: ``B-`` on the first piece of a span, ``I-`` on the rest; -100 (ignored)
    on the separator."""
    tags = np.zeros(len(pieces), dtype=np.int64)
    tags[pieces.field < 0] = -100
    for f, spans in gold.items():
        idx = pieces.of_field(f)
        s, e = pieces.start[idx], pieces.end[idx]
        for a, b, lab in spans:
            inside = idx[(s >= a) & (s < b) & (e > a)]
            if not len(inside) or lab not in LABELS:
                continue
            k = LABELS.index(lab)
            tags[inside] = 2 + 2 * k
            tags[inside[0]] = 1 + 2 * k
    return tags


# ---------------------------------------------------------------- decoding


def _allowed() -> np.ndarray:
    """Transition mask ``[prev, next]``: ``I-L`` only after ``B-L`` or ``I-L``."""
    n = len(TAGS)
    ok = np.ones((n, n), dtype=bool)
    for j, t in enumerate(TAGS):
        if t.startswith("I-"):
            ok[:, j] = False
            ok[TAGS.index("B-" + t[2:]), j] = True
            ok[j, j] = True
    return ok


_OK = _allowed()
_START_OK = np.array([not t.startswith("I-") for t in TAGS])


def decode(logp: np.ndarray) -> list[tuple[int, int, str, float]]:
    """Spans ``(first, last + 1, label, confidence)`` over a sequence of words from their tag
    log-probabilities (``[words, tags]``): the best tag sequence in which ``I-L`` continues a
    span of ``L`` (Viterbi); a span's confidence is the least probability of its tags.

    >>> lp = np.log(np.full((3, len(TAGS)), 1e-3)); lp[0, 1] = lp[1, 2] = lp[2, 0] = 0.0
    >>> decode(lp)
    [(0, 2, 'Method', 1.0)]
    """
    n = len(logp)
    if not n:
        return []
    neg = np.float64(-1e9)
    trans = np.where(_OK, 0.0, neg)
    score = np.where(_START_OK, logp[0], neg)
    back = np.zeros((n, len(TAGS)), dtype=np.int64)
    for i in range(1, n):
        cand = score[:, None] + trans
        back[i] = np.argmax(cand, axis=0)
        score = cand[back[i], np.arange(len(TAGS))] + logp[i]
    path = [int(np.argmax(score))]
    for i in range(n - 1, 0, -1):
        path.append(int(back[i, path[-1]]))
    path.reverse()
    out = []
    i = 0
    while i < n:
        t = path[i]
        if t == 0:
            i += 1
            continue
        k = (t - 1) // 2
        j = i + 1
        while j < n and path[j] == 2 + 2 * k:
            j += 1
        conf = float(np.exp(min(logp[x, path[x]] for x in range(i, j))))
        out.append((i, j, LABELS[k], round(conf, 4)))
        i = j
    return out


def word_spans(pieces: Pieces, logits: np.ndarray, f: int) -> list[tuple[int, int, str, float]]:
    """Character spans ``(start, end, label, confidence)`` of field ``f`` from the tag logits of
    every piece: decoded over the field's words, each read at its first piece."""
    idx = pieces.of_field(f)
    if not len(idx):
        return []
    heads = idx[pieces.first[idx]]
    lp = logits[heads].astype(np.float64)
    lp = lp - lp.max(axis=1, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(axis=1, keepdims=True))
    # the last piece of each word, for its end
    words = pieces.word[idx]
    last_of: dict[int, int] = {}
    for p, w in zip(idx, words, strict=True):
        last_of[int(w)] = int(p)
    out = []
    for a, b, lab, conf in decode(lp):
        p0, p1 = int(heads[a]), last_of[int(pieces.word[heads[b - 1]])]
        out.append((int(pieces.start[p0]), int(pieces.end[p1]), lab, conf))
    return out


# ---------------------------------------------------------------- entity representations


def mention_vector(hidden: np.ndarray, p0: int, p1: int) -> np.ndarray:
    """A mention's representation: its first piece, its last piece and their mean (in float64,
    whose sums do not depend on how the arrays sit in memory, to the precision that matters)."""
    h = hidden[p0:p1].astype(np.float64)
    return np.concatenate([h[0], h[-1], h.mean(axis=0)])


def entity_vector(hidden: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    """An entity's representation: the mean of its first :data:`MAX_MENTIONS` mentions'."""
    if not spans:
        return np.zeros(3 * hidden.shape[1], dtype=np.float64)
    return np.mean([mention_vector(hidden, a, b) for a, b in spans[:MAX_MENTIONS]], axis=0)


def entity_extras(label: str, in_title: bool, in_abstract: bool, n_mentions: int) -> np.ndarray:
    """Dense features beside the vector: the label, where it occurs, how often."""
    v = np.zeros(len(LABELS) + 3, dtype=np.float32)
    if label in LABELS:
        v[LABELS.index(label)] = 1.0
    v[len(LABELS)] = float(in_title)
    v[len(LABELS) + 1] = float(in_abstract)
    v[len(LABELS) + 2] = math.log1p(n_mentions)
    return v


def proposal_input(ent: np.ndarray, extras: np.ndarray, cls: np.ndarray) -> np.ndarray:
    return np.concatenate([ent, extras, cls]).astype(np.float64)


def role_input(ent: np.ndarray, extras: np.ndarray, cls: np.ndarray, proposal: np.ndarray | None) -> np.ndarray:
    """The role head's input: the entity, the paper, and what the paper proposes (the mean of
    its proposals' vectors; zeros and a flag when it proposes nothing)."""
    has = proposal is not None
    prop = proposal if has else np.zeros_like(ent)
    return np.concatenate([ent, extras, cls, prop, ent * prop, [float(has)]]).astype(np.float64)


def mlp(x: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """A small MLP with GELU between layers (tanh approximation, as trained)."""
    for i, (w, b) in enumerate(layers):
        x = x @ w.T + b
        if i < len(layers) - 1:
            x = 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    return x


def softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------- the runtime model


@dataclass(frozen=True)
class Reading:
    """What the encoder read in one paper: its pieces, the last hidden layer of every piece,
    the paper vector and the decoded spans per field (``{0: title spans, 1: abstract spans}``,
    each ``(start, end, label, confidence)``)."""

    pieces: Pieces
    hidden: np.ndarray
    cls: np.ndarray
    spans: dict[int, list[tuple[int, int, str, float]]]
    heads: dict = field(repr=False, compare=False)

    def entity_vector(self, mentions: list[tuple[int, int, int]]) -> np.ndarray:
        """``mentions``: ``(field, start, end)`` character spans."""
        ps = [p for f, a, b in mentions if (p := self.pieces.span(f, a, b)) is not None]
        return entity_vector(self.hidden, ps)

    def propose_prob(self, vec: np.ndarray, extras: np.ndarray) -> float:
        x = proposal_input(vec, extras, self.cls).astype(np.float64)
        z = float(mlp(x[None, :], self.heads["propose"])[0, 0])
        return 1.0 / (1.0 + math.exp(-z))

    def role_probs(self, vec: np.ndarray, extras: np.ndarray, proposal: np.ndarray | None) -> np.ndarray:
        x = role_input(vec, extras, self.cls, proposal).astype(np.float64)
        return softmax(mlp(x[None, :], self.heads["role"]))[0]


def available(path: str | Path | None) -> bool:
    if not path:
        return False
    p = Path(path)
    return (p / "model.onnx").is_file() and (p / "tokenizer.json").is_file() and (p / "heads.npz").is_file()


def resolve_encoder(value: str | Path | None) -> Path | None:
    """An encoder named by the user: a folder, ``off``, or None / "" for the packaged one if
    present. A folder that holds no encoder is an error, never a silent fallback."""
    val = str(value or "").strip()
    if val.lower() in ("off", "0", "none", "fast"):
        return None
    if val:
        p = Path(val).expanduser()
        if not available(p):
            raise EncoderMissing(f"{val}: no encoder there (make model builds one)")
        return p
    return DEFAULT_ENCODER if available(DEFAULT_ENCODER) else None


def default_encoder() -> Path | None:
    """The encoder to use: ``$KG_ENCODER`` (a folder, or ``off``), else the packaged one."""
    return resolve_encoder(os.environ.get(ENV_VAR))


def load_heads(path: Path) -> dict:
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    heads: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for name in ("propose", "role"):
        layers = []
        i = 0
        while f"{name}.{i}.w" in arrays:
            # float64: a float32 product's rounding may depend on memory alignment, and a
            # decision read from a probability must not depend on the process that made it
            layers.append((arrays[f"{name}.{i}.w"].astype(np.float64), arrays[f"{name}.{i}.b"].astype(np.float64)))
            i += 1
        heads[name] = layers
    return heads


class Encoder:
    """The fine-tuned encoder of a folder (``model.onnx``, ``tokenizer.json``, ``heads.npz``,
    ``meta.json``), run by onnxruntime on one thread."""

    def __init__(self, folder: Path | str):
        folder = Path(folder)
        if not available(folder):
            raise EncoderMissing(f"{folder}: no encoder here (make model builds one)")
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(folder / "model.onnx"), opts, providers=["CPUExecutionProvider"])
        self.reader = PieceReader(folder / "tokenizer.json")
        self.heads = load_heads(folder / "heads.npz")
        self.meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        self.folder = folder

    def run(self, pieces: Pieces) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tag logits and hidden states of every piece, and the paper vector (the first
        window's [CLS])."""
        n = len(pieces)
        dim = int(self.meta.get("hidden", 384))
        logits = np.zeros((n, len(TAGS)), dtype=np.float32)
        hidden = np.zeros((n, dim), dtype=np.float32)
        cls = np.zeros(dim, dtype=np.float32)
        for k, w in enumerate(windows(n)):
            ids, shapes = window_inputs(pieces, w, self.reader.cls, self.reader.sep)
            lg, hs = self.session.run(["logits", "hidden"], {
                "input_ids": ids[None, :], "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
                "shape_ids": shapes[None, :]})
            a, b = w.own_lo - w.lo + 1, w.own_hi - w.lo + 1
            logits[w.own_lo:w.own_hi] = lg[0, a:b]
            hidden[w.own_lo:w.own_hi] = hs[0, a:b]
            if k == 0:
                cls = hs[0, 0].copy()
        return logits, hidden, cls

    def read(self, title: str, abstract: str) -> Reading:
        pieces = self.reader.read(title, abstract)
        logits, hidden, cls = self.run(pieces)
        spans = {f: word_spans(pieces, logits, f) for f in (0, 1)}
        return Reading(pieces, hidden, cls, spans, self.heads)


@cache
def load_encoder(path: str) -> Encoder:
    return Encoder(path)
