"""The HTML sink: one self-contained, interactive page drawn by the Cytoscape.js that kg ships
(no request leaves the page), in one of two views:

- ``map`` (the default without ``around``): a map of the field, whose nodes are entities
  grouped into named areas (:mod:`kg.explore.fieldmap`, laid out by
  :mod:`kg.sinks.html.maplayout`, drawn by :mod:`kg.sinks.html.mappage`); ``diff`` marks the
  entities that are new or grown since another graph folder or a slice of this graph;
- ``graph`` (the default with ``around``): the nodes themselves, papers included, cut to the
  best connected (:mod:`kg.sinks.html.select`), drawn by :mod:`kg.sinks.html.page`.

Positions come from networkx layouts with a fixed seed, so the same graph gives the same bytes.

>>> # write_html(load_graph("exports"), Path("exports/graph.html"))                   # the map
>>> # write_html(load_graph("exports"), Path("lora.html"), around="LoRA", depth=2)    # a neighbourhood
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.defaults import MAP_NODES
from kg.errors import UsageError
from kg.sinks.html.select import DEPTH, MAX_NODES, View, find_nodes, select_view

if TYPE_CHECKING:
    import networkx as nx

    from kg.explore.fieldmap import FieldMap

VIEWS = ("map", "graph")


@dataclass(frozen=True)
class MapView:
    """What a map page shows, and the sentence saying so."""

    map: FieldMap
    note: str


def write_html(G: nx.MultiDiGraph, path: Path, manifest: dict | None = None, around: str | None = None,
               depth: int = DEPTH, max_nodes: int | None = None, view: str | None = None,
               select: str | None = None, diff: str | Path | None = None,
               folder: Path | None = None) -> View | MapView:
    """Write the page of ``G`` to ``path`` atomically, and return what it shows. ``view`` is
    ``map`` or ``graph`` (default: ``graph`` with ``around``, else ``map``); ``max_nodes``
    defaults to the view's own (:data:`kg.defaults.MAP_NODES` entities, or
    :data:`kg.defaults.HTML_MAX_NODES` nodes). The map takes ``select`` (a slice of the papers,
    as ``kg diff --old`` takes) and ``diff`` (another graph folder, or a slice of this one,
    ``folder``, to compare with)."""
    from kg.sinks.html import mappage, page

    view = view or ("graph" if around is not None else "map")
    if view not in VIEWS:
        raise UsageError(f"unknown view {view!r}; use map (entities in areas) or graph (the nodes themselves)")
    manifest = manifest or {}
    if view == "graph":
        if select is not None or diff is not None:
            raise UsageError("select and diff apply to the map view, not to the graph view (or --around)")
        shown = select_view(G, around, depth, MAX_NODES if max_nodes is None else max_nodes)
        text = page.render(G, shown, manifest)
    else:
        if around is not None:
            raise UsageError("around draws the graph view; leave the view out, or use view='graph'")
        shown = map_view(G, manifest, MAP_NODES if max_nodes is None else max_nodes, select, diff, folder)
        text = mappage.render(G, shown.map, page.title_of(manifest), shown.note)
    _write(Path(path), text.encode("utf-8"))
    return shown


def map_view(G: nx.MultiDiGraph, manifest: dict, max_nodes: int = MAP_NODES, select: str | None = None,
             diff: str | Path | None = None, folder: Path | None = None) -> MapView:
    """The :class:`~kg.explore.fieldmap.FieldMap` of ``G`` (or of its slice ``select``),
    compared with ``diff`` when given, and its note."""
    from kg.explore.diff import side_papers
    from kg.explore.fieldmap import field_map, old_side
    from kg.explore.slices import parse_selector

    sel = parse_selector(select)
    papers = side_papers(G, sel, "the graph")
    old = old_side(G, diff, folder, sel) if diff is not None else None
    m = field_map(G, papers, max_nodes, old)
    what = f"{len(m.entities):,} of {m.candidates:,} entities" if len(m.entities) < m.candidates else (
        f"all {m.candidates:,} entities")
    note = (f"a map of the field: {what} named by {len(papers):,} papers{f' ({sel.text})' if sel else ''}, "
            f"the most named first, in {len(m.areas)} area{'s' if len(m.areas) != 1 else ''}")
    if old is not None:
        c = [ch.status for ch in m.changes.values()]
        note += f"; compared with {old[2]}: {c.count('new')} new, {c.count('grown')} grown"
    return MapView(m, note)


def _write(path: Path, data: bytes) -> None:
    from kg.errors import ExportError
    from kg.io.atomic import atomic_write

    try:
        with atomic_write(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}; "
                          "check the folder is writable and the disk has space") from None


__all__ = ["DEPTH", "MAX_NODES", "VIEWS", "MapView", "View", "find_nodes", "map_view", "select_view", "write_html"]
