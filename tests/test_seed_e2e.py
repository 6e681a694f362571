"""The seed list end to end: what a researcher must find in the graph."""

from kg.schema import ENTITY_LABELS


def node(G, label, name):
    hits = [n for n, d in G.nodes(data=True) if d["label"] == label and d["name"] == name]
    assert hits, f"no {label} named {name!r}"
    return hits[0]


def neighbours(G, n):
    return {G.nodes[v]["name"] for _, v in G.out_edges(n)} | {G.nodes[u]["name"] for u, _ in G.in_edges(n)}


def test_every_named_proposal_is_a_method_with_proposes(seed_build):
    G = seed_build.graph
    expected = {"Explore-Then-Exploit", "SpecForge", "SkillNet", "Retro-Expert", "HeRL", "H²CL",
                "QuantumBoost", "Ordering-Constrained Markov Blanket discovery", "Optimizer Aware Kernel",
                "Wrapped Normalization Equivariance", "Rectified Distribution Matching Regularization", "AutoTool"}
    proposed = {G.nodes[v]["name"] for u, v, d in G.edges(data=True) if d["type"] == "PROPOSES"}
    assert expected <= proposed
    for name in expected:
        assert G.nodes[node(G, "Method", name)]["label"] == "Method"


def test_specforge_links(seed_build):
    G = seed_build.graph
    sf = node(G, "Method", "SpecForge")
    linked = neighbours(G, sf)
    assert {"speculative decoding", "EAGLE-3", "Qwen3-235B-A22B", "SGLang"} <= linked, linked


def test_qwen3_8b_is_a_variant_of_qwen3(seed_build):
    G = seed_build.graph
    q = node(G, "Model", "Qwen3-8B")
    fams = [G.nodes[v]["name"] for _, v, d in G.out_edges(q, data=True) if d["type"] == "VARIANT_OF"]
    assert fams == ["Qwen3"]
    assert G.nodes[q]["family"] == "Qwen3" and G.nodes[q]["size"] == "8B"


def test_urls_are_repositories(seed_build):
    G = seed_build.graph
    repos = {d["name"] for _, d in G.nodes(data=True) if d["label"] == "Repository"}
    assert repos == {"github.com/MagixRab-ll/Retro-Expert", "github.com/sxu-yaokx/HHCL",
                     "mercerai.github.io/MVISTA-4D"}


def test_shared_concepts_are_one_node(seed_build):
    G = seed_build.graph
    for name in ("reinforcement learning", "large language model"):
        n = node(G, "Technique", name)
        papers = {d["paper"] for _, _, d in G.in_edges(n, data=True) if d.get("paper")}  # from papers or proposals
        assert len(papers) >= 2, (name, papers)
    names = [d["name"].lower() for _, d in G.nodes(data=True) if d["label"] in ENTITY_LABELS]
    assert names.count("large language model") == 1


def test_provenance_on_every_extracted_edge(seed_build):
    G = seed_build.graph
    for _u, _v, d in G.edges(data=True):
        if d["type"] in ("PUBLISHED_IN", "AUTHORED", "BROADER") or d["rule"] == "lexicon":
            continue
        assert d["paper"] and d["rule"] and 0 < d["confidence"] <= 1
        if "evidence" in d:
            abstract = G.nodes["paper:" + d["paper"]]["abstract"]
            assert abstract[d["start"]:d["end"]] == d["evidence"]
