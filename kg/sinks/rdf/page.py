"""The endpoint's pages for a person in a web browser: a query form, the named queries with
their parameters, and results as an HTML table.

A browser asks for ``text/html`` first, so :func:`kg.sinks.rdf.answer.answer` gives it this
table, where it got the SPARQL results XML its ``application/xml;q=0.9`` preferred to JSON;
a client that names a results format, or sends none or ``*/*``, gets that format as before. The
table shows at most :data:`kg.defaults.SPARQL_HTML_ROWS` rows (the formats for programs carry
them all); an IRI links to its ``DESCRIBE``, so a reader can walk the graph from any row. Every
string from the data or the request is escaped; the page has no script, and its
Content-Security-Policy (:data:`CSP`) allows none.

>>> b"<table>" in table_page("ASK {}", ["boolean"], [[ox.Literal(True)]], {}, more=False)
True
>>> cell(ox.NamedNode("https://w3id.org/kg/ontology#Paper"), {"kg": "https://w3id.org/kg/ontology#"})
'<a href="/sparql?query=DESCRIBE%20%3Chttps%3A//w3id.org/kg/ontology%23Paper%3E" title="https://w3id.org/kg/ontology#Paper">kg:Paper</a>'
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

import pyoxigraph as ox

from kg.queries import NamedQuery, default_of, named_queries

#: the pages' policy: no script, no request but the page's own form and links
CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
EXAMPLE = ("SELECT ?task (COUNT(?p) AS ?papers) WHERE {\n  ?p kg:addresses/rdfs:label ?task\n}\n"
           "GROUP BY ?task ORDER BY DESC(?papers) LIMIT 10")
_STYLE = """body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em;color:#222}
textarea{width:100%;font-family:monospace}table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.n{text-align:right}.note{color:#555}.error{color:#a00;white-space:pre-wrap}
dt{font-weight:bold;margin-top:.8em}dd{margin-left:1.5em}input{margin-right:.5em}"""


def document(title: str, body: str) -> bytes:
    """A whole page: ``body`` is HTML already escaped."""
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{_STYLE}</style></head>\n<body>\n{body}\n</body></html>\n").encode()


def query_form(query: str | None = None) -> str:
    """The form that sends a query to ``/sparql`` (a browser's Accept gets a table back)."""
    text = EXAMPLE if query is None else query
    return ('<form action="/sparql" method="post">\n'
            f'<textarea name="query" rows="{min(max(text.count(chr(10)) + 2, 6), 30)}">{escape(text)}</textarea><br>\n'
            '<button type="submit">Run</button> <span class="note">results as a table here; '
            "programs get SPARQL results JSON, XML, CSV or TSV by their Accept header</span></form>")


def _param_input(name: str, default: str) -> str:
    hint = "" if default in ("any", "required") else f" (default {default})"
    return (f'<label>{escape(name)} <input name="{escape(name)}" placeholder="{escape(default)}" '
            f'title="{escape(name + hint)}"{" required" if default == "required" else ""}></label>')


def named_list(queries: list[NamedQuery] | None = None) -> str:
    """The named SPARQL queries kg ships: what each answers, and a form with one field per
    parameter (left empty, the default) that runs it by name (``/sparql?name=...``)."""
    every = named_queries() if queries is None else queries
    items = []
    for q in (x for x in every if x.language == "sparql"):
        versions = [x for x in every if x.name == q.name]
        fields = "".join(_param_input(p, default_of(versions, p)) for p in q.params)
        items.append(f'<dt>{escape(q.name)}</dt><dd>{escape(q.summary)}\n'
                     f'<form action="/sparql" method="get"><input type="hidden" name="name" value="{escape(q.name)}">'
                     f'{fields}<button type="submit">Run</button> '
                     f'<a href="/?edit={quote(q.name)}">edit the query</a></form></dd>')
    return ("<h2>Named queries</h2>\n<p class=\"note\">The queries <code>kg queries</code> lists, run by "
            "name with their parameters (an empty field takes the default), as "
            "<code>kg sparql NAME -p name=value</code> runs them.</p>\n<dl>\n" + "\n".join(items) + "\n</dl>")


def home(endpoint: str, folder: str, query: str | None = None) -> bytes:
    """The endpoint's page: what it serves, the form (holding ``query`` when given), how to
    ask from a program, and the named queries."""
    url = escape(endpoint)
    body = (f"<h1>kg SPARQL endpoint</h1>\n<p>SPARQL 1.1 queries (read-only) over the graph in "
            f"<code>{escape(folder)}</code> at <code>{url}</code>. Standard prefixes (kg:, rdfs:, skos:, "
            "schema:, dcterms:, prov:, ...) need no declaration.</p>\n"
            f"{query_form(query)}\n"
            f"<pre>curl -H 'Accept: text/csv' --data-urlencode 'query=ASK {{ ?s ?p ?o }}' {url}\n"
            f"curl -H 'Accept: text/csv' '{url}?name=top_tasks&amp;limit=5'</pre>\n"
            f"<p>GET {url} with <code>Accept: text/turtle</code> gives the service description.</p>\n"
            f"{named_list()}")
    return document("kg SPARQL endpoint", body)


def cell(term, prefixes: dict[str, str]) -> str:
    """One value: an IRI compacted and linked to its ``DESCRIBE``, a literal as its text."""
    from kg.sinks.rdf.terms import compact

    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        describe = quote(f"DESCRIBE <{term.value}>", safe="/")
        return f'<a href="/sparql?query={escape(describe)}" title="{escape(term.value)}">' \
               f"{escape(compact(term.value, prefixes))}</a>"
    if isinstance(term, ox.Literal):
        return escape(term.value)
    return escape(str(term))


def table_page(query: str, names: list[str], rows: list[list], prefixes: dict[str, str], more: bool,
               limit: int | None = None) -> bytes:
    """The results of ``query`` as a table (``rows`` of pyoxigraph terms, None for unbound),
    under the form that holds the query; ``more`` says rows were left out after ``limit``."""
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    body = "\n".join("<tr>" + "".join(
        f'<td{" class=n" if isinstance(t, ox.Literal) and _numeric(t) else ""}>{cell(t, prefixes)}</td>' for t in r)
        + "</tr>" for r in rows)
    count = f"{len(rows):,} row{'s' if len(rows) != 1 else ''}"
    if more:
        count = (f"the first {limit:,} rows; the query has more: add a LIMIT, or ask for CSV or JSON "
                 "(Accept header) to get them all")
    return document("kg SPARQL results", f'<p><a href="/">kg SPARQL endpoint</a></p>\n{query_form(query)}\n'
                    f'<p class="note">{count}</p>\n<table>\n<tr>{head}</tr>\n{body}\n</table>')


def error_page(query: str, message: str) -> bytes:
    """A query that failed: the message, under the form that holds the query to correct."""
    return document("kg SPARQL error", f'<p><a href="/">kg SPARQL endpoint</a></p>\n{query_form(query)}\n'
                    f'<p class="error">{escape(message)}</p>')


def _numeric(term: ox.Literal) -> bool:
    return term.datatype.value.rsplit("#", 1)[-1] in ("integer", "decimal", "double", "float", "long", "int")


__all__ = ["CSP", "cell", "document", "error_page", "home", "named_list", "query_form", "table_page"]
