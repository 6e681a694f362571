"""CSV files for ``neo4j-admin database import full``: the bulk path into an empty database.

One node file per label and one relationship file per type, all in one ID space (``kg``) keyed
by the node id, so relationships can cross labels. Headers carry the types from
:mod:`kg.schema` (``year:long``, ``confidence:double``, ``aliases:string[]``); every string is
quoted (``""`` escapes a quote, as RFC 4180 and neo4j-admin agree), so an empty string stays
an empty string and a missing value stays missing. Array elements are separated by U+001F
(the ASCII unit separator), which names and aliases never contain.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("method:ete", label="Method", name='Explore "Then" Exploit', aliases=["ETE"], papers=1)
>>> G.add_node("paper:p1", label="Paper", name="P1", title="P1", year=2026)
>>> G.add_edge("paper:p1", "method:ete", key="PROPOSES|p1", type="PROPOSES", paper="p1", confidence=0.9)
'PROPOSES|p1'
>>> node_header("Method", [G.nodes["method:ete"]])
['id:ID(kg)', 'name', 'aliases:string[]', 'papers:long', 'merges:string[]', 'confidence:double', 'curated_by', 'curated_at', 'display']
>>> csv_line(["method:ete", 'Explore "Then" Exploit', ["ETE", "E"], 1, None], ["", "", "string[]", "long", ""])
'"method:ete","Explore ""Then"" Exploit","ETE\\x1fE",1,'
"""

from __future__ import annotations

import json
import shlex
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kg.errors import ExportError
from kg.schema import DISPLAY, EDGE_PROPS, LABELS, RELATIONS, VENUE
from kg.sinks.neo4j.cypher import label_name, node_label, rel_type_name
from kg.sinks.neo4j.display import display_names, venues

if TYPE_CHECKING:
    import networkx as nx

ID_SPACE = "kg"
ARRAY_DELIMITER = "\x1f"
ARRAY_DELIMITER_ARG = "U+001F"
_TYPES = {"string": "", "integer": "long", "float": "double", "string[]": "string[]"}


class Neo4jCsv(NamedTuple):
    """The files written and the ``neo4j-admin`` arguments that import them."""

    files: list[Path]
    args: list[str]  # after ``neo4j-admin``: database import full <db> --nodes=… --relationships=…

    def command(self, admin: str = "neo4j-admin", overwrite: bool = True) -> str:
        """The shell command line, quoted; with ``--overwrite-destination`` unless told not to."""
        extra = ["--overwrite-destination"] if overwrite else []
        return " ".join(shlex.quote(a) for a in [*admin.split(), *self.args[:4], *extra, *self.args[4:]])


def _infer(values: list[Any]) -> str:
    """Header type of a property the schema does not declare, from its values."""
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return "boolean"
    if kinds == {int}:
        return "long"
    if kinds and kinds <= {int, float}:
        return "double"
    if kinds and kinds <= {list, tuple} and all(isinstance(x, str) for v in values if v for x in v):
        return "string[]"
    return ""


def _columns(declared: list[tuple[str, str]], attrs: list[dict], skip: set[str]) -> list[tuple[str, str]]:
    """(name, header type) for the declared properties, then the other attributes seen, sorted."""
    cols = [(n, _TYPES[t]) for n, t in declared if n not in skip]
    known = {n for n, _ in cols} | skip
    extra = sorted({k for a in attrs for k in a} - known)
    return cols + [(k, _infer([a.get(k) for a in attrs])) for k in extra]


def _header(cols: list[tuple[str, str]]) -> list[str]:
    return [f"{n}:{t}" if t else n for n, t in cols]


def node_columns(label: str, attrs: list[dict]) -> list[tuple[str, str]]:
    declared = [(p.name, p.datatype) for p in (*LABELS[label].props, DISPLAY, *((VENUE,) if label == "Paper" else ()))]
    return _columns(declared, attrs, {"id", "label"})


def node_header(label: str, attrs: list[dict]) -> list[str]:
    return [f"id:ID({ID_SPACE})", *_header(node_columns(label, attrs))]


def edge_columns(attrs: list[dict]) -> list[tuple[str, str]]:
    return _columns([("key", "string")] + [(p.name, p.datatype) for p in EDGE_PROPS], attrs, {"type"})


def edge_header(attrs: list[dict]) -> list[str]:
    return [f":START_ID({ID_SPACE})", f":END_ID({ID_SPACE})", *_header(edge_columns(attrs))]


def _quote(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def csv_field(v: Any, kind: str = "") -> str:
    """One field: strings always quoted, numbers bare, None empty (a missing property)."""
    if v is None:
        return ""
    if kind == "string[]" or isinstance(v, list | tuple):
        items = [x if isinstance(x, str) else json.dumps(x) for x in v]
        if not items:
            return ""
        if any(ARRAY_DELIMITER in x for x in items):
            raise ExportError(f"an array value contains U+001F, the array delimiter of the "
                              f"neo4j-admin files: {items!r}")
        return _quote(ARRAY_DELIMITER.join(items))
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) or (kind == "double" and isinstance(v, int)):
        return repr(float(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _quote(v)
    return _quote(json.dumps(v, ensure_ascii=False, sort_keys=True) if isinstance(v, dict) else str(v))


def csv_line(values: list[Any], kinds: list[str] | None = None) -> str:
    kinds = kinds or [""] * len(values)
    return ",".join(csv_field(v, k) for v, k in zip(values, kinds, strict=True))


def write_neo4j_csv(G: nx.MultiDiGraph, out_dir: Path, database: str = "neo4j") -> Neo4jCsv:
    """Write ``nodes-<Label>.csv`` and ``relationships-<TYPE>.csv`` files for neo4j-admin import.

    Returns the files and the arguments of ``neo4j-admin database import full`` for them (the
    database name right after ``full``; add ``--overwrite-destination`` to replace a database).
    Import into a stopped server's database, start it, then ``kg load`` creates the
    constraints and indexes (and finds every node and relationship already there).
    """
    from kg.io.atomic import atomic_write

    out_dir = Path(out_dir)
    nodes: dict[str, list[tuple[str, dict]]] = defaultdict(list)
    captions, venue = display_names(G), venues(G)  # what kg load gives every node, as columns
    for n, d in sorted(G.nodes(data=True)):
        label = node_label(G, n)
        extra = {VENUE.name: venue.get(n)} if label == "Paper" else {}
        nodes[label].append((n, {**d, DISPLAY.name: captions[n], **extra}))
    edges: dict[str, list[tuple[str, str, str, dict]]] = defaultdict(list)
    for u, v, k, d in sorted(G.edges(keys=True, data=True), key=lambda e: (e[0], e[1], str(e[2]))):
        if d.get("type") not in RELATIONS:
            raise ExportError(f"edge {u!r} -> {v!r} has type {d.get('type')!r}, which kg.schema does not define")
        edges[d["type"]].append((u, v, str(k), d))
    files: list[Path] = []
    args = ["database", "import", "full", database]
    multiline = False

    def write(path: Path, header: list[str], kinds: list[str], rows) -> None:
        nonlocal multiline
        try:
            with atomic_write(path) as fh:
                fh.write(",".join(header) + "\n")
                for values in rows:
                    line = csv_line(values, kinds)
                    multiline = multiline or "\n" in line or "\r" in line
                    fh.write(line + "\n")
        except OSError as exc:
            raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
        files.append(path)

    for label in sorted(nodes):
        cols = node_columns(label, [d for _, d in nodes[label]])
        path = (out_dir / f"nodes-{label_name(label)}.csv").resolve()
        write(path, node_header(label, [d for _, d in nodes[label]]), ["", *(t for _, t in cols)],
              ([n, *(d.get(c) for c, _ in cols)] for n, d in nodes[label]))
        labels = ":".join([label] + ([label_name(LABELS[label].parent)] if LABELS[label].parent else []))
        args.append(f"--nodes={labels}={path}")
    for rtype in sorted(edges):
        attrs = [{"key": k, **d} for _, _, k, d in edges[rtype]]
        cols = edge_columns(attrs)
        path = (out_dir / f"relationships-{rel_type_name(rtype)}.csv").resolve()
        write(path, edge_header(attrs), ["", "", *(t for _, t in cols)],
              ([u, v, *(a.get(c) for c, _ in cols)] for (u, v, _, _), a in zip(edges[rtype], attrs, strict=True)))
        args.append(f"--relationships={rtype}={path}")
    args += [f"--array-delimiter={ARRAY_DELIMITER_ARG}", "--id-type=string"]
    if multiline:
        args.append("--multiline-fields=true")
    return Neo4jCsv(files, args)
