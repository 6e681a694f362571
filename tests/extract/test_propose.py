"""The learned proposal decision (kg/extract/propose.py)."""

from __future__ import annotations

from kg.extract.docutil import sentence_chars
from kg.extract.propose import ProposalModel, candidates, features
from kg.records import Entity, Mention

TITLE = "FooNet: Fast Things"
TEXT = "Existing baselines such as BarNet are slow. We propose FooNet, a novel network. FooNet is fast."


def _entities():
    foo = Entity("method:foonet", "Method", "FooNet", (), (Mention("FooNet", 0, 6, "title"),
                 Mention("FooNet", TEXT.index("FooNet"), TEXT.index("FooNet") + 6, "abstract")))
    b = TEXT.index("BarNet")
    bar = Entity("method:barnet", "Method", "BarNet", (), (Mention("BarNet", b, b + 6, "abstract"),))
    return [foo, bar]


def _sents():
    return sentence_chars(TEXT)


def _sentence_of(pos):
    return next(s for s in _sents() if s[0] <= pos < s[1])


def test_features_read_the_title_the_cues_and_the_shape():
    foo, bar = _entities()
    f = features(foo, None, "name-shape", 0, TITLE, TEXT, _sentence_of(foo.mentions[1].start), 1, 3)
    assert {"coined", "in-title", "title-head", "s-trigger", "b-cue", "nment=1"} <= set(f)
    g = features(bar, None, "name-shape", 0, TITLE, TEXT, _sentence_of(bar.mentions[0].start), 0, 3)
    assert "s-old" in g and "in-title" not in g


def test_the_decision_adds_what_the_model_accepts_and_keeps_rule_evidence():
    foo, bar = _entities()
    groups = {foo.id: {"rule": "name-shape"}, bar.id: {"rule": "name-shape"}}
    cands = list(candidates([foo, bar], groups, {}, TITLE, TEXT, _sents(), _sentence_of))
    pm = ProposalModel.fit([f for _, f, _, _ in cands] * 5, [True, False] * 5, l2=0.1)
    got = pm.decide([foo, bar], groups, {}, TITLE, TEXT, _sents(), _sentence_of)
    assert list(got) == [foo.id] and got[foo.id][0] == "learned"
    kept = pm.decide([foo, bar], groups, {foo.id: ("trigger", (0, 5))}, TITLE, TEXT, _sents(), _sentence_of)
    assert kept[foo.id] == ("trigger", (0, 5))
    assert pm.decide([bar], groups, {bar.id: ("trigger", (0, 5))}, TITLE, TEXT, _sents(), _sentence_of) == \
        {bar.id: ("trigger", (0, 5))}  # what a cue proposed stands


def test_save_and_load(tmp_path):
    foo, bar = _entities()
    groups = {foo.id: {"rule": "name-shape"}, bar.id: {"rule": "name-shape"}}
    cands = list(candidates([foo, bar], groups, {}, TITLE, TEXT, _sents(), _sentence_of))
    pm = ProposalModel.fit([f for _, f, _, _ in cands] * 5, [True, False] * 5, l2=0.1, threshold=0.4)
    pm.save(tmp_path, {"papers": 1})
    back = ProposalModel.load(tmp_path)
    assert back.threshold == 0.4 and abs(back.prob(cands[0][1]) - pm.prob(cands[0][1])) < 1e-5


def test_the_threshold_decides_at_its_value():
    """A learned proposal is kept from the threshold up, and not below it: the threshold read
    from the model's folder is the one applied (+0.2 on it passed every other test)."""
    foo, bar = _entities()
    groups = {foo.id: {"rule": "name-shape"}, bar.id: {"rule": "name-shape"}}
    cands = list(candidates([foo, bar], groups, {}, TITLE, TEXT, _sents(), _sentence_of))
    pm = ProposalModel.fit([f for _, f, _, _ in cands] * 5, [True, False] * 5, l2=0.1)
    p = pm.prob(next(f for e, f, _, _ in cands if e.id == foo.id))
    for threshold, kept in ((p, True), (p - 0.01, True), (p + 0.01, False)):
        pm.threshold = threshold
        assert (foo.id in pm.decide([foo, bar], groups, {}, TITLE, TEXT, _sents(), _sentence_of)) is kept
