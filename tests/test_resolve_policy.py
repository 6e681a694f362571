"""The resolution policy, rule by rule, on small fixtures with the expected nodes written out.

Each test states one rule of :mod:`kg.resolve`; breaking the rule (the label vote, the display
name, the acronym owner, the long-form evidence, the spelling key) makes its test fail."""

from __future__ import annotations

from kg.lexicon import LexEntry, Lexicon
from kg.records import Entity, Extraction, Paper
from kg.resolve import resolution_key, resolve
from kg.senses import scoped_id
from kg.text import slug


def ex(pid: str, *entities: Entity, about: str = "x") -> Extraction:
    return Extraction(Paper(pid, about), tuple(entities))


KERNELS = "Kernel two-sample tests compare distributions through embeddings in a reproducing kernel space."


def ent(label: str, name: str, *aliases: str, key: str | None = None) -> Entity:
    return Entity(f"{label.lower()}:{slug(key or name)}", label, name, tuple(aliases))


def nodes(exs, lexicon=None) -> dict[str, tuple[str, str, set[str]]]:
    """Canonical id -> (label, name, papers)."""
    ents, _ = resolve(exs, lexicon)
    return {k: (v.label, v.name, v.papers) for k, v in ents.items()}


# ---------------------------------------------------------------- one label per name


def test_a_name_read_with_two_labels_takes_the_label_most_papers_give():
    exs = [ex("a", ent("Method", "ResNet")), ex("b", ent("Model", "ResNet")), ex("c", ent("Model", "ResNet"))]
    assert nodes(exs) == {"model:resnet": ("Model", "ResNet", {"a", "b", "c"})}


def test_the_lexicon_label_beats_the_majority():
    lex = Lexicon([LexEntry("Method", "ResNet")])
    exs = [ex("a", ent("Method", "ResNet")), ex("b", ent("Model", "ResNet")), ex("c", ent("Model", "ResNet"))]
    assert nodes(exs, lex) == {"method:resnet": ("Method", "ResNet", {"a", "b", "c"})}


def test_the_display_name_is_the_spelling_most_papers_write_else_the_lexicon_name():
    exs = [ex("a", ent("Technique", "Federated Learning")), ex("b", ent("Technique", "federated learning")),
           ex("c", ent("Technique", "federated learning"))]
    assert nodes(exs)["technique:federated-learning"][1] == "federated learning"
    lex = Lexicon([LexEntry("Technique", "Federated learning")])
    assert nodes(exs, lex)["technique:federated-learning"][1] == "Federated learning"


# ---------------------------------------------------------------- spelling variants


def test_hyphen_space_and_british_spellings_of_words_are_one_node():
    exs = [ex("a", ent("Technique", "non-linear dimensionality reduction")),
           ex("b", ent("Technique", "nonlinear dimensionality reduction")),
           ex("c", ent("Technique", "denoising auto-encoder")), ex("d", ent("Technique", "denoising autoencoder")),
           ex("e", ent("Technique", "empirical risk minimisation")),
           ex("f", ent("Technique", "empirical risk minimization")),
           ex("g", ent("Model", "ResNet-34")), ex("h", ent("Model", "ResNet34")),
           ex("i", ent("Technique", "pre-training")), ex("j", ent("Technique", "pretraining"))]
    got = nodes(exs)
    assert len(got) == 5, got
    assert {frozenset(p) for _, _, p in got.values()} == {frozenset("ab"), frozenset("cd"), frozenset("ef"),
                                                          frozenset("gh"), frozenset("ij")}


def test_acronyms_with_hyphens_elsewhere_are_different_names():
    exs = [ex("a", ent("Method", "DS-GDA")), ex("b", ent("Method", "D-SGDA")),
           ex("c", ent("Method", "FVI")), ex("d", ent("Method", "F-VI"))]
    assert len(nodes(exs)) == 4
    assert resolution_key("ds-gda", ["DS-GDA"]) != resolution_key("d-sgda", ["D-SGDA"])
    assert resolution_key("fine-tuning", ["fine-tuning"]) == resolution_key("finetuning", ["finetuning"])


def test_model_sizes_and_versions_stay_apart():
    exs = [ex("a", ent("Model", "Llama-2-7B")), ex("b", ent("Model", "Llama-2-13B")),
           ex("c", ent("Model", "Llama-3-8B")), ex("d", ent("Model", "LLaMA-2 7B"))]
    got = nodes(exs)
    assert len(got) == 3, got
    assert {"a", "d"} in [p for _, _, p in got.values()]


def test_greek_letters_are_part_of_the_name():
    exs = [ex("a", ent("Method", "ε-submodular")), ex("b", ent("Method", "submodular")),
           ex("c", ent("Method", "α-MDF")), ex("d", ent("Method", "MDF"))]
    assert len(nodes(exs)) == 4


# ---------------------------------------------------------------- acronyms


def test_an_acronym_two_papers_define_absorbs_the_bare_acronym_of_a_third():
    exs = [ex("a", ent("Metric", "maximum mean discrepancy", "MMD"), about=KERNELS),
           ex("b", ent("Metric", "maximum mean discrepancy", "MMD"), about=KERNELS),
           ex("c", ent("Metric", "MMD"), about=KERNELS)]
    assert nodes(exs) == {"metric:maximum-mean-discrepancy": ("Metric", "maximum mean discrepancy", {"a", "b", "c"})}


def test_one_papers_definition_does_not_say_what_another_papers_acronym_means():
    exs = [ex("a", ent("Method", "Contextual Memory Tree", "CMT")), ex("b", ent("Method", "CMT"))]
    assert set(nodes(exs)) == {"method:contextual-memory-tree", scoped_id("method:cmt", "b")}


def test_a_lexicon_long_form_is_established():
    lex = Lexicon([LexEntry("Method", "Proximal Policy Optimization")])  # knows the name, not the acronym
    about = "Policy gradient agents clip their updates in continuous control."
    exs = [ex("a", ent("Method", "Proximal Policy Optimization", "PPO"), about=about),
           ex("b", ent("Method", "PPO"), about=about)]
    assert set(nodes(exs, lex)) == {"method:proximal-policy-optimization"}


def test_an_acronym_with_two_long_forms_is_no_ones():
    exs = [ex("a", ent("Method", "Masked Cell Modeling", "MCM")), ex("b", ent("Method", "Masked Cell Modeling", "MCM")),
           ex("c", ent("Method", "Masked Codebook Modeling", "MCM")),
           ex("d", ent("Method", "Masked Codebook Modeling", "MCM")), ex("e", ent("Method", "MCM"))]
    got = nodes(exs)
    assert got["method:masked-cell-modeling"][2] == {"a", "b"}
    assert got["method:masked-codebook-modeling"][2] == {"c", "d"}
    assert got[scoped_id("method:mcm", "e")][2] == {"e"}


def test_a_known_entity_is_not_another_papers_acronym():
    lex = Lexicon([LexEntry("Model", "OPT")])
    exs = [ex("a", ent("Method", "Optimal Transport Planner", "OPT")),
           ex("b", ent("Method", "Optimal Transport Planner", "OPT")), ex("c", ent("Model", "OPT"))]
    assert set(nodes(exs, lex)) == {"method:optimal-transport-planner", "model:opt"}


def test_model_names_are_family_version_and_size_however_joined():
    exs = [ex("a", ent("Model", "LLaMA-2 70B")), ex("b", ent("Model", "Llama2-70B")),
           ex("c", ent("Model", "Llama-3-70B")), ex("d", ent("Model", "LLaMA2-7B"))]
    got = nodes(exs)
    assert sorted(sorted(p) for _, _, p in got.values()) == [["a", "b"], ["c"], ["d"]]


def test_two_papers_introducing_one_name_as_different_things_stay_apart():
    def proposing(pid, e):
        from kg.records import Relation

        return Extraction(Paper(pid, "x"), (e,), (Relation("PROPOSES", pid, e.id),))

    exs = [proposing("a", ent("Method", "GAIA")), proposing("b", ent("Dataset", "GAIA")), ex("c", ent("Dataset", "GAIA"))]
    assert set(nodes(exs)) == {"method:gaia", "dataset:gaia"}
    # a name read with two labels that no paper introduces still takes one label
    exs = [ex("a", ent("Method", "ResNet")), ex("b", ent("Model", "ResNet")), ex("c", ent("Model", "ResNet"))]
    assert set(nodes(exs)) == {"model:resnet"}


def test_a_name_the_lexicon_knows_is_the_lexicon_entrys_node():
    lex = Lexicon([LexEntry("Technique", "support vector machine", ("SVM",))])
    exs = [ex("a", ent("Technique", "support vector machine", "SVM")), ex("b", ent("Method", "SVM"))]
    assert nodes(exs, lex) == {"technique:support-vector-machine": ("Technique", "support vector machine", {"a", "b"})}
    # without the entry's node in the graph, the name stays as read
    assert set(nodes([ex("b", ent("Method", "SVM"))], lex)) == {"method:svm"}
