"""Pictures of a graph, of a comparison and of trends, as PNG files.

matplotlib is optional (``pip install 'kg[plot]'``) and imported only here, when a picture is
drawn, with the ``Agg`` backend. Output is deterministic: a fixed size and DPI, matplotlib's
default style whatever the user's ``matplotlibrc`` says, and no ``Software`` or date in the
PNG's metadata, so the same graph gives byte-identical files.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import ConfigError, ExportError
from kg.schema import ENTITY_LABELS
from kg.stats import ranked

if TYPE_CHECKING:
    import networkx as nx

    from kg.explore.diff import Diff
    from kg.explore.trends import Trends

DPI = 100
NAME_CHARS = 38  # longer entity names are cut with an ellipsis
_METADATA = {"Software": None}
_BLUE, _GREEN, _RED, _GREY = "#4C72B0", "#55A868", "#C44E52", "#8C8C8C"


def require() -> None:
    """A :class:`~kg.errors.ConfigError` that names the extra to install when matplotlib is
    missing: called before anything is printed, so a command fails before its output."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError("pictures need matplotlib: pip install 'kg[plot]'") from None


@contextlib.contextmanager
def pyplot() -> Iterator[Any]:
    """matplotlib's pyplot on the Agg backend, in its default style; a missing matplotlib is a
    :class:`~kg.errors.ConfigError` that names the extra to install."""
    require()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.style.context("default"), matplotlib.rc_context({"font.size": 10, "svg.hashsalt": "kg"}):
        yield plt


def size_title(name: str, papers: int, nodes: int | None = None, edges: int | None = None) -> str:
    """``ICLR 2024: 2,260 papers, 22,746 nodes, 37,512 edges``."""
    parts = [f"{papers:,} papers"] + ([f"{nodes:,} nodes"] if nodes is not None else []) + \
        ([f"{edges:,} edges"] if edges is not None else [])
    return f"{name}: {', '.join(parts)}"


def short(name: str, n: int = NAME_CHARS) -> str:
    name = " ".join(str(name).split())
    return name if len(name) <= n else name[: n - 1] + "…"


def save(plt, fig, path: Path) -> Path:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=DPI, metadata=_METADATA)
    except OSError as exc:
        raise ExportError(f"{path}: cannot be written ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)
    return path


def _log_bars(ax, data: dict[str, int], color: str, what: str) -> None:
    """Horizontal bars, largest on top, on a log axis, each with its count."""
    items = sorted(((k, v) for k, v in data.items() if v > 0), key=lambda kv: (-kv[1], kv[0]))[::-1]
    if not items:
        ax.text(0.5, 0.5, "nothing to show", ha="center", va="center", transform=ax.transAxes)
        return
    names, values = [k for k, _ in items], [v for _, v in items]
    bars = ax.barh(names, values, color=color)
    ax.set_xscale("log")
    ax.set_xlim(0.8, max(values) * 8)
    ax.bar_label(bars, labels=[f"{v:,}" for v in values], padding=3, fontsize=9)
    ax.set_xlabel(f"{what} (log scale)")
    ax.grid(axis="x", which="major", alpha=0.3)


def _degree(ax, G: nx.MultiDiGraph) -> None:
    degs = Counter(G.degree(n) for n, d in G.nodes(data=True) if d.get("label") in ENTITY_LABELS)
    xs = sorted(k for k in degs if k > 0)
    ax.loglog(xs, [degs[x] for x in xs], "o", ms=4, color=_RED)
    ax.set_xlabel("degree (edges at an entity, log scale)")
    ax.set_ylabel("entities (log scale)")
    ax.grid(which="major", alpha=0.3)


def _top(ax, rows: list[dict], color: str) -> None:
    rows = rows[::-1]
    bars = ax.barh([short(r["name"]) for r in rows], [r["papers"] for r in rows], color=color)
    ax.bar_label(bars, labels=[f"{r['papers']:,}" for r in rows], padding=3, fontsize=9)
    ax.set_xlim(0, max((r["papers"] for r in rows), default=1) * 1.15)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("papers naming it")
    ax.grid(axis="x", alpha=0.3)


def overview_picture(G: nx.MultiDiGraph, s: dict[str, Any], path: Path, title: str) -> Path:
    """One PNG: nodes per label, edges per type (log axes, with counts) and the entity degree
    distribution (log-log)."""
    with pyplot() as plt:
        fig, axes = plt.subplots(1, 3, figsize=(16, 5.5), layout="constrained")
        _log_bars(axes[0], s["nodes_per_label"], _BLUE, "nodes")
        axes[0].set_title("Nodes per label")
        _log_bars(axes[1], s["edges_per_type"], _GREEN, "edges")
        axes[1].set_title("Edges per type")
        _degree(axes[2], G)
        axes[2].set_title("Entity degree distribution")
        fig.suptitle(title, fontsize=13)
        return save(plt, fig, path)


def stats_pictures(G: nx.MultiDiGraph, s: dict[str, Any], folder: Path, title: str,
                   trend: Trends | None = None) -> list[Path]:
    """Separate PNGs in ``folder``: ``labels.png`` (nodes per label), ``edges.png`` (edges per
    type), ``degree.png``, ``top-<label>.png`` for each entity label, and ``trends.png`` when
    ``trend`` spans at least two years. Returns the paths written, in that order."""
    folder = Path(folder)
    out = []
    with pyplot() as plt:
        for name, data, color, what, head in (("labels", s["nodes_per_label"], _BLUE, "nodes", "Nodes per label"),
                                              ("edges", s["edges_per_type"], _GREEN, "edges", "Edges per type")):
            fig, ax = plt.subplots(figsize=(8, 0.8 + 0.38 * max(len(data), 3)), layout="constrained")
            _log_bars(ax, data, color, what)
            ax.set_title(f"{head}\n{title}", fontsize=11)
            out.append(save(plt, fig, folder / f"{name}.png"))
        fig, ax = plt.subplots(figsize=(7, 5), layout="constrained")
        _degree(ax, G)
        ax.set_title(f"Entity degree distribution\n{title}", fontsize=11)
        out.append(save(plt, fig, folder / "degree.png"))
        for label, rows in s["top"].items():
            rows = ranked(rows)
            if not rows:  # every one named by one paper: nothing to rank
                continue
            fig, ax = plt.subplots(figsize=(8, 0.9 + 0.36 * max(len(rows), 3)), layout="constrained")
            _top(ax, rows, _BLUE)
            ax.set_title(f"Top {label} entities by papers\n{title}", fontsize=11)
            out.append(save(plt, fig, folder / f"top-{label.lower()}.png"))
    if trend is not None and trend.by == "year" and len(trend.periods) >= 2:
        out.append(trend_picture(trend, folder / "trends.png", title))
    return out


def trend_picture(t: Trends, path: Path, title: str, lines: int = 3) -> Path:
    """Papers per year (bars with counts), and below the share of papers per year of the
    ``lines`` most rising and most falling entities (else the top techniques)."""
    keys = [p.key for p in t.periods]
    chosen = [(m.name, m.shares, _GREEN) for m in t.rising[:lines]] + \
        [(m.name, m.shares, _RED) for m in t.falling[:lines]]
    if not chosen:
        chosen = [(s.name, s.shares, None) for s in t.top.get("Technique", ())[: 2 * lines]]
    with pyplot() as plt:
        fig, (ax, bx) = plt.subplots(2, 1, figsize=(10, 8), layout="constrained", height_ratios=(1, 1.4))
        bars = ax.bar(keys, [p.papers for p in t.periods], color=_BLUE)
        ax.bar_label(bars, labels=[f"{p.papers:,}" for p in t.periods], padding=2, fontsize=8)
        ax.set_ylabel("papers")
        ax.set_title("Papers per year", fontsize=11)
        ax.set_ylim(0, max(p.papers for p in t.periods) * 1.15)
        ax.tick_params(axis="x", labelrotation=45 if len(keys) > 10 else 0)
        styles = ["-", "--", ":"]
        for n, (name, shares, color) in enumerate(chosen):
            bx.plot(keys, [100 * v for v in shares], styles[n % 3], marker="o", ms=3, color=color,
                    label=short(name, 30))
        bx.set_ylabel("share of the year's papers (%)")
        bx.tick_params(axis="x", labelrotation=45 if len(keys) > 10 else 0)
        bx.grid(alpha=0.3)
        rule = (f"green: rising most, red: falling most ({t.recent[0]}-{t.recent[-1]} vs {t.before[0]}-{t.before[-1]})"
                if t.rising or t.falling else "top techniques")
        bx.set_title(f"Share of papers naming an entity; {rule}", fontsize=10)
        if chosen:
            bx.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9, frameon=False)
        fig.suptitle(title, fontsize=12)
        return save(plt, fig, path)


def diff_picture(d: Diff, path: Path) -> Path:
    """The entities whose share of papers grew and shrank most, as a diverging bar chart."""
    rows = sorted(d.shrunk + d.grown, key=lambda c: (c.change, c.id))
    with pyplot() as plt:
        fig, ax = plt.subplots(figsize=(10, 1.6 + 0.34 * max(len(rows), 4)), layout="constrained")
        if rows:
            names = [f"{short(c.name, 32)} ({c.label})" for c in rows]
            values = [c.change for c in rows]
            bars = ax.barh(names, values, color=[_GREEN if v > 0 else _RED for v in values])
            ax.bar_label(bars, labels=[f"{c.old_papers}→{c.new_papers}" for c in rows], padding=3, fontsize=8)
            span = max(abs(v) for v in values)
            ax.set_xlim(-span * 1.35, span * 1.35)
            ax.axvline(0, color=_GREY, lw=0.8)
        else:
            ax.text(0.5, 0.5, "no entity grew or shrank", ha="center", va="center", transform=ax.transAxes)
        ax.set_xlabel(f"change of share of papers (percentage points)\nentities named by ≥ {d.min_papers} "
                      "papers on one side; bar labels: papers old→new", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{size_title(d.old.name, d.old.papers)}  →  {size_title(d.new.name, d.new.papers)}\n"
                     "entities whose share of papers grew (green) or shrank (red) most", fontsize=11)
        return save(plt, fig, path)
