"""The optional trained span component: train a tiny model from SciER train, load, run.

The model is trained here into tmp_path (never committed: SciER is GPL-3.0)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import spacy

from kg.errors import KgError
from tests.conftest import ROOT, SHARED, need

SCIER = SHARED / "gold" / "scier"


def _script():
    spec = importlib.util.spec_from_file_location("train_ner", ROOT / "scripts" / "train_ner.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    need(SCIER / "train.jsonl")
    out = tmp_path_factory.mktemp("ner") / "model"
    _script().train(out, SCIER, epochs=2, max_minutes=1.0, limit=200, quiet=True,
                    overrides={"training.eval_frequency": 20})
    return out


def test_convert_locates_repeated_and_nested_mentions():
    mod = _script()
    row = {"sentence": "We use BI - LSTM and LSTM on MS COCO ; LSTM again .",
           "ner": [["BI - LSTM", "Method"], ["LSTM", "Method"], ["MS COCO", "Dataset"],
                   ["LSTM", "Method"]]}
    text, spans, lost = mod.convert_row(row)
    assert text == "We use BI-LSTM and LSTM on MS COCO; LSTM again."
    assert [(text[s:e], lab) for s, e, lab in spans] == [
        ("BI-LSTM", "Method"), ("LSTM", "Method"), ("MS COCO", "Dataset"), ("LSTM", "Method")]
    assert lost == 0


def test_holdout_is_by_document_and_stable():
    mod = _script()
    assert mod.is_holdout("51923817") == mod.is_holdout("51923817")
    ids = [str(i) for i in range(1000)]
    assert 50 < sum(map(mod.is_holdout, ids)) < 150


def test_trained_component_spans_index_the_text(tiny_model):
    from kg.extract import ner

    assert ner.available(tiny_model)
    meta = spacy.load(tiny_model).meta
    assert meta["license"] == "GPL-3.0" and "SciER" in meta["description"]
    assert (tiny_model / "NOTICE.txt").exists()
    nlp = spacy.blank("en")
    nlp.add_pipe("kg_ner", config={"model_path": str(tiny_model)})
    texts = ["We propose CornerNet, a new approach to object detection evaluated on MS COCO.",
             "Convolutional neural networks achieve state-of-the-art results on ImageNet."]
    for doc in [nlp(texts[0]), *nlp.pipe(texts)]:
        spans = doc.user_data["kg_ner"]
        assert isinstance(spans, list)
        for start, end, label in spans:
            assert label in ner.LABELS
            assert 0 <= start < end <= len(doc.text)
            assert doc.text[start:end] == doc.text[start:end].strip()
    assert ner.load_model(str(tiny_model)) is ner.load_model(str(tiny_model))  # cached


def test_spancat_variant_trains_and_loads(tmp_path):
    need(SCIER / "train.jsonl")
    from kg.extract import ner

    out = tmp_path / "sc"
    summary = _script().train(out, SCIER, epochs=1, max_minutes=1.0, limit=120, quiet=True,
                              arch="spancat", overrides={"training.eval_frequency": 20})
    assert summary["arch"] == "spancat" and ner.available(out)
    nlp = spacy.blank("en")
    nlp.add_pipe("kg_ner", config={"model_path": str(out)})
    doc = nlp("We propose CornerNet for object detection on MS COCO.")
    assert all(0 <= s < e <= len(doc.text) and lab in ner.LABELS for s, e, lab in doc.user_data["kg_ner"])


def test_candidates_are_typed_filtered_and_on_text():
    from kg.extract import ner

    nlp = spacy.blank("en")
    text = ("We use dropout and the Graph Attention Network (GAT) with Llama-2-7B for semantic "
            "segmentation. Extensive runs reach VS 78.32 on channel-wise tests.")
    doc = nlp(text)
    parts = [("dropout", "Method"), ("the Graph Attention Network (GAT)", "Method"),
             ("Llama-2-7B", "Method"), ("semantic segmentation.", "Task"), ("Extensive", "Method"),
             ("VS 78.32", "Method"), ("channel-wise", "Method")]
    doc.user_data["kg_ner"] = [(text.index(p), text.index(p) + len(p), lab) for p, lab in parts]
    cands = ner.ner_candidates(doc, None, lambda s, lab: s)
    got = [(text[s:e], lab) for s, e, lab, _name, _rule in cands]
    assert got == [("dropout", "Technique"), ("Graph Attention Network (GAT)", "Method"),
                   ("Llama-2-7B", "Model"), ("semantic segmentation", "Task")]
    strict = ner.ner_candidates(doc, None, lambda s, lab: s, single_lower=False)
    assert [text[s:e] for s, e, *_ in strict][0] == "Graph Attention Network (GAT)"


def test_missing_model_is_a_clear_error(tmp_path):
    from kg.extract import ner

    assert not ner.available(tmp_path / "nothing")
    assert not ner.available(None)
    nlp = spacy.blank("en")
    with pytest.raises(KgError, match="train_ner.py --out"):
        nlp.add_pipe("kg_ner", config={"model_path": str(tmp_path / "nothing")})


def test_extractor_uses_the_span_model_when_integrated(tiny_model):
    from kg.extract import Extractor
    from kg.records import Paper

    ex = Extractor(ner_model=str(tiny_model))
    assert "kg_ner" in ex.nlp.pipe_names
    text = "We propose CornerNet, a new approach to object detection. It beats YOLO on MS COCO."
    out = ex.extract(Paper(id="p", title="CornerNet: Detecting Objects as Paired Keypoints", abstract=text))
    for e in out.entities:
        for m in e.mentions:
            src = out.paper.abstract if m.field == "abstract" else out.paper.title
            assert src[m.start:m.end] == m.text
    assert "kg_ner" not in Extractor(ner_model="").nlp.pipe_names


def test_a_graph_is_not_extended_with_another_pipeline(tiny_model, tmp_path):
    from kg.builder import build

    build([str(ROOT / "examples" / "sample.txt")], tmp_path, ner_model="")
    with pytest.raises(KgError, match="--fresh"):
        build([str(ROOT / "examples" / "sample.txt")], tmp_path, ner_model=str(tiny_model))
    build([str(ROOT / "examples" / "sample.txt")], tmp_path, ner_model=str(tiny_model), fresh=True)
