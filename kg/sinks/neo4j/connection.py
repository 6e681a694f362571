"""Reaching a Neo4j server: the URIs kg accepts, a driver that has logged in, and the kg error
for each way the server or the driver fails (exit code 3 for a server that cannot be used)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from kg.defaults import NEO4J_URI, NEO4J_USER
from kg.errors import Neo4jUnavailable, QueryError

if TYPE_CHECKING:
    from neo4j import Driver

DEFAULT_URI, DEFAULT_USER = NEO4J_URI, NEO4J_USER  # kg.defaults


def safe_uri(uri: str) -> str:
    """The URI without any user:password@ part, query string or fragment, for messages
    (a query string may carry a token or a password).

    >>> safe_uri("neo4j://me:secret@db.example.org:7687")
    'neo4j://db.example.org:7687'
    >>> safe_uri("bolt://db:7687?password=hunter2#x")
    'bolt://db:7687?…'
    """
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "<unparsable URI>"
    netloc = parts.netloc.rpartition("@")[2]
    hidden = "…" if parts.query or parts.fragment else ""
    return parts._replace(netloc=netloc, query=hidden, fragment="").geturl()


BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def check_uri(uri: str) -> None:
    """Refuse URIs kg cannot use (HTTP, user:password@, no scheme) with a message saying why.

    >>> check_uri("neo4j+s://abc.databases.neo4j.io")
    >>> check_uri("http://127.0.0.1:7474")
    Traceback (most recent call last):
    kg.errors.Neo4jUnavailable: cannot use the Neo4j URI http://127.0.0.1:7474: kg talks Bolt; use bolt://host:7687 or neo4j://host:7687 (7474 is the HTTP port of Browser)
    """
    where = safe_uri(uri)
    scheme, sep, rest = uri.partition("://")
    if not sep or scheme.lower() not in BOLT_SCHEMES:
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {where}: kg talks Bolt; use bolt://host:7687 "
                               "or neo4j://host:7687 (7474 is the HTTP port of Browser)")
    if "@" in rest.split("/", 1)[0]:
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {where}: put the user and password in "
                               "NEO4J_USERNAME and NEO4J_PASSWORD, not in the URI")


def _unreachable(uri: str, why: str = "") -> Neo4jUnavailable:
    why = f" ({why})" if why else ""
    return Neo4jUnavailable(f"cannot reach Neo4j at {safe_uri(uri)}{why}: start a Neo4j 5 server, or "
                            "give the address of yours (NEO4J_URI, or the uri argument)")


def translate(exc: Exception, uri: str, user: str = DEFAULT_USER, database: str | None = None,
              password_given: bool = True) -> Exception:
    """The kg error for a driver exception raised while talking to the server at ``uri``."""
    from neo4j.exceptions import (
        AuthError,
        Neo4jError,
        ServiceUnavailable,
        SessionExpired,
        TransientError,
    )

    code = getattr(exc, "code", None) or ""
    where = safe_uri(uri)
    if isinstance(exc, AuthError) or code.startswith("Neo.ClientError.Security."):
        if "RateLimit" in code:
            return Neo4jUnavailable(f"Neo4j at {where} locked user '{user}' after failed logins; "
                                    "wait a few seconds, then check NEO4J_PASSWORD")
        hint = "check NEO4J_USERNAME and NEO4J_PASSWORD" if password_given else \
            "no password was given: set NEO4J_PASSWORD or pass --password"
        return Neo4jUnavailable(f"Neo4j at {where} refused the credentials of user '{user}': {hint}")
    if code == "Neo.ClientError.Database.DatabaseNotFound":
        return Neo4jUnavailable(f"Neo4j at {where} has no database '{database}': leave NEO4J_DATABASE "
                                "unset for the default one (Community serves only 'neo4j')")
    if isinstance(exc, ServiceUnavailable | SessionExpired | OSError):
        return _unreachable(uri)
    if isinstance(exc, TransientError) or code.startswith("Neo.TransientError."):
        # the server, not the request: a database stopping or restarting, a lock timeout, memory
        return Neo4jUnavailable(f"Neo4j at {where} could not do it now ({exc.message or code}): check the "
                                "server is running and has recovered, then run the command again (kg load "
                                "is idempotent: what was loaded stays, nothing is doubled)")
    if isinstance(exc, Neo4jError):
        return QueryError(f"Neo4j refused the statement: {exc.message or code}")
    return exc


def connect(uri: str = DEFAULT_URI, user: str = DEFAULT_USER, password: str | None = None,
            database: str | None = None) -> Driver:
    """A driver that has reached the server, logged in and found ``database``.

    Raises :class:`kg.errors.Neo4jUnavailable` (exit code 3) with a one-line message otherwise.
    """
    from neo4j import GraphDatabase
    from neo4j.exceptions import DriverError

    check_uri(uri)
    try:
        driver = GraphDatabase.driver(uri, auth=(user, password) if password is not None else None,
                                      connection_acquisition_timeout=30,
                                      notifications_min_severity="OFF")
    except (ValueError, DriverError):  # the driver's message repeats the URI: keep it out
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {safe_uri(uri)}: write it as "
                               f"scheme://host:port, e.g. {DEFAULT_URI}") from None
    try:  # no managed transaction here: those retry an unreachable server for 30 s
        driver.verify_connectivity()
        with driver.session(database=database) as s:
            s.run("RETURN 1").consume()
    except ValueError:  # e.g. a port that is not a number
        driver.close()
        raise Neo4jUnavailable(f"cannot use the Neo4j URI {safe_uri(uri)}: write it as "
                               f"scheme://host:port, e.g. {DEFAULT_URI}") from None
    except Exception as exc:
        driver.close()
        raise translate(exc, uri, user, database, password is not None) from None
    return driver
