"""Names on the graph view: the zoom from which each node's name is drawn, so that names keep
their size on the screen and never cover one another, as on the map of the field.

At zoom ``z`` a name of constant screen size covers ``1/z`` of its size in the layout's units,
so two names stop overlapping above a zoom that depends only on where they sit
(:func:`kg.sinks.html.maplayout.sep_entities`). Names are taken in the view's rank order (the
centres, then the best connected): each is drawn from the least zoom at which it overlaps no
name drawn before it, and never below ``low`` (the graph is then too small to read). Only pairs
closer than a name's reach at ``low`` can overlap above it, so a grid of that cell size finds
them: a view of thousands of nodes is labelled in a second.

Before, the view drew names at a fixed size in the layout's units, hidden below 7 px on the
screen: a view of a thousand nodes opened with no name at all.

>>> zooms = name_zooms([("a", 0, 0, "speculative decoding"), ("b", 0, 10, "LoRA"), ("c", 5000, 0, "far away")], 0.1)
>>> zooms["a"], zooms["c"], zooms["b"] > 1
(0.1, 0.1, True)
"""

from __future__ import annotations

import math
from collections import defaultdict

from kg.sinks.html.maplayout import text_box

FONT = 11  # px on screen: a node's name on the graph view
NAME_CHARS = 30  # a longer name is cut with "…" on the view (the panel shows it whole)
NEVER = 999.0  # the zoom of a name that always overlaps an earlier one (JSON has no infinity)


def short_name(name: str, limit: int = NAME_CHARS) -> str:
    """``name`` cut to ``limit`` characters with "…".

    >>> short_name("a" * 40, 10)
    'aaaaaaaaa…'
    """
    name = " ".join(str(name).split())
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def name_zooms(items: list[tuple[str, float, float, str]], low: float, font: float = FONT) -> dict[str, float]:
    """For ``(id, x, top, name)`` in priority order (``top``: where the name's first line
    starts, below its node), the zoom from which each name is drawn (at least ``low``)."""
    if not items:
        return {}
    boxes = [text_box(name, font) for _, _, _, name in items]
    cw = 2 * max(a for a, _ in boxes) / low  # beyond a cell, two names are apart at any zoom above low
    ch = max(h for _, h in boxes) / low
    grid: dict[tuple[int, int], list[int]] = defaultdict(list)
    levels: list[float] = []
    out = {}
    for i, ((node, x, top, _), (a, h)) in enumerate(zip(items, boxes, strict=True)):
        cx, cy = math.floor(x / cw), math.floor(top / ch)
        need = low
        for gx in (cx - 1, cx, cx + 1):
            for gy in (cy - 1, cy, cy + 1):
                for j in grid.get((gx, gy), ()):
                    _, qx, qt, _ = items[j]
                    dx, dy = abs(x - qx), qt - top  # as sep_entities, inline: a hot loop
                    zx = math.inf if dx == 0 else (a + boxes[j][0]) / dx
                    if zx <= need or zx <= levels[j]:
                        continue
                    zy = math.inf if dy == 0 else (h if dy > 0 else boxes[j][1]) / abs(dy)
                    s = min(zx, zy)
                    if levels[j] < s:
                        need = max(need, s)
        level = low if need <= low else min(math.ceil(need * 1000) / 1000, NEVER)  # up: apart at this zoom
        levels.append(level)
        grid[(cx, cy)].append(i)
        out[node] = level
    return out


__all__ = ["FONT", "NAME_CHARS", "name_zooms", "short_name"]
