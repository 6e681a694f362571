"""Rendering of :func:`kg.stats.summary` and of trends: rich tables for the terminal (pictures are\n:mod:`kg.explore.plots`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from kg.stats import ranked


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
        shown = ranked(rows)
        count = s["nodes_per_label"].get(label, len(rows))
        if not shown:
            console.print(f"Top {label}: no ranking, no {label} is named by more than one paper "
                          f"({count:,} {plural(label, count)})")
            continue
        t = Table(title=f"Top {label}", title_justify="left",
                  caption="the others are named by one paper each" if len(shown) < len(rows) else None,
                  caption_justify="left")
        for col, just in (("name", "left"), ("papers", "right"), ("degree", "right"), ("pagerank", "right")):
            t.add_column(col, justify=just)
        for r in shown:
            t.add_row(r["name"], str(r["papers"]), str(r["degree"]), f"{r['pagerank']:.5f}")
        console.print(t)


def plural(label: str, n: int) -> str:
    """A label counted: ``Tasks``, ``Repositories``, ``Software``; one stays singular.

    >>> plural("Task", 2), plural("Repository", 3), plural("Software", 2), plural("Model", 1)
    ('Tasks', 'Repositories', 'Software', 'Model')
    """
    if n == 1 or label == "Software":
        return label
    return label[:-1] + "ies" if label.endswith("y") else label + "s"


def print_trends(t, console: Console, columns: int = 8) -> None:
    """The tables of a :class:`kg.explore.trends.Trends`: papers per period, the top entities'
    share of each period's papers (the last ``columns`` periods; ``--json`` has them all), and
    the entities rising and falling most."""
    console.print(_kv_table(f"Papers per {t.by}", {p.key: f"{p.papers:,}" for p in t.periods}, t.by, "papers"))
    if t.unknown:
        console.print(f"{t.unknown:,} papers without a {t.by} are left out")
    shown = list(range(len(t.periods)))[-columns:]
    for label, rows in t.top.items():
        tab = Table(title=f"Top {label}: share of each {t.by}'s papers" +
                    (f" (last {columns} of {len(t.periods)})" if len(t.periods) > columns else ""),
                    title_justify="left")
        tab.add_column("name", min_width=16)
        tab.add_column("papers", justify="right")
        for i in shown:
            tab.add_column(t.periods[i].key, justify="right")
        for r in rows:
            tab.add_row(r.name, f"{r.papers:,}", *(f"{100 * r.shares[i]:.1f}%" for i in shown))
        console.print(tab)
    if not (t.rising or t.falling):
        if t.by == "year":
            console.print(f"rising and falling compare two windows of {t.window} years: they need "
                          f"{2 * t.window} years, the graph has {len(t.periods)}")
        return
    span = (f"{t.recent[0]}-{t.recent[-1]} against {t.before[0]}-{t.before[-1]}; "
            f"entities named by ≥ {t.min_papers} papers in those years")
    for title, rows in (("Rising most", t.rising), ("Falling most", t.falling)):
        tab = Table(title=f"{title}: share of papers, {span}", title_justify="left")
        tab.add_column("name", min_width=16)
        tab.add_column("label")
        for col in ("before", "recent", "before %", "recent %", "Δ pp"):
            tab.add_column(col, justify="right")
        for m in rows:
            tab.add_row(m.name, m.label, str(m.before_papers), str(m.recent_papers), f"{100 * m.before_share:.2f}%",
                        f"{100 * m.recent_share:.2f}%", f"{m.change:+.2f}")
        console.print(tab)
