"""What a build reads: inputs checked before anything is written, every record isolated."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kg.builder import build
from kg.errors import InputError
from kg.io.format import GRAPH_FILE, MANIFEST_FILE, load_graph
from kg.io.generations import current
from kg.io.readers import MAX_ID, MAX_RECORD_CHARS, ReadReport, read_papers

from .conftest import SAMPLE

ENV = {**os.environ, "SOURCE_DATE_EPOCH": "0", "KG_SPANS": "off"}
GOOD = "We propose FooNet, a transformer for image classification, and evaluate it on ImageNet."


def kg(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True, env=ENV)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def tree(folder: Path) -> dict[str, bytes | str]:
    return {str(p.relative_to(folder)): os.readlink(p) if p.is_symlink() else p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() or p.is_symlink()}


# ---------------------------------------------------------------- inputs checked first


def test_a_mistyped_input_with_fresh_leaves_the_graph_as_it_was(tmp_path):
    g = tmp_path / "g"
    assert kg("build", str(SAMPLE), "-o", str(g)).returncode == 0
    before = tree(g)
    proc = kg("build", str(tmp_path / "typo.jsonl"), "-o", str(g), "--fresh")
    assert proc.returncode == 2 and "typo.jsonl: no such file" in proc.stderr
    assert tree(g) == before


def test_a_missing_input_creates_nothing(tmp_path):
    proc = kg("build", str(tmp_path / "typo.jsonl"), "-o", str(tmp_path / "new"))
    assert proc.returncode == 2 and not (tmp_path / "new").exists()


def test_one_missing_input_among_several_is_an_error_not_a_skipped_record(tmp_path):
    good = tmp_path / "a.jsonl"
    good.write_text(json.dumps({"id": "a", "abstract": GOOD}) + "\n", encoding="utf-8")
    proc = kg("build", str(good), str(tmp_path / "typo.jsonl"), "-o", str(tmp_path / "g"))
    assert proc.returncode == 2 and "typo.jsonl: no such file" in proc.stderr
    assert not (tmp_path / "g").exists()


def test_inputs_with_no_readable_paper_change_nothing(tmp_path):
    g = tmp_path / "g"
    assert kg("build", str(SAMPLE), "-o", str(g)).returncode == 0
    before = tree(g)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "abstract": 5}\n{"broken\n', encoding="utf-8")
    proc = kg("build", str(bad), "-o", str(g), "--fresh")
    assert proc.returncode == 2 and "bad.jsonl:1" in proc.stderr and "not changed" in proc.stderr
    assert tree(g) == before
    with pytest.raises(InputError):
        build([str(bad)], tmp_path / "other")
    assert not (tmp_path / "other").exists()


# ---------------------------------------------------------------- every record isolated


def hostile_lines() -> list[str]:
    deep = "[" * 100_000 + "]" * 100_000
    return [
        json.dumps({"id": "ok1", "title": "Fine", "abstract": GOOD}),
        '{"id": "sur1", "title": "Bad \\ud83d title", "abstract": "' + GOOD + '"}',  # lone surrogate
        '{"id": "sur2", "title": "T", "abstract": "' + GOOD + ' \\udc00"}',
        '{"id": "\\ud83d", "abstract": "' + GOOD + '"}',
        deep,  # a line nested 100k deep
        '{"id": "deep", "abstract": "' + GOOD + '", "authors": ' + deep + "}",  # inside a record
        json.dumps({"id": "huge", "abstract": "word " * (MAX_RECORD_CHARS // 5 + 10)}),
        json.dumps({"id": "x" * 10_000, "abstract": GOOD + " Again."}),  # an id no index takes
        json.dumps({"id": "ok2", "title": "Also fine", "abstract": GOOD.replace("FooNet", "BarNet")}),
    ]


def test_one_bad_record_is_skipped_with_its_line_and_the_rest_is_built(tmp_path):
    src = tmp_path / "hostile.jsonl"
    src.write_text("\n".join(hostile_lines()) + "\n", encoding="utf-8")
    g = tmp_path / "g"
    proc = kg("build", str(src), "-o", str(g))
    assert proc.returncode == 1, proc.stderr  # records skipped
    for line in (5, 6):
        assert f"hostile.jsonl:{line}: bad JSON: nested too deeply" in proc.stderr
    assert "hostile.jsonl:7: too long" in proc.stderr
    assert "lone surrogate" in proc.stderr
    G = load_graph(g)
    papers = {d["name"] for _, d in G.nodes(data=True) if d["label"] == "Paper"}
    assert {"Fine", "Also fine", "Bad \ufffd title"} <= papers
    ids = [n for n, d in G.nodes(data=True) if d["label"] == "Paper"]
    assert len(ids) == 6 and max(map(len, ids)) <= len("paper:") + MAX_ID
    assert (current(g) / GRAPH_FILE).read_bytes().decode("utf-8")  # valid UTF-8 throughout


def test_a_deeply_nested_json_document_is_one_clear_skip(tmp_path):
    src = tmp_path / "deep.json"
    src.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    report = ReadReport()
    assert list(read_papers([str(src)], report)) == []
    assert "nested too deeply" in str(report.problems[0])


def test_a_paper_whose_extraction_fails_is_skipped_and_reported(tmp_path, monkeypatch):
    import kg.extract.adapter as adapter

    real = adapter.doc_to_extraction

    def fragile(doc, paper, *a, **k):
        if "Speculative" in paper.abstract or "speculative" in paper.abstract:
            raise ValueError("cannot read this one")
        return real(doc, paper, *a, **k)

    monkeypatch.setattr(adapter, "doc_to_extraction", fragile)
    report = ReadReport()
    result = build([str(SAMPLE)], tmp_path / "g", report=report)
    failed = [p for p in report.skipped if "extraction failed" in p.reason]
    assert failed and all(p.source.endswith("sample.txt") and p.line for p in failed)
    assert "ValueError: cannot read this one" in failed[0].reason
    assert result.manifest["papers"] == 8 - len(failed) > 0
    assert json.loads((tmp_path / "g" / MANIFEST_FILE).read_text())["papers"] == result.manifest["papers"]


def test_long_names_make_bounded_ids():
    from kg.text import MAX_SLUG, entity_id, slug

    name = "a very long name " * 40
    assert len(slug(name)) <= MAX_SLUG and slug(name) != slug(name + "x")
    assert entity_id("Method", "FooNet") == "method:foonet"  # ordinary names are as before
