"""The Browser guide: generated from the schema and the shipped Cypher queries, committed up to
date, with every query as runnable cells of one statement each."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from kg.queries import named_queries
from kg.schema import LABELS, RELATIONS
from kg.sinks.neo4j.guide import GUIDE_FILE, MODEL_HEADING, guide_html, main, query_cells

_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")


class _Cells(HTMLParser):
    """The text of each <pre class="runnable">, and of each <slide>'s <h3>."""

    def __init__(self):
        super().__init__()
        self.cells: list[str] = []
        self.headings: list[str] = []
        self._into: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "pre" and "runnable" in (dict(attrs).get("class") or "").split():
            self.cells.append("")
            self._into = self.cells
        elif tag == "h3":
            self.headings.append("")
            self._into = self.headings

    def handle_endtag(self, tag):
        if tag in ("pre", "h3"):
            self._into = None

    def handle_data(self, data):
        if self._into is not None:
            self._into[-1] += data


def parsed(html: str) -> _Cells:
    p = _Cells()
    p.feed(html)
    return p


def test_the_committed_guide_is_up_to_date():
    assert GUIDE_FILE.read_text(encoding="utf-8") == guide_html(), "run: python -m kg.sinks.neo4j.guide"
    assert main(["--check"]) == 0


def test_every_shipped_cypher_query_is_a_slide_with_its_cells_in_order():
    page = parsed(guide_html())
    queries = named_queries("cypher")
    assert len(queries) >= 15
    assert page.headings[0] == MODEL_HEADING
    assert sorted(page.headings[1:]) == sorted(q.name for q in queries)
    for q in queries:
        cells = query_cells(q)
        assert cells[-1] in page.cells, q.name
        start = page.cells.index(cells[-1]) - (len(cells) - 1)
        assert page.cells[start:start + len(cells)] == cells, q.name  # its :param cells just before it
        assert [c.split()[1] for c in cells[:-1]] == list(q.params), q.name
        assert all(q.params[c.split()[1]] in c for c in cells[:-1]), q.name  # the file's own defaults


def test_each_cell_is_one_statement():
    cells = parsed(guide_html()).cells
    assert len(cells) > 20
    for cell in cells:
        if cell.startswith(":"):
            assert re.fullmatch(r":param [A-Za-z_]\w* => [^\n;]+", cell), cell
            continue
        code = _STRINGS.sub("''", cell)
        assert ";" not in code and "//" not in code, cell  # no second statement, no comment lines
        assert not re.search(r"^\s*:", code, re.M), cell  # no Browser command inside a query
        assert re.match(r"(MATCH|CALL|OPTIONAL MATCH|WITH|UNWIND|RETURN)\b", cell), cell


def test_the_model_slide_names_every_label_and_relationship_type():
    html = guide_html()
    model = html[:html.index("</slide>")]
    for name in (*LABELS, *RELATIONS):
        assert f"<b>{name}</b>" in model, name
    assert "<b>Entity</b>" not in model and "Paper | Entity → Task" in model


def test_the_guide_is_deterministic_and_escapes_the_queries():
    assert guide_html() == guide_html()
    assert "->" not in guide_html().replace("<!--", "").replace("-->", "")  # arrows escaped as &gt;
