from kg.io.format import load_graph
from kg.stats import summary


def test_summary_counts_match_the_graph(sample_graph_dir):
    G = load_graph(sample_graph_dir)
    s = summary(G)
    assert s["nodes"] == G.number_of_nodes() == sum(s["nodes_per_label"].values())
    assert s["edges"] == G.number_of_edges() == sum(s["edges_per_type"].values())
    assert s["coverage"]["papers"] == 8 and s["coverage"]["with_proposes"] == 8
    assert s["components"]["count"] >= 1 and 0 < s["density"] < 1
    top_ds = [r["name"] for r in s["top"]["Dataset"]]
    assert top_ds[0] == "HumanEval"
