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
