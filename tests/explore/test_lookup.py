import json
from dataclasses import asdict

import pytest

from kg.errors import NotFound
from kg.explore.lookup import EntityView, PaperView, find, key, show

from .fixture import P1, P2, graph


@pytest.fixture(scope="module")
def G():
    return graph()


@pytest.mark.parametrize("text", ["LoRA", "lora", "LORA", "Low-Rank Adaptation", "low rank adaptation",
                                  "low-rank  adaptations", "method:lora", "Method:LoRA"])
def test_a_name_alias_or_id_finds_the_node_whatever_the_case_and_dashes(G, text):
    assert [c.node.id for c in find(G, text)] == ["method:lora"]


def test_key_folds_case_dashes_spacing_and_a_plural():
    assert key("Low-Rank_Adaptations") == key("low rank adaptation") != key("low rank adaption")


def test_an_exact_alias_beats_a_near_name(G):
    """"low-rank adaption" is a node's name one letter away; the alias is LoRA's."""
    assert [m.id for m in show(G, "low-rank adaptation").matches] == ["method:lora"]
    assert [m.id for m in show(G, "low-rank adaption").matches] == ["technique:low-rank-adaption"]


def test_a_name_beats_another_nodes_alias_which_is_listed_as_also(G):
    result = show(G, "ppo")
    assert [m.id for m in result.matches] == ["method:ppo"]
    assert [(c.node.id, c.match) for c in result.also] == [("technique:policy-optimization", "alias")]


def test_several_nodes_of_one_name_are_all_shown(G):
    result = show(G, "QLoRA")
    assert sorted((m.kind, m.id) for m in result.matches) == [("entity", "method:qlora"), ("paper", "paper:p2")]


def test_a_paper_is_found_by_its_id_with_or_without_prefix_and_by_its_title(G):
    for text in ("p1", "paper:p1", "adapting large models"):
        assert [c.node.id for c in find(G, text)] == ["paper:p1"], text


def test_nothing_found_gives_ranked_suggestions(G):
    with pytest.raises(NotFound) as exc:
        find(G, "lorra")
    assert exc.value.suggestions[0].node.id == "method:lora"
    assert "no entity or paper named 'lorra'; did you mean: LoRA (Method)" in str(exc.value)
    with pytest.raises(NotFound) as exc:
        find(G, "code gen")  # a word start of three names: the most-named first
    assert exc.value.suggestions[0].node.id == "task:code-generation"
    assert exc.value.suggestions[0].match == "prefix"
    with pytest.raises(NotFound, match="try kg search"):
        find(G, "zzzzqqq")


def test_entity_view_papers_taxonomy_and_edges_with_evidence(G):
    v = show(G, "LoRA").matches[0]
    assert isinstance(v, EntityView)
    assert (v.label, v.name, v.aliases) == ("Method", "LoRA", ("low-rank adaptation",))
    assert [p.id for p in v.proposed_by] == ["paper:p1"]
    assert [(p.paper.id, p.roles) for p in v.papers] == [
        ("paper:p1", ("PROPOSES", "ADDRESSES", "EVALUATED_ON")), ("paper:p2", ("USES", "BROADER")),
        ("paper:p4", ("MENTIONS",))]  # PROPOSES first, a bare mention last; p2 says QLoRA uses LoRA
    assert v.papers[0].paper.venue == "ICLR 2024" and v.papers[0].evidence == P1.split(". ")[0] + "."
    assert [r.id for r in v.narrower] == ["method:qlora"] and not v.broader
    groups = {(g.type, g.direction): g for g in v.relations}
    used_by = groups[("USES", "in")].edges[0]
    assert (used_by.source.id, used_by.paper.id, used_by.evidence) == ("method:qlora", "paper:p2", P2.split(". ")[0] + ".")
    assert groups[("ADDRESSES", "out")].edges[0].target.name == "code generation"
    assert ("BROADER", "in") not in groups  # taxonomy has its own fields


def test_limit_caps_rows_and_keeps_the_total(G):
    v = show(G, "code generation", limit=1).matches[0]
    addressed = next(g for g in v.relations if g.type == "ADDRESSES")
    assert (addressed.total, len(addressed.edges)) == (2, 1)
    assert (v.papers_total, len(v.papers)) == (2, 1)


def test_paper_view(G):
    v = show(G, "p1").matches[0]
    assert isinstance(v, PaperView)
    assert (v.title, v.venue, v.year, v.url, v.authors) == ("Adapting Large Models", "ICLR 2024", 2024,
                                                            "https://example.org/p1", ("Ada Lovelace",))
    assert [r.name for r in v.proposes] == ["LoRA"]
    groups = {(g.type, g.direction): g for g in v.relations}
    assert groups[("PROPOSES", "out")].edges[0].evidence == P1.split(". ")[0] + "."
    stated = groups[("ADDRESSES", "stated")].edges[0]  # LoRA addresses code generation, as p1 says
    assert (stated.source.name, stated.target.name, stated.evidence) == ("LoRA", "code generation", P1.split(". ")[1])
    assert ("PUBLISHED_IN", "out") not in groups and ("AUTHORED", "in") not in groups


def test_the_record_is_plain_json(G):
    record = json.loads(json.dumps(asdict(show(G, "ppo"))))
    assert set(record) == {"query", "matches", "also"}
    m = record["matches"][0]
    assert m["kind"] == "entity" and set(m) >= {"id", "label", "name", "aliases", "papers", "proposed_by",
                                                 "variants", "family", "broader", "narrower", "relations"}
