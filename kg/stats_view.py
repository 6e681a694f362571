"""Rendering of :func:`kg.stats.summary`: rich tables for the terminal, a PNG for reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def _kv_table(title: str, data: dict, key: str = "", value: str = "count") -> Table:
    t = Table(title=title, title_justify="left")
    t.add_column(key)
    t.add_column(value, justify="right")
    for k, v in data.items():
        t.add_row(str(k), str(v))
    return t


def print_summary(s: dict[str, Any], console: Console) -> None:
    cov = s["coverage"]
    comp = s["components"]
    console.print(f"[bold]{s['nodes']}[/] nodes, [bold]{s['edges']}[/] edges, "
                  f"{cov['papers']} papers, density {s['density']:.2e}")
    console.print(_kv_table("Nodes per label", s["nodes_per_label"], "label"))
    console.print(_kv_table("Edges per type", s["edges_per_type"], "type"))
    if "MENTIONS" in s["edges_per_type"]:
        console.print("MENTIONS: named without a stated role; USES, ADDRESSES, EVALUATED_ON, MEASURES, "
                      "COMPARED_WITH and OUTPERFORMS are stated by the text (from the paper or what it proposes)")
    console.print(f"Components (weak): {comp['count']}, largest {comp['largest']} nodes "
                  f"({comp['largest_share']:.1%}), isolated {comp['isolated']}")
    deg = s["degree"]
    if deg.get("count"):
        console.print(f"Entity degree: min {deg['min']}, median {deg['median']}, mean {deg['mean']}, "
                      f"max {deg['max']}")
        console.print(_kv_table("Entity degree histogram", deg["histogram"], "degree", "entities"))
    console.print(f"Coverage: {cov['with_entities']}/{cov['papers']} papers with entities, "
                  f"{cov['with_proposes']} with PROPOSES, {cov['with_code']} with code; "
                  f"{cov['without_entities_count']} without any entity")
    for label, rows in s["top"].items():
        t = Table(title=f"Top {label}", title_justify="left")
        for col, just in (("name", "left"), ("papers", "right"), ("degree", "right"), ("pagerank", "right")):
            t.add_column(col, justify=just)
        for r in rows:
            t.add_row(r["name"], str(r["papers"]), str(r["degree"]), f"{r['pagerank']:.5f}")
        console.print(t)


def plot_summary(G, s: dict[str, Any], path: Path) -> None:
    """Nodes per label, edges per type, and the entity degree distribution (log-log)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ModuleNotFoundError:
        from kg.errors import ConfigError

        raise ConfigError("--plot needs matplotlib: pip install 'kg[plot]'") from None
    from collections import Counter

    from kg.schema import ENTITY_LABELS

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    labels = s["nodes_per_label"]
    axes[0].barh(list(labels), list(labels.values()), color="#4C72B0")
    axes[0].set_title("Nodes per label")
    types = s["edges_per_type"]
    axes[1].barh(list(types), list(types.values()), color="#55A868")
    axes[1].set_title("Edges per type")
    degs = Counter(G.degree(n) for n, d in G.nodes(data=True) if d["label"] in ENTITY_LABELS)
    xs = sorted(k for k in degs if k > 0)
    axes[2].loglog(xs, [degs[x] for x in xs], "o", ms=3, color="#C44E52")
    axes[2].set_xlabel("degree")
    axes[2].set_ylabel("entities")
    axes[2].set_title("Entity degree distribution")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
