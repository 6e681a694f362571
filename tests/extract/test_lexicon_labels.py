"""Labels the curated lexicons give, as the annotation guidelines define them (eval/GUIDELINES.md)."""

import pytest

from kg.records import Paper


@pytest.fixture(scope="module")
def extractor(rules_extractor):
    """These tests pin the rules, so they run without the span model."""
    return rules_extractor


def types(extractor, text):
    return {e.name: e.type for e in extractor.extract(Paper(id="p", abstract=text)).entities}


def test_divergences_are_techniques_and_value_at_risk_a_metric(extractor):
    got = types(extractor, "The policy is trained with a KL divergence penalty and a Wasserstein distance "
                           "critic, and is scored by its value at risk.")
    assert got["Kullback-Leibler divergence"] == "Technique"
    assert got["Wasserstein distance"] == "Technique"
    assert got["value at risk"] == "Metric"


def test_propensity_and_fisher_scores_are_techniques(extractor):
    got = types(extractor, "We weight samples by their propensity score and rank features by the Fisher score.")
    assert got["propensity score"] == "Technique" and got["Fisher score"] == "Technique"


def test_modeling_names_a_task_and_model_a_technique(extractor):
    got = types(extractor, "Generative models are widely used for generative modeling and sequence modeling.")
    assert got["generative model"] == "Technique"
    assert got["generative modeling"] == "Task" and got["sequence modeling"] == "Task"
