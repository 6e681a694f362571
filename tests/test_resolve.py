from kg.lexicon import LexEntry, Lexicon
from kg.records import Entity, Extraction, Paper
from kg.resolve import resolve
from kg.senses import scoped_id


def ex(pid, *entities):
    return Extraction(Paper(pid, "x"), tuple(entities))


def test_label_conflicts_and_acronyms_merge():
    lex = Lexicon([LexEntry("Technique", "transformer")])
    about = "Regularised matching of rectified flows for image generation."  # the three papers' topic
    exs = [
        Extraction(Paper("a", about), (Entity("method:transformer", "Method", "Transformer"),
                                       Entity("method:rectified-matching", "Method", "Rectified Matching", ("RMReg",)))),
        Extraction(Paper("b", about), (Entity("technique:transformer", "Technique", "transformer"),
                                       Entity("method:rmreg", "Method", "RMReg"))),
        Extraction(Paper("c", about), (Entity("method:rectified-matching", "Method", "rectified matching", ("RMReg",)),)),
    ]
    ents, remap = resolve(exs, lex)
    assert remap == {"method:transformer": "technique:transformer",
                     scoped_id("method:rmreg", "b"): "method:rectified-matching"}
    assert ents["technique:transformer"].name == "transformer"
    assert ents["technique:transformer"].papers == {"a", "b"}
    assert ents["method:rectified-matching"].papers == {"a", "b", "c"}  # two papers define RMReg
    assert ents["method:rectified-matching"].aliases == ["RMReg"]


def test_resolving_twice_changes_nothing():
    exs = [ex("a", Entity("technique:rl", "Technique", "reinforcement learning", ("RL",))),
           ex("b", Entity("technique:rl", "Technique", "Reinforcement Learning"))]
    ents, _ = resolve(exs)
    again = [ex(p, *[Entity(e.id, e.label, e.name, tuple(e.aliases)) for e in ents.values() if p in e.papers])
             for p in ("a", "b")]
    ents2, remap2 = resolve(again)
    assert remap2 == {}
    assert {k: (v.label, v.name, v.aliases) for k, v in ents.items()} == \
        {k: (v.label, v.name, v.aliases) for k, v in ents2.items()}


def test_a_node_is_as_sure_as_its_surest_reading_in_any_order():
    """An entity's confidence (the selector's, per paper) becomes the node's: the highest of its
    papers and of the ids merged into it, whatever order or batches the papers come in."""
    from kg.resolve import collect, resolve_stats

    def sure(eid, label, name, conf):
        return Entity(eid, label, name, props=(("confidence", conf),))

    exs = [ex("a", sure("technique:transformer", "Technique", "transformer", 0.6)),
           ex("b", sure("method:transformer", "Method", "Transformer", 0.9)),
           ex("c", sure("technique:transformer", "Technique", "transformer", 0.7),
              Entity("method:foonet", "Method", "FooNet"))]
    lex = Lexicon([LexEntry("Technique", "transformer")])
    ents, _ = resolve(exs, lex)
    assert ents["technique:transformer"].props["confidence"] == 0.9  # b's reading, merged by label
    assert "confidence" not in ents["method:foonet"].props  # no score, none made up
    stats = collect(exs[2:], collect(exs[:1]), lex)  # in two batches, out of order
    stats = collect(exs[1:2], stats, lex)
    assert resolve_stats(stats, lex)[0]["technique:transformer"].props == ents["technique:transformer"].props
