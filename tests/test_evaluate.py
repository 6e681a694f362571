"""kg eval on small fixtures written here: SciER-style sentences and paper-level gold."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kg.cli import app
from kg.evaluate import Score, gold_extractions, norm, scier_papers, score_papers, score_scier
from kg.records import Entity, Extraction, Mention, Paper, Relation

SENTENCES = [
    {"sentence": "We fine - tune BERT on SQuAD for question answering .",
     "ner": [["BERT", "Method"], ["SQuAD", "Dataset"], ["question answering", "Task"]]},
    {"sentence": "Our model uses graph neural networks .", "ner": [["graph neural networks", "Method"]]},
]


def test_score_arithmetic():
    s = Score(tp=3, fp=1, fn=2)
    assert (s.precision, s.recall, s.f1) == (0.75, 0.6, 0.6667)
    assert Score().f1 == 0.0
    assert norm("pre - training") == norm("Pre-training") and norm("graph neural networks") == "graph neural network"


def test_scier_scoring_with_a_real_extractor(extractor):
    exs = list(extractor.extract_all(scier_papers(SENTENCES)))
    res = score_scier(SENTENCES, exs)
    # BERT (a Model), SQuAD, question answering and graph neural network are all in the lexicons
    assert res["micro"]["tp"] == 4 and res["micro"]["fn"] == 0
    assert res["labels"]["Task"]["f1"] == 1.0


def test_paper_level_scoring_counts_aliases_proposals_and_repositories():
    paper = Paper("p1", "We propose FooNet (FN). Code: https://github.com/a/b")
    ex = Extraction(paper, (
        Entity("method:foonet", "Method", "FooNet", ("FN",), (Mention("FooNet", 11, 17),)),
        Entity("technique:rl", "Technique", "reinforcement learning"),
        Entity("repository:x", "Repository", "github.com/a/b"),
    ), (Relation("PROPOSES", "p1", "method:foonet"), Relation("USES", "method:foonet", "technique:rl")))
    gold = [{"id": "p1", "entities": [{"label": "Method", "name": "Foo Network", "aliases": ["FN"]},
                                      {"label": "Task", "name": "control", "aliases": []}],
             "proposes": ["Foo Network"], "repositories": ["github.com/a/b"],
             "relations": [{"type": "USES", "source": "Foo Network", "target": "reinforcement learning"}]}]
    res = score_papers(gold, [ex])
    assert res["labels"]["Method"]["tp"] == 1  # matched through the alias FN
    assert res["labels"]["Technique"]["fp"] == 1 and res["labels"]["Task"]["fn"] == 1
    assert res["proposes"]["f1"] == 1.0 and res["repositories"]["recall"] == 1.0
    assert res["relations"]["tp"] == 1  # source matched through the alias, target by name
    assert "missed Task" in res["errors"]
    assert res["has_code"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 1}
    ex2 = Extraction(paper, ex.entities, (*ex.relations, Relation("HAS_CODE", "method:foonet", "repository:x")))
    assert score_papers(gold, [ex2])["has_code"]["tp"] == 1


def test_kg_eval_cli_on_a_scier_fixture(tmp_path):
    gold = tmp_path / "dev.jsonl"
    gold.write_text("\n".join(json.dumps(s) for s in SENTENCES))
    res = CliRunner().invoke(app, ["eval", str(gold), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["items"] == 2 and 0 <= out["micro"]["f1"] <= 1
    pred = tmp_path / "pred.jsonl"
    res = CliRunner().invoke(app, ["extract", str(tmp_path / "missing.jsonl")])
    assert res.exit_code == 1  # an unreadable input is reported and skipped
    pred.write_text("")
    res = CliRunner().invoke(app, ["eval", str(gold), "--pred", str(pred)])
    assert res.exit_code != 0


def test_model_families_implied_by_sized_names_are_not_predictions():
    paper = Paper("p2", "We fine-tune Qwen3-8B.")
    ex = Extraction(paper, (
        Entity("model:qwen3-8b", "Model", "Qwen3-8B", (), (Mention("Qwen3-8B", 13, 21),)),
        Entity("model:qwen3", "Model", "Qwen3", (), (Mention("Qwen3", 13, 18),)),
    ), (Relation("MENTIONS_MODEL", "p2", "model:qwen3-8b"), Relation("VARIANT_OF", "model:qwen3-8b", "model:qwen3")))
    gold = [{"id": "p2", "entities": [{"label": "Model", "name": "Qwen3-8B", "aliases": []}],
             "proposes": [], "repositories": [], "relations": []}]
    res = score_papers(gold, [ex])
    assert res["labels"]["Model"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "tp": 1, "fp": 0, "fn": 0}


def test_a_second_annotation_scores_as_agreement(tmp_path):
    first = {"id": "p3", "source": "x.jsonl", "split": "fresh",
             "entities": [{"label": "Method", "name": "Foo Network", "aliases": ["FN"]},
                          {"label": "Task", "name": "control", "aliases": []},
                          {"label": "Technique", "name": "reinforcement learning", "aliases": ["RL"]}],
             "proposes": ["Foo Network"], "repositories": ["github.com/a/b"],
             "relations": [{"type": "USES", "source": "Foo Network", "target": "reinforcement learning"}]}
    second = {**first, "entities": [{"label": "Method", "name": "FN", "aliases": []},
                                    {"label": "Technique", "name": "RL", "aliases": []},
                                    {"label": "Metric", "name": "return", "aliases": []}],
              "proposes": ["FN"], "relations": [{"type": "USES", "source": "FN", "target": "RL"}]}
    res = score_papers([first], gold_extractions([second]))
    assert res["labels"]["Method"]["tp"] == 1 and res["labels"]["Technique"]["tp"] == 1
    assert res["labels"]["Task"]["fn"] == 1 and res["labels"]["Metric"]["fp"] == 1
    assert res["proposes"]["f1"] == 1.0 and res["relations"]["tp"] == 1 and res["has_code"]["tp"] == 1
    # the same through the CLI: --pred takes a second annotation file as well as kg extract output
    gold, pred = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    gold.write_text(json.dumps(first) + "\n")
    pred.write_text(json.dumps(second) + "\n")
    out = CliRunner().invoke(app, ["eval", str(gold), "--pred", str(pred), "--split", "all", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["micro"] == res["micro"]


def test_an_unknown_split_is_an_error_not_an_empty_score(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "p", "source": "x.jsonl", "split": "tune", "entities": [],
                                "proposes": [], "repositories": [], "relations": []}) + "\n")
    res = CliRunner().invoke(app, ["eval", str(gold), "--split", "trian"])
    assert res.exit_code != 0 and "choose one of" in res.output + str(res.exception)
