"""The Neo4j sink: pure Cypher builders, the batched loader and read-only queries.

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
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from kg.defaults import NEO4J_BATCH, NEO4J_URI, NEO4J_USER
from kg.errors import ExportError, GraphDamaged, Neo4jUnavailable, QueryError
from kg.schema import DISPLAY, EDGE_PROPS, LABELS, RELATIONS, VENUE
from kg.sinks.neo4j.display import display_names, venues

if TYPE_CHECKING:
    import networkx as nx
    from neo4j import Driver

ENTITY = "Entity"  # the abstract parent label every entity node also carries
DEFAULT_URI, DEFAULT_USER, DEFAULT_BATCH = NEO4J_URI, NEO4J_USER, NEO4J_BATCH  # kg.defaults
INDEXED_PROPS = ("name", "year", "family")  # a range index wherever a label declares one
MODES = ("batch", "row")
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")

Progress = Callable[[str, int | None], Callable[[int], None] | None]


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


# ---------------------------------------------------------------- connecting


def safe_uri(uri: str) -> str:
    """The URI without any user:password@ part, query string or fragment, for messages
    (a query string may carry a token or a password).

    >>> safe_uri("neo4j://me:secret@db.example.org:7687")
    'neo4j://db.example.org:7687'
    >>> safe_uri("bolt://db:7687?password=hunter2#x")
    'bolt://db:7687?…'
    """
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "<unparsable URI>"
    netloc = parts.netloc.rpartition("@")[2]
    hidden = "…" if parts.query or parts.fragment else ""
    return parts._replace(netloc=netloc, query=hidden, fragment="").geturl()


BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def check_uri(uri: str) -> None:
    """Refuse URIs kg cannot use (HTTP, user:password@, no scheme) with a message saying why.

    >>> check_uri("neo4j+s://abc.databases.neo4j.io")
    >>> check_uri("http://127.0.0.1:7474")
    Traceback (most recent call last):
    kg.errors.Neo4jUnavailable: cannot use the Neo4j URI http://127.0.0.1:7474: kg talks Bolt; use bolt://host:7687 or neo4j://host:7687 (7474 is the HTTP port of Browser)
    """
    where = safe_uri(uri)
    scheme, sep, rest = uri.partition("://")
    if not sep or scheme.lower() not in BOLT_SCHEMES:
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {where}: kg talks Bolt; use bolt://host:7687 "
                               "or neo4j://host:7687 (7474 is the HTTP port of Browser)")
    if "@" in rest.split("/", 1)[0]:
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {where}: put the user and password in "
                               "NEO4J_USERNAME and NEO4J_PASSWORD, not in the URI")


def _unreachable(uri: str, why: str = "") -> Neo4jUnavailable:
    why = f" ({why})" if why else ""
    return Neo4jUnavailable(f"cannot reach Neo4j at {safe_uri(uri)}{why}: start a Neo4j 5 server, or "
                            "give the address of yours (NEO4J_URI, or the uri argument)")


def translate(exc: Exception, uri: str, user: str = DEFAULT_USER, database: str | None = None,
              password_given: bool = True) -> Exception:
    """The kg error for a driver exception raised while talking to the server at ``uri``."""
    from neo4j.exceptions import (
        AuthError,
        Neo4jError,
        ServiceUnavailable,
        SessionExpired,
        TransientError,
    )

    code = getattr(exc, "code", None) or ""
    where = safe_uri(uri)
    if isinstance(exc, AuthError) or code.startswith("Neo.ClientError.Security."):
        if "RateLimit" in code:
            return Neo4jUnavailable(f"Neo4j at {where} locked user '{user}' after failed logins; "
                                    "wait a few seconds, then check NEO4J_PASSWORD")
        hint = "check NEO4J_USERNAME and NEO4J_PASSWORD" if password_given else \
            "no password was given: set NEO4J_PASSWORD or pass --password"
        return Neo4jUnavailable(f"Neo4j at {where} refused the credentials of user '{user}': {hint}")
    if code == "Neo.ClientError.Database.DatabaseNotFound":
        return Neo4jUnavailable(f"Neo4j at {where} has no database '{database}': leave NEO4J_DATABASE "
                                "unset for the default one (Community serves only 'neo4j')")
    if isinstance(exc, ServiceUnavailable | SessionExpired | OSError):
        return _unreachable(uri)
    if isinstance(exc, TransientError) or code.startswith("Neo.TransientError."):
        # the server, not the request: a database stopping or restarting, a lock timeout, memory
        return Neo4jUnavailable(f"Neo4j at {where} could not do it now ({exc.message or code}): check the "
                                "server is running and has recovered, then run the command again (kg load "
                                "is idempotent: what was loaded stays, nothing is doubled)")
    if isinstance(exc, Neo4jError):
        return QueryError(f"Neo4j refused the statement: {exc.message or code}")
    return exc


def connect(uri: str = DEFAULT_URI, user: str = DEFAULT_USER, password: str | None = None,
            database: str | None = None) -> Driver:
    """A driver that has reached the server, logged in and found ``database``.

    Raises :class:`kg.errors.Neo4jUnavailable` (exit code 3) with a one-line message otherwise.
    """
    from neo4j import GraphDatabase
    from neo4j.exceptions import DriverError

    check_uri(uri)
    try:
        driver = GraphDatabase.driver(uri, auth=(user, password) if password is not None else None,
                                      connection_acquisition_timeout=30,
                                      notifications_min_severity="OFF")
    except (ValueError, DriverError):  # the driver's message repeats the URI: keep it out
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {safe_uri(uri)}: write it as "
                               f"scheme://host:port, e.g. {DEFAULT_URI}") from None
    try:  # no managed transaction here: those retry an unreachable server for 30 s
        driver.verify_connectivity()
        with driver.session(database=database) as s:
            s.run("RETURN 1").consume()
    except ValueError:  # e.g. a port that is not a number
        driver.close()
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {safe_uri(uri)}: write it as "
                               f"scheme://host:port, e.g. {DEFAULT_URI}") from None
    except Exception as exc:
        driver.close()
        raise translate(exc, uri, user, database, password is not None) from None
    return driver


# ---------------------------------------------------------------- loading


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What a load did: rows sent, what the server created, and the time each phase took."""

    nodes: int
    relationships: int
    nodes_created: int
    relationships_created: int
    node_seconds: float
    relationship_seconds: float
    mode: str = "batch"
    others: int = 0  # papers of another graph the database held, kept beside this one (not wiped)

    @property
    def seconds(self) -> float:
        return self.node_seconds + self.relationship_seconds


def ensure_schema(driver: Driver, database: str | None = None) -> list[str]:
    """Create the constraints and indexes (idempotent) and wait until they are online."""
    stmts = schema_statements()
    with driver.session(database=database) as s:
        for q in stmts:
            s.run(q).consume()
        s.run("CALL db.awaitIndexes(300)").consume()
    return stmts


def wipe(driver: Driver, database: str | None = None) -> int:
    """Delete every kg node and its relationships, in batches; returns how many nodes went."""
    total = 0
    with driver.session(database=database) as s:
        while n := s.execute_write(lambda tx: tx.run(wipe_query()).single()["n"]):
            total += n
    return total


def _write(tx, query: str, params: dict, sent: int) -> tuple[int, int, int]:
    """(rows written, nodes created, relationships created) of one statement."""
    res = tx.run(query, params)
    records = list(res)
    c = res.consume().counters
    done = records[0]["n"] if records else sent  # relationship queries count what they matched
    return done, c.nodes_created, c.relationships_created


def load(G: nx.MultiDiGraph, driver: Driver, *, database: str | None = None,
         batch_size: int = DEFAULT_BATCH, mode: str = "batch", wipe_first: bool = False,
         progress: Progress | None = None, uri: str = DEFAULT_URI) -> LoadResult:
    """MERGE the graph into Neo4j: constraints, then nodes per label, then relationships.

    ``mode="batch"`` sends ``batch_size`` rows per ``UNWIND`` statement, one managed write
    transaction per batch (retried on transient errors). ``mode="row"`` runs one MERGE per row
    in its own transaction: the naive baseline for benchmarks. Loading the same graph again
    changes nothing; loading a bigger graph over a smaller one adds only the difference. Papers
    of another graph already in the database stay (``LoadResult.others`` counts them) unless
    ``wipe_first``.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    nrows, rrows = node_rows(G), relationship_rows(G)  # validates every label and type first
    others = 0
    try:
        ensure_schema(driver, database)
        if wipe_first:
            wipe(driver, database)
        else:
            with driver.session(database=database) as s:
                found = list(s.run(foreign_papers_query(), {"ids": [r["id"] for r in nrows.get("Paper", ())]}))
            others = int(found[0]["n"]) if found else 0
        n_stats, t_nodes = _run_groups(driver, database, mode, batch_size, progress, "loading nodes",
                                       [(merge_nodes_query(lab), merge_node_row_query(lab), rows)
                                        for lab, rows in sorted(nrows.items())])
        r_stats, t_rels = _run_groups(driver, database, mode, batch_size, progress, "loading relationships",
                                      [(merge_relationships_query(*g), merge_relationship_row_query(*g), rows)
                                       for g, rows in sorted(rrows.items())])
    except Exception as exc:
        err = translate(exc, uri, database=database)
        if err is exc:
            raise
        raise err from None
    sent = sum(map(len, rrows.values()))
    if r_stats[0] != sent:
        raise GraphDamaged(f"{sent - r_stats[0]} of {sent} relationships were not loaded because an end "
                          "node is missing in Neo4j; reload with --wipe")
    return LoadResult(G.number_of_nodes(), sent, n_stats[1], r_stats[2], t_nodes, t_rels, mode, others)


def _run_groups(driver, database, mode, batch_size, progress, desc, groups):
    total = sum(len(rows) for _, _, rows in groups)
    tick = progress(desc, total) if progress else None
    stats = [0, 0, 0]
    t0 = time.perf_counter()
    with driver.session(database=database) as s:
        for batch_q, row_q, rows in groups:
            if mode == "row":
                for row in rows:
                    got = s.execute_write(_write, row_q, row, 1)
                    stats = [a + b for a, b in zip(stats, got, strict=True)]
                    if tick:
                        tick(1)
                continue
            for chunk in batches(rows, batch_size):
                got = s.execute_write(_write, batch_q, {"rows": chunk}, len(chunk))
                stats = [a + b for a, b in zip(stats, got, strict=True)]
                if tick:
                    tick(len(chunk))
    return stats, time.perf_counter() - t0


def count_graph(driver: Driver, database: str | None = None) -> tuple[int, int]:
    """(kg nodes, kg relationships) currently in the database."""
    with driver.session(database=database) as s:
        n = s.execute_read(lambda tx: tx.run(count_nodes_query()).single()["n"])
        r = s.execute_read(lambda tx: tx.run(count_relationships_query()).single()["n"])
    return n, r


# ---------------------------------------------------------------- queries


_PARAM_LINE = re.compile(r"\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*;?\s*\Z")


@dataclass(frozen=True, slots=True)
class CypherScript:
    """A query file: the statement, and the ``:param name => expression`` lines it carries."""

    query: str
    param_examples: dict[str, str]


def parse_cypher(text: str) -> CypherScript:
    """Split Browser ``:param`` lines from the statement; drop one trailing semicolon.

    >>> s = parse_cypher("// Papers using a technique.\\n:param t => 'x';\\nMATCH (n) RETURN n;\\n")
    >>> s.param_examples, s.query
    ({'t': "'x'"}, '// Papers using a technique.\\nMATCH (n) RETURN n')
    """
    params: dict[str, str] = {}
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith(":"):
            m = _PARAM_LINE.match(line)
            if not m:
                raise QueryError(f"unsupported Browser command line {line.strip()!r}: only "
                                 "':param name => value' lines are understood")
            params[m.group(1)] = m.group(2)
        else:
            lines.append(line)
    query = "\n".join(lines).strip()
    query = query[:-1].rstrip() if query.endswith(";") else query
    if not query:
        raise QueryError("the query is empty")
    return CypherScript(query, params)


def read_cypher_file(path: Path) -> CypherScript:
    try:
        return parse_cypher(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        from kg.errors import InputError

        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


@dataclass(frozen=True, slots=True)
class QueryResult:
    keys: list[str]
    rows: list[dict]
    warnings: tuple[str, ...] = ()  # the server's notifications of severity WARNING
    defaults: tuple[tuple[str, Any], ...] = ()  # parameters a ``:param`` line gave, as the server evaluated them


def run_cypher(driver: Driver, query: str | CypherScript, params: dict | None = None, *,
               write: bool = False, database: str | None = None, uri: str = DEFAULT_URI) -> QueryResult:
    """Run one statement; read-only (a READ transaction) unless ``write``.

    ``:param`` examples of a :class:`CypherScript` fill the parameters not given in ``params``
    (the server evaluates the expression, as Browser does). Values come back as plain Python:
    nodes and relationships as dicts of their properties plus ``_labels`` / ``_type``.
    """
    from neo4j.exceptions import Neo4jError

    script = query if isinstance(query, CypherScript) else CypherScript(query, {})
    params = dict(params or {})
    given = set(params)
    if not write:
        for text in (script.query, *script.param_examples.values()):
            check_read_only(text)
    try:
        with driver.session(database=database, notifications_min_severity="WARNING") as s:
            for name, expr in script.param_examples.items():
                if name not in params:
                    params[name] = s.execute_read(
                        lambda tx, e=expr: tx.run(f"RETURN {e} AS value").single()["value"])
            if write:
                keys, records, warnings = _read_all(s, script.query, params)
            else:
                keys, records, warnings = s.execute_read(_read_all, script.query, params)
    except Neo4jError as exc:
        code = exc.code or ""
        if code == "Neo.ClientError.Statement.AccessMode":
            raise QueryError("the query writes to the database; kg cypher is read-only unless "
                             "you pass --write") from None
        if code == "Neo.ClientError.Statement.ParameterMissing":
            raise QueryError(f"{exc.message}; pass each with --param name=value") from None
        if code.startswith("Neo.ClientError.Statement.") or code.startswith("Neo.ClientError.Procedure."):
            raise QueryError(f"Cypher error: {exc.message}") from None
        raise translate(exc, uri, database=database) from None
    except Exception as exc:
        err = translate(exc, uri, database=database)
        if err is exc:
            raise
        raise err from None
    defaults = tuple((k, plain(params[k])) for k in script.param_examples if k not in given)
    return QueryResult(keys, [{k: plain(r[k]) for k in keys} for r in records], warnings, defaults)


# what a READ transaction still lets through: reading files or URLs, and administration
_SIDE_EFFECTS = re.compile(
    r"\bLOAD\s+CSV\b|\bCALL\s+(?:dbms(?!\.(?:components|info)\b)|apoc\.(?:load|import|export|periodic|cypher|trigger|systemdb|do|"
    r"util\.sleep|log)|db\.(?:create|index\.fulltext\.create|clearQueryCaches|checkpoint))\b"
    r"|\bIN\s+TRANSACTIONS\b|\bTERMINATE\s+TRANSACTIONS?\b|\bSHOW\s+(?:USERS?|PRIVILEGES|ROLES?)\b",
    re.I)
_LITERALS = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.S)


def check_read_only(statement: str) -> None:
    """A :class:`~kg.errors.QueryError` for what a read-only query must not do even inside
    a READ transaction: ``LOAD CSV`` (local files, HTTP), ``dbms.*`` and side-effecting
    APOC procedures, transaction control.

    >>> check_read_only("MATCH (n) WHERE n.name = 'LOAD CSV' RETURN n")
    >>> check_read_only("CALL `dbms`.killConnection('x')")
    Traceback (most recent call last):
    ...
    kg.errors.QueryError: kg cypher is read-only: 'CALL dbms' is not run unless you pass --write
    """
    found = _SIDE_EFFECTS.search(_LITERALS.sub(" ", statement).replace("`", ""))
    if found:
        what = " ".join(found.group(0).split())
        raise QueryError(f"kg cypher is read-only: {what!r} is not run unless you pass --write")


def _read_all(tx, query: str, params: dict):
    """Keys, records and warnings of one statement (``tx``: a transaction or a session)."""
    res = tx.run(query, params)
    keys, records = list(res.keys()), list(res)
    summary = res.consume()
    warnings = tuple(dict.fromkeys(o.status_description for o in summary.gql_status_objects
                                   if o.is_notification and o.raw_severity == "WARNING"))
    return keys, records, warnings


def plain(v: Any) -> Any:
    """A driver value as plain JSON-able Python (graph objects become dicts, times strings)."""
    from neo4j.graph import Node, Path, Relationship

    if isinstance(v, Node):
        return {"_labels": sorted(v.labels), **{k: plain(x) for k, x in v.items()}}
    if isinstance(v, Relationship):
        ends = [n.get("id", n.element_id) if n is not None else None for n in (v.start_node, v.end_node)]
        return {"_type": v.type, "_start": ends[0], "_end": ends[1], **{k: plain(x) for k, x in v.items()}}
    if isinstance(v, Path):
        return {"nodes": [plain(n) for n in v.nodes], "relationships": [plain(r) for r in v.relationships]}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if v is None or isinstance(v, str | int | float | bool):
        return v
    if isinstance(v, bytes | bytearray):
        return v.hex()
    return str(v)
