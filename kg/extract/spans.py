"""kg's default span model (``kg_spans``): a small CPU NER trained on kg's own annotations.

The rules are exact where the text has a shape (URLs, model names, acronym definitions, proposal
cues) and a lexicon is exact where a name means one thing. Common-noun techniques, tasks and
metrics have neither: whether "precision" is a metric or numerical precision, whether "recall"
is a noun, where "unsupervised adversarial fine-tuning" ends, is decided by context. The model
reads the context: it was trained (``make model``, ``scripts/train_spans.py``) on every mention
of every entity in kg's mention-level gold (``eval/gold/spans``) with in-domain word vectors.

The component runs the trained pipeline on the Doc's text and stores ``(start_char, end_char,
label)`` in ``doc.user_data["kg_spans"]``; :func:`span_candidates` turns them into the merger's
candidates. Its weights ship in the package (``kg/data/spans``): they derive from kg's own
annotations only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

from spacy.attrs import IDX, LENGTH, SPACY
from spacy.language import Language
from spacy.tokens import Doc

from kg.errors import UsageError
from kg.schema import MENTION_LABELS

SPANS_VERSION = "1"
DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "data" / "spans"
ENV_VAR = "KG_SPANS"  # a folder, or "off" for rules only
LABELS = MENTION_LABELS
#: labels whose weak rule readings (lexicon terms, noun and task phrases) need the model's vote
VOTED = frozenset({"Technique", "Task", "Metric"})


class SpansModelMissing(UsageError):
    """The span model is not where we were told to look."""


def available(path: str | Path | None) -> bool:
    if not path:
        return False
    p = Path(path)
    return (p / "config.cfg").is_file() and (p / "ner").is_dir()


def resolve_model(value: str | Path | None) -> Path | None:
    """A span model named by the user: a folder, ``off`` (rules only), or None / "" for the
    packaged one if present. A folder that holds no model is an error, never a silent
    fallback to rules only."""
    val = str(value or "").strip()
    if val.lower() in ("off", "0", "none", "rules"):
        return None
    if val:
        p = Path(val).expanduser()
        if not available(p):
            raise SpansModelMissing(f"{val}: no span model there (make model builds one)")
        return p
    return DEFAULT_MODEL if available(DEFAULT_MODEL) else None


def default_model() -> Path | None:
    """The span model to use: ``$KG_SPANS`` (a folder, or ``off``), else the packaged one."""
    return resolve_model(os.environ.get(ENV_VAR))


@cache
def load_model(path: str) -> Language:
    if not available(path):
        raise SpansModelMissing(f"{path}: no span model here (make model builds one)")
    import spacy

    return spacy.load(path)


@Language.factory("kg_spans", default_config={"model_path": str(DEFAULT_MODEL), "batch_size": 64})
def make_spans(nlp: Language, name: str, model_path: str, batch_size: int) -> ModelSpans:
    return ModelSpans(load_model(str(Path(model_path))), batch_size)


#: the most tokens the model reads at once: a longer Doc is read in runs of whole sentences,
#: so memory stays bounded on very long text (an abstract is a few hundred tokens)
MAX_TOKENS = 4000


class ModelSpans:
    """Runs the trained pipeline on ``doc.text`` (batched in ``pipe``); writes
    ``doc.user_data["kg_spans"]``."""

    def __init__(self, model: Language, batch_size: int = 64):
        self.model = model
        self.batch_size = batch_size

    def __call__(self, doc: Doc) -> Doc:
        return next(self._run([doc]))

    def _pieces(self, doc: Doc) -> list[tuple[int, Doc]]:
        """The Doc's tokens in the model's vocabulary (which holds its vectors), as (start
        character, piece) in runs of sentences of at most :data:`MAX_TOKENS` tokens. The model
        was trained on kg's tokenizer, so the tokens are the same and tokenizing again is saved
        (read from arrays: a Token object per token would cost as much as the tokenizer)."""
        if not len(doc):
            return [(0, Doc(self.model.vocab, words=[]))]
        text = _text(doc)
        arr = doc.to_array([IDX, LENGTH, SPACY]).tolist()
        runs = [(0, len(arr))]
        if len(arr) > MAX_TOKENS:
            from kg.extract.docutil import sentences

            runs = []
            for t0, t1, _, _ in sentences(doc):
                if runs and t1 - runs[-1][0] <= MAX_TOKENS and runs[-1][1] == t0:
                    runs[-1] = (runs[-1][0], t1)
                else:
                    runs.append((t0, t1))
        out = []
        for t0, t1 in runs:
            part = arr[t0:t1]
            out.append((part[0][0], Doc(self.model.vocab, words=[text[i:i + n] for i, n, _ in part],
                                        spaces=[bool(sp) for _, _, sp in part])))
        return out

    def pipe(self, docs: Iterable[Doc], batch_size: int | None = None) -> Iterator[Doc]:
        from spacy.util import minibatch

        for batch in minibatch(docs, size=batch_size or self.batch_size):
            yield from self._run(batch)

    def _run(self, batch: list[Doc]) -> Iterator[Doc]:
        pieces = [self._pieces(d) for d in batch]
        flat = [p for ps in pieces for _, p in ps]
        outs = iter(self.model.pipe(flat, batch_size=max(len(batch), 1)))
        for doc, ps in zip(batch, pieces, strict=True):
            spans = []
            for at, _ in ps:
                spans += [(at + e.start_char, at + e.end_char, e.label_) for e in next(outs).ents
                          if e.label_ in LABELS]
            doc.user_data["kg_spans"] = spans
            yield doc


def _text(doc: Doc) -> str:
    from kg.extract.docutil import doc_text

    return doc_text(doc)


#: generic heads after a proper name, not part of it
GENERIC_HEADS = frozenset({"technique", "techniques", "method", "methods", "framework", "frameworks", "approach",
                           "algorithm", "algorithms", "dataset", "datasets", "benchmark", "benchmarks", "engine",
                           "library", "toolkit", "system", "module", "strategy", "scheme", "procedure", "pipeline",
                           "paradigm", "mechanism", "model", "models", "architecture", "tool", "suite", "corpus"})
_NAMED = frozenset({"Method", "Dataset", "Software", "Model"})
_DETERMINER = re.compile(r"^(?:the|a|an|our|this|these|those|its|their|such|each)\s+", re.I)
_SCORE = re.compile(r"^\W*\d[\d.,%×x]*\W*$")
_EDGE = " \t,.;:-/\"'"
# what may follow a name inside a hyphenated word: "LLM-based" mentions LLM
_SUFFIXES = frozenset({"based", "like", "style", "free", "aware", "driven", "specific", "level", "wise",
                       "guided", "enhanced", "augmented", "agnostic", "only", "scale", "sized", "type",
                       "generated", "related", "powered", "centric", "oriented", "friendly", "inspired"})


def whole_words(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span trimmed of edge punctuation, or None when it cuts a word ("fine-tuning black"
    of "black-box", "InfoBatch" of "InfoBatchrandomly"): a name is never cut mid-word.

    >>> t = "We fine-tune black-box LLM-based agents on InfoBatchX."
    >>> [whole_words(t, *x) for x in [(3, 18), (23, 26), (43, 52), (22, 26)]]
    [None, (23, 26), None, (23, 26)]
    """
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    if end - start < 2:
        return None
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "-" and start > 1 and text[start - 2].isalnum()):
        return None
    if end < len(text) and text[end].isalnum():
        return None
    if end + 1 < len(text) and text[end] == "-" and text[end + 1].isalnum():
        m = re.match(r"[A-Za-z]+", text[end + 1:])
        if not m or m.group().lower() not in _SUFFIXES:
            return None
    return start, end


def span_candidates(doc: Doc, lexicon, canonical, lower) -> list[tuple[int, int, str, str, str]]:
    """The model's spans as merger candidates ``(start, end, label, name, "model")``."""
    from kg.extract.docutil import doc_text

    text = doc_text(doc)
    out = []
    for start0, end0, label in doc.user_data.get("kg_spans", ()):
        got = clean_span(text, start0, end0, label, lexicon, canonical, lower)
        if got is not None:
            out.append((*got, "model"))
    return out


def clean_span(text: str, start: int, end: int, label: str, lexicon, canonical, lower) -> tuple[int, int, str, str] | None:
    """A learned reader's span as a name: ``(start, end, label, name)``, or None when it cuts a
    word or reads a score.

    The bounds are trimmed of edge punctuation, a determiner, and a generic head after a proper
    name; the label is the reader's (it read the context); the name is the lexicon's canonical
    name when the lexicon knows the surface under the same label, else the canonical form of the
    surface (``canonical(surface, label)``, then ``lower`` for common-noun labels)."""
    bounds = whole_words(text, start, end)
    if bounds is None:
        return None
    start, end = bounds
    m = _DETERMINER.match(text[start:end])
    if m and start + m.end() < end:
        start += m.end()
    surface = text[start:end].strip()
    if len(surface) < 2 or _SCORE.match(surface):
        return None
    if label in _NAMED:  # "the MOKD framework" -> MOKD, "Vid4 dataset" -> Vid4 (guidelines §4)
        head = re.search(r"\s+(\w+)$", surface)
        if head and head.group(1).lower() in GENERIC_HEADS and any(
                c.isupper() or c.isdigit() for c in surface[:head.start()]):
            end = start + head.start()
            surface = surface[:head.start()]
    entry = lexicon.lookup(surface) if lexicon is not None else None
    if entry is not None and entry.label == label:
        name = entry.name
    else:
        name = canonical(surface, label)
        if label in VOTED:
            name = lower(name)
    return start, end, label, name
