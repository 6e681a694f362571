import json
import sys

import pytest

from kg.cli import main

from ..explore.fixture import P2, folder


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory):
    return folder(tmp_path_factory.mktemp("explore-graph"))


def kg(capsys, monkeypatch, *args):
    """Run the real entry point in-process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["kg", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        main()
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_show_prints_names_papers_and_evidence(graph_dir, capsys, monkeypatch):
    rc, out, _ = kg(capsys, monkeypatch, "show", "low rank adaptation", "-g", graph_dir)
    assert rc == 0
    assert out.startswith("LoRA  Method  method:lora")
    assert "aliases: low-rank adaptation" in out and "narrower: QLoRA" in out
    assert "proposed by: Adapting Large Models (ICLR 2024)" in out
    assert "PROPOSES/ADDRESSES/EVALUATED_ON  Adapting Large Models (ICLR 2024)" in out
    assert "← USES (incoming) (1)" in out and "QLoRA (Method)  [QLoRA (ICML 2023)]" in out
    assert f'"{P2.split(". ")[0]}."' in out


def test_show_limit_says_how_many_more(graph_dir, capsys, monkeypatch):
    rc, out, _ = kg(capsys, monkeypatch, "show", "code generation", "-g", graph_dir, "--limit", "1")
    assert rc == 0 and "papers (2)" in out and "… and 1 more" in out


def test_show_a_paper_and_several_nodes_of_one_name(graph_dir, capsys, monkeypatch):
    rc, out, _ = kg(capsys, monkeypatch, "show", "qlora", "-g", graph_dir)
    assert rc == 0
    assert "QLoRA  Method  method:qlora" in out and "QLoRA  Paper  paper:p2" in out
    assert "venue: ICML 2023" in out and "proposes: QLoRA (Method)" in out
    assert "2 nodes are named 'qlora'; kg show ID shows one" in out


def test_show_json_is_one_record(graph_dir, capsys, monkeypatch):
    rc, out, _ = kg(capsys, monkeypatch, "show", "PPO", "-g", graph_dir, "--json")
    record = json.loads(out)
    assert rc == 0 and record["query"] == "PPO"
    assert [m["id"] for m in record["matches"]] == ["method:ppo"]
    assert record["also"][0]["node"] == {"id": "technique:policy-optimization", "label": "Technique",
                                         "name": "policy optimization"}


def test_show_unknown_name_exits_2_with_suggestions(graph_dir, capsys, monkeypatch):
    rc, out, err = kg(capsys, monkeypatch, "show", "lorra", "-g", graph_dir)
    assert (rc, out) == (2, "")
    assert err.startswith("kg: error: no entity or paper named 'lorra'; did you mean: LoRA (Method), QLoRA")
    assert len(err.strip().splitlines()) == 1


def test_a_missing_graph_folder_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    for command in (["show", "LoRA"], ["search", "LoRA"]):
        rc, _, err = kg(capsys, monkeypatch, *command, "-g", tmp_path / "none")
        assert rc == 2 and err.startswith("kg: error: no graph in") and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


def test_search_ranks_and_filters(graph_dir, capsys, monkeypatch):
    rc, out, _ = kg(capsys, monkeypatch, "search", "code generation", "-g", graph_dir, "--limit", "2")
    lines = out.splitlines()
    assert rc == 0 and lines[0].startswith("Task       code generation  2 papers  [name]")
    assert lines[1].startswith("Dataset    code generation benchmark") and lines[2] == "… and 5 more (--limit N shows more)"
    rc, out, _ = kg(capsys, monkeypatch, "search", "--uses", "LoRA", "--addresses", "code generation", "-g", graph_dir)
    assert rc == 0 and out.splitlines() == ["Paper      QLoRA  ICML 2023  [filter]  via LoRA, code generation  paper:p2"]


def test_search_json(graph_dir, capsys, monkeypatch):
    rc, out, _ = kg(capsys, monkeypatch, "search", "--uses", "LoRA", "--year", "2024", "-g", graph_dir, "--json")
    record = json.loads(out)
    assert rc == 0 and set(record) == {"text", "filters", "total", "hits"}
    assert record["filters"] == [["year", "2024"], ["uses", "LoRA"]]
    assert [(h["id"], h["via"], h["venue"]) for h in record["hits"]] == [("paper:p3", ["QLoRA"], "ICLR 2024")]


def test_search_without_text_or_filter_exits_2(graph_dir, capsys, monkeypatch):
    rc, _, err = kg(capsys, monkeypatch, "search", "-g", graph_dir)
    assert rc == 2 and "give a TEXT to search for, or a filter" in err


def test_a_crafted_graph_sends_no_control_character_to_the_terminal(tmp_path, capsys, monkeypatch):
    """A name or title holding an escape sequence (clear the screen, retitle the window) is
    printed with it shown as ``\\x1b``, never sent as is."""
    from kg.graph import build_graph
    from kg.io.format import save
    from kg.records import Entity, Extraction, Paper, Relation

    ex = Extraction(Paper("p1", "We use EvilNet.", title="T\x1b]0;pwned\x07itle"),
                    (Entity("method:evilnet", "Method", "Evil\x1b[2JNet\x9b1m"),), (Relation("USES", "p1", "method:evilnet"),))
    save(tmp_path / "g", build_graph([ex]), [ex], ["x.jsonl"])
    for args in (("show", "method:evilnet"), ("stats",), ("search", "evil")):
        code, out, err = kg(capsys, monkeypatch, *args, "-g", tmp_path / "g")
        assert code == 0, err
        assert not any(c in out + err for c in "\x1b\x07\x9b"), (args, out)
    code, out, _ = kg(capsys, monkeypatch, "show", "method:evilnet", "-g", tmp_path / "g")
    assert "Evil\\x1b[2JNet\\x9b1m" in out and "T\\x1b]0;pwned\\x07itle" in out
