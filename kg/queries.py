"""Named queries: the SPARQL and Cypher files that ship in the package (``kg/data/queries``),
found by name from any folder, with the parameters each takes.

A SPARQL query's parameters are the variables of its one-variable ``VALUES`` blocks (their
values are the defaults; ``UNDEF`` lets the query choose one from the graph) and ``limit``, its
final ``LIMIT``; a Cypher query's are its ``$name`` references (a ``:param`` line gives a
default, an expression the server evaluates, so it can come from the graph). Binding a name the
query does not take is an error, never silently ignored.

>>> q = {x.name: x for x in named_queries("sparql")}["papers_using_technique"]
>>> q.params
{'technique': 'UNDEF'}
>>> bind_sparql('SELECT ?x WHERE { VALUES ?x { "a" } }', {"x": "b"})
'SELECT ?x WHERE { VALUES ?x { "b" } }'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kg.errors import QueryError
from kg.schema import QUERIES_DIR, RDF_PREFIXES

SUFFIX = {"sparql": ".rq", "cypher": ".cypher"}
_VALUES = re.compile(r"VALUES\s+\?(\w+)\s*\{([^{}]*)\}", re.I)
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)", re.I)
_CYPHER_PARAM = re.compile(r"\$([A-Za-z_]\w*)")
_DECLARED = re.compile(r"^\s*:param\s+([A-Za-z_]\w*)\s*=>\s*(.+?)\s*;?\s*$", re.M)


@dataclass(frozen=True, slots=True)
class NamedQuery:
    """One query file: its name, language, what it answers, and its parameters with defaults
    (``None``: no default, the query needs a value)."""

    name: str
    language: str
    path: Path
    summary: str
    params: dict[str, str | None]


def _summary(text: str) -> str:
    """The question the query answers: its opening comment, up to the first question mark."""
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith(("#", "//")):
            break
        lines.append(line.lstrip("#/ ").strip())
    summary = " ".join(lines)
    return summary[:summary.index("?") + 1] if "?" in summary else summary


def describe_default(value: str | None) -> str:
    """A parameter's default for people: the value, ``from the graph`` for an expression the
    query evaluates, ``any`` for none.

    >>> describe_default("25"), describe_default("'LoRA'"), describe_default("UNDEF"), describe_default("null")
    ('25', "'LoRA'", 'any', 'any')
    >>> describe_default("COLLECT { MATCH (t:Technique) RETURN t.name }[0]"), describe_default(None)
    ('from the graph', 'required')
    """
    if value is None:
        return "required"
    if value in ("UNDEF", "null"):
        return "any"
    if re.search(r"\b(MATCH|COLLECT|SELECT)\b", value):
        return "from the graph"
    return value


def _without_comments(text: str, language: str) -> str:
    """The text less its whole-line comments (where the parameters are explained)."""
    mark = "#" if language == "sparql" else "//"
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(mark))


def query_params(text: str, language: str) -> dict[str, str | None]:
    """The parameters a query takes, with their defaults."""
    body = _without_comments(text, language)
    if language == "sparql":
        params: dict[str, str | None] = {m.group(1): m.group(2).strip() for m in _VALUES.finditer(body)
                                         if _depth(body, m.start()) <= 1}
        limit = _final_limit(body)
        if limit is not None and "limit" not in params:
            params["limit"] = limit.group(1)
        return params
    declared = {m.group(1): m.group(2) for m in _DECLARED.finditer(text)}
    return {name: declared.get(name) for name in dict.fromkeys(_CYPHER_PARAM.findall(body))}


def _depth(text: str, at: int) -> int:
    """How many ``{`` are open at ``at``: 1 in the ``WHERE`` block, more in a subquery."""
    head = text[:at]
    return head.count("{") - head.count("}")


def _final_limit(body: str) -> re.Match | None:
    """The query's own ``LIMIT`` (outside every ``{...}``), not a subquery's."""
    found = None
    for m in _LIMIT.finditer(body):
        if _depth(body, m.start()) == 0:
            found = m
    return found


def default_of(versions: list[NamedQuery], param: str) -> str:
    """How a named query chooses a parameter it is not given, said once for the ``versions``
    of the query (its languages)."""
    shown = [describe_default(q.params[param]) for q in versions if param in q.params]
    return "from the graph" if "from the graph" in shown else (shown[0] if shown else "required")


def named_queries(language: str | None = None) -> list[NamedQuery]:
    """The queries that ship with kg, sorted by name (one language, or both)."""
    out = []
    for lang, suffix in SUFFIX.items():
        if language not in (None, lang):
            continue
        for path in sorted(QUERIES_DIR.glob(f"*{suffix}")):
            text = path.read_text(encoding="utf-8")
            out.append(NamedQuery(path.stem, lang, path, _summary(text), query_params(text, lang)))
    return sorted(out, key=lambda q: (q.name, q.language))


def find_query(query: str, language: str) -> Path | None:
    """The file ``query`` names: a path, or the name of a query that ships with kg; None when
    it is neither (then it is the query text itself)."""
    if "\n" in query or len(query) > 4096:
        return None
    try:
        if Path(query).is_file():
            return Path(query)
    except (OSError, ValueError):
        return None
    shipped = QUERIES_DIR / f"{query.removesuffix(SUFFIX[language])}{SUFFIX[language]}"
    if re.fullmatch(r"[\w-]+", query.removesuffix(SUFFIX[language])) and shipped.is_file():
        return shipped
    return None


def check_params(given: dict, takes: dict[str, str | None], name: str) -> None:
    """A :class:`~kg.errors.QueryError` for a parameter the query does not take."""
    unknown = sorted(set(given) - set(takes))
    if unknown:
        known = ", ".join(sorted(takes)) or "none"
        raise QueryError(f"{name} takes no parameter {', '.join(unknown)}; its parameters: {known}")


def sparql_literal(value: object) -> str:
    """A parameter value as a SPARQL term: numbers as they are, ``<...>`` and ``kg:name`` (a
    standard prefix) kept, anything else a string literal (``GPT-4:turbo`` too).

    >>> sparql_literal("speculative decoding"), sparql_literal(3), sparql_literal("<https://x/>")
    ('"speculative decoding"', '3', '<https://x/>')
    >>> sparql_literal("kg:outperforms"), sparql_literal("GPT-4:turbo")
    ('kg:outperforms', '"GPT-4:turbo"')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    curie = re.fullmatch(r"([A-Za-z][\w-]*):[\w.-]+", text)
    if re.fullmatch(r"<[^<>\"{}|^`\\\s]*>", text) or (curie and curie.group(1) in RDF_PREFIXES):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def bind_sparql(text: str, params: dict, name: str = "query") -> str:
    """The query with each named ``VALUES ?p { ... }`` block holding the given value."""
    check_params(params, query_params(text, "sparql"), name)

    def fill(m: re.Match) -> str:
        if m.group(1) not in params or _depth(m.string, m.start()) > 1:
            return m.group(0)
        return f"VALUES ?{m.group(1)} {{ {sparql_literal(params[m.group(1)])} }}"

    out = _VALUES.sub(fill, text)
    if "limit" in params and "limit" not in {m.group(1) for m in _VALUES.finditer(text)}:
        limit = params["limit"]
        if isinstance(limit, bool) or not str(limit).isdigit():
            raise QueryError(f"{name}: limit must be a whole number, not {limit!r}")
        found = _final_limit(out)
        if found is not None:  # the final LIMIT of the query text (comments hold no braces here)
            out = f"{out[:found.start(1)]}{int(limit)}{out[found.end(1):]}"
    return out
