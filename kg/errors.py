"""One exception root for the library, and a specific class for each kind of failure.

Every message says what went wrong and what the user can do about it. The library never
decides exit codes: the command line maps these classes to them (:data:`kg.cli.EXIT_CODES`).
"""

from __future__ import annotations


class KgError(Exception):
    """Root of every error kg raises on purpose."""


class UsageError(KgError):
    """A request kg cannot carry out as asked: an unknown format, a model folder that holds no
    model, a graph folder built with another extraction pipeline."""


class ConfigError(KgError):
    """kg's own configuration is wrong: a bad lexicon or cue line, a schema conflict, an
    optional dependency missing."""


class DataMissing(ConfigError):
    """Part of kg's own data (lexicons, cue words, ontology, queries) is missing or empty."""


class InputError(KgError):
    """An input file cannot be read at all (missing, unreadable, unknown format), or the
    inputs hold no paper."""


class ExtractionError(KgError):
    """A paper could not be extracted and no one asked to skip it."""


class GraphNotFoundError(KgError):
    """The graph folder holds no graph yet."""


class NotFound(KgError):
    """No entity or paper in the graph has the name asked for; ``suggestions`` holds the
    closest candidates (:class:`kg.explore.lookup.Candidate`), best first."""

    def __init__(self, message: str, suggestions: tuple = ()):
        super().__init__(message)
        self.suggestions = suggestions


class GraphDamaged(KgError):
    """A graph folder's files do not match their manifest or cannot be parsed (changed or cut
    after kg wrote them), or a graph names nodes it does not hold. Nothing is built on them."""


class FolderBusy(KgError):
    """Another build holds the graph folder's lock."""


class QueryError(KgError):
    """A SPARQL or Cypher query is malformed, refused or failed."""


class ExportError(KgError):
    """An output file could not be written (read-only folder, disk full); nothing was replaced."""


class ValidationFailed(KgError):
    """SHACL validation found violations."""


class Neo4jUnavailable(KgError):
    """The Neo4j server cannot be reached or refused the credentials."""


class CurationConflict(KgError):
    """Two decisions of a curation file contradict each other (one node merged into two, a
    merge cycle, a node both rejected and renamed...); the message names both lines."""
