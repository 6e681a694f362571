"""kg.calibration: isotonic fitting, reliability tables, and the mapping applied to extraction."""

from __future__ import annotations

import random

import pytest

from kg.calibration import Mapping, calibrate_relations, fit_isotonic, read, reliability, write
from kg.errors import ConfigError
from kg.records import Relation


def synthetic(n: int, seed: int) -> tuple[list[float], list[int]]:
    """Scores that are over-confident: a fact with score s is right with probability s**2."""
    rng = random.Random(seed)
    scores = [rng.random() for _ in range(n)]
    return scores, [int(rng.random() < s * s) for s in scores]


def test_a_fitted_mapping_reduces_the_calibration_error_on_held_out_data():
    fit_s, fit_r = synthetic(4000, 1)
    test_s, test_r = synthetic(4000, 2)
    m = fit_isotonic(fit_s, fit_r)
    before = reliability(test_s, test_r).ece
    after = reliability([m(s) for s in test_s], test_r).ece
    assert before > 0.1 and after < 0.03 and after < before / 4


def test_isotonic_is_monotone_and_pools_violators():
    m = fit_isotonic([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 1])
    assert m.xs == (0.1, 0.2, 0.3, 0.4) and m.ys == (0.5, 0.5, 1.0, 1.0)
    # facts sharing a score are one point: the mapping never splits them by their answers
    m = fit_isotonic([0.5] * 32 + [0.6] * 63, [1] * 7 + [0] * 25 + [1] * 19 + [0] * 44)
    assert (m(0.5), m(0.6)) == (round(7 / 32, 4), round(19 / 63, 4))
    s, r = synthetic(500, 3)
    m = fit_isotonic(s, r)
    values = [m(x / 100) for x in range(101)]
    assert values == sorted(values) and all(0.0 <= v <= 1.0 for v in values)
    assert Mapping((), ())(0.42) == 0.42  # no knots: identity


def test_reliability_table_in_markdown():
    rel = reliability([0.05, 0.15, 0.95, 1.0], [0, 1, 1, 1], bins=10)
    assert [b.count for b in rel.bins] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    assert rel.ece == round((0.05 + 0.85 + 2 * 0.025) / 4, 4)
    text = rel.markdown("role")
    assert text.startswith(f"**role**: 4 facts, ECE {rel.ece:.3f}") and "| 0.9–1.0 | 2 | 0.975 | 1.000 |" in text
    assert "| 0.2–0.3 |" not in text


def test_the_mapping_file_is_applied_per_kind_and_absent_means_identity(tmp_path):
    path = write({"PROPOSES": Mapping((0.2, 0.8), (0.1, 0.9)), "role": Mapping((0.5,), (0.25,))}, tmp_path / "c.json")
    maps = read(path)
    rels = [Relation("PROPOSES", "p", "m:a", confidence=0.5), Relation("USES", "m:a", "t:b", confidence=0.9),
            Relation("MENTIONS", "p", "t:b", confidence=0.7)]
    assert [r.confidence for r in calibrate_relations(rels, maps)] == [0.5, 0.25, 0.7]
    assert read(tmp_path / "none.json") == {}
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match="bad.json"):
        read(tmp_path / "bad.json")


def test_labelled_facts_match_as_kg_eval_does():
    from kg.evaluate import labelled_facts
    from kg.records import Entity, Extraction, Paper

    row = {"id": "p", "entities": [{"label": "Method", "name": "FooNet", "aliases": ["FN"]},
                                   {"label": "Dataset", "name": "CIFAR-10"}, {"label": "Method", "name": "BarNet"}],
           "proposes": ["FooNet"], "relations": [{"type": "EVALUATED_ON", "source": "FooNet", "target": "CIFAR-10"},
                                                 {"type": "OUTPERFORMS", "source": "FooNet", "target": "BarNet"}]}
    ents = (Entity("method:fn", "Method", "FN", props=(("confidence", 0.9),)),
            Entity("dataset:cifar-10", "Dataset", "CIFAR 10"),  # no score: no entity fact
            Entity("technique:barnet", "Technique", "BarNet", props=(("confidence", 0.5),)),  # another label
            Entity("method:barnet", "Method", "BarNet"), Entity("method:baz", "Method", "Baz", props=(("confidence", 0.2),)))
    rels = (Relation("PROPOSES", "p", "method:fn", confidence=0.8), Relation("PROPOSES", "p", "method:baz", confidence=0.4),
            Relation("EVALUATED_ON", "method:fn", "dataset:cifar-10", confidence=0.7),
            Relation("COMPARED_WITH", "method:fn", "method:barnet", confidence=0.6),
            Relation("USES", "method:fn", "method:barnet", confidence=0.3))
    facts = labelled_facts([row], [Extraction(Paper("p", ""), ents, rels)])
    assert sorted(facts) == [("PROPOSES", 0.4, False), ("PROPOSES", 0.8, True),
                             ("entity", 0.2, False), ("entity", 0.5, False), ("entity", 0.9, True),
                             ("role", 0.3, False), ("role", 0.6, True), ("role", 0.7, True)]


def test_a_rules_only_extraction_applies_the_rules_mapping_and_the_pipeline_id_names_it(monkeypatch, tmp_path):
    import kg.calibration
    import kg.extract.pipeline as pipeline
    from kg.extract import Extractor
    from kg.records import Paper

    text = "We propose FooNet, a sparse transformer for image classification."
    before = pipeline.pipeline_id()
    path = write({"PROPOSES": Mapping((0.0, 1.0), (0.123, 0.123))}, tmp_path / "c.json")
    monkeypatch.setattr(kg.calibration, "CALIBRATION_FILE", path)
    monkeypatch.setattr(pipeline, "CALIBRATION_FILE", path)
    ex = next(iter(Extractor(spans_model="", encoder="").extract_all([Paper("p", text)])))
    assert [r.confidence for r in ex.relations if r.type == "PROPOSES"] == [0.123]
    assert pipeline.pipeline_id() != before


def test_a_learned_pipeline_applies_the_mapping_beside_its_decisions(tmp_path):
    """The fast pipeline's decisions come with their own calibration file: a copy of the span
    model with one reads that mapping (and is another pipeline), the rules' file is not read."""
    import shutil

    from kg.calibration import pipeline_file
    from kg.extract import Extractor
    from kg.extract.pipeline import pipeline_id
    from kg.extract.spans import default_model
    from kg.records import Paper

    bare, model = tmp_path / "bare", tmp_path / "spans"
    for folder in (bare, model):
        shutil.copytree(default_model(), folder, ignore=shutil.ignore_patterns("calibration.json"))
    assert pipeline_file(model) == model / "calibration.json"
    write({"PROPOSES": Mapping((0.0, 1.0), (0.321, 0.321)), "entity": Mapping((0.0, 1.0), (0.456, 0.456))},
          pipeline_file(model))
    assert pipeline_id(spans_model=model) != pipeline_id(spans_model=bare)
    text = "We propose FooNet, a sparse transformer for image classification."
    ex = next(iter(Extractor(spans_model=str(model), encoder="").extract_all([Paper("p", text)])))
    assert [r.confidence for r in ex.relations if r.type == "PROPOSES"] == [0.321]
    # every entity the selector read carries its (here mapped) confidence
    assert {dict(e.props).get("confidence") for e in ex.entities} == {0.456}
