"""The Neo4j sink's statements: pure Cypher builders, and the graph as their parameter rows.

Every statement is built by a small pure function below from names in :mod:`kg.schema` (and
only those: anything else raises ``ValueError``), so the text can be unit-tested without a
server. Values always travel as parameters; no Cypher is ever built from graph data.

>>> print(merge_nodes_query("Method"))
UNWIND $rows AS row
MERGE (n:Method {id: row.id})
SET n += row.props, n:Entity
>>> print(merge_relationships_query("Paper", "PROPOSES", "Method"))
UNWIND $rows AS row
MATCH (a:Paper {id: row.src})
MATCH (b:Method {id: row.dst})
MERGE (a)-[r:PROPOSES {key: row.key}]->(b)
SET r += row.props
RETURN count(r) AS n
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kg.errors import ExportError
from kg.schema import DISPLAY, EDGE_PROPS, LABELS, RELATIONS, VENUE
from kg.sinks.neo4j.display import display_names, venues

if TYPE_CHECKING:
    import networkx as nx

ENTITY = "Entity"  # the abstract parent label every entity node also carries
INDEXED_PROPS = ("name", "year", "family")  # a range index wherever a label declares one
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


# ---------------------------------------------------------------- names (schema only)


def label_name(name: str) -> str:
    """``name`` if it is a node label of the schema (or ``Entity``), else ``ValueError``."""
    if (name in LABELS or name == ENTITY) and _IDENT.match(name):
        return name
    raise ValueError(f"{name!r} is not a node label of kg.schema")


def rel_type_name(name: str) -> str:
    """``name`` if it is a relationship type of the schema, else ``ValueError``."""
    if name in RELATIONS and _IDENT.match(name):
        return name
    raise ValueError(f"{name!r} is not a relationship type of kg.schema")


def all_labels() -> tuple[str, ...]:
    """Labels kg writes: the concrete ones whose nodes have no parent, then ``Entity``."""
    return tuple(n for n, lab in LABELS.items() if lab.parent is None) + (ENTITY,)


# ---------------------------------------------------------------- pure Cypher builders


def constraint_statements() -> list[str]:
    """One uniqueness constraint on ``id`` per label (plus ``Entity``), from the schema.

    >>> constraint_statements()[0]
    'CREATE CONSTRAINT kg_paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE'
    """
    return [f"CREATE CONSTRAINT kg_{label_name(n).lower()}_id IF NOT EXISTS "
            f"FOR (n:{n}) REQUIRE n.id IS UNIQUE" for n in (*LABELS, ENTITY)]


def index_statements() -> list[str]:
    """Range indexes on name/year/family where declared, and two full-text indexes.

    ``kg_entity_names`` searches entity names and aliases, ``kg_paper_text`` titles and abstracts.
    """
    out = []
    for n, lab in LABELS.items():
        declared = {p.name for p in lab.props}
        for prop in INDEXED_PROPS:
            if prop in declared:
                out.append(f"CREATE INDEX kg_{label_name(n).lower()}_{prop} IF NOT EXISTS "
                           f"FOR (n:{n}) ON (n.{prop})")
    out.append("CREATE FULLTEXT INDEX kg_entity_names IF NOT EXISTS "
               f"FOR (n:{ENTITY}) ON EACH [n.name, n.aliases]")
    out.append("CREATE FULLTEXT INDEX kg_paper_text IF NOT EXISTS "
               "FOR (n:Paper) ON EACH [n.title, n.abstract]")
    return out


def schema_statements() -> list[str]:
    """Constraints first (they create the indexes MERGE relies on), then the other indexes."""
    return constraint_statements() + index_statements()


def _parent_set(label: str, var: str) -> str:
    parent = LABELS[label].parent if label in LABELS else None
    return f", {var}:{label_name(parent)}" if parent else ""


def merge_nodes_query(label: str) -> str:
    """One batched MERGE for all nodes of ``label``; rows are ``{id, props}``."""
    label = label_name(label)
    return (f"UNWIND $rows AS row\nMERGE (n:{label} {{id: row.id}})\n"
            f"SET n += row.props{_parent_set(label, 'n')}")


def merge_node_row_query(label: str) -> str:
    """The one-MERGE-per-row baseline: parameters ``$id`` and ``$props``."""
    label = label_name(label)
    return f"MERGE (n:{label} {{id: $id}})\nSET n += $props{_parent_set(label, 'n')}"


def merge_relationships_query(source: str, rel_type: str, target: str) -> str:
    """One batched MERGE per (source label, type, target label); rows are ``{src, dst, key, props}``.

    Both ends are matched through their label's uniqueness constraint, so each MATCH is an
    index seek; ``key`` tells apart several edges of one type between the same two nodes.
    """
    s, t, d = label_name(source), rel_type_name(rel_type), label_name(target)
    return (f"UNWIND $rows AS row\nMATCH (a:{s} {{id: row.src}})\nMATCH (b:{d} {{id: row.dst}})\n"
            f"MERGE (a)-[r:{t} {{key: row.key}}]->(b)\nSET r += row.props\nRETURN count(r) AS n")


def merge_relationship_row_query(source: str, rel_type: str, target: str) -> str:
    """The one-MERGE-per-row baseline: ``$src``, ``$dst``, ``$key``, ``$props``."""
    s, t, d = label_name(source), rel_type_name(rel_type), label_name(target)
    return (f"MATCH (a:{s} {{id: $src}})\nMATCH (b:{d} {{id: $dst}})\n"
            f"MERGE (a)-[r:{t} {{key: $key}}]->(b)\nSET r += $props\nRETURN count(r) AS n")


def _kg_label_expr() -> str:
    return "|".join(label_name(n) for n in all_labels())


def wipe_query(batch: int = 10_000) -> str:
    """Delete up to ``batch`` kg nodes (and their relationships); run until it returns 0.

    >>> wipe_query(5).startswith("MATCH (n:Paper|Venue|"), wipe_query(5).endswith("|Entity) WITH n LIMIT 5 "
    ...                                                         "DETACH DELETE n RETURN count(*) AS n")
    (True, True)
    """
    return f"MATCH (n:{_kg_label_expr()}) WITH n LIMIT {int(batch)} DETACH DELETE n RETURN count(*) AS n"


def count_nodes_query() -> str:
    """Number of kg nodes (any label of the schema)."""
    return f"MATCH (n:{_kg_label_expr()}) RETURN count(n) AS n"


def foreign_papers_query() -> str:
    """Papers in the database whose ids a graph's ``$ids`` do not list: another graph's."""
    return "MATCH (p:Paper) WHERE NOT p.id IN $ids RETURN count(p) AS n"


def count_relationships_query() -> str:
    """Number of relationships of the schema's types."""
    types = "|".join(rel_type_name(t) for t in RELATIONS)
    return f"MATCH ()-[r:{types}]->() RETURN count(r) AS n"


# ---------------------------------------------------------------- graph -> parameter rows


def _value(v: Any) -> Any:
    """A property value Neo4j can store: scalars and lists of scalars; anything else as JSON."""
    if v is None or isinstance(v, str | int | float | bool):
        return v
    if isinstance(v, list | tuple) and all(isinstance(x, str) for x in v):
        return list(v) or None
    if isinstance(v, list | tuple) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v):
        return list(v) or None
    return json.dumps(v, ensure_ascii=False, sort_keys=True)


def node_props(label: str, attrs: dict) -> dict:
    """Properties of a node: its attributes (but ``label``), with declared but absent ones as null.

    Nulls make ``SET n += props`` remove a property a newer build no longer has.
    """
    props = {p.name: None for p in LABELS[label].props if p.name != "id"}
    props.update({k: _value(v) for k, v in attrs.items() if k not in ("label", "id")})
    return props


def edge_props(attrs: dict) -> dict:
    props = {p.name: None for p in EDGE_PROPS}
    props.update({k: _value(v) for k, v in attrs.items() if k not in ("type", "key")})
    return props


def node_label(G: nx.MultiDiGraph, node: str) -> str:
    label = G.nodes[node].get("label")
    if label not in LABELS:
        raise ExportError(f"node {node!r} has label {label!r}, which kg.schema does not define; "
                          "rebuild the graph with kg build")
    return label


def node_rows(G: nx.MultiDiGraph) -> dict[str, list[dict]]:
    """Parameter rows per label: ``{"Method": [{"id": …, "props": {…}}, …], …}``; the props
    carry the node's caption for graph views (``display``) too, and a paper's its venue's name
    (``venue``)."""
    rows: dict[str, list[dict]] = defaultdict(list)
    captions, venue = display_names(G), venues(G)
    for n, attrs in G.nodes(data=True):
        label = node_label(G, n)
        props = {**node_props(label, attrs), DISPLAY.name: captions[n]}
        if label == "Paper":  # None removes a venue an earlier load set
            props[VENUE.name] = venue.get(n)
        rows[label].append({"id": n, "props": props})
    return dict(rows)


def relationship_rows(G: nx.MultiDiGraph) -> dict[tuple[str, str, str], list[dict]]:
    """Parameter rows per (source label, type, target label)."""
    rows: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for u, v, k, d in G.edges(keys=True, data=True):
        t = d.get("type")
        if t not in RELATIONS:
            raise ExportError(f"edge {u!r} -> {v!r} has type {t!r}, which kg.schema does not define; "
                              "rebuild the graph with kg build")
        rows[(node_label(G, u), t, node_label(G, v))].append(
            {"src": u, "dst": v, "key": str(k), "props": edge_props(d)})
    return dict(rows)


def batches(rows: list, size: int) -> Iterator[list]:
    for i in range(0, len(rows), size):
        yield rows[i:i + size]
