"""The mention-level gold tools (eval/spans.py, eval/check_spans.py): the draw, span location and
the checker's errors, on rows written here (no abstract text is stored)."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import PAPERS, ROOT, need

sys.path.insert(0, str(ROOT / "eval"))
import check_spans  # noqa: E402
import spans  # noqa: E402

PAPER = {"title": "FooNet: Speculative Decoding for LLMs",
         "abstract": "Large language models (LLMs) are slow. We propose FooNet, which uses speculative "
                     "decoding; FooNet-XL is larger. LLM-based agents improve. Reinforcement learning "
                     "helps, and so does reinforcement learning from feedback."}


def _row(entities, proposes=(), relations=()):
    return {"id": "p1", "source": "x.jsonl", "split": "spantrain", "entities": entities,
            "proposes": list(proposes), "repositories": [], "relations": list(relations)}


def test_forms_match_whole_words_with_plurals_and_case_only_where_safe():
    text = PAPER["abstract"]
    assert [text[s:e] for s, e in spans.locate("LLM", text)] == ["LLMs", "LLM"]  # plural, and LLM-based
    assert [text[s:e] for s, e in spans.locate("reinforcement learning", text)] == [
        "Reinforcement learning", "reinforcement learning"]
    assert spans.locate("FooNet", text) == [(text.index("FooNet"), text.index("FooNet") + 6),
                                            (text.index("FooNet-XL"), text.index("FooNet-XL") + 6)]
    assert spans.locate("LLM", "an llm here") == []  # an acronym matches as written
    assert spans.locate("decoding", "encoding") == []  # never inside a word


def test_flat_takes_the_longest_reading():
    found = [(0, 6, "Method"), (0, 9, "Method"), (3, 9, "Technique"), (10, 12, "Task")]
    assert spans.flat(found) == [(0, 9, "Method"), (10, 12, "Task")]


def test_spans_place_every_form_of_every_entity():
    row = _row([{"label": "Technique", "name": "large language model", "aliases": ["LLM"],
                 "mentions": ["Large language models", "LLMs"]},
                {"label": "Method", "name": "FooNet", "aliases": [], "mentions": ["FooNet"]}])
    got = spans.spans(row, PAPER["title"], PAPER["abstract"])
    text = PAPER["abstract"]
    assert [(PAPER["title"][s:e], lab) for s, e, lab in got["title"]] == [("FooNet", "Method"), ("LLMs", "Technique")]
    assert ("Large language models", "Technique") in [(text[s:e], lab) for s, e, lab in got["abstract"]]


def test_checker_rejects_forms_not_in_the_text_and_forms_given_twice():
    errors, hints = [], []
    row = _row([{"label": "Method", "name": "FooNet", "aliases": [], "mentions": ["FooNet", "BarNet"]},
                {"label": "Technique", "name": "speculative decoding", "aliases": [], "mentions": ["FooNet"]}],
               proposes=["FooNet", "Nothing"],
               relations=[{"type": "USES", "source": "FooNet", "target": "speculative decoding"}])
    check_spans.check_row(row, "b000.jsonl:1", PAPER, errors, hints)
    assert any("'BarNet'" in e and "not found" in e for e in errors)
    assert any("given to" in e for e in errors)
    assert any("proposes 'Nothing'" in e for e in errors)
    assert not any("relation" in e for e in errors)
    assert any("'LLMs'" in h for h in hints)  # an acronym no mention covers is worth a look


def test_draws_are_reproducible_and_disjoint():
    need(PAPERS / "icml2024.jsonl")
    d = spans.draws(PAPERS)
    import sample

    test = [sample.paper_id(r) for _, r in d[spans.TEST_SPLIT]]
    train = [sample.paper_id(r) for _, r in d[spans.TRAIN_SPLIT]]
    assert len(test) == spans.TEST_N and len(set(train)) == spans.TRAIN_N
    assert not set(test) & set(train)
    earlier = {sample.paper_id(r) for draw in sample._draws(PAPERS) for _, r in draw}
    assert not earlier & (set(test) | set(train))
    spans.draws.cache_clear()
    assert [sample.paper_id(r) for _, r in spans.draws(PAPERS)[spans.TEST_SPLIT]] == test


@pytest.mark.parametrize("name", ["b000", "t000"])
def test_committed_batches_pass_the_checker(name, capsys):
    need(PAPERS / "icml2024.jsonl")
    path = spans.GOLD_DIR / f"{name}.jsonl"
    assert check_spans.check([path], PAPERS) == 0, capsys.readouterr().out
