"""Where the map of the field draws things, computed once in Python so that the same graph
gives the same page: areas as disks packed around their neighbours, each area's entities laid
out inside its disk, and for every name the zoom from which it is drawn.

Areas: networkx's spring layout (fixed seed) of the areas, linked by the weight between their
members, gives each area a preferred place; areas are then put down largest first, each at the
free spot nearest its preferred place (a spiral search), where neither its disk nor its name
overlaps one already put down. A disk's area is proportional to its number of members.

Names are drawn at a constant size on the screen, so at zoom ``z`` a name covers ``1/z`` of
its size in the map's units. Area names are always drawn; an entity's name is drawn from the
least zoom at which it overlaps no name drawn before it, in the map's order (the new and grown
entities of a comparison first, then by papers): the page shows more names as the reader zooms
in, and never two on top of each other.

>>> sep_entities((0, 0), 30, 14, (100, 0), 30, 14)  # side by side: apart from zoom 0.6
0.6
>>> sep_entities((0, 0), 30, 14, (0, 0), 30, 14)  # at the same place: they always overlap
inf
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.explore.fieldmap import SEED
from kg.sinks.html.select import induced

if TYPE_CHECKING:
    from kg.explore.fieldmap import FieldMap

FONT = 12  # px on screen: an entity's name
AREA_FONT = 14  # px on screen: an area's name, one member a line
CHAR, WIDE, NARROW = 0.56, 0.74, 0.3  # widths of a small letter, a capital or digit, a thin letter (share of the font size)
LINE = 1.3  # height of a line, as a share of the font size
MARGIN = 4.0  # px around a name: its outline and some air
EXTENT = 1000.0  # the map's rough width in its own units
PACK_ZOOM = 0.75  # the zoom areas are packed for (the map fitted to a window about 800 px wide)
DENSITY = 0.42  # share of a disk its entities cover
PAD = 4.0  # units kept free around an entity
GAP = 14.0  # units between two disks
EDGES_PER_NODE = 3  # an entity's strongest links drawn
MIN_SIZE, MAX_SIZE = 8.0, 44.0  # diameters of the least and most named entity


@dataclass(frozen=True)
class Placed:
    """Positions and diameters of entities, disks of areas (x, y, radius), the zoom from which
    each entity's name is drawn, and the links drawn (sorted id pairs)."""

    nodes: dict[str, tuple[float, float]]
    sizes: dict[str, float]
    areas: dict[int, tuple[float, float, float]]
    shows: dict[str, float]
    edges: tuple[tuple[str, str], ...]


def text_width(line: str, font: float) -> float:
    """The width of a line in px, near what a browser's sans-serif font draws (capitals and
    digits are wider than small letters)."""
    return font * sum(WIDE if c.isupper() or c.isdigit() or c in "mwMW" else NARROW if c in " .,;:'ijlft|!" else
                      CHAR for c in line)


def text_box(text: str, font: float) -> tuple[float, float]:
    """Half the width and the height, in px, of ``text`` (lines split at ``\\n``) with its
    white outline and a margin around it."""
    lines = text.split("\n")
    return max(text_width(x, font) for x in lines) / 2 + MARGIN, len(lines) * LINE * font + 2 * MARGIN


def sep_entities(p1, a1, h1, p2, a2, h2) -> float:
    """The zoom above which the names below two nodes no longer overlap: ``p`` is where a name
    starts (x centre, y top), ``a`` its half width and ``h`` its height in px."""
    dx, dy = abs(p1[0] - p2[0]), p2[1] - p1[1]
    zx = math.inf if dx == 0 else (a1 + a2) / dx
    upper = h1 if dy > 0 else h2  # the name higher up reaches down to the other
    zy = math.inf if dy == 0 else upper / abs(dy)
    return round(min(zx, zy), 4)


def sep_area(p, a, h, q, aa, ah) -> float:
    """As :func:`sep_entities`, for an entity's name starting at ``p`` and an area's name
    ending at ``q`` (its x centre and bottom: area names sit above their disk)."""
    if p[1] >= q[1]:
        return 0.0
    dx = abs(p[0] - q[0])
    zx = math.inf if dx == 0 else (a + aa) / dx
    return round(min(zx, (h + ah) / (q[1] - p[1])), 4)


def place(m: FieldMap, names: dict[str, str], area_names: dict[int, str]) -> Placed:
    """Everything the page draws where (the rules are in the module's docstring); ``names``
    are the entities' display names, ``area_names`` the areas' (lines split by ``\\n``)."""
    import networkx as nx

    H = nx.Graph()
    H.add_nodes_from(m.entities)
    for (a, b), w in sorted(m.weights.items()):
        H.add_edge(a, b, weight=w, assoc=w / (m.papers[a] * m.papers[b]) ** 0.5)
    top = max(m.papers.values(), default=1)
    sizes = {e: round(MIN_SIZE + (MAX_SIZE - MIN_SIZE) * math.sqrt(m.papers[e] / top), 1) for e in m.entities}
    radius = {a.id: math.sqrt(sum((sizes[e] / 2 + PAD) ** 2 for e in a.members) / DENSITY) + PAD for a in m.areas}
    centres = _pack(H, m, radius, area_names)
    nodes: dict[str, tuple[float, float]] = {}
    for a in m.areas:
        cx, cy = centres[a.id]
        inner = _inside(H, a.members, sizes, radius[a.id])
        for e in a.members:
            nodes[e] = (round(cx + inner[e][0], 1), round(cy + inner[e][1], 1))
    areas = {a.id: (round(centres[a.id][0], 1), round(centres[a.id][1], 1), round(radius[a.id], 1)) for a in m.areas}
    shows = _shows(m, nodes, sizes, names, areas, area_names)
    return Placed(nodes, sizes, areas, shows, _edges(H))


def _inside(H, members: tuple[str, ...], sizes: dict[str, float], radius: float) -> dict[str, tuple[float, float]]:
    """Positions of an area's entities around its centre: the spring layout's angles, its
    order of distances from the centre spread evenly over the disk, then overlaps pushed apart."""
    import networkx as nx

    if len(members) == 1:
        return {members[0]: (0.0, 0.0)}
    raw = nx.spring_layout(induced(H, members), weight="assoc", seed=SEED, iterations=120)
    centre = [sum(raw[e][i] for e in members) / len(members) for i in (0, 1)]
    by_distance = sorted(members, key=lambda e: (math.hypot(raw[e][0] - centre[0], raw[e][1] - centre[1]), e))
    room = radius - MAX_SIZE / 4
    pos = {}
    for rank, e in enumerate(by_distance):
        angle = math.atan2(raw[e][1] - centre[1], raw[e][0] - centre[0])
        r = room * math.sqrt((rank + 0.5) / len(members))
        pos[e] = [r * math.cos(angle), r * math.sin(angle)]
    order = sorted(members)
    for _ in range(60):
        moved = False
        for i, u in enumerate(order):
            for v in order[i + 1:]:
                dx, dy = pos[v][0] - pos[u][0], pos[v][1] - pos[u][1]
                d = math.hypot(dx, dy) or 1e-6
                need = (sizes[u] + sizes[v]) / 2 + PAD
                if d < need:
                    push = (need - d) / 2
                    ux, uy = (dx / d, dy / d) if d > 1e-6 else (1.0, 0.0)
                    pos[u][0] -= ux * push
                    pos[u][1] -= uy * push
                    pos[v][0] += ux * push
                    pos[v][1] += uy * push
                    moved = True
        for e in order:  # stay inside the disk
            d = math.hypot(*pos[e])
            if d > room:
                pos[e] = [pos[e][0] * room / d, pos[e][1] * room / d]
        if not moved:
            break
    return {e: (pos[e][0], pos[e][1]) for e in members}


def _edges(H) -> tuple[tuple[str, str], ...]:
    keep = set()
    for n in sorted(H):
        strongest = sorted(H[n].items(), key=lambda kv: (-kv[1]["assoc"], -kv[1]["weight"], kv[0]))
        keep.update(tuple(sorted((n, m))) for m, _ in strongest[:EDGES_PER_NODE])
    return tuple(sorted(keep))


def _pack(H, m: FieldMap, radius: dict[int, float], area_names: dict[int, str]) -> dict[int, tuple[float, float]]:
    import networkx as nx

    C = nx.Graph()
    C.add_nodes_from(a.id for a in m.areas)
    for u, v, d in H.edges(data=True):
        a, b = m.area_of[u], m.area_of[v]
        if a != b:
            w = C.get_edge_data(a, b, {"weight": 0.0})["weight"]
            C.add_edge(a, b, weight=w + d["assoc"])
    pref = nx.spring_layout(C, weight="weight", seed=SEED, iterations=200) if len(C) > 1 else {a: (0.0, 0.0) for a in C}
    labels = {a: text_box(area_names[a], AREA_FONT) for a in C}
    placed: list[tuple[float, float, float, float, float]] = []  # x, y, r, label half width, label height
    out = {}
    golden = math.pi * (3 - math.sqrt(5))
    for a in m.areas:
        px, py = (float(c) * EXTENT / 2 for c in pref[a.id])
        r = radius[a.id]
        lw, lh = (v / PACK_ZOOM for v in labels[a.id])
        for i in range(20000):
            step = 6.0 * math.sqrt(i)
            x, y = px + step * math.cos(i * golden), py + step * math.sin(i * golden)
            if not any(_clash((x, y, r, lw, lh), other) for other in placed):
                break
        placed.append((x, y, r, lw, lh))
        out[a.id] = (x, y)
    return out


def _clash(one, two) -> bool:
    x1, y1, r1, w1, h1 = one
    x2, y2, r2, w2, h2 = two
    if math.hypot(x1 - x2, y1 - y2) < r1 + r2 + GAP:
        return True
    boxes = [(x1 - w1, y1 - r1 - h1, x1 + w1, y1 - r1), (x2 - w2, y2 - r2 - h2, x2 + w2, y2 - r2)]
    b1, b2 = boxes
    if b1[0] < b2[2] and b2[0] < b1[2] and b1[1] < b2[3] and b2[1] < b1[3]:
        return True
    for (bx0, by0, bx1, by1), (cx, cy, r) in ((b1, (x2, y2, r2)), (b2, (x1, y1, r1))):
        nx_, ny = min(max(cx, bx0), bx1), min(max(cy, by0), by1)
        if math.hypot(cx - nx_, cy - ny) < r + GAP / 2:
            return True
    return False


def _shows(m: FieldMap, nodes, sizes, names, areas, area_names) -> dict[str, float]:
    order = sorted(m.entities, key=lambda e: (not (m.changes.get(e) and m.changes[e].status), -m.papers[e], e))
    area_boxes = [((x, y - r), *text_box(area_names[a], AREA_FONT)) for a, (x, y, r) in areas.items()]
    done: list[tuple[tuple[float, float], float, float, float]] = []
    shows = {}
    for e in order:
        a, h = text_box(names[e], FONT)
        p = (nodes[e][0], nodes[e][1] + sizes[e] / 2)
        need = max((sep_area(p, a, h, q, qa, qh) for q, qa, qh in area_boxes), default=0.0)
        for q, qa, qh, level in done:
            s = sep_entities(p, a, h, q, qa, qh)
            if level < s:
                need = max(need, s)
        level = round(need, 3)
        shows[e] = level
        done.append((p, a, h, level))
    return shows


__all__ = ["FONT", "AREA_FONT", "Placed", "place", "sep_area", "sep_entities", "text_box"]
