"""The HTML page of a map of the field (:mod:`kg.explore.fieldmap`): the same safety as the
graph view's page (:mod:`kg.sinks.html.page`: data in a JSON block, the two scripts allowed by
hash, no request), its own template and script.

Entities are coloured by area and shaped by label; what the side panel shows of an entity
(the papers naming it, with the role and the evidence sentence) travels in the data block,
each evidence sentence once.

>>> area_colour(0), area_colour(len(PALETTE))
('#4E79A7', '#4E79A7')
>>> darker("#4E79A7")
'#2e4864'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kg.schema import data_file
from kg.sinks.html.maplayout import AREA_FONT, FONT, place
from kg.sinks.html.page import (
    HTML_DIR,
    LIBRARY,
    SAFE_URL,
    absent_names,
    escape_html,
    json_block,
    script_hash,
)

if TYPE_CHECKING:
    import networkx as nx

    from kg.explore.fieldmap import FieldMap

PALETTE = ("#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#EDC948", "#B07AA1", "#FF9DA7",
           "#9C755F", "#86BCB6", "#D37295", "#8CD17D", "#B6992D", "#499894", "#F1CE63", "#A0CBE8")
SHAPES = {"Technique": "ellipse", "Task": "diamond", "Dataset": "round-rectangle", "Model": "triangle",
          "Method": "hexagon"}
LINKS_SHOWN = 50  # papers listed with their evidence per entity
PAIR_PAPERS = 25  # papers listed per link
NEIGHBOURS = 8  # strongest links listed per entity
ROLE_WORDS = {"PROPOSES": "proposes", "USES": "uses", "ADDRESSES": "addresses", "EVALUATED_ON": "evaluated on",
              "MEASURES": "measures", "COMPARED_WITH": "compared with", "OUTPERFORMS": "outperforms",
              "MENTIONS": "mentions", "HAS_CODE": "has code", "BROADER": "names", "VARIANT_OF": "names"}


def area_colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def darker(colour: str, f: float = 0.6) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{int(c * f):02x}" for c in (r, g, b))


class _Texts:
    """Evidence sentences, each stored once and referred to by number."""

    def __init__(self):
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, text: str | None) -> int | None:
        if not text:
            return None
        if text not in self.index:
            self.index[text] = len(self.items)
            self.items.append(text)
        return self.index[text]


def _link_row(G, link, texts: _Texts) -> list:
    via = str(G.nodes[link.via].get("name") or link.via) if link.via else None
    return [link.paper, ROLE_WORDS.get(link.role, link.role.lower().replace("_", " ")), via, texts(link.evidence)]


def _neighbours(m: FieldMap) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {e: [] for e in m.entities}
    for (a, b), w in m.weights.items():
        out[a].append((b, w))
        out[b].append((a, w))
    return {e: sorted(v, key=lambda x: (-x[1], x[0]))[:NEIGHBOURS] for e, v in out.items()}


def payload(G: nx.MultiDiGraph, m: FieldMap, title: str, note: str) -> dict:
    """What the map's script reads."""
    area_lines = {a.id: a.name.replace(" · ", "\n") for a in m.areas}
    names = {e: str(G.nodes[e].get("name") or e) for e in m.entities}
    placed = place(m, names, area_lines)
    texts, paper_ids = _Texts(), set()
    neighbours = _neighbours(m)
    nodes = []
    for e in sorted(m.entities):
        d = G.nodes[e]
        x, y = placed.nodes[e]
        links = m.links.get(e, ())
        rows = [_link_row(G, lk, texts) for lk in links[:LINKS_SHOWN]]
        paper_ids.update(r[0] for r in rows)
        row = {"id": e, "label": str(d.get("label") or ""), "name": names[e], "x": x, "y": y,
               "size": placed.sizes[e], "papers": m.papers[e], "area": m.area_of[e], "show": placed.shows[e],
               "links": rows, "stated": sum(1 for lk in links if lk.stated),
               "near": [[n, w] for n, w in neighbours[e]]}
        aliases = [a for a in d.get("aliases") or [] if isinstance(a, str)]
        if aliases:
            row["aliases"] = aliases
        c = m.changes.get(e)
        if c is not None:
            row["change"] = {"old": c.old_papers, "oldShare": c.old_share, "newShare": c.new_share, "status": c.status}
        nodes.append(row)
    edges = []
    for a, b in placed.edges:
        both = m.pairs.get((a, b), ())
        rows = []
        for p in both[:PAIR_PAPERS]:
            la = next(lk for lk in m.links[a] if lk.paper == p)
            lb = next(lk for lk in m.links[b] if lk.paper == p)
            rows.append([p, *_link_row(G, la, texts)[1:], *_link_row(G, lb, texts)[1:]])
            paper_ids.add(p)
        edges.append({"id": f"e{len(edges)}", "source": a, "target": b, "weight": m.weights[(a, b)],
                      "papers": len(both), "list": rows})
    areas = []
    for ar in m.areas:
        x, y, r = placed.areas[ar.id]
        colour = area_colour(ar.id)
        areas.append({"id": ar.id, "name": ar.name, "lines": area_lines[ar.id], "colour": colour,
                      "ink": darker(colour), "x": x, "y": y, "r": r, "papers": ar.papers,
                      "members": list(ar.members)})
    papers = {}
    for p in sorted(paper_ids):
        d = G.nodes[p] if p in G else {}
        entry = {"title": str(d.get("title") or d.get("name") or p)}
        if isinstance(d.get("year"), int):
            entry["year"] = d["year"]
        if isinstance(d.get("url"), str) and SAFE_URL.match(d["url"]):
            entry["url"] = d["url"]
        papers[p] = entry
    return {"kind": "map", "title": title, "note": note, "compared": m.compared_with,
            "total": {"papers": m.total_papers, "entities": m.candidates, "nodes": G.number_of_nodes()},
            "areas": areas, "nodes": nodes, "edges": edges, "papers": papers, "texts": texts.items,
            "shapes": SHAPES, "font": FONT, "areaFont": AREA_FONT,
            "absent": absent_names(G, set(m.entities))}


def assets() -> dict[str, str]:
    names = {"page": "map.html", "script": "map.js", "css": "view.css", "library": LIBRARY,
             "licence": "LICENSE.cytoscape"}
    return {k: data_file(HTML_DIR / f).read_text(encoding="utf-8") for k, f in names.items()}


def render(G: nx.MultiDiGraph, m: FieldMap, title: str, note: str) -> str:
    """The whole page as one string (the Content-Security-Policy of the graph view's page)."""
    a = assets()
    data = payload(G, m, title, note)
    library = "/*! Cytoscape.js licence (MIT):\n" + a["licence"].replace("*/", "* /") + "\n*/\n" + a["library"]
    csp = (f"default-src 'none'; script-src {script_hash(library)} {script_hash(a['script'])}; "
           "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'")
    parts = {"csp": csp, "title": escape_html(f"{title}: {note}"), "css": a["css"], "data": json_block(data),
             "library": library, "script": a["script"]}
    return re.sub(r"\{\{(\w+)\}\}", lambda mm: parts[mm.group(1)], a["page"])
