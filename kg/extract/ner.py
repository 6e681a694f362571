"""Optional trained span finder (``kg_ner``): a small CPU NER trained from SciER.

The rule components find what the lexicons, the model-name grammar and acronym definitions
know; a trained model also finds common-noun methods and tasks ("graph convolution",
"semantic segmentation") that no rule can. It is OPTIONAL: its training data, SciER, is
GPL-3.0, so no weights ship with kg. ``python scripts/train_ner.py --out DIR`` trains one
on demand (about 10 minutes on 2 cores) into a folder the user names; see
``schema/ner/README.md``.

The component runs the trained pipeline on the Doc's text and stores character spans in
``doc.user_data["kg_ner"]`` as ``(start_char, end_char, label)`` with label one of SciER's
``Method``, ``Task``, ``Dataset``; :func:`ner_candidates` turns them into kg's typed
candidates for the entity merger.

Wiring (in ``pipeline.py``): ``build_nlp(lexicon_dir, ner_model)`` adds ``kg_ner`` before
``kg_entities`` when ``ner_model`` is set; ``EntityMerger`` adds
``ner_candidates(doc, self.lexicon, canonical_long_form, single_lower=False)`` when
``"kg_ner" in doc.user_data``, at priority ``"ner": 2`` (below url, acronym, model-name and
lexicon; above name-shape). ``Extractor(ner_model=None)`` reads ``$KG_NER_MODEL``.

>>> method_subtype("Llama-2-7B"), method_subtype("dropout"), method_subtype("Dropout", sentence_initial=True)
('Model', 'Technique', 'Technique')
>>> method_subtype("Graph Attention Network"), method_subtype("graph attention"), method_subtype("LSTM")
('Method', 'Technique', 'Method')
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from kg.errors import UsageError
from kg.extract import cues

NER_VERSION = "1"
#: where ``scripts/train_ner.py`` puts the model unless told otherwise
DEFAULT_MODEL_DIR = Path(os.path.expanduser("~/.cache/kg")) / f"ner-scier-{NER_VERSION}"
ENV_VAR = "KG_NER_MODEL"
LABELS = ("Method", "Task", "Dataset")


class NerModelMissing(UsageError):
    """The trained span model is not where we were told to look."""


def available(path: str | Path | None) -> bool:
    """True when ``path`` holds a trained spaCy pipeline with an ``ner`` (or ``spancat``)
    component."""
    if not path:
        return False
    p = Path(path).expanduser()
    return (p / "config.cfg").is_file() and (p / "meta.json").is_file() \
        and ((p / "ner").is_dir() or (p / "spancat").is_dir())


def model_path_from_env() -> Path | None:
    """``$KG_NER_MODEL`` if set (and non-empty), else None. Never falls back silently."""
    val = os.environ.get(ENV_VAR, "").strip()
    return Path(val).expanduser() if val else None


@cache
def load_model(path: str) -> Language:
    """Load the trained pipeline once per path (per process)."""
    if not available(path):
        raise NerModelMissing(
            f"{path}: no trained span model here; train one with "
            f"python scripts/train_ner.py --out {path}")
    import spacy

    return spacy.load(path, exclude=["parser", "tagger", "lemmatizer", "senter"])


@Language.factory("kg_ner", default_config={"model_path": str(DEFAULT_MODEL_DIR), "batch_size": 64,
                                            "skip_titles": True})
def make_ner(nlp: Language, name: str, model_path: str, batch_size: int, skip_titles: bool) -> TrainedSpans:
    return TrainedSpans(load_model(str(Path(model_path).expanduser())), batch_size, skip_titles)


class TrainedSpans:
    """Runs the trained pipeline on ``doc.text``; writes ``doc.user_data["kg_ner"]``.

    Titles are skipped (``skip_titles``): SciER is sentences from abstracts, and on a
    Title-Cased title the model marks the whole title as a name."""

    def __init__(self, model: Language, batch_size: int = 64, skip_titles: bool = True):
        self.model = model
        self.batch_size = batch_size
        self.skip_titles = skip_titles

    def __call__(self, doc: Doc) -> Doc:
        if self.skip_titles and looks_like_title(_text(doc)):
            doc.user_data["kg_ner"] = []
            return doc
        return self._set(doc, self.model(_text(doc)))

    def pipe(self, docs: Iterable[Doc], batch_size: int | None = None) -> Iterator[Doc]:
        """Batched: the CNN is several times faster over a batch than doc by doc."""
        from spacy.util import minibatch

        for batch in minibatch(docs, size=batch_size or self.batch_size):
            yield from self._run(batch)

    def _run(self, batch: list[Doc]) -> Iterator[Doc]:
        run = [d for d in batch if not (self.skip_titles and looks_like_title(_text(d)))]
        outs = dict(zip(map(id, run), self.model.pipe([_text(d) for d in run], batch_size=len(batch)),
                        strict=True))
        for doc in batch:
            out = outs.get(id(doc))
            if out is None:
                doc.user_data["kg_ner"] = []
                yield doc
            else:
                yield self._set(doc, out)

    @staticmethod
    def _set(doc: Doc, out: Doc) -> Doc:
        spans = out.spans.get("sc", out.ents)  # spancat or ner
        doc.user_data["kg_ner"] = sorted((e.start_char, e.end_char, e.label_) for e in spans
                                         if e.label_ in LABELS)
        return doc


def _text(doc: Doc) -> str:
    from kg.extract.docutil import doc_text

    return doc_text(doc)


# ---------------------------------------------------------------- typing the model's spans

_DETERMINERS = cues.word_set("determiners")
_EDGE_PUNCT = " \t,.;:\"'"
_OPEN, _CLOSE = "([{", ")]}"


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span past edge punctuation, unbalanced edge brackets and a leading
    determiner ("the", "our").

    >>> t = "the (GAN) of our ResNet (v2)."
    >>> [t[slice(*trim(t, *x))] for x in [(4, 9), (0, 9), (13, 29)]]
    ['GAN', '(GAN)', 'ResNet (v2)']
    """
    for _ in range(3):
        while start < end and text[start] in _EDGE_PUNCT:
            start += 1
        while end > start and text[end - 1] in _EDGE_PUNCT:
            end -= 1
        span = text[start:end]
        if len(span) > 2 and span[0] in _OPEN and span[-1] == _CLOSE[_OPEN.index(span[0])] \
                and not any(c in span[1:-1] for c in _OPEN + _CLOSE):
            start, end = start + 1, end - 1
        elif span[:1] in _OPEN and span.count(span[0]) > span.count(_CLOSE[_OPEN.index(span[0])]):
            start += 1
        elif span[-1:] in _CLOSE and span.count(span[-1]) > span.count(_OPEN[_CLOSE.index(span[-1])]):
            end -= 1
        else:
            break
    m = re.match(r"(\w+)\s+", text[start:end])
    if m and m.group(1).lower() in _DETERMINERS and m.end() < end - start:
        start += m.end()
    return start, end


_PROPER = re.compile(r"^(?:[A-Z0-9][\w.+'-]*|[a-z][a-z]*[A-Z][\w.+'-]*|of|for|and|the|with|in|on|to|via|a|an|[-/&+])$")
# sized or release-tagged names: GPT-4o, Llama-2-7B, BERT-base, ViT-L/14, Swin-T
_MODEL_SHAPE = re.compile(
    r"^[A-Z][\w.]*(?:[- ][\w.]+)*?[- ](?:\d+(?:\.\d+)?[BMKT]|[Bb]ase|[Ll]arge|[Ss]mall|[Tt]iny|[Hh]uge|XXL|XL"
    r"|[SBLHT](?:/\d+)?)$|^(?:GPT|Llama|LLaMA|Qwen|Claude|Gemini|Mistral|Phi)[-\s]?\d[\w.-]*$")


def looks_like_model(surface: str) -> bool:
    """A released model's name by shape: a size, ``-base``/``-large`` or ViT-style size letter.

    >>> looks_like_model("Llama-2-7B"), looks_like_model("BERT-base"), looks_like_model("ResNet")
    (True, True, False)
    """
    return bool(_MODEL_SHAPE.match(surface))


def method_subtype(surface: str, is_model: Callable[[str], bool] = looks_like_model,
                   sentence_initial: bool = False) -> str:
    """kg's label for a span the model calls ``Method`` (SciER's Method covers kg's Method,
    Technique and Model): a model name -> Model; a name whose content words all carry a
    capital or digit (``Graph Attention Network``, ``LSTM``, ``ResNet``) -> Method; otherwise
    (``graph attention``, ``dropout``, ``CNN-based models``) -> Technique. A lone Titlecase
    word that opens a sentence ("Dropout is ...") is read as lower case."""
    if is_model(surface):
        return "Model"
    words = [w.strip("()[]{}") for w in re.split(r"\s+", surface.strip()) if w.strip("()[]{}")]
    if sentence_initial and words and words[0][:1].isupper() and words[0][1:].islower():
        words[0] = words[0].lower()
    if words and all(_PROPER.match(w) for w in words) and any(w[:1].isupper() or w[:1].isdigit()
                                                               or any(c.isupper() for c in w) for w in words):
        return "Method"
    return "Technique"


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?:;"


_DECIMAL = re.compile(r"(?<![\w.-])\d+[.,]\d+(?![\w-])")  # a score: "VS 78.32"
_NUMBER = re.compile(r"(?<![\w.-])\d{2,}(?![\w-])")  # a year or count: "SODA 2022", "100 sampling"
_ADJECTIVAL = re.compile(r"-(?:wise|free|based|term|dependent|driven|aware|specific|level|like|style|agnostic)$")


def plausible(surface: str, sentence_initial: bool = False, single_lower: bool = True,
              label: str = "Method") -> bool:
    """Whether a span the model found (and no lexicon knows) can name an entity: not a score
    ("VS 78.32"), no free-standing number unless a Dataset ("SODA 2022" is not a method;
    "PASCAL VOC 2007" is a dataset), not an adjectival compound ("channel-wise",
    "model-free"), not a sentence-opening capitalised word ("Extensive"), and, unless
    ``single_lower``, not a lone lower-case word ("decoder", "classification").

    >>> [plausible(s) for s in ["VS 78.32", "channel-wise", "graph attention", "CIFAR-10", "d³"]]
    [False, False, True, True, False]
    >>> plausible("SODA 2022"), plausible("PASCAL VOC 2007", label="Dataset")
    (False, True)
    """
    if len(re.findall(r"[A-Za-z]", surface)) < 2 or _DECIMAL.search(surface):
        return False
    if label != "Dataset" and _NUMBER.search(surface):
        return False
    words = surface.split()
    if len(words) == 1:
        w = words[0]
        if _ADJECTIVAL.search(w.lower()):
            return False
        if sentence_initial and w[:1].isupper() and w[1:].islower():
            return False
        if not single_lower and w.islower():
            return False
    return True


def looks_like_title(text: str) -> bool:
    """A title rather than prose: short, no closing full stop, most long words capitalised.

    >>> looks_like_title("Towards Federated Adaptive Asynchronous Optimization")
    True
    >>> looks_like_title("We propose FooNet for image classification.")
    False
    """
    if text.rstrip().endswith(".") or len(text.split()) > 40:  # prose, decided without the regex
        return False
    words = [w for w in re.findall(r"[A-Za-z][\w'-]*", text) if len(w) >= 4]
    return bool(words) and sum(w[0].isupper() for w in words) >= 0.6 * len(words)


def ner_candidates(doc: Doc, lexicon, canonical: Callable[[str, str], str],
                   is_model: Callable[[str], bool] = looks_like_model,
                   rule: str = "ner", single_lower: bool = True,
                   ) -> list[tuple[int, int, str, str, str]]:
    """The model's spans as merger candidates ``(start, end, label, name, rule)``.

    Spans no lexicon knows must be :func:`plausible`. Label: the lexicon's when it knows the surface (a Model entry gives Model with its
    canonical name); else Task/Dataset as the model says; a Method is subtyped by
    :func:`method_subtype`. ``canonical(surface, label)`` gives the canonical name of an
    unknown surface (``pipeline.canonical_long_form``)."""
    from kg.extract.docutil import doc_text

    text = doc_text(doc)
    out = []
    for s0, e0, lab in doc.user_data.get("kg_ner", ()):
        start, end = trim(text, s0, e0)
        if end - start < 2:
            continue
        surface = text[start:end]
        entry = lexicon.lookup(surface) if lexicon is not None else None
        if entry is not None:
            out.append((start, end, entry.label, entry.name, rule))
            continue
        initial = _sentence_initial(text, start)
        if not plausible(surface, initial, single_lower, lab):
            continue
        label = method_subtype(surface, is_model, initial) if lab == "Method" else lab
        out.append((start, end, label, canonical(surface, label), rule))
    return out


# ---------------------------------------------------------------- training helpers


class TrainingDeadline(Exception):
    """Raised from the ``before_update`` callback when training has used its time."""


def _register_deadline() -> None:
    from spacy import registry

    if "kg.deadline.v1" in registry.callbacks.get_all():
        return

    @registry.callbacks("kg.deadline.v1")
    def make_deadline(minutes: float = 0.0) -> Callable[[Language, dict], None]:
        """Stop training after ``minutes`` of wall time (0: no limit); spaCy keeps
        ``model-best`` from the last evaluation."""
        t0 = time.monotonic()

        def before_update(nlp: Language, args: dict) -> None:
            if minutes and time.monotonic() - t0 > minutes * 60:
                raise TrainingDeadline(f"time limit of {minutes} min reached at step {args.get('step')}")

        return before_update


_register_deadline()
