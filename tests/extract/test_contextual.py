"""The kg_encoder component alone on a blank pipeline, and its place in kg's pipeline."""

from __future__ import annotations

import numpy as np
import pytest
import spacy

from kg.extract import encoder as E
from kg.extract.contextual import ABSTRACT, TITLE, EncoderSpan, FieldReading, encoder_spans
from kg.lexicon import default_lexicon
from kg.schema import LEXICON_DIR


def _reading(spans: dict[int, list[tuple[int, int, str, float]]]) -> E.Reading:
    empty = np.zeros(0, dtype=np.int64)
    pieces = E.Pieces(empty, empty, empty.astype(np.int32), empty.astype(np.int32), empty.astype(np.int32),
                      empty.astype(np.int32), empty.astype(bool), -1)
    return E.Reading(pieces, np.zeros((0, 4), dtype=np.float32), np.zeros(4, dtype=np.float32), spans, {})


def test_the_component_names_the_encoders_spans_of_its_field():
    nlp = spacy.blank("en")
    nlp.add_pipe("kg_encoder", config={"lexicon_dir": str(LEXICON_DIR)})
    text = "We apply the Speculative Decoding method to the FooNet framework and reach 0.95 on InfoBatchX."
    a, b = text.index("the Speculative"), text.index(" method")
    c, d = text.index("FooNet"), text.index(" and")
    e = text.index("0.95")
    f = text.index("InfoBatch")
    reading = _reading({ABSTRACT: [(a, b, "Technique", 0.9), (c, d, "Method", 0.8), (e, e + 4, "Metric", 0.5),
                                   (f, f + len("InfoBatch"), "Dataset", 0.7)],
                        TITLE: [(0, 3, "Method", 0.99)]})
    doc = nlp.make_doc(text)
    doc._.kg_reading = FieldReading(reading, ABSTRACT)
    doc = nlp(doc)
    got = [(text[s.start:s.end], s.label, s.name, s.confidence) for s in encoder_spans(doc)]
    # a determiner and a generic head are not part of a name; a score and a cut word are no name
    assert got == [("Speculative Decoding", "Technique", "speculative decoding", 0.9),
                   ("FooNet", "Method", "FooNet", 0.8)]
    assert all(isinstance(s, EncoderSpan) for s in encoder_spans(doc))


def test_without_a_reading_the_component_finds_nothing():
    nlp = spacy.blank("en")
    nlp.add_pipe("kg_encoder", config={"lexicon_dir": str(LEXICON_DIR)})
    assert encoder_spans(nlp("We propose FooNet.")) == ()


def test_the_lexicon_names_a_span_it_knows_under_the_same_label():
    lex = default_lexicon()
    entry = next(e for e in lex.entries if e.label == "Technique" and e.aliases and e.name != e.aliases[0]
                 and e.aliases[0][:1].isupper())
    nlp = spacy.blank("en")
    nlp.add_pipe("kg_encoder", config={"lexicon_dir": str(LEXICON_DIR)})
    text = f"We use {entry.aliases[0]} here."
    s = text.index(entry.aliases[0])
    doc = nlp.make_doc(text)
    doc._.kg_reading = FieldReading(_reading({ABSTRACT: [(s, s + len(entry.aliases[0]), "Technique", 0.9)]}), ABSTRACT)
    assert [x.name for x in encoder_spans(nlp(doc))] == [lex.lookup(entry.aliases[0]).name]


@pytest.mark.skipif(not E.available(E.DEFAULT_ENCODER), reason="no packaged encoder")
def test_the_default_pipeline_declares_what_each_component_assigns():
    from kg.extract import Extractor

    ex = Extractor()
    assert "kg_encoder" in ex.nlp.pipe_names
    problems = ex.nlp.analyze_pipes()["problems"]
    assert not any(problems.values()), problems


def test_a_name_never_runs_over_a_full_stop():
    from kg.extract.contextual import within_sentences

    assert within_sentences(11, 25, [19]) == [(11, 19), (19, 25)]  # "FooNet. FooNet" -> two names
    assert within_sentences(0, 30, [5, 12, 40]) == [(0, 5), (5, 12), (12, 30)]
    assert within_sentences(12, 18, [5, 12, 40]) == [(12, 18)]  # a name that starts a sentence


@pytest.mark.skipif(not E.available(E.DEFAULT_ENCODER), reason="no packaged encoder")
def test_the_encoder_reads_names_within_their_sentence(extractor):
    from kg.records import Paper

    ex = extractor.extract(Paper("p", "We propose FooNet. FooNet gives up to 3.1x faster inference on vLLM."))
    assert "method:foonet" in {e.id for e in ex.entities}
    assert all("." not in e.name for e in ex.entities)
