"""Read-only Cypher against Neo4j: query files with Browser's ``:param`` lines, the statements a
READ transaction would still let through refused, and results as plain Python."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import QueryError
from kg.sinks.neo4j.connection import DEFAULT_URI, translate

if TYPE_CHECKING:
    from neo4j import Driver


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
