"""kg's span model component (kg/extract/spans.py) and its place in the pipeline."""

from __future__ import annotations

import pytest
import spacy

from kg.extract.pipeline import canonical_long_form, lower_common_words
from kg.extract.spans import (
    DEFAULT_MODEL,
    SpansModelMissing,
    available,
    resolve_model,
    span_candidates,
    whole_words,
)
from kg.lexicon import default_lexicon


def test_whole_words_never_cut_a_word():
    t = "We fine-tune black-box LLM-based agents on InfoBatchX."
    assert whole_words(t, 3, 18) is None           # "fine-tune black" of "black-box"
    assert whole_words(t, 23, 26) == (23, 26)      # LLM in LLM-based
    assert whole_words(t, 43, 52) is None          # InfoBatch of InfoBatchX
    assert whole_words(t, 22, 26) == (23, 26)      # edge punctuation trimmed


def test_span_candidates_take_the_lexicon_name_and_drop_determiners():
    nlp = spacy.blank("en")
    text = "We apply the speculative decoding method and reach 0.95 with Foo Networks."
    doc = nlp(text)
    a = text.index("the speculative")
    b = text.index("0.95")
    c = text.index("Foo")
    doc.user_data["kg_text"] = text
    doc.user_data["kg_spans"] = [(a, a + len("the speculative decoding"), "Technique"), (b, b + 4, "Metric"),
                                 (c, c + len("Foo Networks"), "Method")]
    got = span_candidates(doc, default_lexicon(), canonical_long_form, lower_common_words)
    assert [(text[s:e], label, name) for s, e, label, name, _ in got] == [
        ("speculative decoding", "Technique", "speculative decoding"), ("Foo Networks", "Method", "Foo Networks")]


def test_a_named_model_folder_must_hold_a_model(tmp_path):
    assert resolve_model("off") is None
    with pytest.raises(SpansModelMissing):
        resolve_model(tmp_path)


@pytest.fixture(scope="module")
def fast_extractor():
    """The fast pipeline (``--model fast``): rules, the packaged span model and its selector."""
    from kg.extract import Extractor

    return Extractor(spans_model=str(DEFAULT_MODEL), encoder="")


@pytest.mark.skipif(not available(DEFAULT_MODEL), reason="no packaged span model")
def test_the_packaged_model_runs_in_the_fast_pipeline(fast_extractor):
    extractor = fast_extractor
    assert "kg_spans" in extractor.nlp.pipe_names
    assert extractor.nlp.get_pipe("kg_entities").selector is not None
    doc = extractor.nlp("We evaluate speculative decoding on ImageNet and CIFAR-10 and report top-1 accuracy.")
    assert doc.user_data["kg_spans"], "the model marks nothing in an easy sentence"
    assert all(isinstance(s, int) and isinstance(e, int) and s < e for s, e, _ in doc.user_data["kg_spans"])
    labels = {sp.text: sp.label_ for sp in doc.spans["kg"]}
    assert labels.get("ImageNet") == "Dataset" and labels.get("CIFAR-10") == "Dataset"
