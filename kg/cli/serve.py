"""``kg serve``: a read-only SPARQL 1.1 Protocol endpoint over the graph folder.

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> [c.name for c in app.registered_commands]
['serve']
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from kg.cli import consoles
from kg.defaults import (
    GRAPH_DIR,
    SPARQL_HOST,
    SPARQL_MAX_RESULT_MB,
    SPARQL_PORT,
    SPARQL_TIMEOUT,
    SPARQL_WORKERS,
)


def serve(
    ctx: typer.Context,
    graph: Annotated[Path, typer.Option("--graph", "-g", help="Graph folder written by kg build.")] = GRAPH_DIR,
    host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback unless --allow-remote).")] = SPARQL_HOST,
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).", min=0, max=65535)] = SPARQL_PORT,
    allow_remote: Annotated[bool, typer.Option(
        "--allow-remote", help="Let --host be an address other machines can reach (they can read the graph).")] = False,
    allow_service: Annotated[bool, typer.Option(
        "--allow-service", help="Let SERVICE clauses query remote endpoints over the network.")] = False,
    cors: Annotated[list[str] | None, typer.Option(
        "--cors", help="An origin whose web pages may query the endpoint (repeatable; * for any), e.g. for YASGUI.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not log each request.")] = False,
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", help="A host name clients may reach the endpoint by, besides IP addresses and localhost (repeatable).")] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", min=0, help="Processes queries run in (0: in the server itself, where a long query cannot be stopped).")] = SPARQL_WORKERS,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="Seconds a query may run before it is stopped (503).")] = SPARQL_TIMEOUT,
    max_result_mb: Annotated[int, typer.Option("--max-result-mb", min=1, help="The most results one answer sends, in MB.")] = SPARQL_MAX_RESULT_MB,
) -> None:
    """Serve the graph as a read-only SPARQL 1.1 endpoint (GET and POST /sparql) until Ctrl-C.

    Results by content negotiation: SPARQL results JSON, XML, CSV, TSV; Turtle or N-Triples
    for CONSTRUCT. Open http://127.0.0.1:7878/ in a browser for a query form and the named
    queries, with results as a table.

    Example: [bold]kg serve -g exports[/]  then  [bold]curl -H 'Accept: text/csv' --data-urlencode 'query=ASK { ?s ?p ?o }' http://127.0.0.1:7878/sparql[/]
    """
    from kg.sinks.rdf.endpoint import make_server, url_of

    err = consoles(ctx).err
    server = make_server(graph, host, port, allow_remote=allow_remote, allow_service=allow_service,
                         cors=tuple(cors or ()), log=not quiet, workers=workers, query_timeout=timeout,
                         max_bytes=max_result_mb << 20, allow_hosts=tuple(allow_host or ()),
                         say=lambda line: err.print(line, markup=False, soft_wrap=True))
    opened = server.stores.get()
    if opened.note:
        err.print(f"note: {opened.note}", markup=False)
    signal.signal(signal.SIGTERM, _stop)  # a service manager's stop: the same clean exit as Ctrl-C
    try:
        err.print(f"serving {graph}/ at {url_of(server)} (read-only; Ctrl-C to stop)", markup=False)
        server.serve_forever()
    except KeyboardInterrupt:
        err.print("stopped", markup=False)
    finally:
        server.server_close()


def _stop(*_args) -> None:
    raise KeyboardInterrupt


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``kg`` app."""
    app.command("serve")(serve)
