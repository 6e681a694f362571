"""Property-based tests: readers, normalisation, extraction offsets, resolution."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.io.readers import ReadReport, read_papers
from kg.records import Entity, Extraction, Paper
from kg.resolve import resolve
from kg.text import clean, fold, slug

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# text with the characters scrapers produce: LaTeX, markdown, HTML, unicode, controls
_chars = list("aZ09 .,;:-_*$^{}\\<>&#\"'`()[]/\n\t\r") + ["\u2013", "\u200b", "\u202e", "é", "中", "😀", "\x00", "\ufeff"]
_words = ["We propose ", "FooNet", " LLMs ", "Qwen3-8B", " (RL) ", "Large Language Models (LLMs)", ". "]
nasty = st.lists(st.one_of(st.sampled_from(_chars), st.sampled_from(_words)), max_size=60).map("".join)


@SETTINGS
@given(nasty)
def test_clean_is_idempotent_and_printable(text):
    once = clean(text)
    assert clean(once) == once
    assert "\x00" not in once and "\u200b" not in once and "\u202e" not in once
    assert once == once.strip()


@SETTINGS
@given(st.text(max_size=60))
def test_slug_and_fold_are_stable(name):
    assert slug(name) == slug(name) and slug(name).isascii() and slug(name)
    assert fold(fold(name)) == fold(name) or not fold(name)


@SETTINGS
@given(st.lists(st.one_of(
    st.fixed_dictionaries({"id": st.text(min_size=1, max_size=20), "abstract": nasty, "title": nasty}),
    st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.integers(), nasty), max_size=4),
    st.text(max_size=40)), max_size=8))
def test_jsonl_reader_never_raises_and_accounts_for_every_line(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("p") / "x.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    path.write_text("\n".join(lines), encoding="utf-8")
    report = ReadReport()
    papers = list(read_papers([str(path)], report))
    for p in papers:
        assert clean(p.abstract) == p.abstract and p.id
    nonblank = {i for i, line in enumerate(lines, 1) if line.strip()}
    read = {int(p.source.rsplit(":", 1)[1]) for p in papers}
    skipped = {p.line for p in report.skipped if p.line is not None}
    if any(p.reason.startswith("unreadable") for p in report.skipped):  # NUL bytes: binary file
        assert not papers
        return
    assert read | skipped == nonblank and not read & skipped  # every line read or reported, once


@SETTINGS
@given(nasty, nasty)
def test_every_offset_indexes_the_printed_text(extractor, abstract, title):
    paper = Paper(id="p", abstract=clean(abstract), title=clean(title))
    ex = extractor.extract(paper)
    for e in ex.entities:
        for m in e.mentions:
            src = ex.paper.title if m.field == "title" else ex.paper.abstract
            assert src[m.start:m.end] == m.text
    for r in ex.relations:
        if r.evidence is not None:
            src = ex.paper.title if r.evidence.field == "title" else ex.paper.abstract
            assert src[r.evidence.start:r.evidence.end] == r.evidence.text


names = st.sampled_from(["transformer", "Transformer", "LoRA", "low-rank adaptation", "RL",
                         "reinforcement learning", "Reinforcement Learning", "FooNet", "LLMs"])
labels = st.sampled_from(["Method", "Technique", "Model", "Task"])


@pytest.mark.xfail(strict=True, reason="known defect: a short form one paper leaves undefined is scoped to that "
                   "paper (kg.senses) and resolve's map from extracted ids does not say so, so a second "
                   "resolution differs (one paper's bare 'LoRA')")
@SETTINGS
@given(st.lists(st.lists(st.tuples(labels, names, st.lists(names, max_size=2)), max_size=4), min_size=1, max_size=5))
def test_resolving_twice_changes_nothing(papers):
    from kg.extract.adapter import make_id

    exs = [Extraction(Paper(f"p{i}", "x"), tuple({make_id(lab, n): Entity(make_id(lab, n), lab, n, tuple(a))
                                                   for lab, n, a in ents}.values()))
           for i, ents in enumerate(papers)]
    ents, remap = resolve(exs)
    again = [Extraction(ex.paper, tuple({remap.get(e.id, e.id): Entity(remap.get(e.id, e.id),
                                                                      ents[remap.get(e.id, e.id)].label,
                                                                      ents[remap.get(e.id, e.id)].name,
                                                                      tuple(ents[remap.get(e.id, e.id)].aliases))
                                         for e in ex.entities}.values()))
             for ex in exs]
    ents2, remap2 = resolve(again)
    assert remap2 == {}
    assert {k: (v.label, v.name, v.aliases, v.papers) for k, v in ents.items()} == \
        {k: (v.label, v.name, v.aliases, v.papers) for k, v in ents2.items()}
