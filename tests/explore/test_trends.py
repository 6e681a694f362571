import pytest

from kg.errors import UsageError
from kg.explore.trends import trends
from kg.io.format import load_graph


@pytest.fixture(scope="module")
def toy(toy_folders):
    return load_graph(toy_folders["both"])


def test_papers_per_year_and_the_top_entities_shares(toy):
    t = trends(toy, window=2, min_papers=3)
    assert [(p.key, p.papers) for p in t.periods] == [("2021", 2), ("2022", 2), ("2023", 2), ("2024", 3)]
    top = {s.name: s for s in t.top["Technique"]}
    assert top["diffusion model"].counts == (0, 1, 2, 2)
    assert top["diffusion model"].shares == (0.0, 0.5, 1.0, round(2 / 3, 6))
    assert top["reinforcement learning"].counts == (2, 1, 0, 1)


def test_rising_and_falling_compare_the_last_window_with_the_one_before(toy):
    t = trends(toy, window=2, min_papers=4)
    assert (t.before, t.recent) == (("2021", "2022"), ("2023", "2024"))
    # diffusion model: 1 of the 4 papers of 2021-22, 4 of the 5 of 2023-24
    assert [(m.name, m.before_papers, m.recent_papers, m.change) for m in t.rising] == [
        ("diffusion model", 1, 4, 55.0)]
    assert [(m.name, m.before_papers, m.recent_papers, m.change) for m in t.falling] == [
        ("reinforcement learning", 3, 1, -55.0)]
    # image generation, 1 paper then 2: 3 papers in all, in only with a minimum of 3
    assert [m.name for m in trends(toy, window=2, min_papers=3).rising] == ["diffusion model", "image generation"]


def test_too_few_years_give_no_movers_and_venues_have_no_order(toy):
    assert trends(toy, window=3).rising == ()
    t = trends(toy, "venue", min_papers=1)
    assert [(p.key, p.papers) for p in t.periods] == [("AlphaConf", 4), ("BetaConf", 5)]
    assert t.rising == t.falling == ()


def test_bad_requests_are_usage_errors(toy):
    import networkx as nx

    with pytest.raises(UsageError, match="use one of year, venue"):
        trends(toy, "month")
    G = nx.MultiDiGraph()
    G.add_node("paper:a", label="Paper")
    with pytest.raises(UsageError, match="no paper of the graph has a year"):
        trends(G)
