import pytest

from kg.errors import NotFound, UsageError
from kg.explore.search import search

from .fixture import graph


@pytest.fixture(scope="module")
def G():
    return graph()


def test_ranking_exact_name_then_word_then_title_then_abstract(G):
    hits = search(G, "Code-Generation").hits
    assert [(h.id, h.match) for h in hits] == [
        ("task:code-generation", "name"),
        ("dataset:code-generation-benchmark", "prefix"),  # two papers name it
        ("dataset:code-generation-eval", "prefix"),  # one paper
        ("paper:p5", "title"),
        ("paper:p1", "abstract"),  # then newer first (2024), then by title
        ("paper:p2", "abstract"),
        ("paper:p6", "abstract")]
    assert [h.rank for h in hits] == [0, 1, 1, 2, 3, 3, 3]


def test_an_alias_is_an_exact_match(G):
    assert [(h.id, h.match) for h in search(G, "low-rank adaptation").hits][:1] == [("method:lora", "alias")]


def test_label_venue_and_year_filters(G):
    assert [h.id for h in search(G, "code", label="task").hits] == ["task:code-generation"]
    assert {h.id for h in search(G, label="Paper", venue="ICML").hits} == {"paper:p2", "paper:p5", "paper:p6"}
    assert {h.id for h in search(G, label="Paper", year=2024).hits} == {"paper:p1", "paper:p3", "paper:p4"}
    # entities that a paper of the venue names (the eval set only ICML's p2 names), and p1's abstract
    assert {h.id for h in search(G, "code generation", venue="ICLR 2024").hits} == {
        "task:code-generation", "dataset:code-generation-benchmark", "paper:p1"}


def test_uses_counts_proposals_and_narrower_entities_not_mentions(G):
    result = search(G, uses="LoRA")
    # p2 proposes QLoRA, which uses LoRA; p3 uses QLoRA, a kind of LoRA; p1 proposes LoRA
    # without using it, and p4 only mentions it
    assert {h.id: h.via for h in result.hits} == {"paper:p2": ("LoRA",), "paper:p3": ("QLoRA",)}


def test_uses_and_addresses_together(G):
    assert [h.id for h in search(G, uses="lora", addresses="Code Generation").hits] == ["paper:p2"]
    assert [h.id for h in search(G, "speech", uses="lora").hits] == ["paper:p3"]


def test_limit_keeps_the_total(G):
    result = search(G, "code", limit=2)
    assert (result.total, len(result.hits)) == (7, 2)


def test_bad_requests_are_library_errors(G):
    with pytest.raises(UsageError, match="give a text to search for, or a filter: label"):
        search(G)
    with pytest.raises(UsageError, match="not a label"):
        search(G, "x", label="Gadget")
    with pytest.raises(UsageError, match="select papers"):
        search(G, uses="LoRA", label="Task")
    with pytest.raises(NotFound, match="did you mean: LoRA"):
        search(G, uses="lorra")
