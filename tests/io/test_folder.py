"""Adding papers to a folder gives, byte for byte, the folder a one-shot build gives: in any
order of additions, with papers that change, with the folder's index missing or stale."""

from __future__ import annotations

import json
import os
import pickle
import random
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kg.io.folder as folder_mod
from kg.builder import build
from kg.errors import GraphDamaged
from kg.graph import build_graph
from kg.io.folder import STATE_FILE, FolderState, GraphFolder
from kg.io.format import EXTRACTIONS_FILE, GRAPH_FILE, MANIFEST_FILE, graph_lines
from kg.io.generations import current, sign
from kg.lexicon import LexEntry, Lexicon
from kg.records import Entity, Evidence, Extraction, Paper, Relation
from kg.schema import MENTION_RELATION
from kg.text import entity_id, fold

from ..conftest import SAMPLE, SEED, need

FILES = (GRAPH_FILE, EXTRACTIONS_FILE, MANIFEST_FILE)
PIPELINE = "rules-1"
LEXICON = Lexicon([
    LexEntry("Technique", "transformer"),
    LexEntry("Technique", "attention", broader=("transformer",)),
    LexEntry("Technique", "reinforcement learning", ("RL",)),
    LexEntry("Model", "LLaMA", broader=("transformer",)),
    LexEntry("Model", "Qwen", broader=("Transformer",)),
    LexEntry("Method", "low-rank adaptation", ("LoRA",), broader=("fine-tuning",)),
])
NAMES = ["transformer", "Transformer", "attention", "LoRA", "low-rank adaptation", "RL", "reinforcement learning",
         "FooNet", "Foo Network", "LLaMA", "Qwen", "GRPO", "group relative policy optimization", "ImageNet",
         "fine-tuning"]
LABELS = ["Method", "Technique", "Model", "Task", "Dataset", "Metric"]
VENUES = [None, ("ICML 2024", 2024), ("ICML 2024", None), ("icml 2024", 2024), ("NeurIPS 2023", 2023)]
AUTHORS = ["Ann Lee", "ann lee", "Bo Chen", "Dana Ford", "Éva Kiss"]

entity = st.tuples(st.sampled_from(LABELS), st.sampled_from(NAMES),
                   st.lists(st.sampled_from(NAMES + ["FN", "GRPO"]), max_size=2),
                   st.sampled_from([(), (("size", "7B"),), (("family", "Qwen"),)]))
paper = st.fixed_dictionaries({
    "entities": st.lists(entity, max_size=5),
    "venue": st.sampled_from(VENUES),
    "authors": st.lists(st.sampled_from(AUTHORS), max_size=3),
    "links": st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=3),
    "ghost": st.booleans(),  # a relation to an id no paper of its own extracts
    "result": st.booleans(),
    "version": st.integers(0, 1),
})
corpus = st.lists(paper, min_size=1, max_size=10)


def extraction(i: int, spec: dict, version: int = 0) -> Extraction:
    pid = f"p{i:02d}"
    by_id: dict[str, Entity] = {}
    for label, name, aliases, props in spec["entities"][version:]:  # version 1 drops an entity
        eid = entity_id(label, fold(name) or name)
        by_id.setdefault(eid, Entity(eid, label, name, tuple(a for a in aliases if a != name), (), props))
    ents = list(by_id.values())
    ev = Evidence("We use it.", 0, 10)
    rels = [Relation(MENTION_RELATION[e.type], pid, e.id, ev, 0.5, "mention") for e in ents]
    for a, b in spec["links"]:
        if ents:
            rels.append(Relation("COMPARED_WITH", ents[a % len(ents)].id, ents[b % len(ents)].id, ev, 0.6, "comparison"))
    if spec["ghost"]:
        rels += [Relation("USES", pid, "method:foonet", None, 0.4, "x"), Relation("VARIANT_OF", "model:llama", "model:qwen")]
    results: tuple = ()
    if spec["result"] and ents:
        results = ({"start": 3, "end": 5, "text": "4.5", "value": 4.5, "unit": "%", "metric": "accuracy",
                    "metric_id": "metric:accuracy", "method": ents[0].id, "setting": [e.id for e in ents[1:]],
                    "evidence": {"text": "We use it.", "start": 0, "end": 10}},)
    venue, year = spec["venue"] or (None, None)
    p = Paper(pid, f"Abstract {i} v{version}.", f"Title {i}", venue, year, tuple(spec["authors"]))
    return Extraction(p, tuple(ents), tuple(rels), results)


def batches(items: list, rnd: random.Random) -> list[list]:
    items = items[:]
    rnd.shuffle(items)
    cuts = sorted(rnd.sample(range(1, len(items)), min(rnd.randint(1, 3), len(items) - 1))) if len(items) > 1 else []
    return [items[a:b] for a, b in zip([0, *cuts], [*cuts, len(items)], strict=True)]


def files(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in FILES}


@contextmanager
def no_rebuild():
    """Fail if the folder is rebuilt from extractions.jsonl instead of updated in place."""
    with mock.patch.object(folder_mod, "load_extractions", side_effect=AssertionError("rebuilt from the extractions")):
        yield


@pytest.fixture(autouse=True, scope="module")
def fixed_time():
    with mock.patch.dict(os.environ, {"SOURCE_DATE_EPOCH": "0"}):
        yield


def one_shot(tmp_path_factory, exs: list[Extraction], lexicon=LEXICON) -> Path:
    one = tmp_path_factory.mktemp("one")
    GraphFolder(one).add(exs, ["x"], PIPELINE, lexicon)
    return one


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(corpus, st.randoms(use_true_random=False))
def test_any_order_of_additions_gives_the_one_shot_folder(tmp_path_factory, specs, rnd):
    exs = [extraction(i, s) for i, s in enumerate(specs)]
    one = one_shot(tmp_path_factory, exs)
    assert (one / GRAPH_FILE).read_bytes() == b"".join(line + b"\n" for line in graph_lines(build_graph(exs, LEXICON)))
    inc = tmp_path_factory.mktemp("inc")
    for n, batch in enumerate(batches(exs, rnd)):
        if n:
            with no_rebuild():
                GraphFolder(inc).add(batch, ["x"], PIPELINE, LEXICON)
        else:
            GraphFolder(inc).add(batch, ["x"], PIPELINE, LEXICON)
    assert files(inc) == files(one)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(corpus, st.randoms(use_true_random=False))
def test_changed_papers_replace_the_stored_ones(tmp_path_factory, specs, rnd):
    final = [extraction(i, s, s["version"]) for i, s in enumerate(specs)]
    inc = tmp_path_factory.mktemp("inc")
    GraphFolder(inc).add([extraction(i, s) for i, s in enumerate(specs)], ["x"], PIPELINE, LEXICON)
    for batch in batches(final, rnd):
        GraphFolder(inc).add(batch, ["x"], PIPELINE, LEXICON)
    assert files(inc) == files(one_shot(tmp_path_factory, final))


def test_adding_nothing_rewrites_only_the_manifest_and_index(tmp_path):
    exs = [extraction(i, {"entities": [("Model", "LLaMA", [], ())], "venue": VENUES[1], "authors": AUTHORS[:2],
                          "links": [], "ghost": True, "result": True, "version": 0}) for i in range(3)]
    GraphFolder(tmp_path).add(exs, ["a.jsonl"], PIPELINE, LEXICON)
    before = files(tmp_path)
    inodes = {n: (tmp_path / n).stat().st_ino for n in (GRAPH_FILE, EXTRACTIONS_FILE)}
    with no_rebuild():
        GraphFolder(tmp_path).add([], ["b.jsonl"], PIPELINE, LEXICON)
    after = files(tmp_path)
    assert {n: (tmp_path / n).stat().st_ino for n in inodes} == inodes  # not rewritten
    assert after[GRAPH_FILE] == before[GRAPH_FILE] and after[EXTRACTIONS_FILE] == before[EXTRACTIONS_FILE]
    assert json.loads(after[MANIFEST_FILE])["sources"] == ["a.jsonl", "b.jsonl"]
    assert FolderState.load(tmp_path) is not None


def base_and_extra(tmp_path):
    specs = [{"entities": [("Technique", NAMES[i % len(NAMES)], ["RL"], ()), ("Model", "LLaMA", [], ())],
              "venue": VENUES[i % len(VENUES)], "authors": AUTHORS[i % 3:], "links": [(0, 1)], "ghost": i % 2 == 0,
              "result": True, "version": 0} for i in range(8)]
    exs = [extraction(i, s) for i, s in enumerate(specs)]
    folder = tmp_path / "g"
    GraphFolder(folder).add(exs[:6], ["x"], PIPELINE, LEXICON)
    return folder, exs


@pytest.mark.parametrize("damage", ["no index", "manifest edited", "graph edited", "extractions edited",
                                    "index truncated", "index from other code", "lexicon changed"])
def test_a_stale_or_missing_index_is_not_trusted(tmp_path, tmp_path_factory, damage):
    folder, exs = base_and_extra(tmp_path)
    lexicon = LEXICON
    state = current(folder) / STATE_FILE
    if damage == "no index":
        state.unlink()
    elif damage == "manifest edited":
        m = json.loads((folder / MANIFEST_FILE).read_text())
        (folder / MANIFEST_FILE).write_text(json.dumps({**m, "built": "yesterday"}, indent=2, sort_keys=True) + "\n")
    elif damage == "graph edited":
        with open(folder / GRAPH_FILE, "ab") as fh:
            fh.write(b'{"id":"x","kind":"node","label":"Task","name":"x"}\n')
    elif damage == "extractions edited":  # a paper appended by hand: the papers cannot be trusted
        with open(folder / EXTRACTIONS_FILE, "ab") as fh:
            fh.write(json.dumps(exs[7].to_json()).encode() + b"\n")
        before = files(folder)
        with pytest.raises(GraphDamaged, match="--fresh"):
            GraphFolder(folder).add(exs[6:], ["x"], PIPELINE, lexicon)
        assert files(folder) == before
        return
    elif damage == "index truncated":
        state.write_bytes(state.read_bytes()[:-1000])
    elif damage == "index from other code":
        head, _, rest = state.read_bytes().partition(b"\n")
        state.write_bytes(json.dumps({**json.loads(head), "code": "0" * 64}).encode() + b"\n" + rest)
    elif damage == "lexicon changed":  # the index is valid: what depends on the lexicon is redone
        lexicon = Lexicon([*LEXICON.entries, LexEntry("Technique", "LORA"),  # renames an entity no new paper names
                           LexEntry("Method", "GRPO", broader=("reinforcement learning",))])
    GraphFolder(folder).add(exs[6:], ["x"], PIPELINE, lexicon)
    assert files(folder) == files(one_shot(tmp_path_factory, exs, lexicon))
    assert FolderState.load(folder) is not None  # written again, valid


class Boom:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


@pytest.mark.parametrize("part", [0, 1])
def test_an_index_from_elsewhere_cannot_run_code(tmp_path, tmp_path_factory, monkeypatch, part):
    monkeypatch.chdir(tmp_path)
    folder, exs = base_and_extra(tmp_path)
    state = FolderState.load(folder)
    assert state is not None
    index = pickle.dumps((state.papers, state.paper_lens))
    payload = pickle.dumps(Boom()) if part == 0 else index + pickle.dumps(Boom())
    # signed with this user's key, as if written here: the restricted unpickler still refuses it
    head = json.dumps({**folder_mod._header(current(folder)), "signature": sign(payload)}).encode() + b"\n"
    (current(folder) / STATE_FILE).write_bytes(head + payload)
    GraphFolder(folder).add(exs[6:], ["x"], PIPELINE, LEXICON)
    assert not (tmp_path / "pwned").exists()
    assert files(folder) == files(one_shot(tmp_path_factory, exs))


def test_papers_reports_stored_records_without_reading_everything(tmp_path):
    folder, exs = base_and_extra(tmp_path)
    with no_rebuild():
        stored = GraphFolder(folder).papers(["p01", "p07", "p05"])
    assert stored == {"p01": exs[1].paper, "p05": exs[5].paper}


def test_an_ancestor_that_is_an_entity_node_is_linked_not_added(tmp_path_factory):
    """The taxonomy is made from the entities the lexicon knows; the others still count as
    nodes (fine-tuning here, the parent of low-rank adaptation)."""
    spec = {"venue": None, "authors": [], "links": [], "ghost": False, "result": False, "version": 0}
    exs = [extraction(0, {**spec, "entities": [("Method", "fine-tuning", [], ())]}),
           extraction(1, {**spec, "entities": [("Method", "low-rank adaptation", [], ()), ("Model", "LLaMA", [], ())]})]
    one = one_shot(tmp_path_factory, exs)
    graph = (one / GRAPH_FILE).read_bytes()
    assert graph == b"".join(line + b"\n" for line in graph_lines(build_graph(exs, LEXICON)))
    assert b'"papers":1' in next(line for line in graph.split(b"\n") if b'"id":"method:fine-tuning"' in line)
    inc = tmp_path_factory.mktemp("inc")
    for ex in exs[::-1]:
        GraphFolder(inc).add([ex], ["x"], PIPELINE, LEXICON)
    assert files(inc) == files(one)


def test_kg_build_adds_papers_without_reading_the_stored_ones(tmp_path):
    seed = str(need(SEED))
    one, inc = tmp_path / "one", tmp_path / "inc"
    build([str(SAMPLE), seed], one)
    build([str(SAMPLE)], inc)
    with no_rebuild():
        added = build([seed], inc)
        again = build([seed, str(SAMPLE)], inc)  # nothing new: nothing extracted, nothing rebuilt
        assert len(again.extractions) == 27  # from the manifest: the stored ones are not read
    assert (added.new, again.new, again.reused) == (19, 0, 27)
    for name in (GRAPH_FILE, EXTRACTIONS_FILE):
        assert (inc / name).read_bytes() == (one / name).read_bytes()


def test_a_folder_reads_a_papers_short_forms_as_a_one_shot_build_does():
    """The folder scopes each paper's short forms with the lexicon, as resolution did: a known
    short form (DETR) keeps its id, so an edge to it is kept."""
    from kg.graph import build_graph
    from kg.io.folder import GraphState
    from kg.lexicon import LexEntry, Lexicon
    from kg.records import Entity, Extraction, Paper, Relation

    lex = Lexicon([LexEntry("Method", "DETR")])
    ex = Extraction(Paper("p", "A detector."), (Entity("method:v-detr", "Method", "V-DETR"), Entity("method:detr", "Method", "DETR")),
                    (Relation("PROPOSES", "p", "method:v-detr"), Relation("USES", "method:v-detr", "method:detr")))
    edits = GraphState().add([ex], lex, lambda ids: {})
    assert any("USES\x00method:detr" in k for k in edits.add)
    assert build_graph([ex], lex).has_edge("method:v-detr", "method:detr")
