"""The Neo4j sink in one import: the statements (:mod:`.cypher`), the connection
(:mod:`.connection`), the batched load (:mod:`.loader`) and read-only queries (:mod:`.query`).

Callers import from here, so a test can put a stand-in for ``connect`` or ``run_cypher`` in
one place; each module imports the others directly.

>>> print(merge_nodes_query("Method"))
UNWIND $rows AS row
MERGE (n:Method {id: row.id})
SET n += row.props, n:Entity
"""

from __future__ import annotations

from kg.sinks.neo4j.connection import (
    BOLT_SCHEMES,
    DEFAULT_URI,
    DEFAULT_USER,
    check_uri,
    connect,
    safe_uri,
    translate,
)
from kg.sinks.neo4j.cypher import (
    ENTITY,
    INDEXED_PROPS,
    all_labels,
    batches,
    constraint_statements,
    count_nodes_query,
    count_relationships_query,
    edge_props,
    foreign_papers_query,
    index_statements,
    label_name,
    merge_node_row_query,
    merge_nodes_query,
    merge_relationship_row_query,
    merge_relationships_query,
    node_label,
    node_props,
    node_rows,
    rel_type_name,
    relationship_rows,
    schema_statements,
    wipe_query,
)
from kg.sinks.neo4j.loader import (
    DEFAULT_BATCH,
    MODES,
    LoadResult,
    Progress,
    count_graph,
    ensure_schema,
    load,
    wipe,
)
from kg.sinks.neo4j.query import (
    CypherScript,
    QueryResult,
    check_read_only,
    parse_cypher,
    plain,
    read_cypher_file,
    run_cypher,
)

__all__ = [
    "BOLT_SCHEMES", "DEFAULT_BATCH", "DEFAULT_URI", "DEFAULT_USER", "ENTITY", "INDEXED_PROPS", "MODES",
    "CypherScript", "LoadResult", "Progress", "QueryResult",
    "all_labels", "batches", "check_read_only", "check_uri", "connect", "constraint_statements",
    "count_graph", "count_nodes_query", "count_relationships_query", "edge_props", "ensure_schema",
    "foreign_papers_query", "index_statements", "label_name", "load", "merge_node_row_query",
    "merge_nodes_query", "merge_relationship_row_query", "merge_relationships_query", "node_label",
    "node_props", "node_rows", "parse_cypher", "plain", "read_cypher_file", "rel_type_name",
    "relationship_rows", "run_cypher", "safe_uri", "schema_statements", "translate", "wipe", "wipe_query",
]
