"""What a paper proposes: trigger verbs, naming words, coordination, variants, title names."""

import pytest

from kg.records import Paper


@pytest.fixture(scope="module")
def extractor(rules_extractor):
    """These tests pin the rules, so they run without the span model."""
    return rules_extractor


def proposed(extractor, text, title=""):
    ex = extractor.extract(Paper(id="p", abstract=text, title=title))
    names = {e.id: e for e in ex.entities}
    return {names[r.target].name: names[r.target] for r in ex.relations if r.type == "PROPOSES"}


@pytest.mark.parametrize("text, name", [
    ("We propose a novel algorithm called ZQR to align agents.", "ZQR"),
    ("We design a data structure for streams called an online sketchlet, which is small.", "online sketchlet"),
    ("We introduce a unique concept termed graded flatness.", "graded flatness"),
    ("This paper presents the first algorithm for meta-BO of risk measures (i.e., value-at-risk (VaR)), "
     "namely meta-VRX, by adjusting an acquisition function.", "meta-VRX"),
    ("We propose and analyze threshold-greedy algorithms for both constraints.", "threshold-greedy"),
    ("The score with respect to the mixture (MX-FS) is derived and proposed as a representation.", "MX-FS"),
    ("Training is enabled by a novel Extended Finite Slope technique for binary values.", "Extended Finite Slope"),
])
def test_named_proposals(extractor, text, name):
    assert name in proposed(extractor, text)


def test_long_form_named_after_it_keeps_the_acronym(extractor):
    props = proposed(extractor, "This paper introduces federated adaptive asynchronous optimization, named FADAS, "
                                "a novel method.", title="FADAS: Towards Asynchronous Optimization")
    assert list(props) == ["federated adaptive asynchronous optimization"]
    assert "FADAS" in props["federated adaptive asynchronous optimization"].aliases


def test_coordinated_names_and_variants(extractor):
    props = proposed(extractor, "We propose Learnable Mixing, Learnable Pooling, and Spectral Smoothing to improve "
                                "accuracy. We propose Robust Graph Bottleneck (RGB2), a principle. Two instantiations, "
                                "RGB2-SSL and RGB2-REP, are explored.")
    assert {"Learnable Mixing", "Learnable Pooling", "Spectral Smoothing", "RGB2-SSL", "RGB2-REP"} <= set(props)


def test_kind_of_a_named_thing(extractor):
    props = proposed(extractor, "We introduce a new measure of discrepancy between two laws, called the "
                                "Augmented Conditional Kernel Discrepancy (ACKD).")
    (e,) = props.values()
    assert e.type == "Metric" and "ACKD" in e.aliases


@pytest.mark.parametrize("text", [
    "We present an analysis of PCR when the data is sampled from a spiked model.",
    "We show that the proposed method resembles Friedman's Gradient-Boosting (GB) algorithm.",
    "We study the long-term effect of exposure, which we term a treatment.",
    "We propose modifications of Track-and-Stop and a Top Two algorithm.",
    "Prior work modified a limit which they dubbed the deep kernel machine (DKM).",
    "This paper studies a popular architecture, namely Transformers, in POMDPs.",
    "We release our PyTorch codebase and checkpoints.",
])
def test_not_proposals(extractor, text):
    assert not proposed(extractor, text)


def test_title_echo(extractor):
    props = proposed(extractor, "We introduce convolutional deep widget machines to address this. They are fast.",
                     title="Convolutional Deep Widget Machines")
    assert list(props) == ["convolutional deep widget machine"]
    assert not proposed(extractor, "We present a fine-grained local sensitivity analysis of attention.",
                        title="Fine-grained Local Sensitivity Analysis of Attention")
    assert not proposed(extractor, "We propose to certify distributional widget fairness.",
                        title="Certification of Distributional Widget Fairness")


@pytest.mark.parametrize("text, name", [
    ("The proposed method, separable WINN (SWINN), solves PDEs faster.", "separable WINN"),
    ("We introduce Fast and Frugal Memory, an algorithm-agnostic memory model.", "Fast and Frugal Memory"),
    ("We address this by developing an algorithm -- OPAQ -- for active exploration.", "OPAQ"),
    ("We propose parallel-mentoring as an effective method for offline optimization.", "parallel-mentoring"),
])
def test_more_proposal_shapes(extractor, text, name):
    assert name in proposed(extractor, text)


@pytest.mark.parametrize("title, name", [
    ("Layerwise Proximal Replay: A Method for Continual Learning", "Layerwise Proximal Replay"),
    ("Chain of Code: Reasoning with a Language Model-Augmented Code Emulator", "Chain of Code"),
])
def test_title_colon_phrases(extractor, title, name):
    assert name in proposed(extractor, "We study continual learning on images.", title=title)


@pytest.mark.parametrize("title", [
    "Position: Benchmarks Should Be Harder",
    "Scalable Multiple Kernel Clustering: Learning Clustering Structure",
    "Watch Your Step: Learning Node Embeddings",
    "Variational Autoencoders: A Review",
])
def test_title_colon_topics_are_not_names(extractor, title):
    assert not proposed(extractor, "We study continual learning on images.", title=title)


def test_repository_goes_to_the_proposal_it_names(extractor):
    from kg.records import Paper

    ex = extractor.extract(Paper(id="p", abstract=(
        "We propose Robust Graph Bottleneck (RGBX), a principle. Two instantiations, RGBX-SSL and RGBX-REP, "
        "are explored. Code: https://github.com/acme/RGBX.")))
    names = {e.id: e.name for e in ex.entities}
    code = [(names[r.source], names[r.target]) for r in ex.relations if r.type == "HAS_CODE" and r.source in names]
    assert code == [("Robust Graph Bottleneck", "github.com/acme/RGBX")]


@pytest.mark.parametrize("title, abstract, name", [
    # the abstract's noun-phrase reading keeps its common-noun name
    ("Adaptive Pivot Sampling for Streaming Regression",
     "Streams are hard. Adaptive pivot sampling keeps a small reservoir and beats uniform sampling.",
     "adaptive pivot sampling"),
    ("Banded Kernel Factorization", "We study banded kernel factorization on graphs and give an algorithm.",
     "Banded Kernel Factorization"),
    ("Pivot Herding, Mixing, and Sampling", "Pivot herding is simple.", "Pivot Herding"),
    ("  Banded Kernel Factorization For Graphs", "Banded kernel factorization helps.", "Banded Kernel Factorization"),
])
def test_title_lead_names_what_the_abstract_repeats(extractor, title, abstract, name):
    props = proposed(extractor, abstract, title=title)
    assert name in props and props[name].type == "Method", props


@pytest.mark.parametrize("title, abstract", [
    # the abstract never repeats the title's phrase
    ("Adaptive Pivot Sampling for Streaming Regression", "We keep a small reservoir of points."),
    # a task, a known technique and a sentence are not method names
    ("Semantic Image Synthesis with Few Labels", "Semantic image synthesis is studied here."),
    ("Federated Learning with Noisy Clients", "Federated learning with noisy clients is hard."),
    ("Random Masking Finds Winning Tickets", "Random masking finds winning tickets."),
    ("Random Masking Works", "Random masking works."),
    ("In Defense of Random Masking", "In defense of random masking."),
    # something else is proposed already
    ("Adaptive Pivot Sampling for Regression", "We propose PIVOT, an adaptive pivot sampling scheme."),
])
def test_title_lead_needs_an_echo_and_a_name(extractor, title, abstract):
    props = {k.lower() for k in proposed(extractor, abstract, title=title)}
    assert not {"adaptive pivot sampling", "semantic image synthesis", "federated learning",
                "random masking finds winning tickets", "random masking", "random masking works",
                "in defense"} & props


_FOONET = ("We propose FooNet, a new network. Graph neural networks are popular in chemistry. "
           "However, it is hard to apply mixup to molecules. "
           "We evaluate it on CIFAR-10 for image classification with dropout.")


def _edges(extractor, abstract: str) -> set[tuple[str, str, str, str]]:
    from kg.records import Paper

    ex = extractor.extract(Paper(id="p", title="", abstract=abstract))
    names = {e.id: e.name for e in ex.entities}
    names["p"] = "PAPER"
    return {(r.type, names[r.source], names[r.target], r.rule) for r in ex.relations if r.target in names}


def test_rules_relate_a_proposal_to_what_the_authors_say_they_use(rules_extractor):
    edges = _edges(rules_extractor, _FOONET)
    assert ("EVALUATED_ON", "FooNet", "CIFAR-10", "author-sentence") in edges
    assert ("ADDRESSES", "FooNet", "image classification", "author-sentence") in edges
    assert ("USES", "FooNet", "dropout", "author-sentence") in edges
    # a sentence that neither names FooNet nor speaks of the authors' work states no role
    assert ("MENTIONS", "PAPER", "graph neural network", "mention:lexicon") in edges
    assert ("MENTIONS", "PAPER", "mixup", "mention:lexicon") in edges


def test_the_learned_roles_type_only_what_the_text_states(extractor):
    edges = {e[:3] for e in _edges(extractor, _FOONET)}
    assert ("EVALUATED_ON", "FooNet", "CIFAR-10") in edges
    assert ("ADDRESSES", "FooNet", "image classification") in edges
    # background named in passing is a mention, from the paper, with no role
    assert ("MENTIONS", "PAPER", "graph neural network") in edges
    assert ("MENTIONS", "PAPER", "mixup") in edges
    assert not any(src == "FooNet" and dst in ("graph neural network", "mixup") for _, src, dst in edges)


def test_every_mentioned_entity_has_exactly_one_edge_from_its_paper_or_proposal(extractor):
    from kg.records import Paper

    ex = extractor.extract(Paper(id="p", title="", abstract=_FOONET))
    proposed = {r.target for r in ex.relations if r.type == "PROPOSES"}
    for e in ex.entities:
        if e.id in proposed or e.type == "Repository":
            continue
        into = [r for r in ex.relations if r.target == e.id and r.source in proposed | {"p"}]
        assert len(into) == 1, (e.name, into)
        assert into[0].type == "MENTIONS" or into[0].source in proposed


@pytest.mark.parametrize("abstract", [
    "We propose an upper confidence bound algorithm for kernelized bandits with costs.",
    "We propose a UCB-type algorithm that learns predictive state representations.",
])
def test_a_known_name_that_only_says_what_kind_of_method_is_not_proposed(rules_extractor, abstract):
    from kg.records import Paper

    ex = rules_extractor.extract(Paper(id="p", title="", abstract=abstract))
    assert not [r for r in ex.relations if r.type == "PROPOSES"]


def test_a_known_name_proposed_by_name_still_is(rules_extractor):
    from kg.records import Paper

    ex = rules_extractor.extract(Paper(id="p", title="", abstract="We introduce Thompson sampling for this problem."))
    names = {e.id: e.name for e in ex.entities}
    assert [names[r.target] for r in ex.relations if r.type == "PROPOSES"] == ["Thompson sampling"]


def test_names_the_proposal_rules_make_pass_the_stoplist(rules_extractor):
    from kg.records import Paper

    ex = rules_extractor.extract(Paper(id="p", title="", abstract=(
        "We propose an information-theoretic framework for multimodal interactions.")))
    assert not [e for e in ex.entities if e.name.lower() == "information-theoretic"]
    assert not [r for r in ex.relations if r.type == "PROPOSES"]
