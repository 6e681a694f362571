"""kg curate: decisions recorded from the command line, listed, refused when they conflict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg.cli import app, exit_code

from ..conftest import SAMPLE

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sample graph, built once (rules only); each test curates a copy of it."""
    out = tmp_path_factory.mktemp("curate") / "g"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KG_SPANS", "off")
        mp.setenv("KG_ENCODER", "off")
        assert runner.invoke(app, ["build", str(SAMPLE), "-o", str(out)]).exit_code == 0
    return out


@pytest.fixture()
def graph(built, tmp_path, monkeypatch):
    import shutil

    monkeypatch.setenv("KG_SPANS", "off")
    monkeypatch.setenv("KG_ENCODER", "off")
    monkeypatch.setenv("KG_CURATOR", "ana")
    return Path(shutil.copytree(built, tmp_path / "g", symlinks=True))


def test_curate_records_lists_and_refuses(graph, tmp_path):
    res = runner.invoke(app, ["curate", "merge", "method:direct-preference-optimization", "method:lora", "-g", str(graph)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["curate", "reject", "method:gat", "-g", str(graph), "--by", "bo"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (graph / "curation.jsonl").read_text().splitlines() if not x.startswith("#")]
    assert [(r["op"], r["by"]) for r in rows] == [("merge", "ana"), ("reject", "bo")]

    res = runner.invoke(app, ["curate", "list", "-g", str(graph), "--json"])
    assert res.exit_code == 0 and [json.loads(x)["applies"] for x in res.stdout.splitlines()] == [True, True]

    # a conflict and a node that is not there: one line, exit 2, nothing recorded
    before = (graph / "curation.jsonl").read_bytes()
    for args, words in ((["merge", "method:lora", "method:direct-preference-optimization"], "cycle of merges"),
                        (["rename", "method:gat", "GAT-2"], "conflicts with"),
                        (["merge", "method:nosuch", "method:lora"], "entity method:nosuch is not in the graph")):
        res = runner.invoke(app, ["curate", *args, "-g", str(graph)])
        assert exit_code(res.exception) == 2 and words in str(res.exception), (args, res.exception)
    assert (graph / "curation.jsonl").read_bytes() == before

    res = runner.invoke(app, ["show", "lora", "-g", str(graph), "--json"])
    assert "DPO" in res.stdout and "method:gat" not in res.stdout


def test_build_copies_a_curation_file_and_reports_what_no_longer_applies(graph, tmp_path):
    cur = tmp_path / "mine.jsonl"
    cur.write_text('# mine\n{"op": "reject", "node": "method:gat", "by": "a", "at": "t"}\n'
                   '{"op": "reject", "node": "method:gone", "by": "a", "at": "t"}\nnot json\n', encoding="utf-8")
    res = runner.invoke(app, ["build", str(SAMPLE), "-o", str(graph), "--curation", str(cur)])
    assert res.exit_code == 0, res.output
    err = "".join(res.stderr.split())  # the console wraps long lines
    assert "g/curation.jsonl:3:rejectmethod:gone:nodemethod:goneisnotinthegraph" in err
    assert "g/curation.jsonl:4:notJSON" in err and "1decision(s)applied,1nolongerapply,1line(s)skipped" in err
    assert (graph / "curation.jsonl").read_text(encoding="utf-8") == cur.read_text(encoding="utf-8")

    res = runner.invoke(app, ["curate", "list", "-g", str(graph)])
    assert res.exit_code == 1 and "[stale]" in res.stdout

    cur.write_text('{"op": "rename", "node": "method:gat", "name": "A", "by": "a", "at": "t"}\n'
                   '{"op": "rename", "node": "method:gat", "name": "B", "by": "a", "at": "t"}\n', encoding="utf-8")
    before = sorted(p.name for p in (graph / ".kg").iterdir())
    res = runner.invoke(app, ["build", str(SAMPLE), "-o", str(graph), "--curation", str(cur)])
    assert exit_code(res.exception) == 2 and "conflicts with" in str(res.exception)
    assert sorted(p.name for p in (graph / ".kg").iterdir()) == before
