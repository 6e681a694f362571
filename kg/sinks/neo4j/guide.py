"""The kg guide for Neo4j Browser: the graph model, then every shipped Cypher query, runnable.

Browser 5 opens an HTML guide with ``:guide URL`` (in its sidebar) or ``:play URL`` (as a
frame); each ``<slide>`` is one page, and a ``<pre class="runnable">`` is a cell: a click puts
its text in the editor, its play icon runs it. Every cell holds one statement: a query's
``:param`` defaults come first, one cell each, then the query without its comments. The page is
generated from :mod:`kg.schema` and ``kg/data/queries`` and committed as
``kg/data/schema/kg.guide.html``, which ``scripts/neo4j`` serves from the Neo4j server itself.

>>> html = guide_html()
>>> html.count("<slide") == 1 + len(named_queries("cypher"))
True
>>> '<pre class="runnable">:param limit =&gt; 20</pre>' in html
True
"""

from __future__ import annotations

import re
import sys
from html import escape

from kg.queries import NamedQuery, named_queries
from kg.schema import DISPLAY, ENTITY_LABELS, LABELS, RELATIONS, SCHEMA_DIR
from kg.sinks.neo4j.query import parse_cypher

GUIDE_FILE = SCHEMA_DIR / "kg.guide.html"
TITLE = "kg: a knowledge graph of ML papers"
MODEL_HEADING = "The graph model"
# Shown first, in this order (a first look, then one paper); the other queries follow by name.
FIRST = ("dataset_summary", "paper_neighbourhood", "proposals", "papers_using_technique")


def _code(text: str) -> str:
    """Escaped text with `backticks` as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _cell(statement: str) -> str:
    return f'<pre class="runnable">{escape(statement)}</pre>'


def query_cells(query: NamedQuery) -> list[str]:
    """The statements of a query's cells: ``:param name => default`` each, then the query
    (whole-line comments and the closing semicolon dropped).

    >>> q = {x.name: x for x in named_queries("cypher")}["top_tasks"]
    >>> query_cells(q)[0]
    ':param limit => 20'
    """
    script = parse_cypher(query.path.read_text(encoding="utf-8"))
    body = "\n".join(line for line in script.query.splitlines() if not line.lstrip().startswith("//"))
    params = [f":param {name} => {script.param_examples.get(name) or 'null'}" for name in query.params]
    return [*params, body.strip()]


def _about(query: NamedQuery) -> str:
    """The comment block of the query file, less its ``Params:`` line."""
    lines = []
    for line in query.path.read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("//"):
            break
        text = line.lstrip()[2:].strip()
        if text.startswith("Params:"):
            continue
        lines.append(text)
    return " ".join(lines)


def _slide(heading: str, body: list[str]) -> str:
    inner = "\n".join(body)
    return f'<slide class="row-fluid">\n<div class="col-sm-12">\n<h3>{escape(heading)}</h3>\n{inner}\n</div>\n</slide>'


def model_slide() -> str:
    """Labels with what they are, relationship types with their ends, and how captions read."""
    labels = "\n".join(f"<li><b>{escape(name)}</b>{' (also <i>Entity</i>)' if lab.parent else ''}: "
                       f"{escape(lab.comment)}</li>" for name, lab in LABELS.items())
    rels = "\n".join(f"<li><b>{escape(r.name)}</b> ({escape(_ends(r.domain))} → {escape(_ends(r.range))}): "
                     f"{escape(r.comment)}</li>" for r in RELATIONS.values())
    return _slide(MODEL_HEADING, [
        "<p>Papers, the venue they appeared at, their authors, the entities they propose, use or "
        "evaluate on, and the numeric results they report. Every edge keeps its provenance: "
        "<code>paper</code>, <code>evidence</code> (the sentence), <code>start</code>/<code>end</code> "
        "offsets into the abstract, <code>rule</code> and <code>confidence</code>.</p>",
        f"<p>Captions show <code>{DISPLAY.name}</code>: what a paper proposes (else its title, "
        "shortened); any other node's name. Click a node for all its properties.</p>",
        f"<h4>Node labels</h4>\n<ul>\n{labels}\n</ul>",
        f"<h4>Relationship types</h4>\n<ul>\n{rels}\n</ul>",
        "<p>The schema as Neo4j sees it:</p>",
        _cell("CALL db.schema.visualization()"),
        "<p>The next pages hold kg's named queries (<code>kg queries</code> lists them; "
        "<code>kg cypher NAME</code> runs one from the command line). Run the <code>:param</code> "
        "cells of a page first, then its query; change a value in the editor to ask about "
        "something else.</p>",
    ])


def _ends(labels: tuple[str, ...]) -> str:
    """Labels joined with |, every entity label together as ``Entity``.

    >>> _ends(("Paper", *ENTITY_LABELS)), _ends(("Result",))
    ('Paper | Entity', 'Result')
    """
    if set(ENTITY_LABELS) <= set(labels):
        labels = (*(x for x in labels if x not in ENTITY_LABELS), "Entity")
    return " | ".join(labels)


def query_slide(query: NamedQuery) -> str:
    cells = query_cells(query)
    body = [f"<p>{_code(_about(query))}</p>"]
    if len(cells) > 1:
        body.append("<p>Parameters (run each):</p>")
    body += [_cell(c) for c in cells[:-1]]
    body += ["<p>The query:</p>", _cell(cells[-1]),
             f"<p>From the command line: <code>kg cypher {escape(query.name)}</code></p>"]
    return _slide(query.name, body)


def ordered_queries() -> list[NamedQuery]:
    queries = named_queries("cypher")
    rank = {name: i for i, name in enumerate(FIRST)}
    return sorted(queries, key=lambda q: (rank.get(q.name, len(FIRST)), q.name))


def guide_html() -> str:
    """The whole guide page (deterministic: the same schema and queries give the same bytes)."""
    slides = [model_slide(), *(query_slide(q) for q in ordered_queries())]
    return "\n".join([
        "<!DOCTYPE html>",
        "<!-- Generated by `python -m kg.sinks.neo4j.guide` from kg.schema and kg/data/queries; "
        "do not edit. -->",
        f"<html><head><meta charset=\"utf-8\"><title>{escape(TITLE)}</title></head><body>",
        '<article class="guide">',
        '<carousel class="deck container-fluid">',
        *slides,
        "</carousel>",
        "</article>",
        "</body></html>",
        "",
    ])


def write_guide(check: bool = False) -> bool:
    """Write :data:`GUIDE_FILE` (or, with ``check``, only compare). True when it was stale."""
    from kg.io.atomic import refresh

    return refresh(GUIDE_FILE, guide_html(), check)


def main(argv: list[str] | None = None) -> int:
    """``python -m kg.sinks.neo4j.guide [--check]``: regenerate (or check) the guide."""
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    if write_guide(check=check):
        print(f"{'stale' if check else 'wrote'} {GUIDE_FILE}")
        if check:
            print("run: python -m kg.sinks.neo4j.guide", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
