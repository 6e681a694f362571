"""Names that used to end on the wrong node, as behaviours of extraction and resolution on
abstracts written for these tests."""

from __future__ import annotations

import pytest

from kg.lexicon import default_lexicon
from kg.records import Paper
from kg.resolve import resolve


@pytest.fixture(scope="module")
def run(extractor):
    def go(*abstracts: str):
        exs = [extractor.extract(Paper(id=f"p{i}", title="", abstract=a)) for i, a in enumerate(abstracts)]
        ents, remap = resolve(exs, default_lexicon())
        return exs, ents, remap
    return go


def names(ex) -> dict[str, str]:
    return {e.name: e.type for e in ex.entities}


def test_a_papers_own_definition_of_an_acronym_beats_the_lexicon(run):
    [ex], _, _ = run("We introduce Tensor Product Representation (TPR) networks for compositional reasoning. "
                     "TPR binds fillers to roles.")
    got = names(ex)
    assert "Tensor Product Representation" in got and "true positive rate" not in got
    tpr = next(e for e in ex.entities if e.name == "Tensor Product Representation")
    assert [m.text for m in tpr.mentions].count("TPR") == 2


def test_the_lexicon_expansion_stands_when_the_paper_means_it(run):
    [ex], _, _ = run("We compare proximal policy optimisation (PPO) with our method. PPO is unstable.")
    [e] = [e for e in ex.entities if "PPO" in {m.text for m in e.mentions}]
    assert not any("proximal" in x.name.lower() for x in ex.entities if x is not e)
    assert default_lexicon().get(e.type, e.name) is not None  # the lexicon's entity


def test_posterior_sampling_is_not_thompson_sampling(run):
    [ex], _, _ = run("We propose a diffusion posterior sampling method for inverse problems with a pretrained "
                     "diffusion model.")
    assert "Thompson sampling" not in names(ex)


def test_wizard_models_are_three_models(run):
    [ex], _, _ = run("We fine-tune WizardCoder and WizardMath and compare them with WizardLM.")
    assert {"WizardCoder", "WizardMath", "WizardLM"} <= set(names(ex))


def test_a_name_glued_to_a_word_is_the_name(run):
    [ex], _, _ = run("We propose AnomalyCLIP for zero-shot anomaly detection.AnomalyCLIPis trained once, "
                     "and thatAnomalyCLIP generalizes.")
    [e] = [e for e in ex.entities if "AnomalyCLIP" in e.name]
    assert e.name == "AnomalyCLIP" and {m.text for m in e.mentions} == {"AnomalyCLIP"}
    assert all(ex.paper.abstract[m.start:m.end] == "AnomalyCLIP" for m in e.mentions)


@pytest.mark.parametrize("abstract, proposed, base", [
    ("We introduce ImageNet-OOD, a clean out-of-distribution detection benchmark built from ImageNet.",
     "ImageNet-OOD", "ImageNet"),
    ("We present CIFAR-10-Warehouse, a collection of 180 datasets that extends CIFAR-10 with new domains.",
     "CIFAR-10-Warehouse", "CIFAR-10"),
    ("We introduce TorchRL, a control library for PyTorch.", "TorchRL", "PyTorch"),
    ("We propose BO-REP, a Bayesian optimization method with representation learning.", "BO-REP",
     "Bayesian optimization"),
])
def test_a_proposed_name_is_never_its_base(run, abstract, proposed, base):
    [ex], ents, remap = run(abstract)
    ids = {e.name: e.id for e in ex.entities}
    prop = [r.target for r in ex.relations if r.type == "PROPOSES"]
    assert [next(e.name for e in ex.entities if e.id == t) for t in prop] == [proposed]
    assert remap.get(ids[proposed], ids[proposed]) != remap.get(ids[base], ids[base])


def test_spelling_variants_of_models_and_techniques_are_one_node(run):
    _, ents, _ = run("We evaluate LLaMA-2 70B with supervised fine-tuning and pre-training on ResNet-50 features.",
                     "Llama2-70B is trained with supervised finetuning after pretraining; we also use ResNet50.")
    by_name = {e.name.lower(): e for e in ents.values()}
    for name in ("supervised fine-tuning", "resnet-50"):
        assert any(name.replace("-", "") == n.replace("-", "") and len(e.papers) == 2 for n, e in by_name.items()), name
    assert sum(len(e.papers) == 2 for e in ents.values() if e.label == "Model" and "70" in e.name) == 1
