"""Noun phrases that name techniques, tasks and metrics (kg/extract/phrases.py)."""

import pytest

from kg.extract.phrases import find_phrases
from kg.lexicon import default_lexicon
from kg.records import Paper


@pytest.fixture(scope="module")
def extractor(rules_extractor):
    """These tests pin the rules, so they run without the span model."""
    return rules_extractor


def phrases(text):
    return [(f.name, f.label) for f in find_phrases(text, default_lexicon().lookup)]


def test_modifiers_extend_lexicon_terms_and_head_nouns():
    got = phrases("We study multi-agent inverse reinforcement learning with linear function approximation, "
                  "dot-product self-attention and report test accuracy and model area.")
    assert got == [("multi-agent inverse reinforcement learning", "Technique"),
                   ("linear function approximation", "Technique"), ("dot-product self-attention", "Technique"),
                   ("test accuracy", "Metric"), ("model area", "Metric")]


@pytest.mark.parametrize("text", [
    "We use standard self-attention.",                 # evaluative adjective
    "Existing methods rely on reinforcement learning.",  # a bare lexicon term is the lexicon's
    "to maintain consistent decoding",                # verb after "to"
    "we report the feature map of the network",       # "map" is not the metric MAP
    "in near-linear time",                            # time only with a measuring modifier
    "images are sharp but sampling is slow",          # a conjunction does not modify
    "distilled to four sampling steps",               # nor does a number word
])
def test_not_phrases(text):
    assert phrases(text) == []


def test_gerund_after_a_preposition_is_a_verb():
    assert phrases("an algorithm for learning tree ensembles") == [("tree ensemble", "Technique")]


def test_title_case_titles():
    assert ("sparse-view 3D modeling", "Task") in phrases("Liberate Sparse-View 3D Modeling from Camera Poses")


def test_phrase_beats_the_lexicon_term_inside_it(extractor):
    ex = extractor.extract(Paper(id="p", abstract="We study online reinforcement learning. Reinforcement learning is hard."))
    names = {e.name for e in ex.entities}
    assert {"online reinforcement learning", "reinforcement learning"} <= names


@pytest.mark.parametrize(("text", "expected"), [
    ("We replace KL divergence with a bounded term.", []),                      # a verb before a term
    ("It raises total system throughput.", [("system throughput", "Metric")]),
    ("Both reach similar test accuracy.", [("test accuracy", "Metric")]),
    ("Such expensive federated online learning is slow.", [("federated online learning", "Technique")]),
])
def test_verbs_and_evaluative_adjectives_do_not_start_a_name(text, expected):
    assert phrases(text) == expected


def test_the_modifier_a_narrow_head_needs_is_kept_after_a_verb_particle():
    assert phrases("This cuts design time and speeds up training time.") == [("training time", "Metric")]


def test_a_number_before_a_verb_like_modifier_makes_it_a_noun():
    assert phrases("It reaches 91% test accuracy, and we test accuracy gains.") == [("test accuracy", "Metric")]


@pytest.mark.parametrize(("text", "expected"), [
    ("We compare autoregressive and non-autoregressive models.",
     [("non-autoregressive model", "Technique"), ("autoregressive model", "Technique")]),
    ("It links patch-level and slide-level image classification.",
     [("slide-level image classification", "Task"), ("patch-level image classification", "Task")]),
    ("a model for text-to-speech and text-to-audio generation", [("text-to-speech generation", "Task")]),
    ("for first- and second-order stochastic optimization", [("second-order stochastic optimization", "Task")]),
    ("for detection and image classification", []),
])
def test_a_conjunct_modifier_shares_the_head(text, expected):
    assert phrases(text) == expected


def test_nouns_in_ias_are_not_plurals():
    assert phrases("We measure the position biases and the exposure bias of rankers.") == [
        ("position bias", "Technique"), ("exposure bias", "Technique")]


@pytest.mark.parametrize("text", ["It follows the information bottleneck principle.", "We solve a multi-armed bandit problem."])
def test_a_generic_last_word_after_a_known_term_is_no_new_name(text):
    assert phrases(text) == []  # the lexicon's term is the entity
