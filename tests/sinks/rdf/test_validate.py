"""SHACL validation of an export on its own: the file carries what the shapes need."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kg.sinks as sinks
from kg.sinks.rdf.ontology import OWL_FILE
from kg.sinks.rdf.validate import summarize, validate


@pytest.fixture(scope="module")
def ttl(sample_graph_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("validate") / "g"
    shutil.copytree(sample_graph_dir, out)
    return sinks.export_graph(out, "ttl").path


def test_an_export_conforms_without_the_ontology(ttl):
    report = validate(ttl)
    assert report.conforms, summarize(report)
    assert report.triples > 1000


def test_without_its_class_axioms_an_export_fails_unless_the_ontology_is_given(ttl, tmp_path):
    stripped = tmp_path / "no-axioms.ttl"
    text = ttl.read_text(encoding="utf-8")
    blocks = [b for b in text.split("\n\n") if " rdfs:subClassOf " not in b]
    assert len(blocks) < len(text.split("\n\n"))
    stripped.write_text("\n\n".join(blocks), encoding="utf-8")
    report = validate(stripped)
    assert not report.conforms
    assert any("class <https://w3id.org/kg/ontology#Entity>" in g.message for g in report.groups), summarize(report)
    assert validate(stripped, ontology=OWL_FILE).conforms
