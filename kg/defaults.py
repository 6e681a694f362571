"""Defaults defined once, for the library and the command line alike."""

from __future__ import annotations

from pathlib import Path

GRAPH_DIR = Path("exports")  # the graph folder kg build writes and every reader reads
BASE_IRI = "https://w3id.org/kg/"  # base of node IRIs in RDF exports
NEO4J_URI = "bolt://127.0.0.1:7687"  # the local server scripts/neo4j starts
NEO4J_USER = "neo4j"
NEO4J_BATCH = 1000  # rows per UNWIND transaction of kg load
SPARQL_HOST = "127.0.0.1"  # kg serve listens on loopback only unless told otherwise
SPARQL_PORT = 7878  # kg serve's port (the one Oxigraph's own server uses)
SPARQL_WORKERS = 2  # processes kg serve evaluates queries in (a query past its time is stopped)
SPARQL_TIMEOUT = 60.0  # seconds a kg serve query may run
SPARQL_MAX_RESULT_MB = 100  # the most results one kg serve answer sends
SPARQL_HTML_ROWS = 1000  # the most rows kg serve's page shows a browser (programs get them all)
HTML_MAX_NODES = 3000  # the most nodes kg export --format html draws (the best connected first)
HTML_DEPTH = 2  # steps from the node kg export --format html --around draws
MAP_NODES = 300  # the most entities kg map (and kg export --format html without --around) draws
MIN_CONFIDENCE = 0.0  # facts below this confidence are left out of a view (kg.confidence); 0 keeps all
