"""A read-only SPARQL 1.1 Protocol endpoint over a graph folder's persistent store.

Standard library only (``http.server``'s ``ThreadingHTTPServer``); pyoxigraph parses,
evaluates and serialises every query, so there is no SPARQL code here, only the protocol:

- ``GET /sparql?query=…``, ``POST /sparql`` with a form (``query=…``) or with the query as an
  ``application/sparql-query`` body (``/`` answers the same requests);
- results by content negotiation (``Accept``): SPARQL results JSON (the default), XML, CSV or
  TSV for SELECT and ASK; Turtle (the default), N-Triples or RDF/XML for CONSTRUCT and DESCRIBE;
  ``406`` when nothing offered is acceptable;
- ``400`` with the parser's message (line, column, caret) for a malformed query, a
  ``SERVICE`` clause (unless allowed) or a dataset in the request; ``403`` for SPARQL Update
  (the store is opened read-only); ``405`` for other methods; ``413`` for bodies over 1 MB;
- ``GET /sparql`` without a query: the SPARQL 1.1 Service Description (Turtle), or a page
  with a query form for a browser; ``GET /``: that page.

Each request uses the store of the folder's current graph, so a new ``kg build`` is served
from the next request on. CORS headers are sent only for the origins the server is given.

>>> negotiate("text/csv;q=0.5, application/sparql-results+json", list(RESULT_TYPES))
'application/sparql-results+json'
>>> negotiate("text/*", list(RESULT_TYPES))
'text/csv'
>>> negotiate("image/png", list(RESULT_TYPES)) is None
True
"""

from __future__ import annotations

import html
import ipaddress
import socket
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox

from kg.errors import QueryError, UsageError
from kg.sinks.rdf.sparql import PREFIXES, run, uses_service
from kg.sinks.rdf.store import Stores

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
MAX_BODY = 1 << 20
PATHS = ("/sparql", "/")
_SD = "http://www.w3.org/ns/sparql-service-description#"
_FORMATS = "http://www.w3.org/ns/formats/"


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


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is this machine's loopback.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0].split("%")[0]).is_loopback for i in infos)


class _Refused(Exception):
    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


class Handler(BaseHTTPRequestHandler):
    """One request of the SPARQL 1.1 Protocol (the server carries the folder's stores)."""

    server: Endpoint
    server_version = "kg-sparql"
    protocol_version = "HTTP/1.1"

    # ------------------------------------------------------------ methods

    def do_GET(self) -> None:  # noqa: N802  (http.server's names)
        url = urlsplit(self.path)
        if url.path not in PATHS:
            return self._error(HTTPStatus.NOT_FOUND, f"{url.path}: no such page; the endpoint is /sparql")
        params = parse_qs(url.query, keep_blank_values=True)
        if "query" in params or "update" in params:
            return self._answer(params)
        if url.path == "/sparql" and negotiate(self.headers.get("Accept"), ["text/turtle", "text/html"]) == "text/turtle":
            return self._send(HTTPStatus.OK, "text/turtle; charset=utf-8", self._description())
        return self._send(HTTPStatus.OK, "text/html; charset=utf-8", self._page())

    def do_HEAD(self) -> None:  # noqa: N802
        self._head_only = True
        self.do_GET()

    def do_POST(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if url.path not in PATHS:
            return self._error(HTTPStatus.NOT_FOUND, f"{url.path}: no such page; the endpoint is /sparql")
        try:
            body = self._body()
        except _Refused as exc:
            return self._error(exc.status, str(exc))
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        params = parse_qs(url.query, keep_blank_values=True)
        if kind == "application/x-www-form-urlencoded":
            try:
                params.update(parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False))
            except UnicodeDecodeError:
                return self._error(HTTPStatus.BAD_REQUEST, "the form is not UTF-8")
        elif kind == "application/sparql-query":
            try:
                params["query"] = [body.decode("utf-8")]
            except UnicodeDecodeError:
                return self._error(HTTPStatus.BAD_REQUEST, "the query is not UTF-8")
        elif kind == "application/sparql-update":
            params["update"] = [""]
        else:
            return self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                               f"{kind or 'no Content-Type'}: send application/sparql-query or a form "
                               "(application/x-www-form-urlencoded) with query=")
        return self._answer(params)

    def do_OPTIONS(self) -> None:  # noqa: N802  (a CORS preflight)
        self._send(HTTPStatus.NO_CONTENT, None, b"", {"Allow": "GET, HEAD, POST, OPTIONS"})

    def _not_allowed(self) -> None:
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, f"{self.command}: this endpoint is read-only; "
                    "use GET or POST with a query", {"Allow": "GET, HEAD, POST, OPTIONS"})

    do_PUT = do_DELETE = do_PATCH = _not_allowed  # noqa: N815

    # ------------------------------------------------------------ the query

    def _answer(self, params: dict[str, list[str]]) -> None:
        if "update" in params:
            return self._error(HTTPStatus.FORBIDDEN, "SPARQL Update is not accepted: this endpoint is "
                               "read-only (rebuild the graph with kg build to change it)")
        queries = params.get("query", [])
        if len(queries) != 1 or not queries[0].strip():
            return self._error(HTTPStatus.BAD_REQUEST, "send exactly one non-empty query parameter")
        if params.get("default-graph-uri") or params.get("named-graph-uri"):
            return self._error(HTTPStatus.BAD_REQUEST, "default-graph-uri and named-graph-uri are not "
                               "supported: the graph is the default graph; leave them out")
        text = queries[0]
        if uses_service(text) and not self.server.allow_service:
            return self._error(HTTPStatus.BAD_REQUEST, "SERVICE is refused: this endpoint does not send "
                               "queries to other endpoints (kg serve --allow-service lets it)")
        try:
            result = run(self.server.stores.get().store, text, "query", allow_service=True)
        except QueryError as exc:
            status = HTTPStatus.BAD_REQUEST if "syntax error" in str(exc) else HTTPStatus.INTERNAL_SERVER_ERROR
            return self._error(status, str(exc))
        graph = isinstance(result, ox.QueryTriples)
        offers = list(GRAPH_TYPES if graph else RESULT_TYPES)
        media = negotiate(self.headers.get("Accept"), offers)
        if media is None:
            return self._error(HTTPStatus.NOT_ACCEPTABLE, f"{self.headers.get('Accept')}: this query's "
                               f"results come as {', '.join(offers)}")
        try:
            if graph:
                payload = ox.serialize(list(result), format=GRAPH_TYPES[media], prefixes=PREFIXES)
            else:
                payload = result.serialize(format=RESULT_TYPES[media])
                if RESULT_TYPES[media] == ox.QueryResultsFormat.JSON:
                    payload += b"\n"  # as kg sparql -f json prints it
        except (OSError, ValueError, RuntimeError) as exc:  # results are lazy: evaluated here
            return self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"query failed: {str(exc)[:300]}")
        charset = "; charset=utf-8" if media.startswith("text/") or media.endswith(("json", "xml")) else ""
        self._send(HTTPStatus.OK, media + charset, payload, {"Vary": "Accept"})

    # ------------------------------------------------------------ pages

    def _endpoint_url(self) -> str:
        host = self.headers.get("Host") or "{}:{}".format(*self.server.server_address[:2])
        return f"http://{host}/sparql"

    def _description(self) -> bytes:
        """The SPARQL 1.1 Service Description of this endpoint."""
        sd = lambda name: ox.NamedNode(_SD + name)  # noqa: E731
        me, rdf_type = ox.NamedNode(self._endpoint_url()), ox.NamedNode(PREFIXES["rdf"] + "type")
        dataset, default = ox.BlankNode(), ox.BlankNode()
        triples = [ox.Triple(me, rdf_type, sd("Service")), ox.Triple(me, sd("endpoint"), me),
                   ox.Triple(me, sd("supportedLanguage"), sd("SPARQL11Query")),
                   ox.Triple(me, sd("defaultDataset"), dataset), ox.Triple(dataset, rdf_type, sd("Dataset")),
                   ox.Triple(dataset, sd("defaultGraph"), default), ox.Triple(default, rdf_type, sd("Graph"))]
        for name in ("SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV",
                     "Turtle", "N-Triples", "RDF_XML"):
            triples.append(ox.Triple(me, sd("resultFormat"), ox.NamedNode(_FORMATS + name)))
        return ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes={"sd": _SD, "formats": _FORMATS})

    def _page(self) -> bytes:
        url = html.escape(self._endpoint_url())
        folder = html.escape(str(self.server.stores.folder))
        example = html.escape("SELECT ?task (COUNT(?p) AS ?papers) WHERE {\n  ?p kg:addresses/rdfs:label ?task\n}"
                              "\nGROUP BY ?task ORDER BY DESC(?papers) LIMIT 10")
        return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>kg SPARQL endpoint</title></head>
<body style="font-family: sans-serif; max-width: 50em">
<h1>kg SPARQL endpoint</h1>
<p>SPARQL 1.1 queries (read-only) over the graph in <code>{folder}</code> at <code>{url}</code>.
Standard prefixes (kg:, rdfs:, skos:, schema:, dcterms:, prov:, ...) need no declaration.</p>
<form action="/sparql" method="post">
<textarea name="query" rows="8" cols="80">{example}</textarea><br>
<button type="submit">Run (SPARQL results JSON)</button></form>
<pre>curl -H 'Accept: text/csv' --data-urlencode 'query=ASK {{ ?s ?p ?o }}' {url}</pre>
<p>GET {url} with <code>Accept: text/turtle</code> gives the service description.</p>
</body></html>
""".encode()

    # ------------------------------------------------------------ plumbing

    def _body(self) -> bytes:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise _Refused(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
        if length > MAX_BODY:
            raise _Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request is over {MAX_BODY:,} bytes")
        return self.rfile.read(length) if length > 0 else b""

    def _error(self, status: HTTPStatus, message: str, headers: dict | None = None) -> None:
        self._send(status, "text/plain; charset=utf-8", (message.rstrip() + "\n").encode(), headers)

    def _send(self, status: HTTPStatus, media: str | None, payload: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        if media:
            self.send_header("Content-Type", media)
        self.send_header("Content-Length", str(len(payload)))
        origin = self.headers.get("Origin")
        if origin and (origin in self.server.cors or "*" in self.server.cors):
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
            self.send_header("Access-Control-Allow-Headers", "Accept, Content-Type")
            self.send_header("Vary", "Origin")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not getattr(self, "_head_only", False):
            self.wfile.write(payload)

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        if self.server.log:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")


class Endpoint(ThreadingHTTPServer):
    """The HTTP server: the folder's stores and the endpoint's settings."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], stores: Stores, allow_service: bool = False,
                 cors: tuple[str, ...] = (), log: bool = True):
        self.stores, self.allow_service, self.cors, self.log = stores, allow_service, cors, log
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)


def make_server(folder: str | Path, host: str = "127.0.0.1", port: int = 0, *, allow_remote: bool = False,
                allow_service: bool = False, cors: tuple[str, ...] = (), log: bool = True) -> Endpoint:
    """An endpoint for the graph folder, listening (``serve_forever()`` answers requests).
    The store is opened (built if need be) first, so the first query is fast. Binding to an
    address other than loopback needs ``allow_remote``: anyone who can reach it can read the
    graph. ``port=0`` takes a free port (``server.server_address`` says which)."""
    if not allow_remote and not is_loopback(host):
        raise UsageError(f"{host}: not a loopback address; anyone on the network could query the graph. "
                         "Bind to 127.0.0.1 (the default), or pass --allow-remote to serve it anyway")
    stores = Stores(folder)
    stores.get()
    try:
        return Endpoint((host, port), stores, allow_service, cors, log)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                         "choose another port with --port") from None


def url_of(server: Endpoint) -> str:
    """The endpoint's URL."""
    host, port = server.server_address[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/sparql"


__all__ = ["GRAPH_TYPES", "MAX_BODY", "RESULT_TYPES", "Endpoint", "Handler", "is_loopback", "make_server",
           "negotiate", "url_of"]
