"""Markdown report and scaling chart of a benchmark run."""

from __future__ import annotations

from pathlib import Path


def _fmt(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v}"


def write_report(r: dict, folder: Path) -> None:
    m = r["machine"]
    lines = ["# Benchmark results", "",
             f"Machine: {m['cpus']} cores, Python {m['python']}, {m['platform']}"
             + (" (quick mode)" if m["quick"] else "") + f"; corpus {r['corpus_papers']:,} papers.",
             "Every ratio compares with a baseline measured in the same run.", ""]
    ex = r["extraction"]
    lines += ["## Extraction", "", "| measure | value |", "|---|---|"]
    lines += [f"| {k.replace('_', ' ')} | {_fmt(v)} |" for k, v in ex.items()]
    b = r["build"]
    lines += ["", "## End-to-end build", "", "| papers | wall s | ms/paper | peak RSS MB |", "|---|---|---|---|"]
    for row in b["sizes"].values():
        lines.append(f"| {row['papers']:,} | {row['wall']:.1f} | {row['ms_per_paper']} | {row['maxrss_mb']:.0f} |")
    lines += ["", f"Time per paper, largest vs smallest: **{b['per_paper_ratio_largest_vs_smallest']}x**.", ""]
    inc = r["incremental"]
    lines += ["## Incremental build", "",
              f"Adding {inc['added']:,} papers to a graph of {inc['base_papers']:,}: {inc['incremental_s']} s; "
              f"building them alone: {inc['alone_s']} s; ratio **{inc['ratio_incremental_vs_alone']}x**.", ""]
    for section in ("export", "sparql", "neo4j"):
        if section not in r:
            continue
        lines += [f"## {section.capitalize()}", ""]
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
