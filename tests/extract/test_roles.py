"""The learned role decision (kg.extract.roles.RoleModel): which class wins, and where the
threshold on P(some role is stated) cuts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kg.extract.roles import CLASSES, RoleModel, set_aside


def model(threshold: float = 0.5) -> RoleModel:
    # one feature per class: "n" says no role, "r" a role, "c" a compared baseline
    weights = np.zeros((3, len(CLASSES)))
    for row, cls in enumerate(("none", "role", "compared")):
        weights[row, CLASSES.index(cls)] = 3.0
    return RoleModel({"n": 0, "r": 1, "c": 2}, weights, threshold)


def test_the_stronger_of_role_and_compared_is_the_kind():
    m = model()
    assert m.score(["c"])[0] == "compared" and m.score(["r"])[0] == "role"
    assert m.decide(None, ["c"])[0] == "compared" and m.decide(None, ["r"])[0] == "role"
    assert m.decide(None, ["n"])[0] == "none"


def test_a_role_is_stated_from_the_threshold_up():
    m = model()
    stated = m.score(["r"])[1]  # P(role) + P(compared)
    assert math.isclose(stated, 1 - m.probs(["r"])[CLASSES.index("none")])
    for threshold, kind in ((stated, "role"), (stated - 0.01, "role"), (stated + 0.01, "none")):
        m.threshold = threshold
        assert m.decide(None, ["r"])[0] == kind
    m.threshold = stated + 0.01
    assert math.isclose(m.decide(None, ["r"])[1], 1 - stated)  # none, with P(no role stated)


def test_confidence_is_the_calibrated_precision_of_the_score():
    m = RoleModel({}, np.zeros((0, len(CLASSES))), 0.5, [(0.5, 0.7), (0.8, 0.9)])
    assert [m.confidence(s) for s in (0.4, 0.5, 0.79, 0.8, 0.95)] == [0.4, 0.7, 0.7, 0.9, 0.9]


@pytest.mark.parametrize(("text", "name", "aside"), [
    ("FooNet adapts models with LoRA instead of full fine-tuning.", "full fine-tuning", True),
    ("FooNet adapts models with LoRA instead of full fine-tuning.", "LoRA", False),
    ("We train FooNet without knowledge distillation.", "knowledge distillation", True),
    ("FooNet does not require explicit reward models.", "reward models", True),
    ("Unlike diffusion models, FooNet samples in one step.", "diffusion models", True),
    ("FooNet, rather than costly human preference labels, reads AI feedback.", "human preference labels", True),
    ("Unlike prior work, we use contrastive learning.", "contrastive learning", False),
    ("Unlike prior work, our method uses contrastive learning.", "contrastive learning", False),
    ("FooNet builds on speculative decoding.", "speculative decoding", False),
])
def test_a_name_the_text_sets_aside_is_told_apart_from_one_it_uses(text, name, aside):
    assert set_aside(text, text.index(name)) is aside


def test_a_set_aside_name_gets_no_use_edge(extractor):
    """"uses LoRA instead of full fine-tuning": LoRA is used, full fine-tuning is not."""
    from kg.records import Paper

    text = ("We propose FooNet, which uses low-rank adaptation instead of full fine-tuning to adapt "
            "large language models for machine translation.")
    ex = extractor.extract(Paper("p", text))
    names = {e.id: e.name.lower() for e in ex.entities}
    uses = {names[r.target] for r in ex.relations if r.type == "USES"}
    assert "full fine-tuning" in names.values()
    assert "full fine-tuning" not in uses
    assert uses & {"low-rank adaptation", "lora"}, uses
