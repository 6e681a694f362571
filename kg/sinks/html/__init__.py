"""The HTML sink: one self-contained, interactive page of the graph or of a node's
neighbourhood, drawn by the Cytoscape.js that kg ships (no request leaves the page).

Big graphs are cut to the best connected nodes (:mod:`kg.sinks.html.select`), and the page
says so; positions come from networkx's spring layout with a fixed seed, so the same graph
gives the same bytes.

>>> # write_html(load_graph("exports"), Path("exports/graph.html"), around="LoRA", depth=2)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kg.sinks.html.select import DEPTH, MAX_NODES, View, find_nodes, select_view

if TYPE_CHECKING:
    import networkx as nx


def write_html(G: nx.MultiDiGraph, path: Path, manifest: dict | None = None, around: str | None = None,
               depth: int = DEPTH, max_nodes: int | None = MAX_NODES) -> View:
    """Write the page of ``G`` (or of the nodes within ``depth`` steps of ``around``) to
    ``path`` atomically, and return what it shows."""
    from kg.errors import ExportError
    from kg.io.atomic import atomic_write
    from kg.sinks.html.page import render

    view = select_view(G, around, depth, max_nodes)
    page = render(G, view, manifest or {}).encode("utf-8")
    try:
        with atomic_write(Path(path), "wb") as fh:
            fh.write(page)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}; "
                          "check the folder is writable and the disk has space") from None
    return view


__all__ = ["DEPTH", "MAX_NODES", "View", "find_nodes", "select_view", "write_html"]
