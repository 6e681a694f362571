"""Calls and commands used wrongly get a kg error that says what to do, never a traceback or a
silent surprise: API arguments of the wrong type, a bad Dask address, repair advice that names
the graph folder (not the generation inside it)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import kg
from kg.cli import exit_code
from kg.errors import GraphDamaged, UsageError
from kg.io.format import GRAPH_FILE, load_graph
from kg.io.generations import current

from .conftest import SAMPLE

ENV = {**os.environ, "KG_SPANS": "off", "KG_ENCODER": "off"}


@pytest.fixture(autouse=True)
def rules_only(monkeypatch):
    monkeypatch.setenv("KG_SPANS", "off")
    monkeypatch.setenv("KG_ENCODER", "off")


def test_one_path_is_one_paper_list_not_its_characters(tmp_path):
    g = kg.build(str(SAMPLE), out=tmp_path / "g")
    assert g.manifest["papers"] == 8
    assert kg.build(SAMPLE, out=tmp_path / "h").manifest["papers"] == 8


@pytest.mark.parametrize("call", [
    lambda tmp: kg.open(None), lambda tmp: kg.open(3), lambda tmp: kg.open(""),
    lambda tmp: kg.build([SAMPLE, None], out=tmp / "g"), lambda tmp: kg.build([SAMPLE], out=7),
], ids=["open None", "open a number", "open empty", "an input that is no path", "out a number"])
def test_wrong_argument_types_are_usage_errors(tmp_path, call):
    with pytest.raises(UsageError) as info:
        call(tmp_path)
    assert exit_code(info.value) == 2


def test_a_bad_dask_address_is_a_usage_error_not_a_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "kg.cli", "build", str(SAMPLE), "-o", str(tmp_path / "g"),
                           "--dask", "notaurl::"], capture_output=True, text=True, env=ENV, timeout=600)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "Dask scheduler" in proc.stderr and not (tmp_path / "g" / GRAPH_FILE).exists()


def test_repair_advice_names_the_graph_folder(tmp_path):
    g = tmp_path / "g"
    kg.build([SAMPLE], out=g)
    path = current(g) / GRAPH_FILE
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(GraphDamaged) as info:
        load_graph(current(g))  # as the readers that resolved the generation first call it
    assert f"-o {g} " in str(info.value) and f"-o {current(g)}" not in str(info.value)
