"""SPARQL 1.1 over the exported graph, on the embedded pyoxigraph engine.

Engine, chosen by measurement on the ICML 2024 export (2,610 papers, 241,901 triples; 2 cores,
median per query of ``queries/*.rq``; rdflib runs capped at 110 s):

============================  ==========  ===========
                              pyoxigraph  rdflib 7.6
============================  ==========  ===========
load the N-Triples            0.54 s      7.1 s
proposals / top_tasks         14 / 15 ms  140 / 67 ms
papers_using_technique        0.3 ms      33.6 s
shared_models                 24 ms       5.0 s
datasets_per_task             24 ms       11.4 s
comparisons                   67 ms       > 110 s
cooccurring_techniques        156 ms      > 110 s
shared_entities               56 ms       > 110 s
============================  ==========  ===========

On the full graph (23,545 papers, 2.0M triples; queries as shipped now) pyoxigraph loads in
5.7 s (rdflib: 57 s) and answers 14 of the 16 queries in 0.4 to 92 ms, 12x to over 1000x
faster than rdflib; proposals (9,225 rows, 80 to 100 ms) is 7x faster, and
cooccurring_techniques (a self-join of 62k technique uses) takes ~640 ms (rdflib: over
20 s). Its in-memory store finds a
pattern by walking a linked list of the subject's (or predicate's, object's) triples, about
2 us a lookup, and turning a result term into a Python object costs about 1 us: queries
of thousands of rows cost tens of milliseconds whatever their shape.

pyoxigraph 0.5 wins by 7x to 1000x, serialises SPARQL 1.1 JSON / CSV results to the letter
and reports syntax errors with line and column. rdflib remains the input of pySHACL
(:func:`kg.sinks.rdf.validate.validate`).

Data. By default the folder's current graph, from a persistent on-disk store built once per
generation from its N-Triples export (:mod:`kg.sinks.rdf.store`): reloading the export on
every call cost 1.5 to 2.5 s per query on one conference, and more on several. ``--data``
loads other files into an in-memory store instead (any RDF syntax, by extension).

Prefixes. Queries may omit ``PREFIX`` declarations for ``kg: rdf: rdfs: owl: xsd: skos:
schema: dcterms: prov: fabio: void:``: they are passed to the parser as defaults (so line
and column numbers in errors stay those of the query text as written); a ``PREFIX`` the
query declares always wins.

>>> store = load_store([])
>>> run(store, "SELECT ?x WHERE { VALUES ?x { kg:Paper } }").variables
[<Variable value=x>]
>>> run(store, "SELECT ?x WHERE {\\n  ?x ?y\\n}")  # doctest: +ELLIPSIS
Traceback (most recent call last):
kg.errors.QueryError: query:3:2: SPARQL syntax error: expected ...
    }
     ^
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from kg.errors import GraphNotFoundError, InputError, KgError, QueryError
from kg.schema import RDF_PREFIXES
from kg.sinks.rdf.files import rdf_format, unreadable
from kg.sparql_lexer import keyword_used

FORMATS = ("table", "csv", "json")
PREFIXES = dict(RDF_PREFIXES)
_ERROR_AT = re.compile(r"^error at (\d+):(\d+): (.*)$", re.S)


def read_query(query: str) -> tuple[str, str]:
    """The query text and a name for messages: a ``.rq`` file, or the text itself.

    >>> read_query("ASK {}")
    ('ASK {}', 'query')
    """
    path = Path(query)
    try:
        is_file = "\n" not in query and path.is_file()
    except (OSError, ValueError):  # too long or odd characters for a file name: it is a query
        is_file = False
    if is_file:
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise QueryError(f"{query}: cannot read the query file: {exc}") from None
    if query.endswith((".rq", ".sparql")) and "\n" not in query:
        raise QueryError(f"{query}: no such query file; pass a SPARQL query or a .rq file, "
                         "e.g. queries/proposals.rq")
    return query, "query"


def ensure_export(graph_dir: Path) -> Path:
    """The N-Triples export of the folder's current graph: a cache inside its generation
    (written when missing), so it always belongs to the graph it was made from. A stamp beside
    it (``graph.nt.json``: its size and SHA-256, and the graph it was made from) is checked
    before it is used: an export cut, edited or from elsewhere is written again, never loaded.

    >>> # ensure_export(Path("exports"))  ->  Path("exports/.kg/g000003/graph.nt")
    """
    from kg.io.format import GRAPH_FILE
    from kg.io.generations import current
    from kg.sinks import default_path, export_graph

    where = current(Path(graph_dir))
    if not (where / GRAPH_FILE).exists():
        raise GraphNotFoundError(f"no graph in {graph_dir}/ (missing {GRAPH_FILE}); build one first: "
                                 f"kg build PAPERS -o {graph_dir}, or query a file with --data FILE")
    nt = default_path(where, "nt")
    if where == Path(graph_dir) and nt.exists() and nt.stat().st_mtime_ns < (where / GRAPH_FILE).stat().st_mtime_ns:
        nt.unlink()  # a folder written by an older kg: its export may be older than its graph
    if not _stamped(nt, where):
        export_graph(where, "nt", nt)
        _stamp(nt, where)
    return nt


def _stamp_path(nt: Path) -> Path:
    return nt.with_name(nt.name + ".json")


def _graph_of(where: Path) -> str:
    from kg.io.format import GRAPH_FILE, curation_fingerprint, read_manifest

    entry = read_manifest(where).get("files", {}).get(GRAPH_FILE)
    return (str(entry.get("sha256")) if isinstance(entry, dict) else "") + curation_fingerprint(where)


def _digest(path: Path) -> tuple[int, str]:
    import hashlib

    with open(path, "rb") as fh:
        return os.fstat(fh.fileno()).st_size, hashlib.file_digest(fh, "sha256").hexdigest()


def _stamped(nt: Path, where: Path) -> bool:
    """Whether ``nt`` is the export its stamp describes, made from the graph of ``where``."""
    import json

    try:
        stamp = json.loads(_stamp_path(nt).read_bytes())
        if not isinstance(stamp, dict) or stamp.get("graph") != _graph_of(where) \
                or stamp.get("bytes") != nt.stat().st_size:
            return False
        return list(_digest(nt)) == [stamp.get("bytes"), stamp.get("sha256")]
    except (OSError, ValueError):
        return False


def _stamp(nt: Path, where: Path) -> None:
    import json

    from kg.io.atomic import atomic_write

    size, sha = _digest(nt)
    with contextlib.suppress(OSError), atomic_write(_stamp_path(nt)) as fh:
        fh.write(json.dumps({"bytes": size, "sha256": sha, "graph": _graph_of(where)}))


def load_store(paths: Iterable[Path]) -> ox.Store:
    """An in-memory pyoxigraph store with the files bulk-loaded (format from the extension)."""
    store = ox.Store()
    for path in map(Path, paths):
        if not path.is_file():
            raise InputError(f"{path}: no such data file; export one with kg export --format nt")
        try:
            store.bulk_load(path=str(path), format=rdf_format(path))
        except (SyntaxError, OSError, ValueError) as exc:
            raise unreadable(path, exc) from None
    return store


def _clean_expected(msg: str) -> str:
    """pyoxigraph lists every acceptable token, character classes included: keep it readable."""
    msg = re.sub(r"\[[^\]]*\]", "", msg.replace("\n", " "))
    head, sep, rest = msg.partition("expected one of ")
    if not sep:
        return msg.strip()
    items = [i.strip() for i in rest.split(",") if i.strip()]
    more = len(items) - 12
    return f"{head}expected one of {', '.join(items[:12])}" + (f", … ({more} more)" if more > 0 else "")


def syntax_message(text: str, exc: SyntaxError, name: str = "query") -> str:
    """``name:line:col: SPARQL syntax error: ...`` with the offending line and a caret."""
    m = _ERROR_AT.match(str(exc))
    if not m:
        return f"{name}: SPARQL syntax error: {_clean_expected(str(exc))}"
    line, col, msg = int(m.group(1)), int(m.group(2)), _clean_expected(m.group(3))
    lines = text.splitlines() or [""]
    src = lines[min(line, len(lines)) - 1]
    return f"{name}:{line}:{col}: SPARQL syntax error: {msg}\n    {src}\n    {' ' * (col - 1)}^"


def uses_service(text: str) -> bool:
    """Whether a query calls a remote endpoint (``SERVICE <…>``): the keyword as the query's
    parser reads it (:mod:`kg.sparql_lexer`), not inside an IRI, a string, a comment or an
    escaped local name.

    >>> uses_service("SELECT * { SERVICE <http://example.org/sparql> { ?s ?p ?o } }")
    True
    >>> uses_service('SELECT * { ?s kg:name "SERVICE" } # SERVICE in a comment')
    False
    >>> uses_service("SELECT * { ?s schema:a\\\\#x ?o . SERVICE <http://example.org/> { } }")
    True
    """
    return keyword_used(text, "SERVICE")


def run(store: ox.Store, text: str, name: str = "query", allow_service: bool = False):
    """Run a query; returns pyoxigraph ``QuerySolutions``, ``QueryBoolean`` or ``QueryTriples``.
    A query that calls a remote endpoint (``SERVICE``) is refused unless ``allow_service``:
    a local query should not send data over the network."""
    if not allow_service and uses_service(text):
        raise QueryError(f"{name}: SERVICE would send the query to a remote endpoint; pass "
                         "--allow-service to let it")
    try:
        return store.query(text, prefixes=PREFIXES)
    except SyntaxError as exc:
        raise QueryError(syntax_message(text, exc, name)) from None
    except Exception as exc:  # noqa: BLE001  (a remote endpoint's failure included)
        raise QueryError(f"{name}: query failed: {str(exc)[:300]}") from None


def sparql_defaults(store: ox.Store, text: str, given: Mapping[str, Any]) -> dict[str, str]:
    """The values a SPARQL query takes from the graph for the parameters not ``given``
    (:func:`kg.queries.graph_defaults`), by name; a default the graph cannot give is left out."""
    from kg.queries import graph_defaults

    out = {}
    for param, (var, query) in graph_defaults(text).items():
        if given.get(param) is not None:
            continue
        try:
            rows = list(run(store, query, f"the default of {param}"))
        except Exception:  # noqa: BLE001  (saying the default is a courtesy; the query itself reports)
            continue
        if rows and rows[0][var] is not None:
            out[param] = rows[0][var].value
    return out


def _as_solutions(result) -> ox.QuerySolutions | ox.QueryBoolean:
    """CONSTRUCT / DESCRIBE triples as ``?subject ?predicate ?object`` solutions."""
    if not isinstance(result, ox.QueryTriples):
        return result
    tmp = ox.Store()
    tmp.extend(ox.Quad(t.subject, t.predicate, t.object) for t in result)
    return tmp.query("SELECT ?subject ?predicate ?object WHERE { ?subject ?predicate ?object } "
                     "ORDER BY ?subject ?predicate ?object")


def serialize(result, fmt: str) -> bytes:
    """SPARQL 1.1 Query Results JSON or CSV, as the specs define them."""
    results_format = {"json": ox.QueryResultsFormat.JSON, "csv": ox.QueryResultsFormat.CSV}[fmt]
    return _as_solutions(result).serialize(format=results_format)


def term_text(term, prefixes: dict[str, str]) -> str:
    """A term for people: literals as their value, IRIs compacted with the prefixes."""
    from kg.sinks.rdf.terms import compact

    if term is None:
        return ""
    if isinstance(term, ox.Literal):
        return term.value
    if isinstance(term, ox.NamedNode):
        return compact(term.value, prefixes)
    return str(term)


def rows(result, prefixes: dict[str, str]) -> tuple[list[str], list[list[str]]]:
    """Column names and rows of text, for a table."""
    result = _as_solutions(result)
    if isinstance(result, ox.QueryBoolean):
        return ["boolean"], [[str(bool(result)).lower()]]
    names = [v.value for v in result.variables]
    return names, [[term_text(sol[n], prefixes) for n in names] for sol in result]


def data_prefixes(store: ox.Store) -> dict[str, str]:
    """Standard prefixes plus the export's own namespaces (from its VoID ``void:uriSpace``)."""
    from kg.sinks.rdf.terms import namespaces

    found = list(store.query("SELECT ?u WHERE { ?d void:uriSpace ?u } LIMIT 1", prefixes=PREFIXES))
    if not found:
        return dict(PREFIXES)
    try:
        return namespaces(found[0]["u"].value)
    except KgError:
        return dict(PREFIXES)


__all__ = ["FORMATS", "PREFIXES", "data_prefixes", "ensure_export", "load_store", "read_query", "rows",
           "run", "serialize", "syntax_message", "term_text"]
