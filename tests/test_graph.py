import contextlib
import json
import os

from kg.builder import build
from kg.io.format import GRAPH_FILE, load_extractions, load_graph

from .conftest import SAMPLE, SEED, need


def test_rebuild_is_byte_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    a, b = tmp_path / "a", tmp_path / "b"
    build([str(SAMPLE)], a)
    build([str(SAMPLE)], b)
    for name in (GRAPH_FILE, "extractions.jsonl", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()


def test_incremental_equals_one_shot(tmp_path):
    seed = str(need(SEED))
    one, inc = tmp_path / "one", tmp_path / "inc"
    build([str(SAMPLE), seed], one)
    build([str(SAMPLE)], inc)
    r = build([seed], inc)
    assert r.reused == 0 and r.new == 19
    assert (one / GRAPH_FILE).read_bytes() == (inc / GRAPH_FILE).read_bytes()
    again = build([seed], inc)  # nothing new: every paper is reused
    assert again.new == 0 and again.reused == 19
    assert (one / GRAPH_FILE).read_bytes() == (inc / GRAPH_FILE).read_bytes()


def test_graph_round_trips_through_the_folder(sample_graph_dir):
    G = load_graph(sample_graph_dir)
    exs = load_extractions(sample_graph_dir)
    assert len(exs) == 8 == sum(1 for _, d in G.nodes(data=True) if d["label"] == "Paper")
    manifest = json.loads((sample_graph_dir / "manifest.json").read_text())
    assert manifest["nodes"] == G.number_of_nodes() and manifest["edges"] == G.number_of_edges()
    for _, d in G.nodes(data=True):
        assert d["label"] and d["name"]


def test_failed_write_keeps_previous_graph(tmp_path, monkeypatch):
    build([str(SAMPLE)], tmp_path)
    before = tree(tmp_path)
    import kg.io.folder as folder_mod

    def boom(path, lens, pieces):  # interrupted in the middle of the second file
        yield b"{}"
        raise KeyboardInterrupt

    real = folder_mod._lines
    calls = iter([real, boom])
    monkeypatch.setattr(folder_mod, "_lines", lambda *a: next(calls)(*a))
    with contextlib.suppress(KeyboardInterrupt):
        build([str(need(SEED))], tmp_path)
    assert tree(tmp_path) == before  # no temporary files or half-written generation either


def tree(folder):
    """Every file and link under ``folder`` (the lock's holder aside), with its content."""
    return {str(p.relative_to(folder)): os.readlink(p) if p.is_symlink() else p.read_bytes()
            for p in sorted(folder.rglob("*")) if (p.is_file() or p.is_symlink()) and p.name != "lock"}


def test_kept_json_lines_are_the_size_of_their_text():
    """A build holds graph lines in memory; orjson's bytes carry a 4 KB buffer each, which took
    a full build to 2.9 GB, so the lines kept are compact copies."""
    import tracemalloc

    from kg.io.format import node_line

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        lines = [node_line(f"technique:t{i}", {"label": "Technique", "name": f"t{i}"}) for i in range(2000)]
        per_line = (tracemalloc.get_traced_memory()[0] - before) / len(lines)
    finally:
        tracemalloc.stop()
    assert per_line < 400, per_line


def test_links_keywords_and_area_of_a_record_reach_the_paper_node_and_every_export(tmp_path):
    """OpenReview-style records give a forum URL, a PDF link, keywords and a primary area; a
    proceedings-style record gives a site instead of a URL. All of it reaches the Paper node,
    the RDF export (valid against the shapes) and the Neo4j CSV header."""
    from kg.sinks import export_graph
    from kg.sinks.rdf.sparql import load_store
    from kg.sinks.rdf.validate import validate

    records = [
        {"id": "abc123", "title": "FooNet", "abstract": "We propose FooNet, a method for image classification.",
         "venue": "ICLR 2024", "pdf": "https://openreview.net/pdf/abc123.pdf", "url": "https://openreview.net/forum?id=abc123",
         "keywords": ["image classification", "convolutions"], "primary_area": "representation learning"},
        {"id": "p2", "title": "BarNet", "abstract": "We introduce BarNet for object detection.", "venue": "AISTATS",
         "year": 2020, "site": "https://proceedings.example.org/bar.html", "keywords": None, "primary_area": None},
    ]
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    folder = tmp_path / "g"
    G = build([str(src)], folder).graph
    foo, bar = G.nodes["paper:abc123"], G.nodes["paper:p2"]
    assert (foo["url"], foo["pdf"], foo["keywords"], foo["area"]) == (
        "https://openreview.net/forum?id=abc123", "https://openreview.net/pdf/abc123.pdf",
        ["image classification", "convolutions"], "representation learning")
    assert bar["url"] == "https://proceedings.example.org/bar.html" and "keywords" not in bar and "area" not in bar
    ttl = export_graph(folder, "ttl").path
    assert validate(ttl).conforms
    store = load_store([ttl])
    rows = store.query('SELECT ?k WHERE { ?p dcterms:identifier "paper:abc123" ; schema:keywords ?k } ORDER BY ?k',
                       prefixes={"dcterms": "http://purl.org/dc/terms/", "schema": "https://schema.org/"})
    assert [r["k"].value for r in rows] == ["convolutions", "image classification"]
    csv_dir = export_graph(folder, "neo4j-csv").path
    header = next(p for p in csv_dir.iterdir() if "Paper" in p.name).read_text(encoding="utf-8").splitlines()[0]
    assert "keywords:string[]" in header and "pdf" in header and "area" in header
