"""The GraphML sink: the graph as networkx writes it, with values made XML-safe."""

from __future__ import annotations

import json
import re
from pathlib import Path

import networkx as nx

from kg.errors import ExportError

_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_value(v):
    if isinstance(v, list | tuple | dict):
        v = json.dumps(v, ensure_ascii=False)
    return _XML_BAD.sub("\ufffd", v) if isinstance(v, str) else v


def write_graphml(G: nx.MultiDiGraph, path: Path) -> None:
    """GraphML via networkx: lists become JSON strings, XML-invalid characters U+FFFD."""
    from kg.io.atomic import atomic_write

    H = nx.MultiDiGraph()
    for n in sorted(G.nodes):
        H.add_node(_xml_value(n), **{k: _xml_value(v) for k, v in sorted(G.nodes[n].items()) if v is not None})
    for u, v, k, d in sorted(G.edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))):
        H.add_edge(_xml_value(u), _xml_value(v), key=_xml_value(str(k)),
                   **{a: _xml_value(b) for a, b in sorted(d.items()) if b is not None})
    try:
        with atomic_write(path, "wb") as fh:
            nx.write_graphml(H, fh)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
