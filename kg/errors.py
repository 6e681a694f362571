"""One exception root for the library; the CLI turns these into messages and exit codes.

Every message says what went wrong and what the user can do about it.
"""

from __future__ import annotations


class KgError(Exception):
    """Root of every error kg raises on purpose."""

    exit_code = 1


class InputError(KgError):
    """An input file cannot be read at all (missing, unreadable, unknown format)."""

    exit_code = 2


class RecordError(KgError):
    """One record of an input is malformed; the rest of the input is still processed."""

    def __init__(self, source: str, line: int | None, reason: str):
        self.source = source
        self.line = line
        self.reason = reason
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {reason}")


class GraphNotFoundError(KgError):
    """The graph folder holds no graph yet."""

    exit_code = 2


class GraphDamaged(KgError):
    """A graph folder's files do not match their manifest, or cannot be parsed: changed or
    cut after kg wrote them. Nothing is built on top of them."""

    exit_code = 2


class FolderBusy(KgError):
    """Another build holds the graph folder's lock."""

    exit_code = 5


class QueryError(KgError):
    """A SPARQL or Cypher query is malformed or failed."""

    exit_code = 2


class ExportError(KgError):
    """An output file could not be written (read-only folder, disk full); nothing was replaced."""

    exit_code = 4


class ValidationFailed(KgError):
    """SHACL validation found violations."""

    exit_code = 1


class Neo4jUnavailable(KgError):
    """The Neo4j server cannot be reached or refused the credentials."""

    exit_code = 3
