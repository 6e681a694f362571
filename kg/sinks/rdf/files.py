"""RDF files in: the syntax of a file from its extension, one table for every reader."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from kg.errors import InputError

#: file extension -> pyoxigraph's format name
EXTENSIONS = {"ttl": "ttl", "nt": "nt", "jsonld": "jsonld", "json": "jsonld", "rdf": "rdf", "owl": "rdf",
              "xml": "rdf", "nq": "nq", "trig": "trig"}


def rdf_format(path: Path) -> ox.RdfFormat:
    """The RDF syntax of ``path`` from its extension; an :class:`~kg.errors.InputError` if it
    has none kg reads.

    >>> rdf_format(Path("graph.ttl")).name
    'Turtle'
    """
    fmt = EXTENSIONS.get(Path(path).suffix.lower().lstrip("."))
    if fmt is None:
        raise InputError(f"{path}: unknown RDF format; use .ttl, .nt, .jsonld, .rdf, .nq or .trig")
    return ox.RdfFormat.from_extension(fmt)


def unreadable(path: Path, exc: Exception, what: str = "not valid RDF") -> InputError:
    """The error for an RDF file a parser refused: with line and column when it gives them."""
    if isinstance(exc, SyntaxError):
        where = f":{exc.lineno}:{exc.offset}" if getattr(exc, "lineno", None) else ""
        return InputError(f"{path}{where}: {what}: {exc.msg if where else exc}")
    return InputError(f"{path}: cannot read: {exc}")
