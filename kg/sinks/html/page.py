"""The HTML page of a view: data as JSON in a ``<script type="application/json">`` block
(``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026``), Cytoscape.js and
the page's own script inline, colours from the Neo4j Browser style ``kg.grass``.

>>> rules = grass_rules("node.Paper {\\n  color: #4C8EDA;\\n  diameter: 100px;\\n}")
>>> rules["node.Paper"]["color"], rules["node.Paper"]["diameter"]
('#4C8EDA', '100px')
>>> json_block({"name": "</script><b>"})
'{"name":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from kg.schema import DATA_DIR, SCHEMA_DIR, data_file
from kg.sinks.html.select import View, degree, induced

if TYPE_CHECKING:
    import networkx as nx

HTML_DIR = DATA_DIR / "html"
GRASS_FILE = SCHEMA_DIR / "kg.grass"
LIBRARY = "cytoscape.min.js"
ABSTRACT_CHARS = 1500  # a paper's abstract in the side panel is cut here
SAFE_URL = re.compile(r"^https?://", re.IGNORECASE)


def grass_rules(text: str) -> dict[str, dict[str, str]]:
    """The rules of a grass style sheet: ``{selector: {property: value}}``."""
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"([\w.\-]+)\s*\{([^}]*)\}", text):
        props = rules.setdefault(selector, {})
        for line in re.split(r"[;\n]", body):
            key, sep, value = line.partition(":")
            if sep:
                props[key.strip()] = value.strip().strip('"')
    return rules


def _px(value: str | None, default: float) -> float:
    try:
        return float(str(value).removesuffix("px"))
    except ValueError:
        return default


@cache
def style() -> dict[str, dict]:
    """Colours and sizes per node label and per relation type, read from ``kg.grass``."""
    rules = grass_rules(data_file(GRASS_FILE).read_text(encoding="utf-8"))
    node, rel = rules.get("node", {}), rules.get("relationship", {})
    labels, types = {}, {}
    for selector, props in sorted(rules.items()):
        kind, _, name = selector.partition(".")
        if kind == "node" and name and name != "Entity":
            p = {**node, **props}
            labels[name] = {"color": p.get("color", "#A5ABB6"), "border": p.get("border-color", "#9AA1AC"),
                            "text": p.get("text-color-internal", "#FFFFFF"),
                            "size": _px(p.get("diameter"), 60) * 0.4}
        elif kind == "relationship" and name:
            p = {**rel, **props}
            types[name] = {"color": p.get("color", "#A5ABB6"), "width": _px(p.get("shaft-width"), 1)}
    default = {"node": {"color": node.get("color", "#A5ABB6"), "border": node.get("border-color", "#9AA1AC"),
                        "size": _px(node.get("diameter"), 60) * 0.4},
               "edge": {"color": rel.get("color", "#A5ABB6"), "width": _px(rel.get("shaft-width"), 1)}}
    return {"labels": labels, "types": types, "default": default}


def json_block(data: object) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left to end it."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


CORE = 400  # nodes laid out by the spring layout itself; the others are placed around them


def layout(G: nx.MultiDiGraph, nodes: list[str]) -> dict[str, tuple[float, float]]:
    """Positions, the same for the same graph: networkx's spring layout (fixed seed) of the
    first :data:`CORE` nodes of ``nodes`` (the best connected), then every other node, in
    rank order, on a small spiral around the nodes already placed that it links to (nodes
    linked to none go on a ring outside). Seconds for thousands of nodes, where a spring
    layout of them all takes a minute."""
    import math

    import networkx as nx

    if not nodes:
        return {}
    keep = set(nodes)
    H = nx.Graph()
    H.add_nodes_from(nodes)
    H.add_edges_from(sorted({(u, v) if u < v else (v, u) for u, v in G.subgraph(keep).edges() if u != v}))
    core = nodes[:CORE]
    pos = {n: (float(x), float(y)) for n, (x, y) in
           (nx.spring_layout(induced(H, core), seed=7, iterations=80) if len(core) > 1 else {core[0]: (0, 0)}).items()}
    children: dict[str, int] = {}
    golden = math.pi * (3 - math.sqrt(5))
    rest = nodes[len(core):]
    while rest:
        later = []
        for n in rest:
            placed = sorted(m for m in H[n] if m in pos)
            if not placed:
                later.append(n)
                continue
            anchor = max(placed, key=lambda m: (H.degree(m), m))
            cx = sum(pos[m][0] for m in placed) / len(placed)
            cy = sum(pos[m][1] for m in placed) / len(placed)
            i = children[anchor] = children.get(anchor, 0) + 1
            r = 0.012 * math.sqrt(i)
            pos[n] = (cx + r * math.cos(i * golden), cy + r * math.sin(i * golden))
        if len(later) == len(rest):  # linked to nothing placed: a ring outside the rest
            for i, n in enumerate(later):
                a = 2 * math.pi * i / len(later)
                pos[n] = (1.15 * math.cos(a), 1.15 * math.sin(a))
            break
        rest = later
    scale = 60.0 * max(len(nodes), 4) ** 0.5
    return {n: (round(pos[n][0] * scale, 1), round(pos[n][1] * scale, 1)) for n in nodes}


def papers_of(G: nx.MultiDiGraph, n: str) -> list[str]:
    """The papers a node is linked to: its Paper neighbours and the papers its edges were
    read from."""
    out = {m for m in {*G.successors(n), *G.predecessors(n)} if G.nodes[m].get("label") == "Paper"}
    for edges in (G.out_edges(n, data="paper"), G.in_edges(n, data="paper")):
        out.update(f"paper:{p}" for _, _, p in edges if isinstance(p, str) and f"paper:{p}" in G)
    return sorted(out)


def _text(v) -> str | None:
    return v if isinstance(v, str) and v else None


def search_key(text: str) -> str:
    """What the pages' search compares, as ``kg show`` reads a name: lower case, dashes,
    underscores, slashes and spacing as one space (``norm`` in the pages' scripts).

    >>> search_key(" Speculative-Decoding ") == search_key("speculative  decoding")
    True
    """
    return re.sub(r"[-_/\\\s]+", " ", text.lower()).strip()


def absent_names(G: nx.MultiDiGraph, drawn: set[str]) -> list[str]:
    """Names and aliases (:func:`search_key`) of the graph's nodes that a page does not draw,
    so that its search can tell "not drawn here" from "no such name"; Results are left out."""
    keys = set()
    for n, d in G.nodes(data=True):
        if n in drawn or d.get("label") == "Result":
            continue
        for v in (d.get("name"), d.get("title"), *(d.get("aliases") or [])):
            if isinstance(v, str) and v:
                keys.add(search_key(v))
    return sorted(keys)


#: what a paper states, in the order its panel lists it (a bare mention last)
STATED = ("PROPOSES", "USES", "ADDRESSES", "EVALUATED_ON", "MEASURES", "COMPARED_WITH", "OUTPERFORMS",
          "HAS_CODE", "MENTIONS")
STATED_SHOWN = 25  # entities listed per relation in a paper's panel


def statements(G: nx.MultiDiGraph, paper: str) -> list[list]:
    """What a paper states, for its panel: ``[type, [entity ids]]`` in :data:`STATED` order,
    from the paper itself and from what it proposes (the edges the paper is the source of), as
    ``kg show`` reads a paper; at most :data:`STATED_SHOWN` ids each, sorted by name."""
    pid = paper.partition(":")[2]
    found: dict[str, set[str]] = {}
    proposals = set()
    for _, v, d in G.out_edges(paper, data=True):
        if d.get("type") in STATED:
            found.setdefault(d["type"], set()).add(v)
            if d["type"] == "PROPOSES":
                proposals.add(v)
    for m in sorted(proposals):
        for _, v, d in G.out_edges(m, data=True):
            if d.get("paper") == pid and d.get("type") in STATED and d["type"] != "PROPOSES":
                found.setdefault(d["type"], set()).add(v)
    name = lambda n: (str(G.nodes[n].get("name") or n).lower(), n)  # noqa: E731
    return [[t, sorted(found[t], key=name)[:STATED_SHOWN]] for t in STATED if found.get(t)]


def node_size(G: nx.MultiDiGraph, n: str) -> float:
    """A node's diameter on the graph view: the style's for its label, growing with its
    number of neighbours."""
    import math

    st = style()
    base = st["labels"].get(str(G.nodes[n].get("label")), st["default"]["node"])["size"]
    return round(base * (0.6 + 0.2 * math.log2(1 + degree(G, n))), 1)


def payload(G: nx.MultiDiGraph, view: View, manifest: dict) -> dict:
    """What the page's script reads: nodes with positions, sizes and the zoom from which their
    names are drawn, what each paper states, edges, the papers they cite, the style, the
    header's title and note."""
    from kg.sinks.html.labels import FONT, name_zooms, short_name

    keep = set(view.nodes)
    pos = layout(G, view.nodes)
    sizes = {n: node_size(G, n) for n in view.nodes}
    shorts = {n: short_name(G.nodes[n].get("name") or n) for n in view.nodes}
    xs, ys = [p[0] for p in pos.values()] or [0.0], [p[1] for p in pos.values()] or [0.0]
    extent = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    shows = name_zooms([(n, pos[n][0], pos[n][1] + sizes[n] / 2, shorts[n]) for n in view.nodes],
                       low=round(min(1.0, 700 / extent), 4))  # about the zoom that fits the view
    paper_ids: set[str] = set()
    named: set[str] = set()
    nodes = []
    for n in sorted(view.nodes):
        d = G.nodes[n]
        papers = [n] if d.get("label") == "Paper" else papers_of(G, n)
        paper_ids.update(papers)
        row = {"id": n, "label": str(d.get("label") or ""), "name": str(d.get("name") or n),
               "x": pos[n][0], "y": pos[n][1], "degree": degree(G, n), "papers": papers,
               "size": sizes[n], "short": shorts[n], "show": shows[n]}
        aliases = [a for a in d.get("aliases") or [] if isinstance(a, str)]
        if aliases:
            row["aliases"] = aliases
        if isinstance(d.get("confidence"), int | float):
            row["confidence"] = d["confidence"]
        if d.get("label") == "Paper":
            if _text(d.get("abstract")):
                abstract = d["abstract"]
                row["abstract"] = abstract if len(abstract) <= ABSTRACT_CHARS else abstract[:ABSTRACT_CHARS] + "…"
            row["states"] = statements(G, n)
            named.update(m for _, ids in row["states"] for m in ids)
        nodes.append(row)
    edges = []
    for u, v, k, d in sorted(G.subgraph(keep).edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))):
        row = {"id": f"e{len(edges)}", "source": u, "target": v, "type": str(d.get("type") or k)}
        for key in ("evidence", "paper"):
            if _text(d.get(key)):
                row[key] = d[key]
        if isinstance(d.get("confidence"), int | float):
            row["confidence"] = d["confidence"]
        if row.get("paper"):
            paper_ids.add(f"paper:{row['paper']}")
        edges.append(row)
    papers = {}
    for p in sorted(paper_ids):
        d = G.nodes[p] if p in G else {}
        entry = {"title": str(d.get("title") or d.get("name") or p)}
        if isinstance(d.get("year"), int):
            entry["year"] = d["year"]
        if _text(d.get("url")) and SAFE_URL.match(d["url"]):
            entry["url"] = d["url"]
        papers[p] = entry
    entities = {m: {"name": str(G.nodes[m].get("name") or m), "label": str(G.nodes[m].get("label") or "")}
                for m in sorted(named - keep)}  # what a paper states that the view does not draw
    return {"title": title_of(manifest), "total": {"nodes": G.number_of_nodes(), "edges": G.number_of_edges()},
            "note": view.note, "centres": view.centres, "nodes": nodes, "edges": edges, "papers": papers,
            "entities": entities, "style": style(), "absent": absent_names(G, keep), "font": FONT}


def title_of(manifest: dict) -> str:
    """A page's title: the names of the lists its graph was built from."""
    return ", ".join(Path(str(s)).stem for s in manifest.get("sources") or []) or "kg graph"


@cache
def assets() -> dict[str, str]:
    """The page's template, script, style sheet, the library and its licence."""
    names = {"page": "page.html", "script": "view.js", "css": "view.css", "library": LIBRARY,
             "licence": "LICENSE.cytoscape"}
    return {k: data_file(HTML_DIR / f).read_text(encoding="utf-8") for k, f in names.items()}


def script_hash(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"


def render(G: nx.MultiDiGraph, view: View, manifest: dict) -> str:
    """The whole page as one string; its Content-Security-Policy lets only its own two
    scripts run (by hash) and allows no request at all."""
    a = assets()
    data = payload(G, view, manifest)
    library = "/*! Cytoscape.js licence (MIT):\n" + a["licence"].replace("*/", "* /") + "\n*/\n" + a["library"]
    csp = (f"default-src 'none'; script-src {script_hash(library)} {script_hash(a['script'])}; style-src 'unsafe-inline'; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    title = f"{data['title']}: {data['note']}"
    parts = {"csp": csp, "title": escape_html(title), "css": a["css"], "data": json_block(data),
             "library": library, "script": a["script"]}
    # one pass over the template: text put in never has its own {{...}} filled in
    return re.sub(r"\{\{(\w+)\}\}", lambda m: parts[m.group(1)], a["page"])

def escape_html(text: str) -> str:
    import html

    return html.escape(text, quote=True)
