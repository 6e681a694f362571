"""One SPARQL query answered as HTTP would send it: status, media type and bytes, with the
results streamed into a buffer that stops the query at a size and a time limit.

pyoxigraph evaluates results lazily and serialises them into any object with ``write``; the
buffer here raises once the answer is over ``max_bytes`` or past its deadline, which stops the
evaluation there: a CONSTRUCT of the whole graph costs what the limit allows, not the graph.
Work the engine does before its first row (a sort, an aggregate) is stopped by the process
that runs it (:mod:`kg.sinks.rdf.workers`), not here.

>>> negotiate("text/csv;q=0.5, application/sparql-results+json", list(RESULT_TYPES))
'application/sparql-results+json'
>>> negotiate("text/*", list(RESULT_TYPES))
'text/csv'
>>> negotiate("image/png", list(RESULT_TYPES)) is None
True
>>> import pyoxigraph as ox
>>> answer(ox.Store(), "ASK { ?s ?p ?o }", "text/csv", 1000).payload
b'false'
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from http import HTTPStatus

import pyoxigraph as ox

from kg.errors import QueryError
from kg.sinks.rdf.sparql import PREFIXES, run

#: media types of SELECT / ASK results, the default first
RESULT_TYPES = {
    "application/sparql-results+json": ox.QueryResultsFormat.JSON,
    "application/sparql-results+xml": ox.QueryResultsFormat.XML,
    "text/csv": ox.QueryResultsFormat.CSV,
    "text/tab-separated-values": ox.QueryResultsFormat.TSV,
    "application/json": ox.QueryResultsFormat.JSON,
    "application/xml": ox.QueryResultsFormat.XML,
}
#: media types of CONSTRUCT / DESCRIBE results, the default first
GRAPH_TYPES = {
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "application/rdf+xml": ox.RdfFormat.RDF_XML,
    "text/plain": ox.RdfFormat.N_TRIPLES,
}
TEXT = "text/plain; charset=utf-8"
#: a person's browser: results as a table (:mod:`kg.sinks.rdf.page`), offered after every format
#: for programs, so ``*/*`` or no Accept header still gets the format listed first
HTML = "text/html"


@dataclass(frozen=True, slots=True)
class Answer:
    """What to send: a status, a media type (None for none) and the body."""

    status: int
    media: str | None
    payload: bytes

    @classmethod
    def error(cls, status: HTTPStatus, message: str) -> Answer:
        return cls(int(status), TEXT, (message.rstrip() + "\n").encode())


def negotiate(accept: str | None, offers: list[str]) -> str | None:
    """The offer the ``Accept`` header prefers (RFC 9110: the most specific matching range
    gives an offer its weight; ties go to the earlier offer); None when none is acceptable."""
    if not accept or not accept.strip():
        return offers[0]
    ranges = []
    for part in accept.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for p in params:
            name, _, value = p.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media:
            ranges.append((media.lower(), q))
    best, best_q = None, 0.0
    for offer in offers:
        kind = offer.split("/")[0]
        matches = [(3 if m == offer else 2 if m == f"{kind}/*" else 1, q) for m, q in ranges
                   if m in (offer, f"{kind}/*", "*/*", "*")]
        if matches and (q := max(matches)[1]) > best_q:
            best, best_q = offer, q
    return best


class _TooLarge(Exception):
    pass


class _TooLate(Exception):
    pass


class _Capped:
    """A buffer that refuses to grow past ``limit`` bytes or to be written after ``deadline``."""

    def __init__(self, limit: int, deadline: float | None):
        self.data = bytearray()
        self.limit, self.deadline = limit, deadline

    def write(self, chunk: bytes) -> int:
        if len(self.data) + len(chunk) > self.limit:
            raise _TooLarge
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _TooLate
        self.data += chunk
        return len(chunk)

    def flush(self) -> None:
        pass


def answer(store: ox.Store, text: str, accept: str | None, max_bytes: int,
           seconds: float | None = None) -> Answer:
    """Evaluate ``text`` (its ``SERVICE`` use already checked) and serialise the results in the
    media type ``accept`` prefers, at most ``max_bytes`` of them, within ``seconds``."""
    deadline = time.monotonic() + seconds if seconds else None
    person = negotiate(accept, [*RESULT_TYPES, HTML]) == HTML

    def fail(status: HTTPStatus, message: str) -> Answer:
        if person:  # the message under the form that holds the query, to correct it there
            from kg.sinks.rdf.page import error_page

            return Answer(int(status), HTML_MEDIA, error_page(text, message))
        return Answer.error(status, message)

    try:
        result = run(store, text, "query", allow_service=True)
    except QueryError as exc:
        syntax = "syntax error" in str(exc)
        return fail(HTTPStatus.BAD_REQUEST if syntax else HTTPStatus.INTERNAL_SERVER_ERROR, str(exc))
    graph = isinstance(result, ox.QueryTriples)
    offers = [*(GRAPH_TYPES if graph else RESULT_TYPES), HTML]
    media = negotiate(accept, offers)
    if media is None:
        return Answer.error(HTTPStatus.NOT_ACCEPTABLE, f"{accept}: this query's results come as {', '.join(offers)}")
    out = _Capped(max_bytes, deadline)
    try:
        if media == HTML:
            _table(store, text, result, out)
        elif graph:
            ox.serialize(result, out, GRAPH_TYPES[media], prefixes=PREFIXES)
        else:
            result.serialize(out, RESULT_TYPES[media])
            if RESULT_TYPES[media] == ox.QueryResultsFormat.JSON:
                out.write(b"\n")  # as kg sparql -f json prints it
    except _TooLarge:
        return fail(HTTPStatus.BAD_REQUEST, f"the results are over {max_bytes:,} bytes, the most this "
                    "endpoint sends; ask for fewer (LIMIT, or fewer variables)")
    except _TooLate:
        return fail(HTTPStatus.SERVICE_UNAVAILABLE, f"the query took longer than {seconds:g} s and was "
                    "stopped; ask for less (LIMIT, a narrower pattern)")
    except (OSError, ValueError, RuntimeError, SyntaxError) as exc:  # results are lazy: evaluated here
        return fail(HTTPStatus.INTERNAL_SERVER_ERROR, f"query failed: {str(exc)[:300]}")
    charset = "; charset=utf-8" if media.startswith("text/") or media.endswith(("json", "xml")) else ""
    return Answer(200, media + charset, bytes(out.data))


HTML_MEDIA = HTML + "; charset=utf-8"


def _table(store: ox.Store, text: str, result, out: _Capped) -> None:
    """The results as the page of a table (:func:`kg.sinks.rdf.page.table_page`), at most
    :data:`~kg.defaults.SPARQL_HTML_ROWS` rows, read within the buffer's time."""
    from kg.defaults import SPARQL_HTML_ROWS
    from kg.sinks.rdf.page import table_page
    from kg.sinks.rdf.sparql import data_prefixes

    if isinstance(result, ox.QueryBoolean):
        names, rows, more = ["boolean"], [[ox.Literal(bool(result))]], False
    else:
        triples = isinstance(result, ox.QueryTriples)
        names = ["subject", "predicate", "object"] if triples else [v.value for v in result.variables]
        rows, more = [], False
        for item in result:
            if len(rows) == SPARQL_HTML_ROWS:
                more = True
                break
            rows.append([item.subject, item.predicate, item.object] if triples else [item[n] for n in names])
            if len(rows) % 100 == 0:
                out.write(b"")  # past the deadline: stop here
    out.write(table_page(text, names, rows, data_prefixes(store), more, SPARQL_HTML_ROWS))


__all__ = ["GRAPH_TYPES", "RESULT_TYPES", "Answer", "answer", "negotiate"]
