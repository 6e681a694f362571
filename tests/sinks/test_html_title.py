"""The page's title comes from the names of the paper lists: a hostile file name is text in the
title, never markup, on the map of the field and on a view around a node (checked without a
browser, by parsing the page as a browser would)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from kg.io.format import load_graph
from kg.sinks import export

# file names: no "/" (a name is the file's stem)
HOSTILE = ["<title><script>alert(1)<script>", "a&b <i>x", '"><img src=x onerror=alert(2)>', "&lt;b&gt;"]


class Page(HTMLParser):
    """The title's text and every start tag of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.title, self._in_title = [], "", False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False if tag == "title" else self._in_title

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def around(G) -> dict:
    """The options of a view around the most connected node (the map takes none)."""
    node = max(G.nodes, key=lambda n: (G.degree(n), str(n)))
    return {"around": G.nodes[node].get("name") or G.nodes[node].get("title"), "depth": 1}


@pytest.mark.parametrize("view", ["map", "around"])
@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_source_name_is_text_in_the_title(sample_graph_dir, tmp_path, name, view):
    G = load_graph(sample_graph_dir)
    out = tmp_path / "view.html"
    options = around(G) if view == "around" else {}
    export(G, out, "html", manifest={"sources": [f"{name}.jsonl"]}, **options)
    assert bool(re.search(r'"kind": ?"map"', out.read_text(encoding="utf-8"))) == (view == "map")
    page = Page()
    page.feed(out.read_text(encoding="utf-8"))
    assert page.title.startswith(f"{name}: "), page.title
    scripts = [attrs for tag, attrs in page.tags if tag == "script"]
    assert len(scripts) == 3 and [a.get("id") for a in scripts].count("kg-data") == 1  # data, library, view
    assert not any(tag == "img" or "onerror" in attrs for tag, attrs in page.tags)
