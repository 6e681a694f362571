"""Named queries: the SPARQL and Cypher files that ship in the package (``kg/data/queries``),
found by name from any folder, with the parameters each takes.

A SPARQL query's parameters are the variables of its one-variable ``VALUES`` blocks (their
values are the defaults; ``UNDEF`` lets the query choose one from the graph) and ``limit``, its
final ``LIMIT``, found in the query's tokens (:mod:`kg.sparql_lexer`: a brace or a keyword in a
string, an IRI or a comment is not one); a query written on the spot may also bind any variable
it uses (a trailing ``VALUES`` clause). A Cypher query's are its ``$name`` references (a
``:param`` line gives a default, an expression the server evaluates, so it can come from the
graph). Binding a name the query does not take is an error, never silently ignored.
:func:`sparql_query` is the one way a SPARQL query is found and bound, for ``kg sparql`` and
``Graph.sparql`` alike.

>>> q = {x.name: x for x in named_queries("sparql")}["papers_using_technique"]
>>> q.params
{'technique': 'UNDEF'}
>>> bind_sparql('SELECT ?x WHERE { VALUES ?x { "a" } }', {"x": "b"})
'SELECT ?x WHERE { VALUES ?x { "b" } }'
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kg.errors import QueryError
from kg.schema import QUERIES_DIR, RDF_PREFIXES
from kg.sparql_lexer import Token, tokens, variables

SUFFIX = {"sparql": ".rq", "cypher": ".cypher"}
#: where a message sends a reader for the names, on the command line and in Python
LISTED = "kg queries lists them; kg.queries.named_queries() in Python"
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
    if language == "sparql":
        blocks, limit = _sparql_slots(text)
        params: dict[str, str | None] = {k: text[v[0][0]:v[0][1]].strip() for k, v in blocks.items()}
        if limit is not None and "limit" not in params:
            params["limit"] = limit.text
        return params
    body = _without_comments(text, language)
    declared = {m.group(1): m.group(2) for m in _DECLARED.finditer(text)}
    return {name: declared.get(name) for name in dict.fromkeys(_CYPHER_PARAM.findall(body))}


def _sparql_slots(text: str) -> tuple[dict[str, list[tuple[int, int]]], Token | None]:
    """Where a SPARQL query's parameters sit: the values of each one-variable ``VALUES`` block of
    its ``WHERE`` group (not a subquery's), by variable, and the number of its own final
    ``LIMIT`` (outside every group)."""
    toks = list(tokens(text))
    blocks: dict[str, list[tuple[int, int]]] = {}
    limit, depth = None, 0
    for i, t in enumerate(toks):
        if t.kind == "punct" and t.text in "{}":
            depth += 1 if t.text == "{" else -1
        elif t.is_word("VALUES") and depth <= 1 and toks[i + 1:i + 2] and toks[i + 1].kind == "var" \
                and toks[i + 2:i + 3] and toks[i + 2].text == "{":
            end = next((u for u in toks[i + 3:] if u.kind == "punct" and u.text in "{}"), None)
            if end is not None and end.text == "}":
                blocks.setdefault(toks[i + 1].text[1:], []).append((toks[i + 2].end, end.start))
        elif t.is_word("LIMIT") and depth == 0 and toks[i + 1:i + 2] and toks[i + 1].kind == "number":
            limit = toks[i + 1]
    return blocks, limit


def graph_defaults(text: str) -> dict[str, tuple[str, str]]:
    """The queries that choose a SPARQL query's defaults from the graph: for each parameter
    ``?p`` the query reads as ``COALESCE(?p, ?v)``, where a sub-select of the query projects
    ``?v``, ``(v, query)``: that sub-select alone, under the query's prologue. Running it says
    which value the query takes when ``p`` is not given (the query's own rule, not a copy).

    >>> q = {x.name: x for x in named_queries("sparql")}["papers_using_technique"]
    >>> var, default = graph_defaults(q.path.read_text(encoding="utf-8"))["technique"]
    >>> var, default.splitlines()[-1].strip()
    ('top', 'LIMIT 1 }')
    """
    toks = list(tokens(text))
    first_select = next((t.start for t in toks if t.is_word("SELECT")), 0)
    pairs = {}
    for i, t in enumerate(toks):
        seq = toks[i:i + 6]
        if t.is_word("COALESCE") and len(seq) == 6 and seq[1].text == "(" and seq[2].kind == "var" \
                and seq[3].text == "," and seq[4].kind == "var" and seq[5].text == ")":
            pairs[seq[2].text[1:]] = seq[4].text[1:]
    out = {}
    for param, var in pairs.items():
        for i, t in enumerate(toks):
            if not (t.kind == "punct" and t.text == "{" and i + 1 < len(toks) and toks[i + 1].is_word("SELECT")):
                continue
            projection = []
            for u in toks[i + 2:]:
                if u.is_word("WHERE") or u.text == "{":
                    break
                projection.append(u)
            if not any(u.kind == "var" and u.text[1:] == var for u in projection):
                continue
            depth = 0
            for u in toks[i:]:
                depth += {"{": 1, "}": -1}.get(u.text, 0) if u.kind == "punct" else 0
                if depth == 0:
                    out[param] = (var, f"{text[:first_select]}SELECT ?{var} WHERE {text[t.start:u.end]}")
                    break
            break
    return out


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
    >>> sparql_literal("https://github.com/a/b"), sparql_literal(None)
    ('<https://github.com/a/b>', 'UNDEF')
    """
    if value is None:
        return "UNDEF"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'"{"NaN" if math.isnan(value) else "INF" if value > 0 else "-INF"}"^^<http://www.w3.org/2001/XMLSchema#double>'
    text = str(value)
    curie = re.fullmatch(r"([A-Za-z][\w-]*):[\w.-]+", text)
    if re.fullmatch(r"<[^<>\"{}|^`\\\x00-\x20]*>", text) or (curie and curie.group(1) in RDF_PREFIXES):
        return text
    if re.fullmatch(r"https?://[^<>\"{}|^`\\\x00-\x20]+", text):
        return f"<{text}>"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def _terms(value: object) -> list[str]:
    """A parameter's value as the terms of a ``VALUES`` block: a list or tuple gives several."""
    return [sparql_literal(v) for v in value] if isinstance(value, list | tuple) else [sparql_literal(value)]


def bind_sparql(text: str, params: Mapping[str, object], name: str = "query", free: bool = False) -> str:
    """The query with each named ``VALUES ?p { ... }`` block holding the given value (a list
    gives several values, None ``UNDEF``) and ``limit`` its final ``LIMIT``. With ``free``, a
    parameter naming another variable the query uses is bound by a trailing ``VALUES`` clause;
    any other name is a :class:`~kg.errors.QueryError`."""
    takes = query_params(text, "sparql")
    loose = [k for k in params if k not in takes and free and k in variables(text)]
    try:
        check_params({k: v for k, v in params.items() if k not in loose}, takes, name)
    except QueryError as exc:
        if not free:
            raise
        raise QueryError(f"{exc} (or a variable the query uses)") from None
    blocks, limit = _sparql_slots(text)
    edits: list[tuple[int, int, str]] = []
    for key, value in params.items():
        if key in blocks:
            edits.extend((start, end, f" {' '.join(_terms(value))} ") for start, end in blocks[key])
        elif key == "limit" and limit is not None:
            if isinstance(value, bool) or not str(value).isdigit():
                raise QueryError(f"{name}: limit must be a whole number, not {value!r}")
            edits.append((limit.start, limit.end, str(int(str(value)))))
    for start, end, new in sorted(edits, reverse=True):
        text = f"{text[:start]}{new}{text[end:]}"
    if loose:
        rows = itertools.product(*(_terms(params[k]) for k in loose))
        text = (f"{text.rstrip()}\nVALUES ({' '.join('?' + k for k in loose)}) "
                f"{{ {' '.join('(' + ' '.join(r) + ')' for r in rows)} }}\n")
    return text


def unknown_name(query: str, language: str) -> None:
    """A :class:`~kg.errors.QueryError` with the closest names when ``query`` reads as the
    name of a shipped query (one word, no file of that name) but none is called so: a bare
    word is never a query in either language, and its syntax error helped no one.

    >>> unknown_name("papers_using_techniqe", "sparql")
    Traceback (most recent call last):
    ...
    kg.errors.QueryError: no named sparql query 'papers_using_techniqe'; did you mean papers_using_technique or cooccurring_techniques? (kg queries lists them; kg.queries.named_queries() in Python)
    """
    import difflib
    import re

    word = query.strip().removesuffix(SUFFIX[language])
    if not re.fullmatch(r"[\w.-]+", word):
        return
    names = sorted({q.name for q in named_queries(language)})
    close = difflib.get_close_matches(word, names, n=3, cutoff=0.6) or difflib.get_close_matches(
        word.lower(), [n.lower() for n in names], n=3, cutoff=0.4)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise QueryError(f"no named {language} query {word!r}{hint} ({LISTED})")


def sparql_query(query: str, params: Mapping[str, object] | None = None) -> tuple[str, str]:
    """The SPARQL text to run for ``query`` and its name for messages: ``query`` is the name of
    a query kg ships (``kg queries`` lists them), a ``.rq`` file, or the query itself, and
    ``params`` are bound by :func:`bind_sparql` (a query written on the spot may bind any of its
    variables). The one binder of ``kg sparql`` and ``Graph.sparql``.

    >>> text, name = sparql_query("top_tasks", {"limit": 3})
    >>> name, text.rstrip().endswith("LIMIT 3")
    ('top_tasks', True)
    >>> sparql_query("SELECT ?p WHERE { ?p kg:proposes ?m }", {"m": "kg:x"})[0].splitlines()[-1]
    'VALUES (?m) { (kg:x) }'
    """
    params = dict(params or {})
    path = find_query(query, "sparql")
    if path is None:
        unknown_name(query, "sparql")  # a bare word is a name, never a query
        if query.endswith((".rq", ".sparql")) and "\n" not in query:
            raise QueryError(f"{query}: no such query file or named query; pass a SPARQL query, a .rq file, "
                             f"or the name of a query kg ships ({LISTED})")
        return bind_sparql(query, params, "query", free=True), "query"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryError(f"{path}: cannot read the query file: {exc}") from None
    shipped = path.parent == QUERIES_DIR and path.suffix == SUFFIX["sparql"]
    name = path.stem if shipped else str(path)
    return bind_sparql(text, params, name, free=not shipped), name
