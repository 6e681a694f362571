"""Resolution from stats merged batch by batch equals resolution of all papers at once, and
re-making only the entities :func:`kg.resolve.changed` names gives every entity."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.lexicon import LexEntry, Lexicon
from kg.records import Entity, Extraction, Paper
from kg.resolve import aggregate, canonical_ids, changed, collect, resolve, resolve_stats
from kg.senses import scope
from kg.text import entity_id, fold

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LEXICON = Lexicon([
    LexEntry("Technique", "transformer"),
    LexEntry("Technique", "reinforcement learning", ("RL",)),
    LexEntry("Model", "LLaMA", broader=("transformer",)),
    LexEntry("Method", "low-rank adaptation", ("LoRA",)),
])
NAMES = ["transformer", "Transformer", "LoRA", "low-rank adaptation", "Low-Rank Adaptation", "RL",
         "reinforcement learning", "Reinforcement Learning", "FooNet", "Foo Network", "LLMs", "LLaMA",
         "GRPO", "group relative policy optimization"]
LABELS = ["Method", "Technique", "Model", "Task", "Dataset"]
PROPS = [(), (("size", "7B"),), (("size", "13B"),), (("family", "Qwen"),), (("family", "LLaMA"), ("size", "7B"))]

entity = st.tuples(st.sampled_from(LABELS), st.sampled_from(NAMES),
                   st.lists(st.sampled_from(NAMES + ["FN", "GRPO"]), max_size=2), st.sampled_from(PROPS))
corpus = st.lists(st.lists(entity, max_size=5), min_size=1, max_size=10)


def extractions(papers: list) -> list[Extraction]:
    out = []
    for i, found in enumerate(papers):
        by_id: dict[str, Entity] = {}
        for label, name, aliases, props in found:
            eid = entity_id(label, fold(name) or name)
            by_id.setdefault(eid, Entity(eid, label, name, tuple(a for a in aliases if a != name), (), props))
        out.append(Extraction(Paper(f"p{i:02d}", "x"), tuple(by_id.values())))
    return out


def batches(items: list, rnd: random.Random) -> list[list]:
    items = items[:]
    rnd.shuffle(items)
    cuts = sorted(rnd.sample(range(1, len(items)), min(rnd.randint(0, 3), len(items) - 1))) if len(items) > 1 else []
    return [items[a:b] for a, b in zip([0, *cuts], [*cuts, len(items)], strict=True)]


def view(entities: dict) -> dict:
    return {k: (r.label, r.name, r.aliases, r.props, r.papers) for k, r in entities.items()}


@SETTINGS
@given(corpus, st.randoms(use_true_random=False), st.booleans())
def test_stats_merged_in_any_order_resolve_like_everything_at_once(papers, rnd, with_lexicon):
    lexicon = LEXICON if with_lexicon else None
    exs = extractions(papers)
    entities, remap = resolve(exs, lexicon)
    stats: dict = {}
    for batch in batches(exs, rnd):
        collect(batch, stats, lexicon)
    got, got_remap = resolve_stats(stats, lexicon)
    assert got_remap == remap
    assert view(got) == view(entities)


@SETTINGS
@given(corpus, st.randoms(use_true_random=False), st.booleans())
def test_remaking_only_the_changed_entities_gives_all_of_them(papers, rnd, with_lexicon):
    lexicon = LEXICON if with_lexicon else None
    exs = extractions(papers)
    stats: dict = {}
    entities: dict = {}
    remap: dict[str, str] = {}
    old_why: dict[str, str] = {}
    added: list[Extraction] = []
    for batch in batches(exs, rnd):
        added += batch
        collect(batch, stats, lexicon)
        new_remap = canonical_ids(stats, lexicon, why := {})
        _, dirty = changed(remap, new_remap, {e.id for ex in batch for e in scope(ex, lexicon).entities})
        dirty |= {new_remap.get(e, e) for e in {*why, *old_why} if why.get(e) != old_why.get(e)}
        remade = aggregate(stats, new_remap, lexicon, {c for c in dirty if c in stats and c not in new_remap}, why)
        entities = {k: v for k, v in entities.items() if k not in dirty} | remade
        remap, old_why = new_remap, why
        whole, whole_remap = resolve(added, lexicon)  # after every batch: each is some folder's state
        assert remap == whole_remap
        assert view(entities) == view(whole)


def test_order_of_the_papers_given_does_not_matter():
    exs = extractions([[("Model", "LLaMA", [], (("size", "13B"),))], [("Model", "LLaMA", [], (("size", "7B"),))]])
    forward, _ = resolve(exs)
    backward, _ = resolve(exs[::-1])
    assert view(forward) == view(backward)
    assert forward["model:llama"].props == {"size": "13B"}  # the smallest paper id says it first
