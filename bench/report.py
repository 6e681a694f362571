"""Markdown report and scaling chart of a benchmark run."""

from __future__ import annotations

from pathlib import Path


def _fmt(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v}"


def _num(v) -> float | None:
    return float(v) if isinstance(v, int | float) else None


def targets(r: dict) -> list[str]:
    """The performance targets, each with the figure measured in this run and met or not."""
    rows = []

    def row(name: str, value, ok: bool | None) -> None:
        rows.append(f"| {name} | {value} | {'met' if ok else 'not met' if ok is not None else 'n/a'} |")

    ex, b, inc = r["extraction"], r["build"], r["incremental"]
    sm = ex.get("ratio_1proc_vs_en_core_web_sm")
    missing = ex.get("en_core_web_sm", "not installed (pip install -e '.[bench]')")
    row("default extraction per process >= 0.35x en_core_web_sm's full pipeline (stretch 0.5x)",
        sm if sm is not None else missing, sm >= 0.35 if sm is not None else None)
    fsm = ex.get("fast_ratio_1proc_vs_en_core_web_sm")
    row("fast extraction per process >= 2x en_core_web_sm's full pipeline", fsm if fsm is not None else missing,
        fsm >= 2 if fsm is not None else None)
    lst = r.get("list", {})
    if "list_to_graph_and_ttl_s" in lst:
        row(f"ICML 2024 ({lst['papers']:,} papers) to graph and Turtle <= 180 s", lst["list_to_graph_and_ttl_s"],
            lst["list_to_graph_and_ttl_s"] <= 180)
    if "largest_build_plus_exports_s" in b and not r["machine"]["quick"]:
        row("all papers to graph and exports <= 30 min (default pipeline)", b["largest_build_plus_exports_s"],
            b["largest_build_plus_exports_s"] <= 1800)
        row("peak RSS <= 3072 MB (default pipeline)", b["largest_peak_rss_mb"], b["largest_peak_rss_mb"] <= 3072)
    bf = r.get("build_fast", {})
    if "largest_build_plus_exports_s" in bf and not r["machine"]["quick"]:
        row("all papers to graph and exports <= 240 s (--model fast)", bf["largest_build_plus_exports_s"],
            bf["largest_build_plus_exports_s"] <= 240)
        row("peak RSS <= 2048 MB (--model fast)", bf["largest_peak_rss_mb"], bf["largest_peak_rss_mb"] <= 2048)
    row("time per paper at full size <= 1.2x at 1k", b["per_paper_ratio_largest_vs_smallest"],
        b["per_paper_ratio_largest_vs_smallest"] <= 1.2)
    row("incremental add of 1k <= 1.5x building 1k alone", inc["ratio_incremental_vs_alone"],
        inc["ratio_incremental_vs_alone"] <= 1.5)
    e = r.get("export", {})
    if "ratio_ttl_vs_rdflib_serialize" in e:
        for fmt in ("ttl", "nt"):
            v = e[f"ratio_{fmt}_vs_rdflib_serialize"]
            row(f"{fmt} export >= 5x rdflib Graph.serialize", v, v >= 5)
        row("nt export >= 0.5x plain string writing", e["ratio_nt_vs_plain_string"], e["ratio_nt_vs_plain_string"] >= 0.5)
    q = r.get("sparql", {})
    if "pyoxigraph_ms" in q:
        slow = sorted(k for k, v in q["pyoxigraph_ms"].items() if v > 100)
        row("every canned SPARQL query <= 100 ms median", f"max {q['max_pyoxigraph_ms']} ms; over: {', '.join(slow) or 'none'}",
            not slow)
        under = sorted(k for k, v in q["ratio_rdflib_vs_pyoxigraph"].items()
                       if _num(v) is not None and _num(v) < 10)
        row("every canned SPARQL query >= 10x faster than rdflib", f"below 10x: {', '.join(under) or 'none'}", not under)
    n = r.get("neo4j", {})
    if "subset" in n:
        v = n["subset"]["ratio_row_vs_batch"]
        row("Neo4j batched load >= 20x one MERGE per row", v, v >= 20)
    return ["## Targets", "", "| target | measured | |", "|---|---|---|", *rows, ""]


def write_report(r: dict, folder: Path) -> None:
    m = r["machine"]
    lines = ["# Benchmark results", "",
             f"Machine: {m['cpus']} cores, Python {m['python']}, {m['platform']}"
             + (" (quick mode)" if m["quick"] else "") + f"; corpus {r['corpus_papers']:,} papers.",
             "Every ratio compares with a baseline measured in the same run. The machine is shared: other",
             "processes ran during this run, so absolute times carry noise (ratios less so).",
             "Run with `make bench` (all) or `make bench-quick`; Neo4j figures need a server",
             "(`bash scripts/neo4j start; eval \"$(bash scripts/neo4j env)\"`).", ""]
    lines += targets(r)
    ex = r["extraction"]
    lines += ["## Extraction", "", "| measure | value |", "|---|---|"]
    lines += [f"| {k.replace('_', ' ')} | {_fmt(v)} |" for k, v in ex.items()]
    lst = r.get("list")
    if lst:
        lines += ["", "## One list (ICML 2024), default pipeline", "", "| measure | value |", "|---|---|"]
        lines += [f"| {k.replace('_', ' ')} | {_fmt(v)} |" for k, v in lst.items()]
    b = r["build"]
    lines += ["", "## End-to-end build", "", "| pipeline | papers | wall s | ms/paper | peak RSS MB |", "|---|---|---|---|---|"]
    for bb in (b, r.get("build_fast") or {}):
        for row in bb.get("sizes", {}).values():
            lines.append(f"| {bb['model']} | {row['papers']:,} | {row['wall']:.1f} | {row['ms_per_paper']} | "
                         f"{row['maxrss_mb']:.0f} |")
    lines += ["", f"Time per paper, largest vs smallest (default pipeline): "
                  f"**{b['per_paper_ratio_largest_vs_smallest']}x**.", ""]
    inc = r["incremental"]
    lines += ["## Incremental build", "",
              f"Adding {inc['added']:,} papers to a graph of {inc['base_papers']:,}: {inc['incremental_s']} s; "
              f"building them alone: {inc['alone_s']} s; ratio **{inc['ratio_incremental_vs_alone']}x**.", ""]
    for section in ("export", "sparql", "sparql_store", "neo4j"):
        if section not in r:
            continue
        lines += [f"## {section.replace('_', ' ').capitalize()}", ""]
        data = r[section]
        if "skipped" in data:
            lines += [f"Skipped: {data['skipped']}", ""]
            continue
        lines += ["```json", __import__("json").dumps(data, indent=2), "```", ""]
    (folder / "RESULTS.md").write_text("\n".join(lines) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ModuleNotFoundError:
        return
    xs = [row["papers"] for row in b["sizes"].values()]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(xs, [row["wall"] for row in b["sizes"].values()], "o-")
    ax[0].set_xlabel("papers")
    ax[0].set_ylabel("build wall time (s)")
    ax[0].set_title("kg build scaling")
    ax[1].plot(xs, [row["ms_per_paper"] for row in b["sizes"].values()], "o-", color="#C44E52")
    ax[1].set_xlabel("papers")
    ax[1].set_ylabel("ms per paper")
    ax[1].set_ylim(bottom=0)
    ax[1].set_title("time per paper")
    fig.tight_layout()
    fig.savefig(folder / "scaling.png", dpi=100)
    plt.close(fig)
