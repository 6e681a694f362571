import pytest

from kg.errors import UsageError
from kg.explore.slices import graph_name, papers_of, parse_selector


def test_selectors_parse_years_ranges_alternatives_and_venues():
    s = parse_selector(" venue = AlphaConf 2021 | betaconf ; year=2021-2023|2025 ")
    assert s.venues == ("alphaconf 2021", "betaconf")
    assert s.years == (2021, 2022, 2023, 2025)
    assert not parse_selector("all") and not parse_selector("") and not parse_selector(None)


@pytest.mark.parametrize("text, says", [
    ("year", "not key=value"), ("year=", "not key=value"), ("colour=red", "unknown key 'colour'"),
    ("year=24", "not a year"), ("year=2024-2020", "ends before it starts"),
])
def test_malformed_selectors_say_what_is_wrong(text, says):
    with pytest.raises(UsageError, match=says):
        parse_selector(text)


def test_slices_of_the_toy_graph(toy_folders):
    from kg.io.format import load_graph

    G = load_graph(toy_folders["both"])
    assert len(papers_of(G, "year=2021-2022")) == 4
    assert len(papers_of(G, "year=2024")) == 3
    assert papers_of(G, "venue=AlphaConf") == papers_of(G, "year=2021|2022")  # every edition
    assert len(papers_of(G, "venue=betaconf 2023")) == 2
    assert len(papers_of(G, "venue=BetaConf; year=2024")) == 3
    assert papers_of(G, "venue=AlphaConf; year=2024") == []
    assert len(papers_of(G)) == 9


def test_graph_names_come_from_the_sources_else_the_folder(tmp_path):
    assert graph_name(tmp_path / "g", {"sources": ["icml2024.jsonl"]}) == "icml2024"
    assert graph_name(tmp_path / "g", {"sources": ["a.txt", "b.jsonl"]}) == "a + b"
    assert graph_name(tmp_path / "g", {"sources": list("abcd")}) == "g"
