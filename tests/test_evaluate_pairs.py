"""Resolution pairs: both draws read, the second scored by its fit and test halves."""

import json

import pytest

from kg.errors import InputError
from kg.evaluate import read_pairs, score_draws


def _mention(paper, name):
    return {"paper": paper, "source": "x.jsonl", "name": name}


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def gold(tmp_path):
    _write(tmp_path / "draw.jsonl", [
        {"pair": "p000-00", "stratum": "merged", "a": _mention("a", "RL"), "b": _mention("b", "reinforcement learning")},
        {"pair": "p000-01", "stratum": "split", "a": _mention("a", "GAN"), "b": _mention("zz", "GANs")},
    ])
    _write(tmp_path / "p000.jsonl", [{"pair": "p000-00", "same": True, "why": ""},
                                     {"pair": "p000-01", "same": True, "why": ""}])
    _write(tmp_path / "q000.jsonl", [{"pair": "p000-00", "same": False, "why": "second opinion"}])
    _write(tmp_path / "draw2.jsonl", [
        {"pair": "r000-00", "stratum": "short-form", "split": "fit", "a": _mention("a", "SAM"), "b": _mention("c", "SAM")},
        {"pair": "r000-01", "stratum": "short-form", "split": "test", "a": _mention("b", "SD"), "b": _mention("c", "SD")},
        {"pair": "r000-02", "stratum": "generic", "split": "test", "a": _mention("a", "ranking"), "b": _mention("b", "rank")},
        {"pair": "r000-03", "stratum": "generic", "split": "test", "a": _mention("a", "x"), "b": _mention("b", "y")},
    ])
    _write(tmp_path / "r000.jsonl", [{"pair": "r000-00", "same": False, "why": ""},
                                     {"pair": "r000-01", "same": True, "why": ""},
                                     {"pair": "r000-02", "same": "unsure", "why": ""}])
    _write(tmp_path / "s000.jsonl", [{"pair": "r000-00", "same": True, "why": "second opinion"}])
    return tmp_path


def test_both_draws_are_read_with_first_annotations_only(gold):
    rows = read_pairs(gold)
    assert [(r["pair"], r["same"]) for r in rows] == [
        ("p000-00", True), ("p000-01", True), ("r000-00", False), ("r000-01", True), ("r000-02", "unsure")]
    assert [r.get("split") for r in rows] == [None, None, "fit", "test", "test"]


def test_a_folder_without_the_first_draw_is_refused(tmp_path):
    with pytest.raises(InputError, match="draw.jsonl"):
        read_pairs(tmp_path)


def test_the_second_draw_is_scored_by_half_and_unplaced_papers_apart(gold):
    node_of = {("a", "RL"): "t:rl", ("b", "reinforcement learning"): "t:rl", ("a", "GAN"): "m:gan",
               ("a", "SAM"): "m:sam", ("c", "SAM"): "m:sam", ("b", "SD"): "m:sd", ("c", "SD"): "m:sd2"}
    result = score_draws(read_pairs(gold), node_of)
    assert (result["judged"], result["merged"], result["unplaced"]) == (1, 1, 1)  # paper zz is not in the graph
    assert result["strata"]["split"] == {"unplaced": 1}
    fit, test = result["draw2"]["fit"], result["draw2"]["test"]
    assert (fit["judged"], fit["wrong_merges"], fit["wrong_merge_rate"]) == (1, 1, 1.0)
    assert (test["judged"], test["missed_merges"], test["unsure"], test["merged"]) == (1, 1, 1, 0)
    assert test["strata"] == {"short-form": {"fn": 1}}


def test_without_a_second_draw_there_is_no_second_score(gold):
    (gold / "draw2.jsonl").unlink()
    assert "draw2" not in score_draws(read_pairs(gold), {})
