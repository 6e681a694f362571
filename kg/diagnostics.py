"""What ``kg info`` reports: kg's version, where its data lives, the graph folders under a
folder, and whether a Neo4j server answers. Nothing here writes or fails: each check reports
what it found.

>>> report = info(Path("/nonexistent"), neo4j_uri=None)
>>> report["graphs"], report["neo4j"]["reachable"]
([], None)
"""

from __future__ import annotations

import platform
import socket
from pathlib import Path
from urllib.parse import urlsplit

from kg.schema import DATA_DIR, QUERIES_DIR, SCHEMA_DIR

MAX_DEPTH = 3  # folders below the start that are searched for graphs


def graph_folders(start: Path, depth: int = MAX_DEPTH) -> list[dict]:
    """Graph folders (a ``manifest.json`` beside a ``graph.jsonl``) at most ``depth`` below
    ``start``, with what their manifests say; hidden folders and ``.kg`` generations skipped."""
    from kg.errors import KgError
    from kg.io.format import GRAPH_FILE, MANIFEST_FILE, read_manifest

    found = []

    def walk(folder: Path, level: int) -> None:
        if (folder / MANIFEST_FILE).exists() and (folder / GRAPH_FILE).exists():
            try:
                m = read_manifest(folder)
                found.append({"folder": str(folder), "papers": m.get("papers"), "nodes": m.get("nodes"),
                              "edges": m.get("edges"), "built": m.get("built"), "version": m.get("version")})
            except KgError as exc:
                found.append({"folder": str(folder), "error": str(exc)})
        if level >= depth:
            return
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
        except OSError:
            return
        for child in children:
            if child.name not in ("node_modules", "__pycache__", "site-packages"):
                walk(child, level + 1)

    if start.is_dir():
        walk(start, 0)
    return found


def neo4j_status(uri: str | None, timeout: float = 2.0) -> dict:
    """Whether something listens at the Bolt address of ``uri`` (a TCP connect, no login)."""
    if not uri:
        return {"uri": None, "reachable": None}
    from kg.sinks.neo4j.store import safe_uri

    parts = urlsplit(uri)
    host, port = parts.hostname or "localhost", parts.port or 7687
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return {"uri": safe_uri(uri), "reachable": True}
    except OSError as exc:
        return {"uri": safe_uri(uri), "reachable": False, "why": exc.strerror or str(exc)}


def info(start: Path, neo4j_uri: str | None) -> dict:
    """Everything ``kg info`` prints, as plain data."""
    from kg.version import __version__

    spans = DATA_DIR / "spans"
    return {
        "kg": __version__,
        "python": platform.python_version(),
        "data": {"package": str(DATA_DIR), "schema": str(SCHEMA_DIR), "queries": str(QUERIES_DIR),
                 "span_model": str(spans) if (spans / "meta.json").exists() else None},
        "graphs": graph_folders(start),
        "neo4j": neo4j_status(neo4j_uri),
    }


__all__ = ["graph_folders", "info", "neo4j_status"]
