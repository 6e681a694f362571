"""RDF terms of an export: IRIs of node ids, literals of schema values, and one writer that
renders them in N-Triples, Turtle and JSON-LD for every serialiser (:mod:`kg.sinks.rdf.render`
and the fast N-Triples path, :mod:`kg.sinks.rdf.nt`).

IRIs. Node ids become ``BASE<label>/<rest>`` (``technique:speculative-decoding`` ->
``https://w3id.org/kg/technique/speculative-decoding``); ``<rest>`` is percent-encoded
(UTF-8, upper-case hex, never lower-cased) except ``A-Z a-z 0-9 - . _ ~ : @``, so any
paper id (``Fw4fBE2rqW``, ``aistats2020:cb62e6a3a6``, ids with spaces, ``/`` or ``#``) gives
one valid, unique IRI. Ids without a label prefix go under ``BASE/kgid/``.

>>> node_iri("paper:a b/c#d")
'https://w3id.org/kg/paper/a%20b%2Fc%23d'
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import NamedTuple
from urllib.parse import quote

from kg.defaults import BASE_IRI
from kg.errors import ExportError
from kg.schema import LABELS, RDF_PREFIXES

DEFAULT_BASE = BASE_IRI  # kg.defaults
NODE_NS = {lab.lower(): lab for lab in LABELS}  # id prefix -> label
_BASE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\x00-\x20<>\"{}|^`\\\x7f]*[/#]$")
_TTL_LOCAL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?$")
NEEDS_ESCAPE = re.compile(r'[\x00-\x1f"\\\x7f\ud800-\udfff]')
ESCAPES = {ord("\\"): "\\\\", ord('"'): '\\"', 10: "\\n", 13: "\\r", 9: "\\t", 8: "\\b", 12: "\\f"}
ESCAPES.update({c: f"\\u{c:04X}" for c in [*range(0x20), 0x7F] if c not in ESCAPES})
ESCAPES.update(dict.fromkeys(range(0xD800, 0xE000), "\ufffd"))  # lone surrogates cannot be encoded
SURROGATES = {c: "\ufffd" for c in range(0xD800, 0xE000)}
_INT = re.compile(r"^[+-]?\d+$")
CONTROL = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
# a node id that is "<label prefix>:<unreserved characters>": its IRI needs no percent-encoding
# and its dcterms:identifier literal no escaping
PLAIN_ID = re.compile(rf"(?:{'|'.join(map(re.escape, NODE_NS))}):(?!\.\.?$)[A-Za-z0-9_.~:@-]*")
_ONE_OFF = ("statement", "pair")  # namespaces of subjects written once: not worth caching


class Lit(NamedTuple):
    """An RDF literal: lexical form and datatype CURIE (``None`` for ``xsd:string``)."""

    lex: str
    dt: str | None = None


Iri = tuple[str, str]  # (prefix name, local part): expanded with :func:`namespaces`
Term = Iri | Lit


def curie(c: str) -> Iri:
    """The (prefix, local) pair of a CURIE."""
    p, local = c.split(":", 1)
    return (p, local)


A = curie("rdf:type")
STATEMENT = [curie("rdf:subject"), curie("rdf:predicate"), curie("rdf:object")]
XSD_OF = {"string": None, "string[]": None, "integer": "xsd:integer", "float": "xsd:decimal"}


def check_base(base: str) -> str:
    """Return ``base`` if it is an absolute IRI ending in ``/`` or ``#``; raise otherwise.

    >>> check_base("https://example.org/kg/")
    'https://example.org/kg/'
    """
    if not _BASE_RE.match(base):
        raise ExportError(f"invalid base IRI {base!r}: use an absolute IRI without spaces or "
                          f"<>\"{{}}|^`\\ that ends in / or #, e.g. {DEFAULT_BASE}")
    return base


def namespaces(base: str = DEFAULT_BASE) -> dict[str, str]:
    """Prefix table of an export: the standard prefixes plus one namespace per label."""
    ns = dict(RDF_PREFIXES)
    ns.update({p: f"{base}{p}/" for p in NODE_NS})
    ns.update({"statement": f"{base}statement/", "pair": f"{base}pair/", "kgid": f"{base}kgid/",
               "kgdata": base})
    return ns


def encode_local(text: str) -> str:
    """A node id's local part, percent-encoded for an IRI."""
    out = quote(text, safe=":@", errors="surrogatepass")
    return out.replace(".", "%2E") if out in (".", "..") else out


def node_term(node_id: str) -> Iri:
    """The (prefix, local) pair of a node id; see :func:`node_iri`."""
    prefix, sep, rest = node_id.partition(":")
    if sep and prefix in NODE_NS:
        return (prefix, encode_local(rest))
    return ("kgid", encode_local(node_id))


def node_iri(node_id: str, base: str = DEFAULT_BASE) -> str:
    """The IRI of a node id: stable, unique, valid for any id.

    >>> node_iri("technique:speculative-decoding", "https://example.org/")
    'https://example.org/technique/speculative-decoding'
    """
    p, local = node_term(node_id)
    return namespaces(base)[p] + local


def escape(text: str) -> str:
    r"""Escape a string for a ``"..."`` literal in N-Triples or Turtle (canonical N-Triples).

    >>> print(escape('a "b" \\ \n\t\x00'))
    a \"b\" \\ \n\t\u0000
    """
    if not NEEDS_ESCAPE.search(text):
        return text
    if CONTROL.search(text):
        return text.translate(ESCAPES)
    return text.replace("\\", "\\\\").replace('"', '\\"')  # quicker than translate() for these two


def integer_lex(v) -> str | None:
    """The canonical lexical form of an ``xsd:integer`` value, or None if ``v`` is not one."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, str) and _INT.match(v.strip()):
        return str(int(v))
    return None


def decimal_lex(v) -> str | None:
    """The canonical lexical form of an ``xsd:decimal`` value (XSD 1.1), or None if ``v`` is
    not a finite number.

    The value is the shortest decimal that reads back as the same float (``repr``). XSD 1.1's
    canonical mapping writes a whole number without a point and anything else with no
    superfluous zeros: it is the form pyoxigraph prints for any decimal it reads, and the form
    Jena returns since it returns the file's own spelling; XSD 1.0's ``20.0`` would come back
    from pyoxigraph as ``20``.

    >>> [decimal_lex(v) for v in (20.0, 0.5, -0.0, -1.25, 1e-7, 1e22, "3.10")]
    ['20', '0.5', '0', '-1.25', '0.0000001', '10000000000000000000000', '3.1']
    """
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    if isinstance(v, bool) or not math.isfinite(x):
        return None
    d = Decimal(repr(x))
    return str(int(d)) if x.is_integer() else format(d, "f").rstrip("0")


def literal(value, datatype: str) -> Lit | None:
    """The literal of a value of a schema datatype, or None if it is not of that datatype."""
    if datatype in ("string", "string[]"):
        return Lit(value if isinstance(value, str) else str(value))
    lex = integer_lex(value) if datatype == "integer" else decimal_lex(value)
    return None if lex is None else Lit(lex, XSD_OF[datatype])


class TermWriter:
    """Renders the terms of one export (one base IRI) in N-Triples, Turtle or JSON-LD."""

    def __init__(self, base: str):
        self.base = base
        self.ns = namespaces(base)
        self._nt: dict[Iri, str] = {}
        self._ttl: dict[Iri, str] = {}
        xsd = self.ns["xsd"]
        self.datatype = {None: "", "xsd:integer": f"^^<{xsd}integer>", "xsd:decimal": f"^^<{xsd}decimal>"}
        self.decimals: dict[float, str | None] = {}

    def nt(self, t: Term) -> str:
        if type(t) is Lit:
            lit = f'"{escape(t.lex)}"'
            return lit if t.dt is None else f"{lit}^^<{self.expand(t.dt)}>"
        s = self._nt.get(t)  # type: ignore[arg-type]
        if s is None:
            s = f"<{self.ns[t[0]]}{t[1]}>"
            if t[0] not in NODE_NS and t[0] not in _ONE_OFF:
                self._nt[t] = s  # type: ignore[index]
        return s

    def expand(self, c: str) -> str:
        p, local = c.split(":", 1)
        return self.ns[p] + local

    def ttl(self, t: Term) -> str:
        if type(t) is Lit:
            if t.dt == "xsd:integer" and _INT.match(t.lex):
                return t.lex
            if t.dt == "xsd:decimal" and re.match(r"^[+-]?\d*\.\d+$", t.lex):
                return t.lex
            lit = f'"{escape(t.lex)}"'
            return lit if t.dt is None else f"{lit}^^{t.dt}"
        s = self._ttl.get(t)  # type: ignore[arg-type]
        if s is None:
            s = f"{t[0]}:{t[1]}" if _TTL_LOCAL.match(t[1]) else f"<{self.ns[t[0]]}{t[1]}>"
            if t[0] not in NODE_NS and t[0] not in _ONE_OFF:
                self._ttl[t] = s  # type: ignore[index]
        return s

    @staticmethod
    def jsonld_value(c: str, o: Term, terms: dict) -> tuple[str, object]:
        term, coercion = terms.get(c, (c, "-"))
        if type(o) is not Lit:
            return (term, f"{o[0]}:{o[1]}") if coercion == "@id" else (c, {"@id": f"{o[0]}:{o[1]}"})
        if coercion == o.dt and o.dt == "xsd:integer" and abs(int(o.lex)) < 2**53:
            return term, int(o.lex)
        if coercion == o.dt or (o.dt is None and coercion in (None, "@set")):
            return term, o.lex
        return (c, o.lex) if o.dt is None else (c, {"@value": o.lex, "@type": o.dt})

    # ---- the fast N-Triples path (kg.sinks.rdf.nt): text straight from values, no Term objects

    def nt_iri(self, t: tuple[str, str]) -> str:
        return f"<{self.ns[t[0]]}{t[1]}>"

    def nt_node_iris(self, ids) -> dict[str, str]:
        """N-Triples IRI of every node id, as :func:`node_term` makes it."""
        base, plain = self.base, PLAIN_ID.fullmatch
        return {n: f"<{base}{n.replace(':', '/', 1)}>" if plain(n) else self._nt_node(n) for n in ids}

    def _nt_node(self, node_id: str) -> str:
        prefix, sep, rest = node_id.partition(":")
        if sep and prefix in NODE_NS:
            return f"<{self.ns[prefix]}{encode_local(rest)}>"
        return f"<{self.ns['kgid']}{encode_local(node_id)}>"

    def nt_literal(self, value, datatype: str) -> str | None:
        """``"lex"`` or ``"lex"^^<dt>`` of a value of a schema datatype; ``None`` if it is not one."""
        if datatype == "string" or datatype == "string[]":
            v = value if isinstance(value, str) else str(value)
            if not v.isprintable() or '"' in v or "\\" in v:
                v = escape(v)
            return f'"{v}"'
        if datatype == "integer":
            lex = str(value) if type(value) is int else integer_lex(value)
        elif type(value) is float and value:  # (0.0 and -0.0 are equal keys, but print differently)
            lex = self.decimals.get(value, "")
            if lex == "":
                lex = self.decimals[value] = decimal_lex(value)
        else:
            lex = decimal_lex(value)
        return None if lex is None else f'"{lex}"{self.datatype[XSD_OF[datatype]]}'


def compact(iri: str, prefixes: dict[str, str]) -> str:
    """``kg:Paper`` for a full IRI when a prefix matches, else ``<iri>``.

    >>> compact("https://w3id.org/kg/ontology#Paper", {"kg": "https://w3id.org/kg/ontology#"})
    'kg:Paper'
    """
    best = max((ns for ns in prefixes.values() if iri.startswith(ns)), key=len, default=None)
    if best is None:
        return f"<{iri}>"
    name = next(k for k, v in prefixes.items() if v == best)
    return f"{name}:{iri[len(best):]}"
