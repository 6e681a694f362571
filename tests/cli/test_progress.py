"""Feedback where no bar can be drawn: a build, a load and the first query's store build say how
far they are, with an ETA, when stderr is a log or a pipe (the bar showed nothing there)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from typer.testing import CliRunner

from kg.cli import app
from kg.cli.progress import LineProgress

from ..conftest import SAMPLE

runner = CliRunner()


def _lines(steps, every=15.0, after=5.0, total=100):
    out, now = io.StringIO(), [0.0]
    p = LineProgress(Console(file=out, width=300), every=every, after=after, clock=lambda: now[0])
    with p:
        t = p.add_task("extracting", total=total)
        for at, n in steps:
            now[0] = at
            p.advance(t, n)
        p.add_task("resolving and writing", total=None)
        now[0] += 4
    return out.getvalue().splitlines()


def test_a_short_task_says_nothing_and_a_long_one_says_how_far_with_an_eta():
    assert _lines([(1.0, 50), (2.0, 50)]) == []  # done in 2 s: no line
    lines = _lines([(6.0, 10), (10.0, 10), (21.0, 10), (60.0, 70)])
    assert lines == ["extracting: 10/100 (10%) in 6 s, about 54 s left",
                     "extracting: 30/100 (30%) in 21 s, about 49 s left",
                     "extracting: 100/100 (100%) in 1 min 0 s",
                     "resolving and writing…"]


@pytest.fixture
def chatty(monkeypatch):
    """Lines at every step, so that a fast test run shows them."""
    monkeypatch.setattr("kg.cli.progress.AFTER", 0.0)
    monkeypatch.setattr("kg.cli.progress.EVERY", 0.0)
    monkeypatch.delenv("KG_PROGRESS", raising=False)


def test_kg_build_into_a_log_says_how_far_it_is(tmp_path, chatty):
    res = runner.invoke(app, ["build", str(SAMPLE), "-o", str(tmp_path / "g")])
    assert res.exit_code == 0, res.output
    lines = [x for x in res.stderr.splitlines() if x.startswith("extracting: ")]
    assert lines, res.stderr
    assert lines and lines[-1].startswith("extracting: 8/8 (100%) in ")
    assert any(" left" in x for x in lines[:-1]) or len(lines) == 1
    res = runner.invoke(app, ["build", str(SAMPLE), "-o", str(tmp_path / "h")], env={"KG_PROGRESS": "0"})
    assert res.exit_code == 0 and "extracting: " not in res.stderr


def test_the_first_query_says_it_builds_the_store_and_how_long_it_may_take(sample_graph_dir, tmp_path):
    import shutil

    folder = tmp_path / "g"
    shutil.copytree(sample_graph_dir, folder, symlinks=True)
    for p in (folder / ".kg").glob("g*/sparql-store"):
        shutil.rmtree(p)
    res = runner.invoke(app, ["sparql", "top_tasks", "-g", str(folder)])
    assert res.exit_code == 0, res.output
    assert f"building the SPARQL store of {folder}/ (no store yet; once per build of the graph): about " in res.stderr
    assert "SPARQL store built in " in res.stderr
    res = runner.invoke(app, ["sparql", "top_tasks", "-g", str(folder)])
    assert "building" not in res.stderr  # built once


def test_kg_load_into_a_log_says_how_far_it_is(sample_graph_dir, monkeypatch, chatty):
    from kg.sinks.neo4j import store as ns

    from ..sinks.neo4j.test_builders import _Stub

    class Driver(_Stub):
        def close(self):
            pass

    monkeypatch.setattr(ns, "connect", lambda *a, **k: Driver())
    res = runner.invoke(app, ["load", "-g", str(sample_graph_dir), "--batch-size", "10"])
    assert res.exit_code == 0, res.output
    assert any(x.startswith("loading nodes: ") and "%) in " in x for x in res.stderr.splitlines()), res.stderr
    assert any(x.startswith("loading relationships: ") for x in res.stderr.splitlines())
