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
