"""Short forms resolve through evidence: the paper's own definition, or its context."""

from __future__ import annotations

from dataclasses import replace

from kg.graph import build_graph
from kg.lexicon import LexEntry, Lexicon
from kg.records import Entity, Extraction, Mention, Paper, Relation
from kg.resolve import collect, resolve
from kg.senses import base_id, context_bag, is_short_form, scope, scoped_id

SHARP = "We study the loss landscape flatness of neural network training: minimizing sharpness of the loss " \
        "improves generalization of stochastic gradient descent under label noise."
SEGMENT = "Promptable image segmentation with a foundation model produces object masks from point and box " \
          "prompts for medical image segmentation."
PRIVACY = "We bound the privacy loss of noisy gradient releases under differential privacy guarantees."
PLANNING = "We solve the sequential decision problem exactly with tabular dynamic programming over states."


def paper(pid: str, about: str, *entities: Entity, relations: tuple[Relation, ...] = ()) -> Extraction:
    return Extraction(Paper(pid, about, title=pid), tuple(entities), relations)


def ent(label: str, name: str, *aliases: str) -> Entity:
    from kg.text import entity_id, fold

    return Entity(entity_id(label, fold(name) or name), label, name, tuple(aliases),
                  (Mention(name, 0, len(name)),))


def long_form(pid: str, about: str, label: str, name: str, short: str) -> Extraction:
    return paper(pid, about, ent(label, name, short))


def node_of(exs, lexicon=None):
    ents, remap = resolve(exs, lexicon)
    return ents, {(ex.paper.id, e.name): remap.get(e.id, e.id)
                  for ex in exs for e in scope(ex, lexicon).entities}


def test_what_a_short_form_is():
    assert [is_short_form(n) for n in ("SAM", "DP", "ViT", "DP-SGD", "RMReg")] == [True] * 5
    assert [is_short_form(n) for n in ("Adam", "diffusion", "S", "A B", "sam", "Transformer")] == [False] * 6


def test_a_papers_acronym_and_its_expansion_are_one_node():
    ex = paper("a", SHARP, ent("Method", "Sharpness-Aware Minimization", "SAM"), ent("Method", "SAM"),
               relations=(Relation("USES", "a", "method:sam"),))
    scoped = scope(ex, None)
    assert [e.id for e in scoped.entities] == ["method:sharpness-aware-minimization"]
    assert {m.text for m in scoped.entities[0].mentions} == {"Sharpness-Aware Minimization", "SAM"}
    assert [(r.type, r.target) for r in scoped.relations] == [("USES", "method:sharpness-aware-minimization")]
    G = build_graph([ex])
    assert "method:sam" not in G and G.has_edge("paper:a", "method:sharpness-aware-minimization")


def test_an_undefined_short_form_belongs_to_its_paper():
    ex = paper("b", SEGMENT, ent("Method", "SAM"))
    assert [e.id for e in scope(ex, None).entities] == [scoped_id("method:sam", "b")]
    assert base_id(scoped_id("method:sam", "b")) == "method:sam"


def test_known_proposed_and_model_short_forms_keep_their_ids():
    lex = Lexicon([LexEntry("Technique", "federated learning", ("FL",))])
    ex = paper("c", PRIVACY, ent("Technique", "FL"), ent("Method", "ABCD"), ent("Model", "SAM"),
               relations=(Relation("PROPOSES", "c", "method:abcd"),))
    assert [e.id for e in scope(ex, lex).entities] == [e.id for e in ex.entities]


def test_a_short_form_joins_the_long_form_whose_papers_share_its_context():
    exs = [long_form("s1", SHARP, "Method", "Sharpness-Aware Minimization", "SAM"),
           long_form("s2", SHARP, "Method", "Sharpness-Aware Minimization", "SAM"),
           paper("s3", SHARP, ent("Method", "SAM")),
           paper("g1", SEGMENT, ent("Method", "SAM")),
           paper("g2", SEGMENT, ent("Method", "SAM"))]
    ents, node = node_of(exs)
    assert node[("s3", "SAM")] == "method:sharpness-aware-minimization"
    assert "short form by context" in ents["method:sharpness-aware-minimization"].props["merges"][0]
    # the segmentation papers' SAM is not sharpness-aware minimization; they share one node
    assert node[("g1", "SAM")] == node[("g2", "SAM")] != "method:sharpness-aware-minimization"
    assert ents[node[("g1", "SAM")]].papers == {"g1", "g2"}


def test_a_short_form_two_long_forms_share_goes_where_its_context_says_or_stays_apart():
    exs = [long_form("p1", PRIVACY, "Technique", "differential privacy", "DP"),
           long_form("p2", PRIVACY, "Technique", "differential privacy", "DP"),
           long_form("d1", PLANNING, "Technique", "dynamic programming", "DP"),
           long_form("d2", PLANNING, "Technique", "dynamic programming", "DP"),
           paper("p3", PRIVACY, ent("Technique", "DP")),
           paper("d3", PLANNING, ent("Technique", "DP")),
           paper("x1", "Chess engines evaluate positions.", ent("Technique", "DP"))]
    _, node = node_of(exs)
    assert node[("p3", "DP")] == "technique:differential-privacy"
    assert node[("d3", "DP")] == "technique:dynamic-programming"
    assert node[("x1", "DP")] == scoped_id("technique:dp", "x1")  # undecided: its own node


def test_a_short_form_without_context_joins_nothing_by_its_name_alone():
    exs = [long_form("s1", SHARP, "Method", "Sharpness-Aware Minimization", "SAM"),
           long_form("s2", SHARP, "Method", "Sharpness-Aware Minimization", "SAM"),
           paper("g1", SEGMENT, ent("Method", "SAM"))]
    _, node = node_of(exs)
    assert node[("g1", "SAM")] == scoped_id("method:sam", "g1")


def test_a_short_form_without_hyphens_joins_the_hyphenated_one_by_context():
    about = "Vector quantised autoencoders learn discrete codebooks of image tokens for generation."
    exs = [paper("v1", about, ent("Method", "VQ-VAE")), paper("v2", about, ent("Method", "VQVAE"))]
    _, node = node_of(exs)
    assert node[("v2", "VQVAE")] == node[("v1", "VQ-VAE")] == scoped_id("method:vq-vae", "v1")
    exs[1] = paper("v2", PLANNING, ent("Method", "VQVAE"))
    _, node = node_of(exs)
    assert node[("v2", "VQVAE")] != node[("v1", "VQ-VAE")]
    # acronyms written with hyphens in two ways stay apart, whatever their context
    exs = [paper("m1", PLANNING, ent("Method", "DS-GDA")), paper("m2", PLANNING, ent("Method", "D-SGDA"))]
    _, node = node_of(exs)
    assert node[("m1", "DS-GDA")] != node[("m2", "D-SGDA")]


def test_context_bags_hold_content_words_and_entities():
    a = context_bag(paper("a", SHARP, ent("Method", "SAM")))
    assert a == context_bag(paper("b", SHARP, ent("Method", "SAM")))
    assert a != context_bag(paper("a", SEGMENT, ent("Method", "SAM")))
    assert list(a) == sorted(set(a))


def test_a_known_concept_is_used_never_proposed():
    lex = Lexicon([LexEntry("Method", "low-rank adaptation", ("LoRA",))])
    lora = Entity("method:low-rank-adaptation", "Method", "LoRA")
    own = ent("Method", "QuickTune")
    ex = paper("q", PRIVACY, lora, own, relations=(Relation("PROPOSES", "q", lora.id), Relation("PROPOSES", "q", own.id),
                                                   Relation("USES", "q", lora.id)))
    got = [(r.type, r.target) for r in scope(ex, lex).relations]
    assert got == [("USES", lora.id), ("PROPOSES", own.id)]
    stats = collect([ex], None, lex)
    assert stats[lora.id].proposed == set() and stats[own.id].proposed == {"q"}
    assert [(r.type, r.target) for r in scope(ex, None).relations][0] == ("PROPOSES", lora.id)


def test_a_paper_defining_a_known_short_form_otherwise_is_not_the_lexicons():
    lex = Lexicon([LexEntry("Technique", "federated learning", ("FL",))])
    linked = Entity("technique:federated-learning", "Technique", "federated learning", ("FL",),
                    (Mention("Forward Learning", 0, 16), Mention("FL", 18, 20)))
    ex = paper("f", PLANNING, linked, relations=(Relation("USES", "f", linked.id),))
    got = scope(ex, lex)
    assert [(e.id, e.name, e.aliases) for e in got.entities] == [("technique:forward-learning", "Forward Learning",
                                                                 ("FL",))]  # found under its short form too
    bare = replace(linked, name="FL", aliases=())  # named by its short form alone
    assert [(e.name, e.aliases) for e in scope(paper("f", PLANNING, bare), lex).entities] == [("Forward Learning", ("FL",))]
    assert [r.target for r in got.relations] == ["technique:forward-learning"]
    # the lexicon's own long form, or one that does not spell the acronym, changes nothing
    same = replace(linked, mentions=(Mention("Federated Learning", 0, 18), Mention("FL", 20, 22)))
    other = replace(linked, mentions=(Mention("local clients", 0, 13), Mention("FL", 15, 17)))
    for e in (same, other):
        assert scope(paper("f", PLANNING, e), lex).entities == (e,)


def test_a_models_short_form_joins_a_declared_long_form_only_by_context():
    exs = [long_form("k1", PRIVACY, "Technique", "speculative decoding", "SD"),
           long_form("k2", PRIVACY, "Technique", "speculative decoding", "SD"),
           paper("i1", SEGMENT, ent("Model", "SD"))]
    _, node = node_of(exs)
    assert node[("i1", "SD")] == "model:sd"
    exs[2] = paper("i1", PRIVACY, ent("Model", "SD"))
    ents, node = node_of(exs)
    assert node[("i1", "SD")] == "technique:speculative-decoding"
    assert ents["technique:speculative-decoding"].props["merges"][0].startswith("declared acronym by context")


def test_kg_show_says_why_names_merged():
    from kg.explore.lookup import show

    exs = [long_form("s1", SHARP, "Method", "Sharpness-Aware Minimization", "SAM"),
           long_form("s2", SHARP, "Method", "Sharpness-Aware Minimization", "SAM"),
           paper("s3", SHARP, ent("Method", "SAM"), relations=(Relation("USES", "s3", "method:sam"),))]
    view = show(build_graph(exs), "Sharpness-Aware Minimization")
    assert dict(view.matches[0].props)["merges"][0].startswith("short form by context (1, score >= ")
