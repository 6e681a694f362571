from dataclasses import asdict

import pytest

from kg.errors import GraphNotFoundError, UsageError
from kg.explore.diff import diff_folders


def _names(rows):
    return sorted(r.name for r in rows)


@pytest.fixture(scope="module")
def folder_diff(toy_folders):
    return diff_folders(toy_folders["old"], toy_folders["new"], min_papers=3, min_link_papers=2)


def test_new_and_vanished_entities_per_label(folder_diff):
    d = folder_diff
    assert (d.old.papers, d.new.papers) == (4, 5)
    assert _names(d.new_entities["Method"]) == ["KestrelDiff", "MorrowDiff", "PallaDiff", "TallowRL", "VexDiff"]
    assert [(r.name, r.new_papers) for r in d.new_entities["Task"]] == [("image editing", 2)]
    assert _names(d.new_entities["Dataset"]) == ["ImageNet"]
    assert _names(d.vanished["Method"]) == ["BramblePO", "LumenGAN", "QuillFormer", "ZorbNet"]
    assert _names(d.vanished["Task"]) == ["machine translation", "node classification"]
    assert d.counts["Method"] == {"new": 5, "vanished": 4, "common": 0, "same_name": 0}
    assert "Technique" not in d.new_entities  # diffusion model and RL are named on both sides


def test_shares_grow_and_shrink_with_a_minimum_count(folder_diff):
    d = folder_diff
    assert [(c.name, c.old_papers, c.new_papers, c.change) for c in d.grown] == [("diffusion model", 1, 4, 55.0)]
    assert [(c.name, c.old_papers, c.new_papers, c.change) for c in d.shrunk] == [
        ("reinforcement learning", 3, 1, -55.0)]
    # image generation went from 1 of 4 papers to 2 of 5: below the minimum of 3, not "grown"
    assert "image generation" not in _names(d.grown)


def test_a_lower_minimum_lets_small_entities_in(toy_folders):
    d = diff_folders(toy_folders["old"], toy_folders["new"], min_papers=2)
    assert ("image generation", 15.0) in [(c.name, c.change) for c in d.grown]


def test_new_technique_task_links(folder_diff):
    links = [(x.technique, x.task, x.papers, x.known) for x in folder_diff.new_links]
    # diffusion model with image generation: 2 new papers, but LumenGAN had it already
    assert links == [("diffusion model", "image editing", 2, False)]
    assert folder_diff.new_links_total == 1


def test_two_slices_of_one_graph_give_the_same_answer_as_two_folders(toy_folders, folder_diff):
    by_year = diff_folders(toy_folders["both"], old_select="year=2021-2022", new_select="year=2023-2024",
                           min_papers=3, min_link_papers=2)
    by_venue = diff_folders(toy_folders["both"], old_select="venue=AlphaConf", new_select="venue=BetaConf",
                            min_papers=3, min_link_papers=2)
    for d in (by_year, by_venue):
        assert asdict(d)["grown"] == asdict(folder_diff)["grown"]
        assert asdict(d)["new_entities"] == asdict(folder_diff)["new_entities"]
        assert d.new_links == folder_diff.new_links
    assert (by_year.old.name, by_year.new.name) == ("year=2021-2022", "year=2023-2024")


def test_empty_slices_missing_folders_and_identical_sides_are_errors(toy_folders, tmp_path):
    with pytest.raises(UsageError, match="no paper of .* matches 'year=1999'.*years 2021-2024"):
        diff_folders(toy_folders["both"], old_select="year=1999", new_select="year=2024")
    with pytest.raises(GraphNotFoundError):
        diff_folders(tmp_path / "nothing", toy_folders["new"])
    with pytest.raises(UsageError, match="both sides"):
        diff_folders(toy_folders["both"], old_select="year=2024", new_select=" year = 2024")


def _graph(papers: dict[str, list[tuple[str, str, str, str]]]):
    """A graph of papers (id -> [(edge type, node id, label, name)]), every paper of 2024."""
    import networkx as nx

    G = nx.MultiDiGraph()
    for p, edges in papers.items():
        G.add_node(f"paper:{p}", label="Paper", year=2024)
        for t, n, lab, name in edges:
            G.add_node(n, label=lab, name=name)
            G.add_edge(f"paper:{p}", n, type=t)
    return G


def test_one_concept_under_two_labels_is_neither_new_nor_vanished():
    """On ICML 2024 against ICLR 2024, "Monte Carlo" was a vanished Technique and a new Method,
    "imputation" a vanished Task and a new Technique."""
    from kg.explore.diff import diff

    old = _graph({"a": [("USES", "technique:monte-carlo", "Technique", "Monte Carlo"),
                        ("USES", "technique:gone", "Technique", "GoneNet")]})
    new = _graph({"b": [("USES", "method:monte-carlo", "Method", "Monte-Carlo"),
                        ("USES", "method:fresh", "Method", "FreshNet")]})
    d = diff(old, new)
    assert _names(d.new_entities["Method"]) == ["FreshNet"]
    assert _names(d.vanished["Technique"]) == ["GoneNet"]
    assert d.counts["Method"] == {"new": 1, "vanished": 0, "common": 0, "same_name": 1}
    assert d.counts["Technique"]["vanished"] == 1


def test_a_concept_is_not_linked_to_its_own_acronym():
    """On ICLR 2024, "test-time adaptation" -> "TTA" was listed as a new technique-task link."""
    from kg.explore.diff import diff

    old = _graph({"a": [("USES", "technique:x", "Technique", "X")]})
    both = [("USES", "technique:test-time-adaptation", "Technique", "test-time adaptation"),
            ("ADDRESSES", "task:tta", "Task", "TTA"), ("ADDRESSES", "task:image-classification", "Task",
                                                        "image classification"),
            ("USES", "technique:mixture-of-experts", "Technique", "mixture-of-experts"),
            ("ADDRESSES", "task:moe", "Task", "MoE")]
    new = _graph({"b": both, "c": both})
    d = diff(old, new, min_link_papers=2)
    pairs = {(t, a) for t in ("mixture-of-experts", "test-time adaptation") for a in ("MoE", "TTA", "image classification")}
    assert {(x.technique, x.task) for x in d.new_links} == pairs - {("mixture-of-experts", "MoE"),
                                                                      ("test-time adaptation", "TTA")}
    assert d.new_links_total == 4
