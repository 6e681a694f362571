"""The ``kg_encoder`` component: the contextual encoder's readings on a Doc.

The encoder (:mod:`kg.extract.encoder`) reads a paper's title and abstract together, so it runs
once per paper before the pipeline, in :class:`~kg.extract.Extractor`; each Doc then carries its
field's view of that reading (``doc._.kg_reading``, a :class:`FieldReading`). This component
turns the reading's spans into named candidates (``doc._.kg_encoder_spans``, frozen
:class:`EncoderSpan` records) that the merger offers to the selector beside the rules' and the
span CNN's; the proposal and role decisions read the same reading's entity vectors
(:func:`entity_features`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.encoder import Reading, entity_extras
from kg.schema import LEXICON_DIR

TITLE, ABSTRACT = 0, 1


@dataclass(frozen=True, slots=True)
class FieldReading:
    """One field's view of a paper's :class:`~kg.extract.encoder.Reading`."""

    reading: Reading
    field: int  # TITLE or ABSTRACT


@dataclass(frozen=True, slots=True)
class EncoderSpan:
    """A span the encoder read as an entity: character bounds in the Doc's text, label,
    canonical name, and the least probability of its tags."""

    start: int
    end: int
    label: str
    name: str
    confidence: float


if not Doc.has_extension("kg_reading"):
    Doc.set_extension("kg_reading", default=None)
if not Doc.has_extension("kg_encoder_spans"):
    Doc.set_extension("kg_encoder_spans", default=())


def encoder_spans(doc: Doc) -> tuple[EncoderSpan, ...]:
    """The encoder's spans of a Doc (none when the encoder did not run)."""
    return doc._.kg_encoder_spans


@Language.factory("kg_encoder", assigns=["doc._.kg_encoder_spans"],
                  default_config={"lexicon_dir": str(LEXICON_DIR)})
def make_encoder_spans(nlp: Language, name: str, lexicon_dir: str) -> EncoderSpans:
    from kg.lexicon import lexicon_at

    return EncoderSpans(lexicon_at(lexicon_dir))


def within_sentences(start: int, end: int, starts: list[int]) -> list[tuple[int, int]]:
    """The parts of the span ``[start, end)`` in each sentence it touches (``starts``: the
    character offsets where the second and later sentences begin, ascending). The encoder reads
    across sentences and may continue a name over a full stop; a name never does.

    >>> within_sentences(0, 14, [8])
    [(0, 8), (8, 14)]
    >>> within_sentences(2, 6, [8])
    [(2, 6)]
    """
    from bisect import bisect_right

    cuts = starts[bisect_right(starts, start):bisect_right(starts, end - 1)]
    bounds = [start, *cuts, end]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


class EncoderSpans:
    """Names the encoder's spans as the span CNN's are named (:func:`kg.extract.spans.clean_span`)."""

    def __init__(self, lexicon):
        self.lexicon = lexicon

    def __call__(self, doc: Doc) -> Doc:
        from kg.extract.docutil import doc_text, sentences, set_sentences
        from kg.extract.names import canonical_long_form, lower_common_words
        from kg.extract.spans import clean_span

        fr = doc._.kg_reading
        if fr is None:
            doc._.kg_encoder_spans = ()
            return doc
        text = doc_text(doc)
        if "kg_sents" not in doc.user_data:  # alone in a pipeline: the punctuation rules of kg_sentences
            set_sentences(doc)
        starts = [c0 for _, _, c0, _ in sentences(doc)][1:]
        out = []
        for start, end, label, conf in fr.reading.spans.get(fr.field, ()):
            for a, b in within_sentences(start, end, starts):
                got = clean_span(text, a, b, label, self.lexicon, canonical_long_form, lower_common_words)
                if got is not None:
                    out.append(EncoderSpan(*got, conf))
        doc._.kg_encoder_spans = tuple(out)
        return doc


# ---------------------------------------------------------------- features of the decisions


def _bucket(p: float, n: int = 10) -> int:
    return min(n - 1, int(p * n))


def entity_features(reading: Reading, entities, proposed: set[str] | None = None) -> tuple[dict, dict]:
    """The encoder's view of a paper's entities as features of the proposal and role decisions:
    ``({entity id: proposal features}, {entity id: role features})``. Role features need
    ``proposed`` (the ids the paper proposes): they read each entity against the mean vector
    of the proposals."""
    vecs, extras = {}, {}
    for e in entities:
        if not e.mentions or e.type == "Repository":
            continue
        spans = [(TITLE if m.field == "title" else ABSTRACT, m.start, m.end) for m in e.mentions]
        vecs[e.id] = reading.entity_vector(spans)
        extras[e.id] = entity_extras(e.type, any(m.field == "title" for m in e.mentions),
                                     any(m.field == "abstract" for m in e.mentions), len(e.mentions))
    prop_feats = {}
    for eid, v in vecs.items():
        p = reading.propose_prob(v, extras[eid])
        prop_feats[eid] = [f"encp={_bucket(p)}", f"encp>{0.5 if p >= 0.5 else 0}"]
    role_feats = {}
    if proposed is not None:
        pv = [vecs[i] for i in sorted(proposed) if i in vecs]
        pvec = np.mean(pv, axis=0) if pv else None
        for eid, v in vecs.items():
            if eid in proposed:
                continue
            none, role, compared = (float(x) for x in reading.role_probs(v, extras[eid], pvec))
            top = ("none", "role", "compared")[int(np.argmax([none, role, compared]))]
            role_feats[eid] = [f"encr={top}", f"encr-stated={_bucket(role + compared)}",
                               f"encr-cmp={_bucket(compared, 5)}"]
    return prop_feats, role_feats
