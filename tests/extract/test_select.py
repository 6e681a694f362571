"""The learned selector (kg/extract/select.py): features, fitting, choosing, saving."""

from __future__ import annotations

import numpy as np

from kg.extract.select import (
    CLASSES,
    NONE,
    Selector,
    coined,
    features,
    fit,
    reading,
    stretch_features,
)

TEXT = "We train with mixed precision to report precision and recall of FooNet on ImageNet."


def _cands():
    i = TEXT.index("precision")
    j = TEXT.index("precision", i + 1)
    k = TEXT.index("ImageNet")
    return [(i, i + 9, "Metric", "precision", "lexicon"), (j, j + 9, "Metric", "precision", "lexicon"),
            (k, k + 8, "Dataset", "ImageNet", "lexicon"), (k, k + 8, "Method", "ImageNet", "name-shape")]


def test_coined_names_have_an_inner_capital_or_a_digit():
    assert [coined(s) for s in ("CAPABOOST", "FooNet", "GPT-4", "Dropout", "graph attention", "UP2ME")] == \
        [True, True, True, False, False, True]


def test_features_name_the_rules_the_words_and_the_context():
    i = TEXT.index("precision")
    f = features(TEXT, i, i + 9, [_cands()[0]], [], False)
    assert {"r=lexicon|Metric", "l=Metric", "s=precision", "p1=mixed", "n1=to", "no-model"} <= set(f)
    (start, end), group = stretch_features(None, TEXT, _cands())[0][-1]
    assert TEXT[start:end] == "ImageNet" and {c[4] for c in group} == {"lexicon", "name-shape"}


def _fitted() -> Selector:
    # "precision" after "mixed" is no entity, before "and recall" a Metric
    feats = [["bias", "s=precision", "p1=mixed", "r=lexicon|Metric"]] * 6 + \
            [["bias", "s=precision", "n1=and", "r=lexicon|Metric"]] * 6 + \
            [["bias", "s=imagenet", "r=lexicon|Dataset", "r=name-shape|Method"]] * 6
    labels = [NONE] * 6 + ["Metric"] * 6 + ["Dataset"] * 6
    index, weights = fit(feats, labels, l2=0.1, min_count=1)
    return Selector(index, weights, threshold=0.5)


def test_fit_learns_what_the_context_says():
    sel = _fitted()
    p = sel.probs([["bias", "s=precision", "p1=mixed", "r=lexicon|Metric"],
                   ["bias", "s=precision", "n1=and", "r=lexicon|Metric"]])
    assert CLASSES[int(np.argmax(p[0]))] == NONE
    assert CLASSES[int(np.argmax(p[1]))] == "Metric"


def test_choose_keeps_one_reading_per_stretch_and_drops_the_unlikely():
    chosen = _fitted().choose(None, TEXT, _cands())
    got = [(TEXT[s:e], label, rule) for s, e, label, _, rule in sorted(chosen)]
    assert ("precision", "Metric", "lexicon") in got
    assert sum(1 for x in got if x[0] == "precision") == 1  # the mixed-precision reading is gone
    assert ("ImageNet", "Dataset", "lexicon") in got


def test_exact_rules_are_never_dropped():
    sel = Selector({"bias": 0}, np.array([[9.0] + [0.0] * (len(CLASSES) - 1)]), threshold=0.5)
    url = (0, 10, "Repository", "github.com", "url")
    acro = (14, 17, "Technique", "long form", "acronym")
    assert sel.choose(None, "github.com is FOO", [url, (11, 13, "Method", "is", "name-shape"), acro]) == \
        [url, (14, 17, "Method", "long form", "acronym")]  # a URL keeps its label, an acronym is relabelled


def test_each_chosen_reading_carries_the_probability_of_its_label():
    sel = _fitted()
    scored = dict(sel.choose_scored(None, TEXT, _cands()))
    assert sorted(scored) == sorted(sel.choose(None, TEXT, _cands()))
    stretches, feats = stretch_features(None, TEXT, _cands())
    probs = {span: p for (span, _), p in zip(stretches, sel.probs(feats), strict=True)}
    for (start, end, label, *_), conf in scored.items():
        assert conf == round(float(probs[(start, end)][CLASSES.index(label)]), 4)
        assert 0.5 < conf <= 1.0, (label, conf)  # kept: P(no entity) below the threshold 0.5


def test_an_exact_reading_is_as_sure_as_its_label_and_a_url_is_certain():
    # the selector says "no entity" (9.0) and splits the rest evenly: an exact rule is kept anyway,
    # sure of the entity, as unsure of its label as the selector is; a URL is sure of both
    sel = Selector({"bias": 0}, np.array([[9.0] + [0.0] * (len(CLASSES) - 1)]), threshold=0.5)
    url = (0, 10, "Repository", "github.com", "url")
    acro = (14, 17, "Technique", "long form", "acronym")
    scored = dict(sel.choose_scored(None, "github.com is FOO", [url, acro]))
    assert scored[url] == 1.0
    assert list(scored.values())[1] == round(1 / (len(CLASSES) - 1), 4)


def test_a_relabelled_reading_keeps_its_rule_and_a_coined_name():
    group = [(0, 4, "Method", "Llama long form", "acronym")]
    assert reading("LLMA x", 0, 4, "Technique", group, lambda s, lab: s.lower()) == \
        (0, 4, "Technique", "Llama long form", "acronym")
    group = [(0, 6, "Metric", "recall", "lexicon")]
    assert reading("Recall x", 0, 6, "Task", group, lambda s, lab: s.lower())[3] == "recall"
    assert reading("FooNet", 0, 6, "Method", [(0, 6, "Method", "FooNet", "model")], str)[4] == "model-coined"


def test_save_and_load_give_the_same_probabilities(tmp_path):
    sel = _fitted()
    sel.save(tmp_path, {"papers": 3})
    back = Selector.load(tmp_path)
    f = [["bias", "s=precision", "n1=and", "r=lexicon|Metric"], ["unknown"]]
    assert np.allclose(sel.probs(f), back.probs(f), atol=1e-5)
    assert back.threshold == 0.5
