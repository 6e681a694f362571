"""Parallel extraction gives the same graph as a single process: local workers and Dask."""

from __future__ import annotations

import pytest

from kg.build import CHUNK, build
from kg.graph import GRAPH_FILE
from kg.readers import read_papers

from .conftest import PAPERS, SAMPLE, need


@pytest.fixture(scope="module")
def inputs():
    return [str(need(PAPERS / "icml2026-seed.txt")), str(SAMPLE), str(need(PAPERS / "icml2024.jsonl"))]


@pytest.fixture(scope="module")
def one_process(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("one")
    papers = list(read_papers(inputs))
    assert len(papers) > 2 * CHUNK  # enough to be split across workers
    build(inputs, out, workers=1)
    return (out / GRAPH_FILE).read_bytes()


def test_workers_give_the_identical_graph(inputs, one_process, tmp_path):
    build(inputs, tmp_path, workers=2)
    assert (tmp_path / GRAPH_FILE).read_bytes() == one_process


def test_dask_cluster_gives_the_identical_graph(inputs, one_process, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        build(inputs, tmp_path, dask=cluster.scheduler_address)
    assert (tmp_path / GRAPH_FILE).read_bytes() == one_process
