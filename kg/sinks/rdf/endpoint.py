"""A read-only SPARQL 1.1 Protocol endpoint over a graph folder's persistent store.

Standard library only (``http.server``); pyoxigraph parses, evaluates and serialises every
query (:mod:`kg.sinks.rdf.answer`), so there is no SPARQL code here, only the protocol:

- ``GET /sparql?query=…``, ``POST /sparql`` with a form (``query=…``) or with the query as an
  ``application/sparql-query`` body (``/`` answers the same requests);
- results by content negotiation (``Accept``): SPARQL results JSON (the default), XML, CSV or
  TSV for SELECT and ASK; Turtle (the default), N-Triples or RDF/XML for CONSTRUCT and DESCRIBE;
  ``406`` when nothing offered is acceptable;
- ``400`` with the parser's message (line, column, caret) for a malformed query, a
  ``SERVICE`` clause (unless allowed) or a dataset in the request; ``403`` for SPARQL Update
  (the store is opened read-only); ``405`` for other methods; ``413`` for bodies over 1 MB;
- ``GET /sparql`` without a query: the SPARQL 1.1 Service Description (Turtle), or the page
  for a browser (:mod:`kg.sinks.rdf.page`: a query form and the named queries with a field per
  parameter); ``GET /``: that page. A browser's results are an HTML table (it asks for
  ``text/html`` first, which is offered after every results format);
- ``GET /sparql?name=NAME&param=value``: a query kg ships, bound as ``kg sparql NAME -p`` binds it
  (a parameter that names an entity or a paper read as ``kg show`` reads a name, against the
  graph loaded on the first such request: :func:`kg.explore.params.resolve_names`).

Each request uses the store of the folder's current graph, so a new ``kg build`` is served
from the next request on. CORS headers are sent only for the origins the server is given.

Holding up under load and abuse: connections are served by a bounded pool of threads (beyond it
and its queue, ``503`` at once), the listen backlog is 128, a connection that sends nothing for
``socket_timeout`` seconds is closed, each query runs in a worker process that is stopped after
``timeout`` seconds (:mod:`kg.sinks.rdf.workers`) and sends at most ``max_bytes`` of results;
a ``Host`` header other than an IP address, ``localhost`` or a name the server is given
(``--allow-host``) is refused, so a web page cannot reach the endpoint through DNS rebinding;
chunked request bodies are decoded (within the 1 MB limit), and a request whose body is not read
closes its connection, so a body is never read as the next request.

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
import threading
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox

from kg.defaults import SPARQL_MAX_RESULT_MB, SPARQL_TIMEOUT, SPARQL_WORKERS
from kg.errors import KgError, UsageError
from kg.sinks.rdf.answer import GRAPH_TYPES, RESULT_TYPES, Answer, answer, negotiate
from kg.sinks.rdf.sparql import PREFIXES, uses_service
from kg.sinks.rdf.store import Stores

MAX_BODY = 1 << 20
PATHS = ("/sparql", "/")
_SD = "http://www.w3.org/ns/sparql-service-description#"
_FORMATS = "http://www.w3.org/ns/formats/"


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

    def setup(self) -> None:
        self.timeout = self.server.socket_timeout  # a connection that sends nothing is closed
        super().setup()

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (ConnectionError, TimeoutError):  # the client went away or went quiet
            self.close_connection = True

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if not self.server.host_allowed(self.headers.get("Host")):
            self.close_connection = True
            self._error(HTTPStatus.MISDIRECTED_REQUEST, f"{self.headers.get('Host')}: not a name of this endpoint; "
                        "use its address (kg serve --allow-host NAME lets a name in)")
            return False
        return True

    # ------------------------------------------------------------ methods

    def do_GET(self) -> None:  # noqa: N802  (http.server's names)
        url = urlsplit(self.path)
        if url.path not in PATHS:
            return self._error(HTTPStatus.NOT_FOUND, f"{url.path}: no such page; the endpoint is /sparql")
        params = parse_qs(url.query, keep_blank_values=True)
        if "query" in params or "update" in params or "name" in params:
            return self._answer(params)
        if url.path == "/sparql" and negotiate(self.headers.get("Accept"), ["text/turtle", "text/html"]) == "text/turtle":
            return self._send(HTTPStatus.OK, "text/turtle; charset=utf-8", self._description())
        edit = params.get("edit", [None])[0]
        return self._send(HTTPStatus.OK, "text/html; charset=utf-8", self._page(edit))

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
        notes: list[str] = []  # what reading a named query's parameters says: the log and the answer
        if "name" in params and "query" not in params:
            def say(line: str) -> None:
                notes.append(line)
                if self.server.say is not None:
                    self.server.say(line)

            try:
                params = {**params, "query": [_named(params, self.server.names, say)]}
            except KgError as exc:
                return self._error(HTTPStatus.BAD_REQUEST, str(exc))
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
            opened = self.server.stores.get()  # built here, once per graph, before a worker opens it
            if self.server.workers is not None:
                result = self.server.workers.ask(text, self.headers.get("Accept"))
            else:
                result = answer(opened.store, text, self.headers.get("Accept"), self.server.max_bytes,
                                self.server.query_timeout)
        except KgError as exc:  # the folder was removed or damaged while served
            return self._error(HTTPStatus.SERVICE_UNAVAILABLE, f"the graph cannot be read now: {exc}")
        headers = {"Vary": "Accept"} if result.status == HTTPStatus.OK else {}
        payload = result.payload
        if notes:  # a client reads them in a header, a person above the table
            headers["Kg-Note"] = "; ".join(notes).encode("ascii", "backslashreplace").decode("ascii")
            if (result.media or "").startswith("text/html"):
                shown = "".join(f'<p class="note">{html.escape(n)}</p>\n' for n in notes).encode()
                payload = payload.replace(b"</form>\n", b"</form>\n" + shown, 1)
        self._send(HTTPStatus(result.status), result.media, payload, headers or None)

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

    def _page(self, edit: str | None = None) -> bytes:
        """The page for a person (:mod:`kg.sinks.rdf.page`); ``edit`` names a shipped query
        to put in the form."""
        from kg.sinks.rdf.page import home

        query = None
        if edit:
            try:
                query = _named({"name": [edit]})
            except KgError as exc:
                query = f"# {exc}"
        return home(self._endpoint_url(), str(self.server.stores.folder), query)

    # ------------------------------------------------------------ plumbing

    def _body(self) -> bytes:
        """The request body (at most :data:`MAX_BODY`), of a length or chunked; a body that is
        refused is not read, so the connection closes after the answer."""
        coding = (self.headers.get("Transfer-Encoding") or "").strip().lower()
        try:
            if coding:
                if coding != "chunked" or self.headers.get("Content-Length") is not None:
                    raise _Refused(HTTPStatus.BAD_REQUEST, f"Transfer-Encoding {coding!r} with Content-Length, or "
                                   "other than chunked, is not accepted")
                return self._chunked()
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                raise _Refused(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
            if length > MAX_BODY or length < 0:
                raise _Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request is over {MAX_BODY:,} bytes")
            body = self.rfile.read(length) if length > 0 else b""
            if len(body) < length:
                raise _Refused(HTTPStatus.BAD_REQUEST, "the body ended before its Content-Length")
            return body
        except _Refused:
            self.close_connection = True
            raise

    def _chunked(self) -> bytes:
        body = bytearray()
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise _Refused(HTTPStatus.BAD_REQUEST, "a chunk size is not a hexadecimal number") from None
            if size < 0 or len(body) + size > MAX_BODY:
                raise _Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request is over {MAX_BODY:,} bytes")
            if size == 0:
                break
            body += self.rfile.read(size)
            if self.rfile.readline(3) not in (b"\r\n", b"\n"):
                raise _Refused(HTTPStatus.BAD_REQUEST, "a chunk does not end where its size says")
        for _ in range(100):  # trailer fields, up to the empty line
            if self.rfile.readline(8192) in (b"\r\n", b"\n", b""):
                return bytes(body)
        raise _Refused(HTTPStatus.BAD_REQUEST, "too many trailer fields")

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
        if media and media.startswith("text/html"):  # the pages run no script and load nothing
            from kg.sinks.rdf.page import CSP

            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not getattr(self, "_head_only", False):
            self.wfile.write(payload)

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        if self.server.log:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")


class Endpoint(HTTPServer):
    """The HTTP server: the folder's stores, the endpoint's settings, and a bounded pool of
    threads for its connections (a connection beyond the pool and its queue gets ``503``)."""

    request_queue_size = 128  # the listen backlog: bursts of clients wait instead of being reset
    daemon_threads = True

    def __init__(self, address: tuple[str, int], stores: Stores, allow_service: bool = False,
                 cors: tuple[str, ...] = (), log: bool = True, *, threads: int = 16, queued: int = 64,
                 socket_timeout: float = 30.0, query_timeout: float = SPARQL_TIMEOUT,
                 max_bytes: int = SPARQL_MAX_RESULT_MB << 20, workers: int = SPARQL_WORKERS, allow_hosts: tuple[str, ...] = ()):
        self.stores, self.allow_service, self.cors, self.log = stores, allow_service, cors, log
        self._graph: tuple[Path, object] | None = None  # (generation, networkx graph) for names
        self._graph_lock = threading.Lock()
        self.socket_timeout, self.query_timeout, self.max_bytes = socket_timeout, query_timeout, max_bytes
        self.allow_hosts = {h.lower().rstrip(".") for h in (*allow_hosts, "localhost")}
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        self._pool = ThreadPoolExecutor(max(1, threads), thread_name_prefix="kg-sparql")
        self._slots = threading.BoundedSemaphore(max(1, threads) + max(0, queued))
        self.workers = None
        if workers > 0:
            from kg.sinks.rdf.workers import QueryWorkers

            try:
                self.workers = QueryWorkers(stores.folder, workers, query_timeout, max_bytes)
            except BaseException:
                self.server_close()
                raise

    def names(self):
        """The graph a named query's parameters are read against (the folder's current graph,
        loaded on the first request that needs it and again after a new build)."""
        from kg.io.format import load_graph

        generation = self.stores.get().generation
        with self._graph_lock:
            if self._graph is None or self._graph[0] != generation:
                self._graph = (generation, load_graph(self.stores.folder))
            return self._graph[1]

    def say(self, line: str) -> None:
        """A note for the person running the server (its log), when it logs."""
        if self.log:
            sys.stderr.write(f"{line}\n")

    def host_allowed(self, host: str | None) -> bool:
        """Whether a request's ``Host`` names this endpoint: none (HTTP/1.0), an IP address,
        ``localhost`` or a name it was given, with its own port if any."""
        if host is None:
            return True
        url = urlsplit(f"//{host.strip()}")
        try:
            name, port = (url.hostname or "").rstrip("."), url.port
        except ValueError:
            return False
        if port is not None and port != self.server_address[1]:
            return False
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return name.lower() in self.allow_hosts

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):  # every thread busy and the queue full
            _send_busy(request, b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                               b"Retry-After: 1\r\nConnection: close\r\nContent-Length: 32\r\n\r\n"
                               b"the endpoint is busy; try again\n")
            self.shutdown_request(request)
            return
        self._pool.submit(self._serve, request, client_address)

    def _serve(self, request, client_address) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001  (one connection's failure is not the server's)
            if self.log:
                sys.stderr.write(f"{client_address[0]} connection failed: {sys.exc_info()[1]!r}\n")
        finally:
            self.shutdown_request(request)
            self._slots.release()

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)
        if getattr(self, "workers", None) is not None:
            self.workers.close()


def _named(params: dict[str, list[str]], graph=None, say=None) -> str:
    """The text of the shipped query ``name=`` names, bound to the other parameters that have a
    value (an empty form field takes the default), as ``kg sparql NAME -p k=v`` binds it: a
    parameter that names an entity or a paper is read against ``graph()`` as ``kg show`` reads a
    name, and ``say`` is told what was read so or found nothing. An unknown name or parameter
    is a :class:`~kg.errors.QueryError` that says which ones exist."""
    from kg.explore.params import ENTITY_PARAMS, resolve_names
    from kg.queries import bind_sparql, named_queries, unknown_name

    names = params.get("name", [])
    if len(names) != 1 or not names[0].strip():
        raise UsageError("send exactly one non-empty name parameter (a query kg queries lists)")
    shipped = {q.name: q.path for q in named_queries("sparql")}  # never a file of the server's
    name = names[0].strip()
    if name not in shipped:
        unknown_name(name, "sparql")
        raise UsageError(f"{name!r} is not the name of a SPARQL query kg ships (kg queries lists them)")
    given = {k: v[-1] for k, v in params.items() if k not in ("name", "query", "edit") and v and v[-1].strip()}
    text = bind_sparql(shipped[name].read_text(encoding="utf-8"), given, name)  # refuses a wrong parameter first
    if graph is not None and any(p in given for p in ENTITY_PARAMS.get(name, ())):
        found = resolve_names(graph(), name, given)
        for line in (*found.notes, *(f"warning: {w}" for w in found.warnings)):
            if say is not None:
                say(f"{name}: {line}")
        if found.params != given:
            text = bind_sparql(shipped[name].read_text(encoding="utf-8"), found.params, name)
    return text


def _send_busy(request, data: bytes) -> None:
    """Send ``data`` on a connection if it takes it at once (a busy answer), else nothing."""
    try:
        request.setblocking(False)
        request.send(data)
    except OSError:
        pass


def make_server(folder: str | Path, host: str = "127.0.0.1", port: int = 0, *, allow_remote: bool = False,
                allow_service: bool = False, cors: tuple[str, ...] = (), log: bool = True,
                workers: int = SPARQL_WORKERS, query_timeout: float = SPARQL_TIMEOUT,
                max_bytes: int = SPARQL_MAX_RESULT_MB << 20, threads: int = 16, socket_timeout: float = 30.0, allow_hosts: tuple[str, ...] = (),
                say=None) -> Endpoint:
    """An endpoint for the graph folder, listening (``serve_forever()`` answers requests).
    The store is opened (built if need be) first, so the first query is fast. Binding to an
    address other than loopback needs ``allow_remote``: anyone who can reach it can read the
    graph. ``port=0`` takes a free port (``server.server_address`` says which). Queries run in
    ``workers`` processes (0: in the serving thread, where only the sending of results can be
    stopped), each stopped after ``query_timeout`` seconds and at ``max_bytes`` of results;
    ``allow_hosts`` are names besides IP addresses and ``localhost`` the ``Host`` header may
    give; ``say`` is told when the store is built (:func:`kg.sinks.rdf.store.open_store`)."""
    if not allow_remote and not is_loopback(host):
        raise UsageError(f"{host}: not a loopback address; anyone on the network could query the graph. "
                         "Bind to 127.0.0.1 (the default), or pass --allow-remote to serve it anyway")
    stores = Stores(folder, say)
    stores.get()
    try:
        return Endpoint((host, port), stores, allow_service, cors, log, threads=threads,
                        socket_timeout=socket_timeout, query_timeout=query_timeout, max_bytes=max_bytes,
                        workers=workers, allow_hosts=allow_hosts)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                         "choose another port with --port") from None


def url_of(server: Endpoint) -> str:
    """The endpoint's URL."""
    host, port = server.server_address[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/sparql"


__all__ = ["GRAPH_TYPES", "MAX_BODY", "RESULT_TYPES", "Answer", "Endpoint", "Handler", "is_loopback", "make_server",
           "negotiate", "url_of"]
