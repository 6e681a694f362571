"""The sinks a graph is written to, by name: one registry behind ``kg export`` and
:meth:`kg.api.Graph.export`.

Each sink writes a whole graph to one file (a folder for ``neo4j-csv``), atomically, and
gives the same bytes for the same graph. The live Neo4j load (``kg load``) is not a file
sink: it lives in :mod:`kg.sinks.neo4j.store`.

>>> sorted(SINKS)
['graphml', 'html', 'jsonld', 'neo4j-csv', 'nt', 'ttl']
>>> SINKS["ttl"].default_name, resolve_format("turtle")
('graph.ttl', 'ttl')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import ExportError, UsageError
from kg.sinks.rdf.terms import DEFAULT_BASE, check_base

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class ExportResult:
    path: Path
    format: str
    seconds: float
    triples: int | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    detail: object = None  # what the sink returned (neo4j-csv: files and import command)


@dataclass(frozen=True)
class Sink:
    """A named way of writing a graph: ``write(G, out, base, manifest, **options)`` returns
    ``(triples, skipped, detail)``; ``options`` names the keyword options it takes (the
    HTML view's ``around``, ``depth``, ``max_nodes``)."""

    name: str
    default_name: str
    aliases: tuple[str, ...]
    write: Callable[..., tuple[int | None, dict, object]]
    options: tuple[str, ...] = ()


def _rdf(fmt: str):
    def write(G, out: Path, base: str, manifest: dict):
        from kg.sinks.rdf.render import rdf_chunks
        from kg.sinks.rdf.triples import Stats

        stats = Stats()
        write_chunks(out, rdf_chunks(G, fmt, base, manifest, stats))
        return stats.triples, dict(sorted(stats.skipped.items())), None

    return write


def _graphml(G, out: Path, base: str, manifest: dict):
    from kg.sinks.graphml import write_graphml

    write_graphml(G, out)
    return None, {}, None


def _neo4j_csv(G, out: Path, base: str, manifest: dict):
    from kg.sinks.neo4j.bulk import write_neo4j_csv

    return None, {}, write_neo4j_csv(G, out)


def _html(G, out: Path, base: str, manifest: dict, **options):
    from kg.sinks.html import write_html

    return None, {}, write_html(G, out, manifest, **options)


SINKS: dict[str, Sink] = {s.name: s for s in (
    Sink("ttl", "graph.ttl", ("turtle",), _rdf("ttl")),
    Sink("nt", "graph.nt", ("ntriples", "n-triples"), _rdf("nt")),
    Sink("jsonld", "graph.jsonld", ("json-ld",), _rdf("jsonld")),
    Sink("graphml", "graph.graphml", (), _graphml),
    Sink("neo4j-csv", "neo4j-csv", ("csv",), _neo4j_csv),  # a folder for neo4j-admin database import
    Sink("html", "graph.html", ("htm",), _html, ("around", "depth", "max_nodes", "view", "select", "diff", "folder")),
)}
FORMATS = tuple(SINKS)
_ALIASES = {a: s.name for s in SINKS.values() for a in (s.name, *s.aliases)}


def resolve_format(fmt: str) -> str:
    """A sink's name from its name or an alias (``turtle`` -> ``ttl``)."""
    name = _ALIASES.get(fmt.lower())
    if name is None:
        raise UsageError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    return name


def format_of(path: Path) -> str | None:
    """The sink a file name calls for by its extension (``.json`` is JSON-LD), or None.

    >>> format_of(Path("out/graph.ttl")), format_of(Path("g.json")), format_of(Path("g.data"))
    ('ttl', 'jsonld', None)
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return "jsonld"
    return next((s.name for s in SINKS.values() if suffix and Path(s.default_name).suffix == suffix), None)


def default_path(graph_dir: Path, fmt: str) -> Path:
    """Where ``kg export`` writes by default: ``<graph folder>/graph.<ext>``."""
    return Path(graph_dir) / SINKS[resolve_format(fmt)].default_name


def export(G: nx.MultiDiGraph, out: Path, fmt: str = "ttl", base: str = DEFAULT_BASE,
           manifest: dict | None = None, **options) -> ExportResult:
    """Write ``G`` to ``out`` with the sink ``fmt`` (a name of :data:`SINKS` or an alias);
    ``options`` go to sinks that take them (see :attr:`Sink.options`).

    >>> # export(load_graph("exports"), Path("exports/graph.ttl"), "ttl")
    >>> # export(G, Path("lora.html"), "html", around="LoRA", depth=1)
    """
    fmt = resolve_format(fmt)
    check_base(base)
    unknown = sorted(set(options) - set(SINKS[fmt].options))
    if unknown:
        takers = [s.name for s in SINKS.values() if set(unknown) <= set(s.options)]
        raise UsageError(f"{', '.join(unknown)} only apply to the {' or '.join(takers) or 'no'} export, "
                         f"not to {fmt}")
    t0 = time.perf_counter()
    out = Path(out)
    try:
        triples, skipped, detail = SINKS[fmt].write(G, out, base, manifest or {}, **options)
    except ImportError as exc:  # a sink's module or dependency is missing
        raise ExportError(f"the {fmt} export needs {exc.name or 'a module'}, which cannot be imported "
                          f"({exc}); reinstall kg or use another --format") from None
    return ExportResult(out, fmt, time.perf_counter() - t0, triples, skipped, detail)


def export_graph(graph_dir: Path, fmt: str = "ttl", out: Path | None = None,
                 base: str = DEFAULT_BASE, min_confidence: float = 0.0, **options) -> ExportResult:
    """Load the graph folder and export it (default: into the folder itself), less the facts
    below ``min_confidence`` (:mod:`kg.confidence`).

    >>> # export_graph(Path("exports"), "nt").path
    """
    from kg.io.format import load_graph, read_manifest
    from kg.io.generations import current

    check_base(base)
    where = current(Path(graph_dir))  # graph and manifest from one generation, however builds run
    G = load_graph(where, min_confidence=min_confidence)
    if resolve_format(fmt) == "html":
        options.setdefault("folder", Path(graph_dir))  # what the map compares itself with is told apart from it
    return export(G, out or default_path(graph_dir, fmt), fmt, base, read_manifest(where), **options)


def write_chunks(path: Path, chunks: Iterable[str]) -> None:
    """Write text chunks to ``path`` atomically."""
    from kg.io.atomic import atomic_write

    # Each chunk is encoded on its own: joined first, one non-ASCII character would widen a
    # whole buffer to 2 or 4 bytes a character and make encoding it several times slower.
    try:
        with atomic_write(path, "wb") as fh:
            buf: list[bytes] = []
            for c in chunks:
                buf.append(c.encode("utf-8"))
                if len(buf) >= 512:
                    fh.write(b"".join(buf))
                    buf.clear()
            fh.write(b"".join(buf))
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}; "
                          "check the folder is writable and the disk has space") from None


__all__ = ["FORMATS", "SINKS", "ExportResult", "Sink", "default_path", "export", "export_graph", "format_of",
           "resolve_format", "write_chunks"]
