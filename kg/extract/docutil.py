"""Per-Doc caches. ``Doc.text`` and ``Doc.sents`` rebuild their result from every token on
each access, which profiling showed to dominate extraction; components share these instead."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from spacy.attrs import IDX, LOWER
from spacy.tokens import Doc


class TextKeepingTokenizer:
    """Wraps a tokenizer so each Doc keeps its input string: the tokenizer is non-destructive,
    so that string *is* ``Doc.text``, which otherwise costs a Token object per token."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> Doc:
        doc = self.tokenizer(text)
        doc.user_data["kg_text"] = text
        return doc

    def pipe(self, texts, batch_size: int = 1000):
        for text in texts:
            yield self(text)

    def __getattr__(self, name: str):
        return getattr(self.tokenizer, name)


def doc_text(doc: Doc) -> str:
    t = doc.user_data.get("kg_text")
    if t is None:
        t = doc.user_data["kg_text"] = doc.text
    return t


def lowers(doc: Doc) -> list[int]:
    """The lower-case form of each token, as string hashes (no Token object per token)."""
    h = doc.user_data.get("kg_lowers")
    if h is None:
        h = doc.user_data["kg_lowers"] = doc.to_array([LOWER]).reshape(-1).tolist() if len(doc) else []
    return h


_HASHES: dict[tuple[int, int], frozenset[int]] = {}


def positions(doc: Doc, words: set[str] | frozenset[str]) -> list[int]:
    """Token positions whose lower-case form is in ``words`` (a module-level set: it is hashed
    once; on abstract-sized docs a set lookup takes about a third of the time of ``numpy.isin``)."""
    key = (id(doc.vocab), id(words))
    hashes = _HASHES.get(key)
    if hashes is None:
        hashes = _HASHES[key] = frozenset(doc.vocab.strings.add(w) for w in words)
    return [i for i, h in enumerate(lowers(doc)) if h in hashes]


def sentences(doc: Doc) -> list[tuple[int, int, int, int]]:
    """Sentence bounds as (start token, end token, start char, end char)."""
    s = doc.user_data.get("kg_sents")
    if s is None:
        s = doc.user_data["kg_sents"] = [(x.start, x.end, x.start_char, x.end_char) for x in doc.sents]
    return s


# sentence ends: . ! ? followed by space and an upper-case letter, digit, quote, bracket or a
# LaTeX comment mark before a capitalised word ("tasks. % Nevertheless"), except after common
# abbreviations; or glued sentences ("recently.Thus", "in 2023.The", "variation.(1) Despite"):
# the mark right after two lower-case letters, digits or a bracket and right before a
# capitalised word or a numbered item, unless the run of text is a URL or path
# ("github.com/Foo.Bar")
_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[]|%\s+[A-Z])"
                  r"|(?<=[a-z0-9)\]]{2}[.!?])(?=[A-Z][a-z]|\(\d{1,2}\)\s)")
_URLISH = re.compile(r"[/@\\]|www|\.(?:com|org|io|net)\b")


def glued_in_url(text: str, at: int) -> bool:
    """Whether the glued boundary at ``at`` sits inside a URL, path or e-mail address."""
    lo = max(text.rfind(" ", 0, at), text.rfind("(", 0, at)) + 1
    hi = text.find(" ", at)
    return bool(_URLISH.search(text, lo, hi if hi >= 0 else len(text)))
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|et al|vs|cf|Fig|Eq|Sec|resp|approx|w\.r\.t|etc|Dr|Mr|Ms|No)\.|\b[A-Z]\.)$")


def sentence_chars(text: str) -> list[tuple[int, int]]:
    """Sentence (start, end) character offsets, by punctuation rules.

    >>> sentence_chars("We use e.g. BERT. It works! Yes.")
    [(0, 17), (18, 27), (28, 32)]
    >>> t = "Gains came recently.Thus we use e.g.BERT, see Fig.2 and github.com/a/Foo.Bar."
    >>> [t[a:b] for a, b in sentence_chars(t)]
    ['Gains came recently.', 'Thus we use e.g.BERT, see Fig.2 and github.com/a/Foo.Bar.']
    >>> t = "It is adopted. % Nevertheless, it fails. We show this variation.(1) Despite that, no."
    >>> [t[a:b] for a, b in sentence_chars(t)]
    ['It is adopted.', '% Nevertheless, it fails.', 'We show this variation.', '(1) Despite that, no.']
    """
    out, start = [], 0
    for m in _END.finditer(text):
        piece_end = m.start() + (len(m.group(0)) - len(m.group(0).lstrip("\"')]")))
        # the longest abbreviation is 8 characters: a 12-character window finds the same matches
        if _ABBREV.search(text, max(start, m.start() - 12), m.start()):
            continue
        if not m.group(0) and glued_in_url(text, m.start()):
            continue
        out.append((start, piece_end))
        start = m.end()
    if start < len(text):
        out.append((start, len(text.rstrip()) if text.rstrip() else len(text)))
    out = out or [(0, len(text))]
    if any(b - a > MAX_SENTENCE for a, b in out):
        out = [piece for a, b in out for piece in _cut(text, a, b)]
    return out


#: the longest sentence read as one: evidence, features and pattern windows are per sentence,
#: so run-on text (no sentence break in a megabyte) would cost quadratic time, memory and output
MAX_SENTENCE = 2000
_CLAUSE_BREAK = re.compile(r"[;,:]\s+")
_SPACE = re.compile(r"\s+")


def _last(pattern: re.Pattern, text: str, lo: int, hi: int) -> re.Match | None:
    m = None
    for m in pattern.finditer(text, lo, hi):  # noqa: B007  (the last one is wanted)
        pass
    return m


def _cut(text: str, a: int, b: int) -> Iterator[tuple[int, int]]:
    """A run of text longer than :data:`MAX_SENTENCE` as pieces no longer than it, each cut
    after the last semicolon, comma or colon of its second half, else at its last space.

    >>> [b - a for a, b in _cut("word " * 1000, 0, 4999)]
    [1999, 1999, 999]
    """
    while b - a > MAX_SENTENCE:
        lo, hi = a + MAX_SENTENCE // 2, a + MAX_SENTENCE
        m = _last(_CLAUSE_BREAK, text, lo, hi) or _last(_SPACE, text, lo, hi)
        end, nxt = (m.start() + (m.group(0)[0] in ";,:"), m.end()) if m else (hi, hi)
        yield a, end
        a = nxt
    if b > a:
        yield a, b


def set_sentences(doc: Doc) -> Doc:
    """Fill the sentence cache from :func:`sentence_chars`, mapping offsets to tokens."""
    text = doc_text(doc)
    idx = doc.to_array(IDX).tolist() if len(doc) else []
    bounds = []
    for c0, c1 in sentence_chars(text):
        t0 = bisect_left(idx, c0)
        t1 = bisect_left(idx, c1)
        if t1 > t0:
            bounds.append((t0, t1, idx[t0], c1))
    if not bounds and len(doc):
        bounds = [(0, len(doc), 0, len(text))]
    doc.user_data["kg_sents"] = bounds
    return doc
