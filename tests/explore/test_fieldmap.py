"""The map of the field: entities (never papers) linked by the papers naming both, a stated
role counting more than a mention, areas found by Louvain and named by their central members,
what is new or grown since another graph, and names that never overlap at the zoom they are
drawn from."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from kg.errors import UsageError
from kg.explore.fieldmap import MENTION_WEIGHT, area_name, field_map, old_side, paper_links
from kg.io.format import load_graph
from kg.sinks.html.maplayout import FONT, place, sep_entities, text_box


def toy() -> nx.MultiDiGraph:
    """Two groups of papers: four on reinforcement learning and control, three on diffusion
    models and image generation, and one paper that bridges them with a mention."""
    G = nx.MultiDiGraph()
    ents = {"technique:rl": ("Technique", "reinforcement learning"), "task:control": ("Task", "continuous control"),
            "dataset:d4rl": ("Dataset", "D4RL"), "technique:diffusion": ("Technique", "diffusion model"),
            "task:imagegen": ("Task", "image generation"), "dataset:cifar": ("Dataset", "CIFAR-10"),
            "method:foo": ("Method", "FooRL"), "author:x": ("Author", "X"), "venue:v": ("Venue", "V 2024")}
    for n, (lab, name) in ents.items():
        G.add_node(n, label=lab, name=name)
    edges = {0: ["technique:rl", "task:control", "dataset:d4rl"], 1: ["technique:rl", "task:control"],
             2: ["technique:rl", "dataset:d4rl"], 4: ["technique:diffusion", "task:imagegen", "dataset:cifar"],
             5: ["technique:diffusion", "task:imagegen"], 6: ["technique:diffusion", "dataset:cifar"]}
    kind = {"Technique": "USES", "Task": "ADDRESSES", "Dataset": "EVALUATED_ON"}
    for i in range(8):
        G.add_node(f"paper:p{i}", label="Paper", title=f"Paper {i}", year=2024)
        G.add_edge(f"paper:p{i}", "venue:v", key="PUBLISHED_IN", type="PUBLISHED_IN")
        G.add_edge("author:x", f"paper:p{i}", key="AUTHORED", type="AUTHORED")
        for e in edges.get(i, []):
            t = kind[G.nodes[e]["label"]]
            G.add_edge(f"paper:p{i}", e, key=f"{t}|p{i}", type=t, paper=f"p{i}", evidence=f"p{i} {t.lower()} {e}.")
    # paper 3 proposes FooRL, which uses RL (its edge carries the paper's id); paper 7 mentions both areas
    G.add_edge("paper:p3", "method:foo", key="PROPOSES|p3", type="PROPOSES", paper="p3", evidence="We propose FooRL.")
    G.add_edge("method:foo", "technique:rl", key="USES|p3", type="USES", paper="p3", evidence="FooRL uses RL.")
    G.add_edge("method:foo", "task:control", key="ADDRESSES|p3", type="ADDRESSES", paper="p3", evidence="for control")
    G.add_edge("paper:p7", "technique:rl", key="MENTIONS|p7", type="MENTIONS", paper="p7", evidence="unlike RL")
    G.add_edge("paper:p7", "technique:diffusion", key="USES|p7", type="USES", paper="p7", evidence="uses diffusion")
    return G


def test_entities_not_papers_are_the_nodes_sized_by_the_papers_naming_them():
    m = field_map(toy())
    assert set(m.entities) == {"technique:rl", "task:control", "dataset:d4rl", "technique:diffusion",
                               "task:imagegen", "dataset:cifar", "method:foo"}
    assert m.papers["technique:rl"] == 5 and m.papers["technique:diffusion"] == 4  # p3 through its proposal
    assert m.entities[:2] == ("technique:rl", "technique:diffusion")  # the most named first
    assert field_map(toy(), max_nodes=3).entities == ("technique:rl", "technique:diffusion", "task:control")


def test_a_link_through_a_proposal_keeps_its_role_and_evidence():
    links = paper_links(toy(), "paper:p3")
    assert links["technique:rl"].role == "USES" and links["technique:rl"].via == "method:foo"
    assert links["technique:rl"].evidence == "FooRL uses RL." and links["method:foo"].role == "PROPOSES"


def test_links_weigh_a_stated_role_fully_and_a_mention_by_half():
    m = field_map(toy())
    assert m.weights[("task:control", "technique:rl")] == 3.0  # p0, p1, p3 (through FooRL)
    assert m.weights[("technique:diffusion", "technique:rl")] == MENTION_WEIGHT  # only p7, which mentions RL
    assert m.pairs[("technique:diffusion", "technique:rl")] == ("paper:p7",)


def test_areas_are_communities_named_by_their_central_members():
    m = field_map(toy())
    assert [set(a.members) for a in m.areas] == [
        {"technique:rl", "task:control", "dataset:d4rl", "method:foo"},
        {"technique:diffusion", "task:imagegen", "dataset:cifar"}]
    assert m.areas[0].name == "reinforcement learning · continuous control · D4RL"
    assert m.areas[0].papers == 5 and all(a.name for a in m.areas)
    H = toy()
    H.add_node("technique:llm", label="Technique", name="large language model")
    H.add_node("technique:lm", label="Technique", name="language model")
    assert area_name(H, ("technique:llm", "technique:lm", "technique:rl")) == "large language model · reinforcement learning"


def test_new_and_grown_entities_against_another_slice():
    G = toy()
    for i in (4, 5, 6):  # the diffusion papers are from 2025, the others from 2024
        G.nodes[f"paper:p{i}"]["year"] = 2025
    papers = sorted(n for n, d in G.nodes(data=True) if d["label"] == "Paper")
    m = field_map(G, papers, old=old_side(G, "year=2024"), min_papers=2, min_z=0)
    assert m.compared_with == "year=2024"
    assert m.changes["task:imagegen"].status == "new" and m.changes["task:imagegen"].old_papers == 0
    assert m.changes["technique:diffusion"].status == "grown"  # 1 of 5 papers, then 4 of 8
    assert m.changes["technique:rl"].status == ""
    with pytest.raises(UsageError, match="neither a graph folder nor a slice"):
        old_side(G, "no such folder")


def test_a_map_of_another_graph_folder_marks_what_it_did_not_name(toy_folders):
    new = load_graph(toy_folders["new"])
    papers = sorted(n for n, d in new.nodes(data=True) if d["label"] == "Paper")
    m = field_map(new, papers, old=old_side(new, toy_folders["old"]), min_papers=2, min_z=0)
    assert m.changes["task:image-editing"].status == "new"
    assert m.changes["technique:diffusion-model"].status == "grown"
    assert set(m.changes) == set(m.entities) and not any(e.startswith("paper:") for e in m.entities)
    with pytest.raises(UsageError, match="is the graph drawn"):
        old_side(new, toy_folders["new"], toy_folders["new"])


def test_names_drawn_at_the_same_zoom_never_overlap(sample_graph_dir):
    G = load_graph(sample_graph_dir)
    m = field_map(G)
    names = {e: G.nodes[e]["name"] for e in m.entities}
    p = place(m, names, {a.id: a.name.replace(" · ", "\n") for a in m.areas})
    assert set(p.nodes) == set(m.entities) and p.edges
    assert all(p.shows[e] >= 0 for e in m.entities) and min(p.shows.values()) < 1
    for u, v in itertools.combinations(m.entities, 2):
        z = max(p.shows[u], p.shows[v])
        a1, h1 = text_box(names[u], FONT)
        a2, h2 = text_box(names[v], FONT)
        start = lambda e: (p.nodes[e][0], p.nodes[e][1] + p.sizes[e] / 2)  # noqa: E731
        assert sep_entities(start(u), a1, h1, start(v), a2, h2) <= z + 1e-3, (u, v)
